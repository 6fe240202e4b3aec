// An issue or a pull request from read_issue's and read_pull_request's answer (repository, root,
// item {id, kind, author, created_at, title, content, labels, status, and an agent's proposal
// marks}, replies newest first, each an event with file, line and side when it reviews a diff line
// and the same marks, updates, statuses, diff, diff_unavailable, diff_truncated, reply_cursor,
// can_status): title, status, labels, author, the description, a pull request's commits and diff
// (cut visibly), then the replies oldest first and the status changes. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import {
  bool,
  eventOf,
  eventsOf,
  type EventView,
  num,
  obj,
  oldestFirst,
  str,
  strings,
  tagValue,
} from "./fields.ts";
import { code, fenced, inline, joined, LIMITS, moreNote, type RenderContext, when, who } from "./markdown.ts";
import { count } from "./text.ts";
import { formatUri } from "./uri.ts";

/** The status each status kind sets; 1631 is "resolved" for an issue and "merged" for a pull request. */
function statusWord(kind: number | undefined, pull: boolean): string {
  const words: Record<number, string> = {
    1630: "open",
    1631: pull ? "merged" : "resolved",
    1632: "closed",
    1633: "draft",
  };
  return kind !== undefined && words[kind] ? words[kind] : `kind ${kind ?? "unknown"}`;
}

/**
 * An agent's proposal as the relay marks one (proposal true; approval pending, approved or rejected,
 * with who answered and when): waiting for a maintainer, or their answer. Undefined when unmarked.
 */
function proposalNote(value: JsonObject | undefined, ctx: RenderContext): string | undefined {
  if (value?.proposal !== true) return undefined;
  const approval = str(value, "approval");
  if (approval === undefined || approval === "pending") return "an agent's proposal awaiting a maintainer";
  const by = str(value, "approval_by"), at = num(value, "approval_at");
  const answer = approval === "approved" || approval === "rejected"
    ? approval
    : `answered ${inline(approval, 40)}`;
  return `an agent's proposal, ${answer}${by ? ` by ${who(by, ctx)}` : ""}${
    at === undefined ? "" : ` at ${when(at)}`
  }`;
}

/** What is read, where it lives, and how the header speaks of it. */
interface Subject {
  item: JsonObject | undefined;
  root: EventView | undefined;
  pull: boolean;
  /** The repository's URI. */
  repo: string;
}

function headerLines(answer: unknown, { item, root, pull, repo }: Subject, ctx: RenderContext): string[] {
  const title = str(item, "title") ?? (root ? tagValue(root.tags, "subject") : undefined) ?? "(untitled)";
  const facts = [`Status **${inline(str(item, "status") ?? "unknown", 20)}**`];
  const labels = strings(item, "labels").map((label) => code(label, 60));
  if (labels.length > 0) facts.push(`labels ${joined(labels, 20)}`);
  const author = str(item, "author") ?? root?.pubkey;
  facts.push(`opened by ${who(author, ctx)} at ${when(num(item, "created_at") ?? root?.createdAt)}`);
  const lines = [
    `# ${pull ? "Pull request" : "Issue"}: ${inline(title)}`,
    "",
    facts.join(" · "),
    "",
    `Repository ${code(repo, 400)}`,
  ];
  const proposal = proposalNote(item, ctx);
  if (proposal) lines.push("", `This is ${proposal}.`);
  if (bool(answer, "can_status")) lines.push("", "Your key may change its status.");
  const body = str(item, "content") ?? root?.content ?? "";
  lines.push(
    "",
    "Description:",
    "",
    ...(body.trim() === "" ? ["(none)"] : fenced(body, LIMITS.description)),
    "",
  );
  return lines;
}

