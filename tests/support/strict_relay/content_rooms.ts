// list_rooms, read_room and read_thread from seeded rooms and the room events in the event store,
// shaped as the real relay's browserooms, browseroom and browsethread: rooms by id with the id as
// cursor, raw room events newest first with "<created_at>:<id>" cursors, members owners first, the
// newest edit of each message shown, and its errors ("not found: room", "invalid: room cursor",
// "not found: thread" and the rest). The relay lists no members to a key without a room role when
// its member directory is private; the twin has no such setting and lists them to everyone.

import type { NostrEvent } from "nostr-tools/pure";
import type { MemberSeed, RoomSeed } from "./content_types.ts";
import {
  browseError,
  browseOk,
  type ContentView,
  HEX64,
  limitOf,
  newestFirst,
  pageEvents,
  parseCursor,
  type Reader,
  tag,
  text,
} from "./content_view.ts";

/**
 * The kinds read_room serves: messages, threads, thread replies and reactions. The relay's own list
 * (roomMessageKinds) is not in the source we read; these are the twin's.
 */
const ROOM_KINDS = new Set([9, 11, 12, 7]);
/** Rich content and an edit of a message: the first counts as a message, the second replaces one. */
const RICH = 40002;
const EDIT = 40003;
/** The kinds whose time is a room's last_message_at, and that an edit may replace. */
const MESSAGE_KINDS = new Set([9, 11, 12, RICH]);
const ROLE_ORDER: Record<string, number> = { owner: 0, admin: 1 };

interface MemberRow {
  pubkey: string;
  role: string;
  added_at: number;
  agent?: boolean;
}

/** Each room's events, edits and rich content among them, in arrival order. */
function roomEvents(view: ContentView): Map<string, NostrEvent[]> {
  const byRoom = new Map<string, NostrEvent[]>();
  for (const ev of view.events) {
    const room = ROOM_KINDS.has(ev.kind) || ev.kind === RICH || ev.kind === EDIT ? tag(ev, "h") : "";
    if (!view.rooms.has(room)) continue;
    byRoom.get(room)?.push(ev) ?? byRoom.set(room, [ev]);
  }
  return byRoom;
}

function memberRow(m: MemberSeed, room: RoomSeed): MemberRow {
  const row: MemberRow = {
    pubkey: m.pubkey,
    role: m.role ?? "member",
    added_at: m.added_at ?? room.created_at ?? 0,
  };
  if (m.agent) row.agent = true;
  return row;
}

/** The seeded members, and (in an open room) whoever posted, who joined with their first message. */
function membersOf(room: RoomSeed, events: NostrEvent[]): MemberRow[] {
  const rows = new Map((room.members ?? []).map((m) => [m.pubkey, memberRow(m, room)]));
  if ((room.access ?? "open") === "open") {
    for (const ev of [...events].sort((a, b) => a.created_at - b.created_at)) {
      if (MESSAGE_KINDS.has(ev.kind) && !rows.has(ev.pubkey)) {
        rows.set(ev.pubkey, { pubkey: ev.pubkey, role: "member", added_at: ev.created_at });
      }
    }
  }
  return [...rows.values()].sort((a, b) =>
    (ROLE_ORDER[a.role] ?? 2) - (ROLE_ORDER[b.role] ?? 2) || a.added_at - b.added_at ||
    (a.pubkey < b.pubkey ? -1 : 1)
  );
}

/** The room's own fields, in the relay's order, then its counts and the caller's role. */
function summary(room: RoomSeed, count: number, lastAt: number, role: string): Record<string, unknown> {
  return {
    id: room.id,
    name: room.name,
    about: room.about ?? "",
    picture: room.picture ?? "",
    access: room.access ?? "open",
    created_by: room.created_by ?? "",
    created_at: room.created_at ?? 0,
    event_id: room.event_id ?? "",
    members: count,
    last_message_at: lastAt,
    role,
  };
}

interface RoomState {
  room: RoomSeed;
  events: NostrEvent[];
  members: MemberRow[];
  role: string;
}

function stateOf(room: RoomSeed, events: NostrEvent[], caller: string): RoomState {
  const members = membersOf(room, events);
  return { room, events, members, role: members.find((m) => m.pubkey === caller)?.role ?? "" };
}

function summaryOf(s: RoomState): Record<string, unknown> {
  const last = s.events.reduce(
    (at, ev) => (MESSAGE_KINDS.has(ev.kind) ? Math.max(at, ev.created_at) : at),
    0,
  );
  return summary(s.room, s.members.length, last, s.role);
}

/** The e tag an edit names last: the message it replaces. */
const editTarget = (ev: NostrEvent) => ev.tags.filter((t) => t[0] === "e" && t.length > 1).at(-1)?.[1];

