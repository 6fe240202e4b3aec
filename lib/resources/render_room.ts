// A room as a transcript and a thread as its conversation, from read_room's answer (room, members,
// messages newest first, edits, next_cursor) and read_thread's (room, root, replies newest first,
// edits, next_cursor): who (a name or short npub), when (UTC), what, oldest first whatever order
// the relay gives, each body in a fenced block. Edits replace what they edit; reactions and the
// relay's member notices are one line each. Pure.

import { isObject } from "../wire/json.ts";
import {
  arr,
  bool,
  eventOf,
  eventsOf,
  type EventView,
  num,
  obj,
  oldestFirst,
  str,
  tagValue,
  tagValues,
} from "./fields.ts";
import {
  code,
  fenced,
  inline,
  joined,
  LIMITS,
  moreNote,
  type RenderContext,
  shortId,
  when,
  who,
} from "./markdown.ts";
import { formatUri } from "./uri.ts";
import { count } from "./text.ts";
import type { JsonObject } from "../wire/mcp.ts";

/** Event kinds a room shows, as the relay names them. */
const CHAT = 9, THREAD = 11, REPLY = 12, REACTION = 7, RICH = 40002, EDIT = 40003;
const MEMBER_ADDED = 44100, MEMBER_REMOVED = 44101;

/** The newest edit of each event, by target id, from the author of the target only. */
function editsByTarget(edits: readonly EventView[]): Map<string, EventView> {
  const newest = new Map<string, EventView>();
  for (const edit of oldestFirst(edits)) {
    if (edit.kind !== EDIT) continue;
    const target = tagValues(edit.tags, "e").at(-1);
    if (target !== undefined) newest.set(target, edit);
  }
  return newest;
}

