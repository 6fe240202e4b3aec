// The room write tools (post_message, start_thread, reply_in_thread, react, create_room,
// request_decision): how tinyrelay builds each template and checks a signed event (mcp_tools.go), and
// how an unsigned reply or in-thread request has its root resolved to the thread root first
// (canonicalizeRoomThreadUnsigned, room_threads.go). Pure.

import type { NostrEvent } from "nostr-tools/pure";
import { imetaProblem, roomContent } from "./write_attachments.ts";
import {
  type BuildContext,
  type Built,
  expirationProblem,
  expirationTag,
  hex64,
  int,
  isReaction,
  str,
  tag,
  type Tags,
  tagValues,
  template,
  trim,
  type Unsigned,
  validRoomId,
  type WriteSpec,
} from "./write_kit.ts";
import { SHAPES } from "./write_shapes.ts";
import type { Args } from "./values.ts";

const REQUESTS = ["approve", "decide", "question"];

function roomTag(args: Args): Tags | { error: string } {
  const room = str(args, "room");
  return validRoomId(room) ? [["h", room]] : { error: "room is required and must be a room id" };
}

/** Hex keys of a list argument as p tags, each once (mcpPubKeys). */
function mentions(args: Args, tags: Tags): Tags {
  const seen = new Set<string>();
  for (const value of Array.isArray(args.mentions) ? args.mentions : []) {
    if (typeof value === "string" && hex64(value) && !seen.has(value)) {
      seen.add(value);
      tags.push(["p", value]);
    }
  }
  return tags;
}

function buildMessage(args: Args, ctx: BuildContext): Built {
  const room = roomTag(args);
  if ("error" in room) return room;
  const body = roomContent(args);
  if ("error" in body) return body;
  if (trim(body.content) === "") return { error: "content or attachments is required" };
  return template(9, ctx.now, mentions(args, [...room, ...body.tags]), body.content);
}

function buildThread(args: Args, ctx: BuildContext): Built {
  const room = roomTag(args);
  if ("error" in room) return room;
  const body = roomContent(args);
  if ("error" in body) return body;
  if (trim(body.content) === "") return { error: "content or attachments is required" };
  const title = trim(str(args, "title"));
  return template(11, ctx.now, [...room, ...(title ? [["subject", title]] : []), ...body.tags], body.content);
}

function buildReply(args: Args, ctx: BuildContext): Built {
  const room = roomTag(args);
  if ("error" in room) return room;
  const root = str(args, "root"), rootPubkey = str(args, "root_pubkey");
  const body = roomContent(args);
  // As the relay has it: a bad attachment leaves no content, so it is reported as missing content.
  if (root === "" || "error" in body || trim(body.content) === "") {
    return { error: "root and content or attachments are required" };
  }
  const tags: Tags = [...room, ["e", root], ...(rootPubkey ? [["p", rootPubkey]] : []), ...body.tags];
  return template(12, ctx.now, tags, body.content);
}

function buildReact(args: Args, ctx: BuildContext): Built {
  const target = str(args, "target"), targetPubkey = str(args, "target_pubkey");
  const content = str(args, "content"), room = str(args, "room");
  if (target === "" || targetPubkey === "" || content === "") {
    return { error: "target, target_pubkey and content are required" };
  }
  if (!isReaction(content)) return { error: "content must be +, - or one emoji" };
  return template(7, ctx.now, [["e", target], ["p", targetPubkey], ...(room ? [["h", room]] : [])], content);
}

function buildRoom(args: Args, ctx: BuildContext): Built {
  const room = roomTag(args);
  if ("error" in room) return room;
  const name = trim(str(args, "name"));
  if (name === "") return { error: "name is required" };
  const about = trim(str(args, "about")), visibility = str(args, "visibility");
  const tags: Tags = [...room, ["name", name]];
  if (about) tags.push(["about", about]);
  if (visibility) tags.push(["visibility", visibility]);
  return template(9007, ctx.now, tags, "");
}

/** Where a request goes: a room (and a thread in it), or a comment under another event. */
function requestPlace(args: Args, pubkey: string): { kind: number; tags: Tags } | { error: string } {
  const room = str(args, "room"), root = str(args, "root"), rootPubkey = str(args, "root_pubkey");
  if (room !== "") {
    return { kind: 9, tags: root !== "" ? [["h", room], ["e", root, "", "root"]] : [["h", room]] };
  }
  if (root === "") return { error: "room or root is required" };
  const rootKind = int(args, "root_kind");
  if (rootPubkey === "" || rootKind <= 0) return { error: "root needs root_kind and root_pubkey" };
  const k = String(rootKind);
  const tags: Tags = [["E", root, "", rootPubkey], ["K", k], ["P", rootPubkey], ["e", root, "", rootPubkey], [
    "k",
    k,
  ]];
  if (rootPubkey !== pubkey) tags.push(["p", rootPubkey]);
  return { kind: 1111, tags };
}

function buildRequest(args: Args, ctx: BuildContext): Built {
  const pubkey = str(args, "pubkey"), request = str(args, "request"), content = str(args, "content");
  if (pubkey === "" || !REQUESTS.includes(request) || trim(content) === "") {
    return { error: "pubkey, request and content are required" };
  }
  const place = requestPlace(args, pubkey);
  if ("error" in place) return place;
  const expiration = expirationTag(args, ctx.now);
  if ("error" in expiration) return expiration;
  const tags: Tags = [...place.tags, ["request", request], ["p", pubkey], ...expiration.tags];
  const subject = trim(str(args, "subject"));
  if (subject) tags.push(["subject", subject]);
  return template(place.kind, ctx.now, tags, content);
}

