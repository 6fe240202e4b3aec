// A span of what a read gives: lines of a text (each with its line break, so consecutive pieces
// put together are the text again), bytes of a file, the value an RFC 6901 pointer names in a JSON
// answer; a span past the end refused with the one that fits; and the pieces a text over the cap
// is read in. Pure.

import { editDistance } from "../wire/nearest.ts";
import { DEFAULT_LINES, pointerTokens, type Span } from "./query.ts";
import { shown } from "./text.ts";

/** How many lines a text has: its line breaks, and one more when it does not end in one. */
export function lineCount(text: string): number {
  if (text === "") return 0;
  let lines = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines++;
  return text.endsWith("\n") ? lines : lines + 1;
}

/** The span that fits a whole of `total` lines or bytes (counted from `from`), nearest the one asked. */
export function fittingSpan(span: Span, total: number, from: 0 | 1, piece = DEFAULT_LINES): Span | undefined {
  const end = total - 1 + from;
  if (total === 0) return undefined;
  if (span.first <= end) return { first: span.first, last: Math.min(span.last, end) };
  return { first: Math.max(from, end - piece + 1), last: end };
}

/** Words for a span past the end of a whole of `total`. */
export function pastTheEnd(what: "lines" | "range", span: Span, total: number): string {
  const whole = what === "lines"
    ? `${total} line${total === 1 ? "" : "s"}`
    : `${total} byte${total === 1 ? "" : "s"}`;
  return `${what}=${span.first}-${span.last} is past the end: there ${total === 1 ? "is" : "are"} ${whole}`;
}

/** Lines `span` of `text`, each with its line break; or, past the end, how many lines there are. */
export function sliceLines(
  text: string,
  span: Span,
): { ok: true; text: string } | { ok: false; total: number } {
  let line = 1, start = -1, at = 0;
  while (at <= text.length) {
    if (line === span.first && start === -1) start = at;
    const end = text.indexOf("\n", at);
    const next = end === -1 ? text.length : end + 1;
    if (line === span.last) {
      if (next === at) break; // the empty rest after a final line break is no line
      return { ok: true, text: text.slice(start, next) };
    }
    if (end === -1) break;
    at = next;
    line++;
  }
  return { ok: false, total: lineCount(text) };
}

/**
 * The pieces a text over `cap` characters is read in: consecutive spans of whole lines, each at most
 * `cap` characters (a line longer than that is a piece of its own).
 */
export function linePieces(text: string, cap: number): Span[] {
  const pieces: Span[] = [];
  let first = 1, line = 1, size = 0, at = 0;
  while (at < text.length) {
    const end = text.indexOf("\n", at);
    const next = end === -1 ? text.length : end + 1;
    const length = next - at;
    if (size > 0 && size + length > cap) {
      pieces.push({ first, last: line - 1 });
      first = line;
      size = 0;
    }
    size += length;
    at = next;
    line++;
  }
  if (size > 0) pieces.push({ first, last: line - 1 });
  return pieces;
}

/** An RFC 6901 pointer from its tokens. */
export function pointerOf(tokens: readonly string[]): string {
  return tokens.map((token) => `/${token.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

const INDEX = /^(0|[1-9]\d{0,8})$/;

/** The member or element a token names, when there is one. */
function step(value: unknown, token: string): { found: true; value: unknown } | { found: false } {
  if (Array.isArray(value)) {
    return INDEX.test(token) && Number(token) < value.length
      ? { found: true, value: value[Number(token)] }
      : { found: false };
  }
  if (value !== null && typeof value === "object" && Object.hasOwn(value, token)) {
    return { found: true, value: (value as Record<string, unknown>)[token] };
  }
  return { found: false };
}

/** What the pointer names in a container, where it stops, in words, with the pointer nearest it. */
function missing(value: unknown, token: string, prefix: string[]): { why: string; near: string } {
  const at = prefix.length === 0 ? "the top" : pointerOf(prefix);
  if (Array.isArray(value)) {
    const last = value.length - 1;
    const why = `${at} is a list of ${value.length}; ${shown(token, 40)} is not an index in it`;
    return { why, near: last >= 0 ? pointerOf([...prefix, String(last)]) : pointerOf(prefix) };
  }
  if (value === null || typeof value !== "object") {
    return {
      why: `${at} is a ${value === null ? "null" : typeof value}, with nothing inside`,
      near: pointerOf(prefix),
    };
  }
  const keys = Object.keys(value).slice(0, 1000);
  const best = keys.map((key) => ({ key, d: editDistance(token.slice(0, 64), key.slice(0, 64), 64) }))
    .sort((a, b) => a.d - b.d)[0];
  const near = best && best.d <= Math.max(2, Math.floor(token.length / 3)) ? [...prefix, best.key] : prefix;
  return { why: `${at} has no member ${shown(token, 40)}`, near: pointerOf(near) };
}

/** The value `pointer` names in `document`, or why it names none and the pointer nearest it that does. */
export function resolvePointer(
  document: unknown,
  pointer: string,
): { ok: true; value: unknown } | { ok: false; why: string; near: string } {
  const parsed = pointerTokens(pointer);
  if (!parsed.ok) return { ok: false, why: parsed.why, near: "" };
  let value = document;
  for (const [i, token] of parsed.tokens.entries()) {
    const next = step(value, token);
    if (!next.found) return { ok: false, ...missing(value, token, parsed.tokens.slice(0, i)) };
    value = next.value;
  }
  return { ok: true, value };
}
