// A tiny:// URI's query, strictly: how a read answers (`as=markdown`, the default, `json`, `stat`
// or `links`), one span of it (`lines=FIRST-LAST` of a text read, counted from 1, both included;
// `range=START-END` of a file's bytes, counted from 0, both included; `pointer=/a/0` into a JSON
// read, RFC 6901), and a `cursor` (a collection's page, the relay's own cursor carried whole; or
// where a page of `?as=links` starts). Each parameter at most once, written back in one order, so
// each read has one name; a query that asks for what its resource cannot give is refused with the
// queries that would do. Pure.

import { decodeStrict } from "./uri_text.ts";
import { shown } from "./text.ts";

/** How a read answers. */
export type Representation = "markdown" | "json" | "stat" | "links";

/** A span of lines or bytes: both ends included. */
export interface Span {
  first: number;
  last: number;
}

export interface ReadQuery {
  as: Representation;
  lines?: Span;
  range?: Span;
  /** An RFC 6901 pointer as written ("" is the whole document). */
  pointer?: string;
  cursor?: string;
}

/** What a query is asked of: a collection, or a single resource of a kind. */
export interface QueryTarget {
  collection: boolean;
  /** A file's bytes have ranges; nothing else does. */
  file: boolean;
}

/** A query refused: why, and queries near it that would be accepted (nearest first). */
export interface QueryRefusal {
  why: string;
  near: ReadQuery[];
}

export type QueryStep = { ok: true; value: ReadQuery } | { ok: false; refusal: QueryRefusal };

/** At most this many lines in one piece, and bytes in one range. */
export const MAX_LINES = 10_000;
export const MAX_RANGE_BYTES = 256 * 1024;
/** The piece a refusal offers when the asked one is beyond repair: this many lines, or bytes. */
export const DEFAULT_LINES = 200;
export const DEFAULT_RANGE_BYTES = 64 * 1024;
/** A pointer of more tokens than this is refused (no JSON read is deeper). */
export const MAX_POINTER_TOKENS = 64;
/** A cursor longer than this is not one the relay gave. */
export const MAX_CURSOR = 1024;

const PLAIN: ReadQuery = { as: "markdown" };
const AS: readonly Representation[] = ["markdown", "json", "stat", "links"];
/** The parameters, in the order a URI writes them. */
const ORDER = ["as", "lines", "range", "pointer", "cursor"] as const;
type Param = (typeof ORDER)[number];

function refuse(why: string, ...near: ReadQuery[]): QueryStep {
  return { ok: false, refusal: { why, near } };
}

/** A number of at most 15 digits (so exact), or undefined. */
function count(text: string): number | undefined {
  return /^\d{1,15}$/.test(text) ? Number(text) : undefined;
}

/** `FIRST-LAST` as a span of lines (`from` 1) or bytes (`from` 0), or why not, with a span near it. */
export function parseSpan(
  text: string,
  from: 0 | 1,
  max: number,
  fallback: number,
): { ok: true; span: Span } | { ok: false; why: string; near: Span } {
  const what = from === 1 ? "lines" : "range";
  const parts = /^(\d+)-(\d+)$/.exec(text);
  const first = parts ? count(parts[1]) : undefined, last = parts ? count(parts[2]) : undefined;
  const start = first !== undefined && first >= from ? first : from;
  const piece = { first: start, last: start + fallback - 1 };
  if (!parts) {
    return { ok: false, why: `${what}=${shown(text, 40)} is not FIRST-LAST`, near: piece };
  }
  if (first === undefined || last === undefined) {
    return { ok: false, why: `${what}=${shown(text, 40)}: a number has more than 15 digits`, near: piece };
  }
  if (first < from || last < from) {
    const words = from === 1 ? "lines are counted from 1" : "bytes are counted from 0";
    return {
      ok: false,
      why: `${what}=${text}: ${words}`,
      near: { first: start, last: Math.max(start, last) },
    };
  }
  if (last < first) {
    return { ok: false, why: `${what}=${text} is reversed`, near: { first: last, last: first } };
  }
  if (last - first + 1 > max) {
    const unit = from === 1 ? "lines" : "bytes";
    return {
      ok: false,
      why: `${what}=${text} is ${last - first + 1} ${unit}; a piece is at most ${max}`,
      near: { first, last: first + max - 1 },
    };
  }
  return { ok: true, span: { first, last } };
}

