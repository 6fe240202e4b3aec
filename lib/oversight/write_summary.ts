// What a write means, in words a person can check: the room, thread or
// target its tags name, what kind of publication it is, a visible excerpt of
// its content. Shared by the receipt, the confirmation and the advice after a
// lost answer. Pure. Every string here comes from the relay or the model, so
// each is made printable before it is shown.

import { isObject, parseJson } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";

/** The fields of an event a summary reads: what the relay returned as a template, or a signed event. */
export interface EventFields {
  kind: number;
  tags: string[][];
  content: string;
}

/** Where a write goes, as its tags name it. */
export interface WritePlace {
  /** The room (`h` tag). */
  room?: string;
  /** The thread root, for a reply in a thread or a room message under one (`e` tag marked root). */
  thread?: string;
}

/**
 * Characters that would let a relay's text rewrite what a person sees: C0 and C1 controls (a
 * terminal escape), and the bidirectional overrides and isolates (text shown in another order
 * than it is published).
 */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const HIDING = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** `text` cut at `max` characters (code points), with a visible ellipsis when cut. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = [...text];
  return points.length > max ? `${points.slice(0, max).join("")}…` : text;
}

/** Each hiding character as a visible `\uXXXX` escape. */
function escapeHiding(text: string): string {
  return text.replace(HIDING, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** `text` safe to show on one line: controls and direction marks as visible escapes, cut at `max`. */
export function printable(text: string, max: number): string {
  return escapeHiding(cut(text, max));
}

/** `text` as a JSON string, safe to show: cut at `max`, then every hiding character escaped. */
export function quoted(text: string, max: number): string {
  return escapeHiding(JSON.stringify(cut(text, max)));
}

/**
 * `text` safe to show as a block: like printable, but line breaks kept as line breaks. Cut at
 * `max` characters with a line saying how much was not shown.
 */
export function printableBlock(text: string, max: number): string {
  const points = [...text];
  const shown = points.length > max ? points.slice(0, max).join("") : text;
  const lines = shown.replace(/\r\n?/g, "\n").split("\n").map(escapeHiding);
  const more = points.length - max;
  if (more > 0) lines.push(`[cut: ${more.toLocaleString("en-US")} more characters not shown]`);
  return lines.join("\n");
}

/** The first value of the first tag named `name`. */
export function tagValue(tags: readonly string[][], name: string): string | undefined {
  return tags.find((tag) => tag[0] === name && tag.length > 1)?.[1];
}

/** The room and thread a write's tags name. */
export function placeOf(event: EventFields): WritePlace {
  const place: WritePlace = {};
  const room = tagValue(event.tags, "h");
  if (room !== undefined) place.room = room;
  // A reply in a thread (kind 12) names its root with an `e` tag; a room message may name one, marked root.
  const root = event.tags.find((tag) =>
    tag[0] === "e" && tag.length > 1 && (tag[3] === "root" || event.kind === 12)
  );
  if (room !== undefined && root) place.thread = root[1];
  return place;
}

/** The place as receipts say it: ` in room "general"`, ` in thread <id> of room "general"`, or nothing. */
export function placeText(place: WritePlace): string {
  if (place.room === undefined) return "";
  const room = `room ${quoted(place.room, 80)}`;
  return place.thread === undefined ? ` in ${room}` : ` in thread ${printable(place.thread, 80)} of ${room}`;
}

const short = (id: string | undefined): string => id === undefined ? "an unnamed event" : printable(id, 16);
/** A name the tags give, quoted after a space; nothing when there is none. */
const named = (text: string | undefined): string => text === undefined ? "" : ` ${quoted(text, 80)}`;

/** What NIP-22's root kind (`K` tag) names. */
function rootNoun(kind: string | undefined): string {
  switch (kind) {
    case "1621":
      return "issue";
    case "1618":
      return "pull request";
    case "1111":
      return "comment";
    case "30818":
      return "wiki page";
    default:
      return kind === undefined ? "event" : `kind ${printable(kind, 12)} event`;
  }
}

/** A repository named by an `a` tag `30617:<owner>:<repo>`. */
function repository(tags: readonly string[][]): string {
  const [, owner, repo] = (tagValue(tags, "a") ?? "").split(":");
  return repo ? `repository ${quoted(repo, 80)} of ${short(owner)}` : "a repository";
}

/** The changes a request_grant event asks for, from its `grant` tag. */
function grantChanges(tags: readonly string[][]): string {
  const grant = parseJson(tagValue(tags, "grant") ?? "");
  return isObject(grant) && grant.changes !== undefined
    ? printable(JSON.stringify(grant.changes), 300)
    : "(the grant tag names no changes)";
}

/** The people a write asks or mentions (`p` tags), counted past three. */
function people(tags: readonly string[][]): string {
  const keys = tags.filter((tag) => tag[0] === "p" && tag.length > 1).map((tag) => short(tag[1]));
  if (keys.length === 0) return "nobody named";
  return keys.length <= 3 ? keys.join(", ") : `${keys.slice(0, 3).join(", ")} and ${keys.length - 3} more`;
}

/** What publishing `event` through `tool` means, in one phrase: "a message in room "general"". */
export function meaningOf(tool: string, event: EventFields): string {
  const { tags } = event;
  const where = placeText(placeOf(event));
  const job = `job ${short(tagValue(tags, "e"))}${where}`;
  const request = tagValue(tags, "request");
  switch (event.kind) {
    case 9:
      return request !== undefined
        ? `a request to ${people(tags)} to ${printable(request, 20)}, as a message${where}`
        : `a message${where}`;
    case 11:
      return `a new thread${named(tagValue(tags, "title"))}${where}`;
    case 12:
      return `a reply${where}`;
    case 7:
      return `a reaction ${quoted(event.content, 20)} to event ${short(tagValue(tags, "e"))}${where}`;
    case 1111: {
      if (tool === "request_grant") {
        return `a request to the grant's operator for more permissions: ${grantChanges(tags)}`;
      }
      const on = `${rootNoun(tagValue(tags, "K"))} ${short(tagValue(tags, "E") ?? tagValue(tags, "e"))}`;
      return request !== undefined
        ? `a request to ${people(tags)} to ${printable(request, 20)}, as a comment on ${on}`
        : `a comment on ${on}`;
    }
    case 1621:
      return `an issue${named(tagValue(tags, "subject"))} on ${repository(tags)}`;
    case 1618:
      return `a pull request${named(tagValue(tags, "subject"))} on ${repository(tags)}`;
    case 30818:
      return `this key's version of the wiki page${named(tagValue(tags, "d"))}`;
    case 818:
      return `a merge request for the wiki page${named((tagValue(tags, "a") ?? "").split(":")[2])}`;
    case 43001:
      return `a job request to ${people(tags)}${named(tagValue(tags, "subject"))}${where}`;
    case 43002:
      return `taking on ${job}`;
    case 43003:
      return `progress on ${job}`;
    case 43004:
      return `the result of ${job}`;
    case 43006:
      return `the failure of ${job}`;
    case 43005:
      return `the cancellation of ${job}`;
    default:
      return `a kind ${event.kind} event${where}`;
  }
}

/** What an upload stores, from its arguments (it publishes no event). */
export function uploadMeaning(args: JsonObject): string {
  const room = typeof args.room === "string" ? ` in room ${quoted(args.room, 80)}` : "";
  const name = typeof args.filename === "string" ? ` ${quoted(args.filename, 80)}` : "";
  const type = typeof args.type === "string" ? `, ${printable(args.type, 60)}` : "";
  const size = typeof args.data === "string"
    ? `, about ${Math.floor(args.data.length * 3 / 4).toLocaleString("en-US")} bytes`
    : "";
  return `a file${name} stored${room}${type}${size}`;
}

/** The tags a person checks before approving, one line each, values cut; the rest counted. */
export function tagLines(tags: readonly string[][], max = 12): string[] {
  const lines = tags.slice(0, max).map((tag) =>
    `${printable(tag[0] ?? "", 24)}: ${tag.slice(1).map((value) => printable(value, 100)).join(", ")}`
  );
  if (tags.length > max) lines.push(`(and ${tags.length - max} more tags)`);
  return lines;
}