/** The room's heading and its line of facts. */
function roomHeader(room: JsonObject | undefined, fallbackId: string, ctx: RenderContext): string[] {
  const id = str(room, "id") ?? fallbackId;
  const name = str(room, "name")?.trim();
  const facts = [`Room ${code(id)}`];
  const access = str(room, "access");
  if (access) facts.push(access === "members" ? "members only" : inline(access, 40));
  const members = num(room, "members");
  if (members !== undefined) facts.push(`${count(members)} member${members === 1 ? "" : "s"}`);
  const created = num(room, "created_at");
  if (created) {
    facts.push(
      `created ${when(created)}${str(room, "created_by") ? ` by ${who(str(room, "created_by"), ctx)}` : ""}`,
    );
  }
  const lines = [
    `# ${name ? `${inline(name)} (#${inline(id, 64)})` : `#${inline(id, 64)}`}`,
    "",
    facts.join(" · "),
  ];
  const about = str(room, "about")?.trim();
  if (about) lines.push("", `About: ${inline(about, 500)}`);
  return lines;
}

/** What an event is, for its header line; a thread's URI when it opens one. */
function whatItIs(event: EventView, roomId: string, ctx: RenderContext): string {
  switch (event.kind) {
    case CHAT:
      return tagValue(event.tags, "e")
        ? `message in thread ${shortId(tagValue(event.tags, "e"))}`
        : "message";
    case THREAD: {
      const subject = tagValue(event.tags, "subject") ?? tagValue(event.tags, "title");
      const uri = event.id && /^[0-9a-f]{64}$/.test(event.id)
        ? ` · ${code(formatUri(ctx.base, { kind: "thread", values: { id: roomId, event: event.id } }), 300)}`
        : "";
      return `new thread${subject ? ` “${inline(subject)}”` : ""}${uri}`;
    }
    case REPLY:
      return `reply in thread ${shortId(tagValue(event.tags, "e"))}`;
    case RICH:
      return "message (rich content)";
    default:
      return `event of kind ${event.kind ?? "unknown"}`;
  }
}

/** One event of a room or thread as lines: a header line, then its body fenced. */
function eventLines(
  event: EventView,
  edits: Map<string, EventView>,
  roomId: string,
  ctx: RenderContext,
): string[] {
  const author = `**${who(event.pubkey, ctx)}**`;
  const time = when(event.createdAt);
  if (event.kind === REACTION) {
    return [
      `${author} · ${time} · reacted ${code(event.content, 16)} to ${shortId(tagValue(event.tags, "e"))}`,
      "",
    ];
  }
  if (event.kind === MEMBER_ADDED || event.kind === MEMBER_REMOVED) {
    const member = tagValue(event.tags, "p");
    const change = event.kind === MEMBER_ADDED ? "was added to the room" : "was removed from the room";
    return [`${time} · ${who(member, ctx)} ${change} (the relay's notice)`, ""];
  }
  const edit = event.id === undefined ? undefined : edits.get(event.id);
  const edited = edit !== undefined && edit.pubkey === event.pubkey;
  const header = `${author} · ${time} · ${whatItIs(event, roomId, ctx)}${
    edited ? ` · edited ${when(edit.createdAt)}` : ""
  }`;
  return [header, ...fenced(edited ? edit.content : event.content, LIMITS.body), ""];
}

/** The events a timeline shows: each once, edits left out (they are applied), oldest first. */
function shownEvents(events: readonly EventView[]): EventView[] {
  const seen = new Set<string>();
  return oldestFirst(events.filter((event) => {
    if (event.kind === EDIT) return false;
    if (event.id === undefined) return true;
    if (seen.has(event.id)) return false;
    seen.add(event.id);
    return true;
  }));
}

/** Events as lines: at most LIMITS.items of the newest, with a note of the rest; edits applied. */
function timeline(
  events: readonly EventView[],
  editEvents: readonly EventView[],
  roomId: string,
  ctx: RenderContext,
): string[] {
  const edits = editsByTarget([...editEvents, ...events]);
  const shown = shownEvents(events);
  const newest = shown.slice(-LIMITS.items);
  return [
    ...moreNote(shown.length, newest.length, "older events"),
    ...newest.flatMap((event) => eventLines(event, edits, roomId, ctx)),
  ];
}

function membersLine(members: unknown[], ctx: RenderContext): string[] {
  const named = members.map((member) => {
    const role = str(member, "role");
    const agent = bool(member, "agent") ? ", agent" : "";
    return `${who(str(member, "pubkey"), ctx)}${
      role ? ` (${inline(role, 20)}${agent})` : agent ? " (agent)" : ""
    }`;
  });
  return named.length === 0 ? [] : ["", `Members: ${joined(named)}`];
}

function olderNote(answer: unknown, what: string): string[] {
  const next = str(answer, "next_cursor");
  return next ? [`[older ${what} exist; the relay pages them with cursor ${code(next, 100)}]`, ""] : [];
}

/** read_room's answer as a transcript; undefined when it is not one. */
export function renderRoom(answer: unknown, roomId: string, ctx: RenderContext): string | undefined {
  const room = obj(answer, "room");
  if (room === undefined && !(isObject(answer) && Array.isArray(answer.messages))) return undefined;
  const messages = eventsOf(answer, "messages");
  const lines = [
    ...roomHeader(room, roomId, ctx),
    ...membersLine(arr(answer, "members"), ctx),
    "",
    "---",
    "",
  ];
  lines.push(
    messages.length === 0
      ? "No messages yet."
      : `The newest ${count(shownEvents(messages).length)} events, oldest first:`,
    "",
  );
  lines.push(
    ...olderNote(answer, "messages"),
    ...timeline(messages, eventsOf(answer, "edits"), str(room, "id") ?? roomId, ctx),
  );
  return lines.join("\n").trimEnd() + "\n";
}

/** read_thread's answer: the opening message, then the replies oldest first; undefined when not one. */
export function renderThread(answer: unknown, roomId: string, ctx: RenderContext): string | undefined {
  const root = eventOf(obj(answer, "root"));
  if (root === undefined) return undefined;
  const room = obj(answer, "room");
  const id = str(room, "id") ?? roomId;
  const subject = tagValue(root.tags, "subject") ?? tagValue(root.tags, "title");
  const place = str(room, "name")?.trim()
    ? `${inline(str(room, "name")!)} (#${inline(id, 64)})`
    : `#${inline(id, 64)}`;
  const replies = eventsOf(answer, "replies");
  const edits = editsByTarget([...eventsOf(answer, "edits")]);
  const lines = [
    `# Thread in ${place}${subject ? `: ${inline(subject)}` : ""}`,
    "",
    `Opened by ${who(root.pubkey, ctx)} at ${when(root.createdAt)} · ${count(replies.length)} repl${
      replies.length === 1 ? "y" : "ies"
    } shown, oldest first · room ${code(formatUri(ctx.base, { kind: "room", values: { id } }), 300)}`,
    "",
    "---",
    "",
    ...eventLines(root, edits, id, ctx),
    ...olderNote(answer, "replies"),
    ...timeline(replies, eventsOf(answer, "edits"), id, ctx),
  ];
  return lines.join("\n").trimEnd() + "\n";
}
