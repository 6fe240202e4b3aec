// list_issues, read_issue, list_pull_requests and read_pull_request from the repository's kind 1621
// and 1618 events in the event store, as the real relay's browseissues/browsepulls and
// browseissue/browsepull give them: items newest first with "<created_at>:<id>" cursors, the status
// set by the newest status event from the author or a maintainer, `state` (or this table's
// `status`), `label` and `q` filters, replies (kind 1111 NIP-22 comments) newest first, 50 a page
// (at most 100), and a pull request's diff cut at 512 KiB. The relay also marks agents' proposals
// on items and replies (proposal, approval…); the source that attaches them is not in the index we
// read, and the twin seeds no agent grants, so it never sends them.

import type { NostrEvent } from "nostr-tools/pure";
import { findRepository, NO_REPOSITORY, type Repository, repositoryRecord } from "./content_repos.ts";
import {
  after,
  browseError,
  browseOk,
  type ContentView,
  cursorOf,
  cutUtf8,
  limitOf,
  newestFirst,
  parseCursor,
  type Reader,
  tag,
  tagValues,
  text,
} from "./content_view.ts";

const STATES = ["open", "resolved", "merged", "closed", "draft"];
const STATUS_KINDS = new Set([1630, 1631, 1632, 1633]);
const PULL = 1618;

/** The title: a subject, title or name tag, a JSON content's title or subject, or the first line. */
function titleOf(ev: NostrEvent): string {
  for (const name of ["subject", "title", "name"]) if (tag(ev, name) !== "") return tag(ev, name);
  const content = ev.content.trim();
  try {
    const parsed = JSON.parse(content);
    if (typeof parsed?.title === "string" && parsed.title !== "") return parsed.title;
    if (typeof parsed?.subject === "string" && parsed.subject !== "") return parsed.subject;
  } catch {
    // not JSON: the first line
  }
  return content.split("\n")[0];
}

function itemOf(ev: NostrEvent, status: string): Record<string, unknown> {
  return {
    id: ev.id,
    kind: ev.kind,
    author: ev.pubkey,
    created_at: ev.created_at,
    title: titleOf(ev),
    content: ev.content,
    labels: tagValues(ev, "t"),
    status,
  };
}

function matches(ev: NostrEvent, q: string, label: string): boolean {
  const needle = q.trim().toLowerCase();
  const labels = tagValues(ev, "t");
  const found = needle === "" || titleOf(ev).toLowerCase().includes(needle) ||
    ev.content.toLowerCase().includes(needle) || labels.some((l) => l.toLowerCase().includes(needle));
  return found && (label === "" || labels.some((l) => l.toLowerCase() === label.toLowerCase()));
}

const coordinateOf = (r: Repository) => `30617:${r.owner}:${r.identifier}`;
const names = (ev: NostrEvent, coordinate: string) =>
  ev.tags.some((t) => (t[0] === "a" || t[0] === "A") && t[1] === coordinate);

/** The status events that count for a root: its author's and the maintainers', newest first. */
function statusEvents(view: ContentView, repo: Repository, root: NostrEvent): NostrEvent[] {
  return view.events.filter((ev) =>
    STATUS_KINDS.has(ev.kind) && tagValues(ev, "e").includes(root.id) &&
    (ev.pubkey === root.pubkey || repo.maintainerKeys.includes(ev.pubkey))
  ).sort(newestFirst);
}

function statusOf(root: NostrEvent, statuses: NostrEvent[]): string {
  if (statuses.length === 0) return "open";
  const kind = statuses[0].kind;
  if (kind === 1631) return root.kind === 1621 ? "resolved" : "merged";
  return kind === 1630 ? "open" : kind === 1632 ? "closed" : "draft";
}

function listOf(kind: number): Reader {
  return (args, view) => {
    const repo = findRepository(view, args.owner, args.repo);
    if (!repo) return browseError(NO_REPOSITORY);
    const limit = limitOf(args.limit, 50);
    const cursor = parseCursor(args.cursor);
    if (cursor === null) return browseError("invalid: collaboration cursor");
    const state = text(args.state) || text(args.status);
    if (state !== "" && !STATES.includes(state)) return browseError("invalid: issue or pull request status");
    const coordinate = coordinateOf(repo);
    const roots = view.events.filter((ev) => ev.kind === kind && names(ev, coordinate) && after(ev, cursor));
    const items: Record<string, unknown>[] = [];
    let next = "";
    for (const root of roots.sort(newestFirst)) {
      if (!matches(root, text(args.q), text(args.label))) continue;
      const status = statusOf(root, statusEvents(view, repo, root));
      if (state !== "" && status !== state) continue;
      if (items.length === limit) {
        next = cursorOf(items[limit - 1] as { created_at: number; id: string });
        break;
      }
      items.push(itemOf(root, status));
    }
    return browseOk({ items, next_cursor: next, repository: repositoryRecord(repo) });
  };
}