/** A pull request's commits: the root's tip and base, then each update's, oldest first. */
function commitLines(
  root: EventView | undefined,
  updates: readonly EventView[],
  ctx: RenderContext,
): string[] {
  const lines = ["## Commits", ""];
  const tip = (event: EventView, what: string) => {
    const commit = tagValue(event.tags, "c");
    const mergeBase = tagValue(event.tags, "merge-base");
    const clone = tagValue(event.tags, "clone");
    return `- ${what} ${when(event.createdAt)} by ${who(event.pubkey, ctx)}: tip ${
      commit ? code(commit, 64) : "not named"
    }${mergeBase ? `, on ${code(mergeBase, 64)}` : ""}${clone ? `, from ${code(clone, 300)}` : ""}`;
  };
  if (root) lines.push(tip(root, "opened"));
  for (const update of oldestFirst(updates).slice(-LIMITS.items)) lines.push(tip(update, "updated"));
  return [...lines, ""];
}

function diffLines(answer: unknown): string[] {
  const diff = str(answer, "diff");
  const lines = ["## Diff", ""];
  if (diff) {
    lines.push(...fenced(diff, LIMITS.diff, "diff"));
    if (bool(answer, "diff_truncated")) lines.push("[the relay cut this diff]");
  } else {lines.push(
      `No diff${
        str(answer, "diff_unavailable") ? `: ${inline(str(answer, "diff_unavailable")!, 300)}` : "."
      }`,
    );}
  return [...lines, ""];
}

function replyLines(answer: unknown, ctx: RenderContext): string[] {
  const replies = oldestFirst(eventsOf(answer, "replies"));
  const shown = replies.slice(-LIMITS.items);
  const lines = [
    `## Replies (${count(replies.length)}, oldest first)`,
    "",
    ...moreNote(replies.length, shown.length, "older replies"),
  ];
  if (replies.length === 0) lines.push("No replies.", "");
  for (const reply of shown) {
    const file = str(reply.raw, "file"), line = num(reply.raw, "line"), side = str(reply.raw, "side");
    const anchor = file
      ? ` · on ${code(file, 200)}${line !== undefined ? ` line ${line}` : ""}${
        side ? ` (${inline(side, 10)} side)` : ""
      }`
      : "";
    const proposal = proposalNote(reply.raw, ctx);
    lines.push(
      `**${who(reply.pubkey, ctx)}** · ${when(reply.createdAt)} · reply${anchor}${
        proposal ? ` · ${proposal}` : ""
      }`,
    );
    lines.push(...fenced(reply.content, LIMITS.body), "");
  }
  const cursor = str(answer, "reply_cursor");
  if (cursor) lines.push(`[more replies: the relay pages them with cursor ${code(cursor, 100)}]`, "");
  return lines;
}

function statusLines(answer: unknown, pull: boolean, ctx: RenderContext): string[] {
  const statuses = oldestFirst(eventsOf(answer, "statuses")).slice(-LIMITS.items);
  if (statuses.length === 0) return [];
  return [
    "## Status changes (oldest first)",
    "",
    ...statuses.map((event) =>
      `- ${when(event.createdAt)} · ${who(event.pubkey, ctx)} · ${statusWord(event.kind, pull)}`
    ),
    "",
  ];
}

/** read_issue's or read_pull_request's answer; undefined when it is not one. */
export function renderIssue(
  answer: unknown,
  pull: boolean,
  owner: string,
  name: string,
  ctx: RenderContext,
): string | undefined {
  const item = obj(answer, "item");
  const root = eventOf(obj(answer, "root"));
  if (!isObject(answer) || (item === undefined && root === undefined)) return undefined;
  const lines = [
    ...headerLines(answer, {
      item,
      root,
      pull,
      repo: formatUri(ctx.base, { kind: "repo", values: { owner, name } }),
    }, ctx),
    ...(pull ? [...commitLines(root, eventsOf(answer, "updates"), ctx), ...diffLines(answer)] : []),
    ...replyLines(answer, ctx),
    ...statusLines(answer, pull, ctx),
  ];
  return lines.join("\n").trimEnd() + "\n";
}
