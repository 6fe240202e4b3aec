// A long task from read_job's answer (item {id, room, requester, assignees, subject, content,
// created_at, expires, root, state, status, progress, result, error, cancelled_at, event}, answers
// [{id, kind, provider, content, created_at, artifacts}] oldest first): what was asked, by whom and
// of whom, its state, then every answer oldest first whatever order the relay gives. Pure.

import { isObject } from "../wire/json.ts";
import { arr, num, obj, oldestFirst, str, strings } from "./fields.ts";
import { code, fenced, inline, joined, LIMITS, moreNote, type RenderContext, when, who } from "./markdown.ts";
import { count } from "./text.ts";
import { formatUri } from "./uri.ts";

/** What each answer kind is. */
const ANSWERS: Record<number, string> = {
  43002: "accepted",
  43003: "progress",
  43004: "result",
  43005: "cancelled",
  43006: "error",
};

const ROOM_ID = /^[a-z0-9_-]{1,64}$/;
const EVENT_ID = /^[0-9a-f]{64}$/;

function placeLines(item: unknown, ctx: RenderContext): string[] {
  const room = str(item, "room");
  if (!room || !ROOM_ID.test(room)) return [];
  const root = str(item, "root");
  const lines = ["", `Room: ${code(formatUri(ctx.base, { kind: "room", values: { id: room } }), 300)}`];
  if (root && EVENT_ID.test(root)) {
    lines.push(
      "",
      `Thread: ${code(formatUri(ctx.base, { kind: "thread", values: { id: room, event: root } }), 400)}`,
    );
  }
  return lines;
}

function headerLines(item: unknown, ctx: RenderContext): string[] {
  const content = str(item, "content") ?? "";
  const subject = str(item, "subject")?.trim() || content.split("\n", 1)[0].trim() || "(no subject)";
  const facts = [`State **${inline(str(item, "state") ?? "unknown", 20)}**`];
  const status = str(item, "status");
  if (status) facts.push(`status ${inline(status, 20)}`);
  facts.push(`asked by ${who(str(item, "requester"), ctx)} at ${when(num(item, "created_at"))}`);
  const assignees = strings(item, "assignees").map((key) => who(key, ctx));
  if (assignees.length > 0) facts.push(`asked of ${joined(assignees, 20)}`);
  const expires = num(item, "expires");
  if (expires) facts.push(`expires ${when(expires)}`);
  const cancelled = num(item, "cancelled_at");
  if (cancelled) facts.push(`cancelled ${when(cancelled)}`);
  return [
    `# Long task: ${inline(subject)}`,
    "",
    facts.join(" · "),
    ...placeLines(item, ctx),
    "",
    "Request:",
    "",
    ...(content.trim() === "" ? ["(no text)"] : fenced(content, LIMITS.description)),
    "",
  ];
}

function artifactLine(answer: unknown): string[] {
  const artifacts = arr(answer, "artifacts").filter(isObject).map((artifact) =>
    `${inline(str(artifact, "type") ?? "?", 4)} ${code(str(artifact, "value") ?? "", 300)}`
  );
  return artifacts.length === 0 ? [] : [`Artifacts: ${joined(artifacts, 20)}`];
}

function answerLines(answer: unknown, ctx: RenderContext): string[] {
  const answers = oldestFirst(
    arr(answer, "answers").filter(isObject).map((entry) => ({
      entry,
      id: str(entry, "id"),
      createdAt: num(entry, "created_at"),
    })),
  );
  const shown = answers.slice(-LIMITS.items);
  const lines = [
    `## Answers (${count(answers.length)}, oldest first)`,
    "",
    ...moreNote(answers.length, shown.length, "older answers"),
  ];
  if (answers.length === 0) lines.push("No answers yet.", "");
  for (const { entry, createdAt } of shown) {
    const kind = num(entry, "kind");
    const what = kind !== undefined && ANSWERS[kind] ? ANSWERS[kind] : `kind ${kind ?? "unknown"}`;
    lines.push(`**${who(str(entry, "provider"), ctx)}** · ${when(createdAt)} · ${what}`);
    const content = str(entry, "content") ?? "";
    if (content !== "") lines.push(...fenced(content, LIMITS.body));
    lines.push(...artifactLine(entry), "");
  }
  return lines;
}

/** read_job's answer; undefined when it is not one. */
export function renderJob(answer: unknown, ctx: RenderContext): string | undefined {
  const item = obj(answer, "item");
  if (item === undefined) return undefined;
  return [...headerLines(item, ctx), ...answerLines(answer, ctx)].join("\n").trimEnd() + "\n";
}