/** A reply with its diff-line anchor, when it names one, after the event's own fields. */
function replyRow(ev: NostrEvent): Record<string, unknown> {
  const row: Record<string, unknown> = { ...ev };
  const line = ev.tags.find((t) => t[0] === "line");
  if (tag(ev, "file") !== "" && line && /^\d+$/.test(line[1] ?? "") && ["old", "new"].includes(line[2])) {
    Object.assign(row, { file: tag(ev, "file"), line: Number(line[1]), side: line[2] });
  }
  return row;
}

/** The root the call names (owner, repo and event, as the relay's schema requires) and its repository. */
function rootFor(args: Record<string, unknown>, view: ContentView, kind: number) {
  const id = text(args.event);
  if (id.length !== 64) return "invalid: collaboration event";
  const repo = findRepository(view, args.owner, args.repo);
  if (!repo) return NO_REPOSITORY;
  const found = view.events.find((ev) => ev.id === id);
  if (!found || found.kind !== kind || !names(found, coordinateOf(repo))) {
    return "not found: collaboration event";
  }
  return { root: found, repo };
}

/** The relay renders at most this much of a pull request's diff, and says when it cut it. */
const PULL_DIFF_BYTES = 512 * 1024;
const OBJECT_ID = /^([0-9a-f]{40}|[0-9a-f]{64})$/;

/** The pull request's diff fields: the diff (cut as the relay cuts it), or the relay's reason for none. */
function pullDiff(repo: Repository, tipEvent: NostrEvent): Record<string, unknown> {
  const tip = tag(tipEvent, "c");
  const base = tag(tipEvent, "merge-base");
  const local = (oid: string) => (repo.seed.commits ?? []).find((c) => c.oid === oid);
  if (base !== "" && !OBJECT_ID.test(base)) return { diff_unavailable: "invalid base commit" };
  if (!OBJECT_ID.test(tip)) return { diff_unavailable: "invalid tip commit" };
  const commit = local(tip);
  if (!commit) return { diff_unavailable: "tip commit is unavailable locally" };
  if (base !== "" && !local(base)) return { diff_unavailable: "base commit is unavailable locally" };
  // The seed holds each commit's diff; ancestry and the merge base are not modelled.
  const { text, cut } = cutUtf8(commit.diff ?? "", PULL_DIFF_BYTES);
  return { ...(text === "" ? {} : { diff: text }), ...(cut ? { diff_truncated: true } : {}) };
}

/** The pull request's revisions (kind 1619 from its author), newest first, and its diff fields. */
function pullParts(view: ContentView, repo: Repository, root: NostrEvent): Record<string, unknown> {
  const updates = view.events.filter((ev) =>
    ev.kind === 1619 && ev.pubkey === root.pubkey && tag(ev, "E") === root.id && tag(ev, "P") === root.pubkey
  ).sort(newestFirst);
  return { updates, ...pullDiff(repo, updates[0] ?? root) };
}

function detailOf(kind: number): Reader {
  return (args, view) => {
    const found = rootFor(args, view, kind);
    if (typeof found === "string") return browseError(found);
    const { root, repo } = found;
    const cursor = parseCursor(args.cursor);
    if (cursor === null) return browseError("invalid: collaboration cursor");
    const replyLimit = limitOf(args.limit, 50);
    const statuses = statusEvents(view, repo, root).slice(0, 100);
    const replies = view.events.filter((ev) =>
      ev.kind === 1111 && tag(ev, "E") === root.id && tag(ev, "K") === String(root.kind) &&
      tag(ev, "P") === root.pubkey && after(ev, cursor)
    ).sort(newestFirst);
    const page = replies.slice(0, replyLimit);
    const { updates, diff, diff_unavailable, diff_truncated } = kind === PULL
      ? pullParts(view, repo, root)
      : { updates: null };
    // Go's struct order, its omitempty fields left out when empty.
    return browseOk({
      repository: repositoryRecord(repo),
      root,
      item: itemOf(root, statusOf(root, statuses)),
      replies: page.map(replyRow),
      updates,
      statuses,
      ...(diff === undefined ? {} : { diff }),
      can_status: view.caller === root.pubkey || repo.maintainerKeys.includes(view.caller),
      ...(diff_unavailable === undefined ? {} : { diff_unavailable }),
      ...(diff_truncated === undefined ? {} : { diff_truncated }),
      ...(replies.length > replyLimit ? { reply_cursor: cursorOf(page[page.length - 1]) } : {}),
    });
  };
}

export const listIssues = listOf(1621);
export const listPulls = listOf(PULL);
export const readIssue = detailOf(1621);
export const readPull = detailOf(PULL);