/** The tokens of an RFC 6901 pointer, unescaped, or why it is not one. */
export function pointerTokens(pointer: string): { ok: true; tokens: string[] } | { ok: false; why: string } {
  if (pointer === "") return { ok: true, tokens: [] };
  if (!pointer.startsWith("/")) return { ok: false, why: "a JSON pointer is empty or starts with /" };
  const raw = pointer.slice(1).split("/");
  if (raw.length > MAX_POINTER_TOKENS) {
    return { ok: false, why: `a JSON pointer here is at most ${MAX_POINTER_TOKENS} steps deep` };
  }
  const tokens: string[] = [];
  for (const token of raw) {
    if (/~(?![01])/.test(token)) return { ok: false, why: "in a JSON pointer, ~ is written ~0 and / is ~1" };
    tokens.push(token.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  return { ok: true, tokens };
}

/** One parameter's value, checked; undefined (with `why`) when it is not one. */
function paramValue(
  param: Param,
  value: string,
  into: ReadQuery,
): { why: string; near: ReadQuery[] } | undefined {
  switch (param) {
    case "as": {
      if ((AS as readonly string[]).includes(value)) {
        into.as = value as Representation;
        return undefined;
      }
      const near = AS.filter((as) => as === value.toLowerCase()).map((as) => ({ ...into, as }));
      return {
        why: `as=${shown(value, 20)} is not ${AS.join(", ")}`,
        near: [...near, { ...into, as: "json" }],
      };
    }
    case "lines":
    case "range": {
      const lines = param === "lines";
      const span = parseSpan(
        value,
        lines ? 1 : 0,
        lines ? MAX_LINES : MAX_RANGE_BYTES,
        lines ? DEFAULT_LINES : DEFAULT_RANGE_BYTES,
      );
      if (span.ok) into[param] = span.span;
      return span.ok ? undefined : { why: span.why, near: [{ ...into, [param]: span.near }] };
    }
    case "pointer": {
      const tokens = pointerTokens(value);
      if (tokens.ok) into.pointer = value;
      return tokens.ok ? undefined : { why: tokens.why, near: [{ ...into, as: "json" }] };
    }
    case "cursor":
      if (value !== "" && value.length <= MAX_CURSOR) {
        into.cursor = value;
        return undefined;
      }
      return { why: `a cursor is 1 to ${MAX_CURSOR} characters, as a page gave it`, near: [{ ...into }] };
  }
}

/** The query as written after `?` (undefined: none), read into its parameters. */
export function parseQuery(query: string | undefined): QueryStep {
  if (query === undefined) return { ok: true, value: { ...PLAIN } };
  if (query === "") return refuse("the query is empty", PLAIN);
  const value: ReadQuery = { as: "markdown" };
  const seen = new Set<Param>();
  for (const part of query.split("&")) {
    const eq = part.indexOf("=");
    const key = decodeStrict(eq === -1 ? part : part.slice(0, eq));
    const raw = decodeStrict(eq === -1 ? "" : part.slice(eq + 1));
    const param = key.ok ? ORDER.find((name) => name === key.value) : undefined;
    if (param === undefined) {
      return refuse(`${shown(part, 40)} is not a parameter here (${ORDER.join(", ")})`, { ...value });
    }
    if (seen.has(param)) return refuse(`${param} is given twice`, { ...value });
    seen.add(param);
    if (!raw.ok) return refuse(`the value of ${param} is not percent-encoded text: ${raw.why}`, { ...value });
    const problem = paramValue(param, raw.value, value);
    if (problem) return refuse(problem.why, ...problem.near);
  }
  return { ok: true, value };
}

/** Undefined when `query` suits `target`; otherwise why not, and the queries that would. */
export function queryProblem(query: ReadQuery, target: QueryTarget): QueryRefusal | undefined {
  const { as, lines, range, pointer, cursor } = query;
  const spans = [lines && "lines", range && "range", pointer !== undefined && "pointer"].filter(Boolean);
  if (spans.length > 1) {
    return { why: `one span at a time: ${spans.join(" and ")} were both given`, near: [{ as }] };
  }
  if (target.collection) {
    if (as === "stat" || as === "links" || lines || range) {
      return {
        why: "a collection reads as its list of children (as=markdown or as=json, a page at a time)",
        near: [{ as: "markdown", ...(cursor ? { cursor } : {}) }],
      };
    }
    if (pointer !== undefined && as !== "json") {
      return { why: "pointer reads into as=json", near: [{ ...query, as: "json" }] };
    }
    return undefined;
  }
  if (cursor !== undefined && as !== "links") {
    return { why: "only a collection and as=links are read a page at a time", near: [{ as }] };
  }
  if (as === "links" && cursor !== undefined && !/^(0|[1-9]\d{0,5})$/.test(cursor)) {
    return {
      why: "the cursor of as=links is where the page starts, as the last page gave it",
      near: [{ as }],
    };
  }
  if ((as === "stat" || as === "links") && spans.length > 0) {
    return { why: `as=${as} reads the whole resource, not a span of it`, near: [{ as }] };
  }
  if (pointer !== undefined && as !== "json") {
    return { why: "pointer reads into as=json", near: [{ as: "json", pointer }] };
  }
  if (lines && as !== "markdown") {
    return { why: "lines are of the text read (as=markdown)", near: [{ as: "markdown", lines }, { as }] };
  }
  if (range && !target.file) {
    return { why: "range is of a file's bytes; a text read has lines", near: [{ as: "markdown" }] };
  }
  if (range && as !== "markdown") {
    return { why: "range reads a file's bytes as they are", near: [{ as: "markdown", range }] };
  }
  return undefined;
}

/** RFC 3986 query characters written as they are in a value; the rest percent-encoded. */
const KEPT = /[A-Za-z0-9\-._~!$'()*,;:@/]/;

/** A value as a canonical query writes it. */
export function encodeQueryValue(value: string): string {
  let out = "";
  for (const char of value.toWellFormed()) {
    out += KEPT.test(char)
      ? char
      : [...new TextEncoder().encode(char)].map((byte) =>
        `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
      ).join("");
  }
  return out;
}

/** The query as a URI writes it: "" for a plain read, else `?` and its parameters in their order. */
export function formatQuery(query: ReadQuery): string {
  const parts: string[] = [];
  if (query.as !== "markdown") parts.push(`as=${query.as}`);
  if (query.lines) parts.push(`lines=${query.lines.first}-${query.lines.last}`);
  if (query.range) parts.push(`range=${query.range.first}-${query.range.last}`);
  if (query.pointer !== undefined) parts.push(`pointer=${encodeQueryValue(query.pointer)}`);
  if (query.cursor !== undefined) parts.push(`cursor=${encodeQueryValue(query.cursor)}`);
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}
