// Each method's params, read and checked (rpc-facts.md section 3): a typed
// value, or the error the caller is told. The Go peer's messages where they
// name a rule (`subscription is required`, `invalid HTTP method`, `rooms
// must be an array of room ids`, …); where it passes on its JSON decoder's
// text, a sentence that says which param is wrong and what it should be. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";

export type Checked<T> = { ok: true; value: T } | { ok: false; error: string };

const ok = <T>(value: T): Checked<T> => ({ ok: true, value });
const no = <T>(error: string): Checked<T> => ({ ok: false, error });

/** An event as `publish` is given it: what the signature covers, the timestamp perhaps left to fill. */
export interface EventInput {
  kind: number;
  tags: string[][];
  content: string;
  /** Absent (or 0 as given): filled with the current time. */
  created_at?: number;
}

/** A NIP-01 filter as given: sent to the relay as it is, and matched here (filter.ts). */
export type Filter = JsonObject;

function isTags(value: unknown): value is string[][] {
  return Array.isArray(value) &&
    value.every((tag) => Array.isArray(tag) && tag.every((item) => typeof item === "string"));
}

function isKind(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 65535;
}

export function publishParams(params: JsonObject): Checked<EventInput> {
  const event = params.event;
  if (!isObject(event)) {
    return no("publish: params.event is required: an object with kind, tags and content");
  }
  if (!isKind(event.kind)) return no("publish: event.kind must be a whole number from 0 to 65535");
  const tags = event.tags ?? [];
  if (!isTags(tags)) return no("publish: event.tags must be an array of arrays of strings");
  const content = event.content ?? "";
  if (typeof content !== "string") return no("publish: event.content must be a string");
  const createdAt = event.created_at ?? 0;
  if (typeof createdAt !== "number" || !Number.isSafeInteger(createdAt) || createdAt < 0) {
    return no("publish: event.created_at must be a whole number of seconds since 1970 (or absent: now)");
  }
  return ok({ kind: event.kind, tags, content, ...(createdAt === 0 ? {} : { created_at: createdAt }) });
}

export function queryParams(params: JsonObject): Checked<Filter[]> {
  const filter = params.filter;
  if (filter === undefined || filter === null) {
    return no("query: params.filter is required: a filter object, or an array of them");
  }
  const filters = Array.isArray(filter) ? filter : [filter];
  if (filters.length === 0) return no("query: params.filter holds no filter: give at least one");
  if (!filters.every(isObject)) return no('query: each filter must be a JSON object, such as {"kinds":[9]}');
  return ok(filters as Filter[]);
}

/** The Go peer's message for a missing name, kept word for word. */
export const SUBSCRIPTION_REQUIRED = "subscription is required";

export function subscribeParams(params: JsonObject): Checked<{ name: string; filter: Filter }> {
  const name = params.subscription;
  if (typeof name !== "string" || name === "") return no(SUBSCRIPTION_REQUIRED);
  if (!isObject(params.filter)) {
    return no("subscribe: params.filter is required: one filter object (an array is for query)");
  }
  return ok({ name, filter: params.filter });
}

export function unsubscribeParams(params: JsonObject): Checked<string> {
  const name = params.subscription;
  if (typeof name !== "string") return no("unsubscribe: params.subscription must be a string");
  return ok(name);
}

export const HTTP_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** `request`: the path, the method, and whether a body was given (its text is taken from the line). */
export function requestParams(
  params: JsonObject,
): Checked<{ path: string; method: HttpMethod; hasBody: boolean }> {
  const path = params.path;
  if (typeof path !== "string" || path === "") return no("path is required");
  const given = params.method ?? "";
  if (typeof given !== "string") return no('request: params.method must be a string, such as "POST"');
  const method = given === "" ? "GET" : given; // absent or empty: GET, as the Go peer reads it
  if (!(HTTP_METHODS as readonly string[]).includes(method)) return no("invalid HTTP method");
  return ok({ path, method: method as HttpMethod, hasBody: Object.hasOwn(params, "body") });
}

/** The Go peer's words for attachment data it cannot take. */
export const INVALID_ATTACHMENT = "invalid attachment data";
/** The largest attachment the relay takes, and so the largest upload or download. */
export const MAX_ATTACHMENT_BYTES = 32 * 1024 * 1024;
const MAX_BASE64_CHARS = 64 * 1024 * 1024;
const PADDED_BASE64 = /^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export interface UploadInput {
  room: string;
  bytes: Uint8Array;
  filename: string;
  type: string;
}

export function uploadParams(params: JsonObject): Checked<UploadInput> {
  const { room, data } = params;
  const filename = params.filename ?? "", type = params.type ?? "";
  if (typeof room !== "string" || room === "") return no("room is required");
  if (typeof filename !== "string") return no("upload: params.filename must be a string");
  if (typeof type !== "string") return no("upload: params.type must be a string");
  // A media type goes into a header: nothing that could end the line or break out of it.
  if (!/^[\x21-\x7e]*(?:[ \t][\x21-\x7e]+)*$/.test(type)) {
    return no("upload: params.type is not a media type");
  }
  if (typeof data !== "string") {
    return no("upload: params.data is required: the file's bytes in standard base64");
  }
  if (data.length > MAX_BASE64_CHARS || data.length % 4 !== 0 || !PADDED_BASE64.test(data)) {
    return no(INVALID_ATTACHMENT);
  }
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.fromBase64(data, { lastChunkHandling: "strict" });
  } catch {
    return no(INVALID_ATTACHMENT);
  }
  if (bytes.length > MAX_ATTACHMENT_BYTES) return no(INVALID_ATTACHMENT);
  if (bytes.length === 0) return no("invalid upload");
  return ok({ room, bytes, filename, type });
}

export function downloadParams(params: JsonObject): Checked<string> {
  const path = params.path;
  if (typeof path !== "string") {
    return no('download: params.path must be a string, such as "/media/<sha256>.png"');
  }
  return ok(path);
}

export function diagnoseParams(params: JsonObject): Checked<{ rooms: string[]; kinds: number[] }> {
  const rooms = params.rooms ?? [], kinds = params.kinds ?? [];
  if (!Array.isArray(rooms)) return no("rooms must be an array of room ids");
  if (!Array.isArray(kinds)) return no("kinds must be an array of event kinds");
  if (!rooms.every((room) => typeof room === "string" && room.trim() !== "")) {
    return no("rooms must be room ids");
  }
  if (!kinds.every(isKind)) return no("kinds must be event kinds");
  return ok({ rooms, kinds });
}
