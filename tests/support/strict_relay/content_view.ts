// What content mode's readers share: the view of the seeded content and the event store one call
// reads, the real relay's result envelope for a read (its text block is the JSON Go writes) and for
// a failed one, and its event cursors ("<created_at>:<id>", newest first).

import type { NostrEvent } from "nostr-tools/pure";
import type { FileSeed, RepositorySeed, RoomSeed } from "./content_types.ts";
import type { Attachment, ToolResult } from "./types.ts";

/** One call's view of the relay's content. */
export interface ContentView {
  /** The NIP-98 signer of the call. */
  caller: string;
  /** Unix seconds. */
  now: number;
  /** The relay's base URL (prefix included). */
  url: string;
  /** Every stored event, in arrival order. */
  events: readonly NostrEvent[];
  rooms: ReadonlyMap<string, RoomSeed>;
  /** By "<owner>/<identifier>". */
  repositories: ReadonlyMap<string, RepositorySeed>;
  /** Seeded files by SHA-256. */
  files: ReadonlyMap<string, FileSeed>;
  /** Bytes uploaded with upload_attachment, by SHA-256. */
  uploads: ReadonlyMap<string, { bytes: Uint8Array; type: string }>;
  /** Room attachments uploaded to PUT /rooms/<id>/attachments, by SHA-256. */
  attachments: ReadonlyMap<string, Attachment>;
}

/** Answers one read tool's call. */
export type Reader = (args: Record<string, unknown>, view: ContentView) => ToolResult;

/**
 * JSON as Go's encoding/json writes it: `<`, `>`, `&`, U+2028 and U+2029 escaped. Key order is the
 * caller's: Go sorts a map's keys and keeps a struct's field order, and the readers build their
 * objects in that order.
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** A read's result as the relay gives it: the value as structuredContent, mirrored as JSON text. */
export function browseOk(value: Record<string, unknown>): ToolResult {
  return { content: [{ type: "text", text: goJson(value) }], structuredContent: value, isError: false };
}

/** A read that failed: the relay reports the error's words, with no structured content. */
export function browseError(message: string): ToolResult {
  return { content: [{ type: "text", text: message }], structuredContent: null, isError: true };
}

/** The first value of the event's first tag named `name`, or "". */
export function tag(ev: NostrEvent, name: string): string {
  return ev.tags.find((t) => t[0] === name && t.length > 1)?.[1] ?? "";
}

/** The first value of every tag named `name`. */
export function tagValues(ev: NostrEvent, name: string): string[] {
  return ev.tags.filter((t) => t[0] === name && t.length > 1).map((t) => t[1]);
}

export const HEX64 = /^[0-9a-f]{64}$/;

/** Newest first; the lower id first at the same second. */
export function newestFirst(a: NostrEvent, b: NostrEvent): number {
  if (a.created_at !== b.created_at) return b.created_at - a.created_at;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export interface EventCursor {
  at: number;
  id: string;
}

/** The cursor that pages on after this event. */
export function cursorOf(ev: { created_at: number; id: string }): string {
  return `${ev.created_at}:${ev.id}`;
}

/** "" is no cursor (undefined); a malformed one is null. */
export function parseCursor(raw: unknown): EventCursor | undefined | null {
  if (raw === undefined || raw === "") return undefined;
  const m = typeof raw === "string" ? /^(\d+):([0-9a-f]{64})$/.exec(raw) : null;
  return m && Number.isSafeInteger(Number(m[1])) ? { at: Number(m[1]), id: m[2] } : null;
}

/** Whether the event comes after the cursor in newest-first order. */
export function after(ev: NostrEvent, cursor: EventCursor | undefined): boolean {
  return !cursor || ev.created_at < cursor.at || (ev.created_at === cursor.at && ev.id > cursor.id);
}

/** The page after the cursor of events already newest first; next is "" on the last page. */
export function pageEvents(
  sorted: NostrEvent[],
  cursor: EventCursor | undefined,
  limit: number,
): { page: NostrEvent[]; next: string } {
  const rest = sorted.filter((ev) => after(ev, cursor));
  const page = rest.slice(0, limit);
  return { page, next: rest.length > limit ? cursorOf(page[page.length - 1]) : "" };
}

/** `limit` when it is an integer from 1 to max, else the relay's default. */
export function limitOf(raw: unknown, fallback: number, max = 100): number {
  return typeof raw === "number" && Number.isInteger(raw) && raw >= 1 && raw <= max ? raw : fallback;
}

/**
 * The first `max` bytes of the text's UTF-8, as Go reads a bounded Git output: a character the cut
 * splits becomes U+FFFD (strings.ToValidUTF8), and `cut` says whether anything was left out.
 */
export function cutUtf8(text: string, max: number): { text: string; cut: boolean } {
  const bytes = new TextEncoder().encode(text);
  if (bytes.length <= max) return { text, cut: false };
  return { text: new TextDecoder().decode(bytes.subarray(0, max)), cut: true };
}

/** A string argument, or "". */
export function text(raw: unknown): string {
  return typeof raw === "string" ? raw : "";
}
