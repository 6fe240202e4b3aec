// list_jobs and read_job from the long tasks in the event store (a kind 43001 request, answered by
// 43002 accepted, 43003 progress, 43004 result, 43006 error, withdrawn by 43005), as the real
// relay's browsejobs and browsejob give them: requests newest first with "<created_at>:<id>"
// cursors, each settled by its newest terminal answer (done, failed, cancelled) or else open with
// the newest accepted or progress answer as its status; `state`, `mine` and this table's `room`.

import type { NostrEvent } from "nostr-tools/pure";
import {
  after,
  browseError,
  browseOk,
  type ContentView,
  cursorOf,
  limitOf,
  newestFirst,
  parseCursor,
  type Reader,
  tag,
  tagValues,
  text,
} from "./content_view.ts";

const REQUEST = 43001;
const ANSWER_KINDS = new Set([43002, 43003, 43004, 43005, 43006]);
const STATES = ["open", "done", "failed", "cancelled", "all"];

type Item = Record<string, unknown> & { id: string; created_at: number; state: string };

function answerOf(ev: NostrEvent): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: ev.id,
    kind: ev.kind,
    provider: ev.pubkey,
    content: ev.content,
    created_at: ev.created_at,
  };
  if (ev.kind !== 43004) return row;
  // The first e tag names the request; the later ones, the a and the r tags are artifacts.
  const artifacts = ev.tags.filter((t) => ["e", "a", "r"].includes(t[0]) && (t[1] ?? "") !== "")
    .filter((t, i, all) => t[0] !== "e" || all.findIndex((x) => x[0] === "e") !== i)
    .map((t) => ({ type: t[0], value: t[1] }));
  if (artifacts.length) row.artifacts = artifacts;
  return row;
}

/** The request's own fields, then what its answers (newest first) settle. */
function itemOf(ev: NostrEvent, answers: NostrEvent[]): Item {
  const expires = Number(tag(ev, "expiration"));
  const root = ev.tags.find((t) => t[0] === "e" && t[3] === "root" && /^[0-9a-f]{64}$/.test(t[1] ?? ""))?.[1];
  const settled: Record<string, unknown> = { state: "open", status: "queued" };
  let terminal = false;
  for (const answer of answers) {
    const row = answerOf(answer);
    const ends: Record<number, [string, string]> = { 43004: ["done", "result"], 43006: ["failed", "error"] };
    if (ends[answer.kind]) {
      const [state, field] = ends[answer.kind];
      settled[field] ??= row;
      if (!terminal) [settled.state, settled.status, terminal] = [state, state, true];
    } else if (answer.kind === 43005) {
      settled.cancelled_at ??= answer.created_at;
      if (!terminal) [settled.state, settled.status, terminal] = ["cancelled", "cancelled", true];
    } else if (settled.progress === undefined) {
      settled.progress = row;
      if (!terminal) settled.status = answer.kind === 43003 ? "running" : "accepted";
    }
  }
  return {
    id: ev.id,
    room: tag(ev, "h"),
    requester: ev.pubkey,
    assignees: tagValues(ev, "p"),
    ...(tag(ev, "subject").trim() !== "" ? { subject: tag(ev, "subject").trim() } : {}),
    content: ev.content,
    created_at: ev.created_at,
    ...(Number.isSafeInteger(expires) && expires > 0 ? { expires } : {}),
    ...(root ? { root } : {}),
    state: settled.state as string,
    status: settled.status,
    ...pick(settled, ["progress", "result", "error", "cancelled_at"]),
    event: ev,
  };
}

function pick(from: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => from[k] !== undefined).map((k) => [k, from[k]]));
}

/** Every request's answers, newest first, by the request they name (their first e tag). */
function answersByRequest(view: ContentView): Map<string, NostrEvent[]> {
  const byRequest = new Map<string, NostrEvent[]>();
  for (const ev of [...view.events].filter((e) => ANSWER_KINDS.has(e.kind)).sort(newestFirst)) {
    const request = tag(ev, "e");
    byRequest.get(request)?.push(ev) ?? byRequest.set(request, [ev]);
  }
  return byRequest;
}

/** Requests that expired are no longer served. */
function live(ev: NostrEvent, now: number): boolean {
  const expires = Number(tag(ev, "expiration"));
  return !(Number.isSafeInteger(expires) && expires > 0 && expires <= now);
}

export const listJobs: Reader = (args, view) => {
  const state = text(args.state) || "all";
  if (!STATES.includes(state)) {
    return browseError("invalid: job state must be open, done, failed, cancelled or all");
  }
  const cursor = parseCursor(args.cursor);
  if (cursor === null) return browseError("invalid: job cursor");
  const limit = limitOf(args.limit, 50);
  const room = text(args.room);
  const answers = answersByRequest(view);
  const items: Item[] = [];
  let next = "";
  const requests = view.events.filter((ev) =>
    ev.kind === REQUEST && live(ev, view.now) && after(ev, cursor) &&
    (args.mine !== true || ev.pubkey === view.caller) &&
    (room === "" || tag(ev, "h") === room)
  );
  for (const ev of requests.sort(newestFirst)) {
    const item = itemOf(ev, answers.get(ev.id) ?? []);
    if (state !== "all" && item.state !== state) continue;
    if (items.length === limit) {
      next = cursorOf(items[limit - 1]);
      break;
    }
    items.push(item);
  }
  return browseOk({ items, next_cursor: next });
};

export const readJob: Reader = (args, view) => {
  const id = text(args.id) || text(args.event);
  if (id.length !== 64) return browseError("invalid: job id");
  const request = view.events.find((ev) => ev.id === id && ev.kind === REQUEST && live(ev, view.now));
  if (!request) return browseError("not found: job request");
  const answers = answersByRequest(view).get(id) ?? [];
  return browseOk({ answers: [...answers].reverse().map(answerOf), item: itemOf(request, answers) });
};
