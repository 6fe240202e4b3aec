// The markdown every rendering is built from, made so relay text cannot change its structure:
// names and titles on one line with markdown's punctuation escaped, ids in code spans, bodies in
// fenced blocks whose fence is longer than any backtick run inside (so a body can forge neither a
// header nor an author line, nor run HTML or fetch an image), long text cut with a visible line,
// times in UTC, keys as short npubs. Pure.

import type { ResourceBase } from "./uri.ts";
import { shortNpub } from "../wire/bech32.ts";
import { count, cut, escapeHiding, oneLine } from "./text.ts";

/** What a rendering knows beyond the relay's answer. */
export interface RenderContext {
  /** The URI as asked: every content item carries it. */
  uri: string;
  /** This relay's namespace, for the URIs a rendering links to. */
  base: ResourceBase;
  /** Display names the caller knows, by hex public key (untrusted too). */
  names?: ReadonlyMap<string, string>;
  /** The agent's own public key, marked "(you)". */
  self?: string;
}

/** How much of each part is shown; what is over is cut, visibly. */
export const LIMITS = {
  /** A message, reply or answer. */
  body: 12_000,
  /** An issue's or pull request's description, a task's request. */
  description: 24_000,
  /** A diff, or a file of a repository. */
  diff: 60_000,
  /** A wiki page's content. */
  page: 200_000,
  /** An answer shown as JSON because it was not recognised. */
  json: 200_000,
  /** Messages, replies, answers, commits, tree entries shown. */
  items: 200,
  /** Members, labels, refs, clone URLs named. */
  names: 50,
  /** A title or name on one line. */
  line: 200,
} as const;

/** Markdown's inline punctuation that could open emphasis, code, links, HTML or entities. */
const INLINE_MARKUP = /[\\`*_[\]<>|~!&]/g;

/** The longest run of backticks in `text` (a loop: a hostile text may hold very many runs). */
function longestRun(text: string): number {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  return longest;
}

/** `text` as inline markdown: one line, hiding characters escaped, markup punctuation escaped. */
export function inline(text: string, max: number = LIMITS.line): string {
  return oneLine(text, max).replace(INLINE_MARKUP, "\\$&");
}

/** `text` as a code span: one line, hiding characters escaped, delimited past any backtick run in it. */
export function code(text: string, max: number = LIMITS.line): string {
  const line = oneLine(text, max);
  const longest = longestRun(line);
  const ticks = "`".repeat(longest + 1);
  const pad = line.startsWith("`") || line.endsWith("`") ? " " : "";
  return `${ticks}${pad}${line}${pad}${ticks}`;
}

/** The line said where a part was cut. */
export function cutNote(left: number): string {
  return `[cut: ${count(left)} more characters not shown; ?as=json gives the relay's whole answer]`;
}

/**
 * `text` as a fenced block: line breaks kept, hiding characters escaped, cut at `max` with a note
 * after the fence. The fence is backticks, one more than the longest run in the text (at least 3).
 */
export function fenced(text: string, max: number, info = "text"): string[] {
  const { shown, left } = cut(text, max);
  // One final line break is the end of the last line, not an empty line of its own.
  const body = escapeHiding(shown.replace(/\r\n?/g, "\n").replace(/\n$/, ""));
  const longest = longestRun(body);
  const fence = "`".repeat(Math.max(3, longest + 1));
  const lines = [`${fence}${info}`, ...body.split("\n"), fence];
  if (left > 0) lines.push(cutNote(left));
  return lines;
}

/** Unix seconds as `2026-08-22 14:03:05 UTC`; "an unknown time" when not a time. */
export function when(seconds: number | undefined): string {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds < 0 || seconds > 253402300799) {
    return "an unknown time";
  }
  return `${new Date(Math.floor(seconds) * 1000).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/** Unix seconds as ISO 8601 (for annotations); undefined when not a time. */
export function isoTime(seconds: number | undefined): string | undefined {
  if (seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 || seconds > 253402300799) {
    return undefined;
  }
  return new Date(Math.floor(seconds) * 1000).toISOString().replace(".000Z", "Z");
}

/** A key as a person reads it: a known name with its short npub, or the short npub; "(you)" for the agent. */
export function who(pubkey: string | undefined, ctx: RenderContext): string {
  const short = pubkey === undefined ? undefined : shortNpub(pubkey);
  if (pubkey === undefined || short === undefined) {
    return pubkey === undefined ? "an unknown author" : `an invalid key ${code(pubkey, 20)}`;
  }
  const name = ctx.names?.get(pubkey);
  const you = ctx.self === pubkey ? " (you)" : "";
  return name === undefined || name.trim() === "" ? `${short}${you}` : `${inline(name, 40)} (${short})${you}`;
}

/** A short event id for a line of text: its first 12 hex characters, in a code span. */
export function shortId(id: string | undefined): string {
  return id === undefined ? "an unknown event" : code(id.length > 12 ? `${id.slice(0, 12)}…` : id, 16);
}

/** Names joined for a line, with how many more when over `max`. */
export function joined(items: readonly string[], max: number = LIMITS.names): string {
  const shown = items.slice(0, max).join(", ");
  return items.length > max ? `${shown} and ${count(items.length - max)} more` : shown;
}

/** A note that only part of a list is shown. */
export function moreNote(total: number, shown: number, what: string): string[] {
  return total > shown ? [`[${count(total - shown)} more ${what} not shown]`, ""] : [];
}