/** The newest edit by its own author of each message shown, newest first. */
function editsOf(state: RoomState, shown: NostrEvent[]): NostrEvent[] {
  const newest = (target: NostrEvent) =>
    state.events.filter((ev) =>
      ev.kind === EDIT && ev.pubkey === target.pubkey && ev.created_at >= target.created_at &&
      editTarget(ev) === target.id
    ).sort(newestFirst)[0];
  return shown.filter((ev) => MESSAGE_KINDS.has(ev.kind)).map(newest).filter((ev) => ev !== undefined)
    .sort(newestFirst);
}

/** A members room is hidden from keys that are not its members. */
const hidden = (s: RoomState) => s.room.access === "members" && s.role === "";

/** The room the call names, or the relay's refusal. */
function roomFor(view: ContentView, id: string, byRoom: Map<string, NostrEvent[]>): RoomState | string {
  const room = view.rooms.get(id);
  if (!room) return "not found: room";
  const state = stateOf(room, byRoom.get(id) ?? [], view.caller);
  if (hidden(state)) return "restricted: this room is members-only";
  return state;
}

export const listRooms: Reader = (args, view) => {
  const limit = limitOf(args.limit, 100);
  const cursor = text(args.cursor);
  const byRoom = roomEvents(view);
  const items: Record<string, unknown>[] = [];
  let next = "";
  for (const id of [...view.rooms.keys()].sort()) {
    if (id <= cursor) continue;
    const state = stateOf(view.rooms.get(id)!, byRoom.get(id) ?? [], view.caller);
    if (hidden(state)) continue;
    if (items.length === limit) {
      next = items[items.length - 1].id as string;
      break;
    }
    items.push(summaryOf(state));
  }
  return browseOk({ items, next_cursor: next });
};

export const readRoom: Reader = (args, view) => {
  const byRoom = roomEvents(view);
  const state = roomFor(view, text(args.id), byRoom);
  if (typeof state === "string") return browseError(state);
  const cursor = parseCursor(args.cursor);
  if (cursor === null) return browseError("invalid: room cursor");
  const sorted = state.events.filter((ev) => ROOM_KINDS.has(ev.kind)).sort(newestFirst);
  const { page, next } = pageEvents(sorted, cursor, limitOf(args.limit, 100));
  return browseOk({
    edits: editsOf(state, page),
    members: state.members,
    messages: page,
    next_cursor: next,
    room: summaryOf(state),
  });
};

/** The thread a room event replies in: its e tag marked root, or a kind 12's first e tag. */
function replyRoot(ev: NostrEvent): string {
  const marked = ev.tags.find((t) => t[0] === "e" && t[3] === "root")?.[1];
  if (marked) return marked;
  return ev.kind === 12 ? tag(ev, "e") : "";
}

/** Follows reply roots up from `id` to the thread's root message (bounded, as the relay is). */
function threadRoot(events: NostrEvent[], id: string): NostrEvent | undefined {
  const byId = new Map(events.map((ev) => [ev.id, ev]));
  const seen = new Set<string>();
  while (seen.size < 64 && !seen.has(id)) {
    seen.add(id);
    const ev = byId.get(id);
    if (!ev || ![9, 11, 12].includes(ev.kind)) return undefined;
    const parent = replyRoot(ev);
    if (parent === "") return ev;
    id = parent;
  }
  return undefined;
}

/** Every kind 9 or 12 reply under the root, level by level, newest first. */
function threadReplies(events: NostrEvent[], root: string): NostrEvent[] {
  const known = new Set([root]);
  const replies: NostrEvent[] = [];
  for (let grew = true, depth = 0; grew && depth < 64; depth++) {
    grew = false;
    for (const ev of events) {
      if ((ev.kind === 9 || ev.kind === 12) && !known.has(ev.id) && known.has(replyRoot(ev))) {
        known.add(ev.id);
        replies.push(ev);
        grew = true;
      }
    }
  }
  return replies.sort(newestFirst);
}

export const readThread: Reader = (args, view) => {
  const byRoom = roomEvents(view);
  const state = roomFor(view, text(args.id), byRoom);
  if (typeof state === "string") return browseError(state);
  const rootId = text(args.event);
  if (!HEX64.test(rootId)) return browseError("invalid: thread root");
  const cursor = parseCursor(args.cursor);
  if (cursor === null) return browseError("invalid: thread cursor");
  const root = threadRoot(state.events, rootId);
  if (!root) return browseError("not found: thread");
  const replies = threadReplies(state.events, root.id);
  const { page, next } = pageEvents(replies, cursor, limitOf(args.limit, 100));
  // The thread page names the room by its own fields alone: its counts and role stay zero.
  return browseOk({
    edits: editsOf(state, [root, ...page]),
    next_cursor: next,
    replies: page,
    room: summary(state.room, 0, 0, ""),
    root,
  });
};