/** The reply's or in-thread request's root followed to the thread root (at most 64 steps), or "not found: thread". */
export function resolveThread(unsigned: Unsigned, ctx: BuildContext): Built {
  if (unsigned.kind !== 12 && unsigned.kind !== 9) return { unsigned };
  const room = tag(unsigned.tags, "h");
  let id = tag(unsigned.tags, "e");
  if (room === "" || id === "") return { unsigned };
  const seen = new Set<string>();
  while (seen.size < 64 && !seen.has(id)) {
    seen.add(id);
    const found = ctx.event(id);
    if (!found || tag(found.tags, "h") !== room || ![9, 11, 12, 40002].includes(found.kind)) break;
    const parent = roomReplyRoot(found);
    if (parent === "") {
      const tags = unsigned.tags.map((t) => [...t]);
      tags.find((t) => t.length >= 2 && t[0] === "e")![1] = found.id;
      const p = unsigned.kind === 12 ? tags.find((t) => t.length >= 2 && t[0] === "p") : undefined;
      if (p) p[1] = found.pubkey;
      return { unsigned: { ...unsigned, tags } };
    }
    id = parent;
  }
  return { error: "not found: thread" };
}

/** The event a room message or reply answers: its marked root, else its marked reply, else an unmarked e. */
export function roomReplyRoot(ev: NostrEvent): string {
  if (ev.kind !== 9 && ev.kind !== 12) return "";
  let root = "", reply = "", first = "", marked = false;
  for (const t of ev.tags) {
    if (t.length < 2 || t[0] !== "e" || !/^[0-9a-fA-F]{64}$/.test(t[1])) continue;
    const marker = t.length > 3 ? t[3] : "";
    if (marker !== "") marked = true;
    if (marker === "root") root = t[1];
    else if (marker === "reply") reply = t[1];
    else if (marker === "" && first === "") first = t[1];
  }
  return root || reply || (marked ? "" : first);
}

function roomEventProblem(ev: NostrEvent, kind: number, what: string): string | undefined {
  if (ev.kind !== kind) return `kind ${ev.kind} is not a ${what}`;
  return validRoomId(tag(ev.tags, "h")) ? undefined : "the h tag must name the room";
}

/** A room post with text: its kind and room, non-empty content, well-formed attachments. */
const post =
  (kind: number, what: string, extra?: (ev: NostrEvent) => string | undefined) => (ev: NostrEvent) =>
    roomEventProblem(ev, kind, what) ?? extra?.(ev) ??
      (trim(ev.content) === "" ? "content must not be empty" : imetaProblem(ev));

function checkRequest(ev: NostrEvent, now: number): string | undefined {
  if (ev.kind === 9) {
    const problem = roomEventProblem(ev, 9, "chat message");
    if (problem) return problem;
  } else if (ev.kind === 1111) {
    const t = ev.tags;
    if (
      !hex64(tag(t, "E")) || !hex64(tag(t, "P")) || tag(t, "K") === "" || !hex64(tag(t, "e")) ||
      tag(t, "k") === ""
    ) {
      return "the E, K, P, e and k tags must name the root event, its kind and its author";
    }
  } else return `kind ${ev.kind} is not a chat message or comment`;
  if (!REQUESTS.includes(tag(ev.tags, "request"))) {
    return "the request tag must be approve, decide or question";
  }
  const asked = tagValues(ev.tags, "p");
  if (asked.length === 0 || !hex64(asked[asked.length - 1])) return "a p tag must name the person asked";
  return expirationProblem(ev.tags, now) ??
    (trim(ev.content) === "" ? "content must not be empty" : undefined);
}

export const ROOM_WRITES: Record<string, WriteSpec> = {
  post_message: { build: buildMessage, check: post(9, "chat message"), shape: SHAPES.message },
  start_thread: { build: buildThread, check: post(11, "thread"), shape: SHAPES.thread },
  reply_in_thread: {
    build: buildReply,
    check: post(
      12,
      "thread reply",
      (ev) => hex64(tag(ev.tags, "e")) ? undefined : "the e tag must name the thread root",
    ),
    shape: SHAPES.reply,
  },
  react: {
    build: buildReact,
    check: (ev) => {
      if (ev.kind !== 7) return `kind ${ev.kind} is not a reaction`;
      if (!hex64(tag(ev.tags, "e")) || !hex64(tag(ev.tags, "p"))) {
        return "the e and p tags must name the event and its author";
      }
      const room = tag(ev.tags, "h");
      if (room !== "" && !validRoomId(room)) return "the h tag must name a room";
      return isReaction(ev.content) ? undefined : "content must be +, - or one emoji";
    },
    shape: SHAPES.react,
  },
  create_room: {
    build: buildRoom,
    check: (ev) => {
      const problem = roomEventProblem(ev, 9007, "room creation");
      if (problem) return problem;
      if (trim(tag(ev.tags, "name")) === "") return "the name tag must not be empty";
      const visibility = tag(ev.tags, "visibility");
      return visibility !== "" && visibility !== "open" && visibility !== "members"
        ? "the visibility tag must be open or members"
        : undefined;
    },
    shape: SHAPES.room,
  },
  request_decision: { build: buildRequest, check: checkRequest, shape: SHAPES.request },
};
