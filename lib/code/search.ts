// tiny_search's answer: the functions a tiny_execute program may call on `relay` (the exposed
// table) that meet a query, best first (ranking.ts), each said as its signature (signature.ts), its
// description and, for a write, what calling it does. Bounded whatever the table holds: at most
// MAX_FULL in full, at most MAX_TEXT_BYTES of text, each cut said. Pure.

import { isObject } from "../wire/json.ts";
import type { Tool } from "../wire/mcp.ts";
import { isWriteTool, WRITE_KINDS } from "../facade/tools.ts";
import { functionText, type Language, toolsCall } from "./languages.ts";
import { closestNames, ranked } from "./ranking.ts";
import { notes } from "./search_notes.ts";
import { type Form, type ResultType, schemaResult } from "./signature.ts";

export type Detail = Form;

/** How a search answers: its detail and language, each function's result type, the table's hash. */
export interface SearchOptions {
  /** brief: a line a match; full (the default for a query): each in full. */
  detail?: Detail;
  /** typescript (the default), javascript (JSDoc) or json (the tools/call a host would send). */
  language?: Language;
  /** A function's result type in `form`: seen in this session, else its outputSchema's (the default). */
  resultOf?: (tool: Tool, form: Form) => ResultType;
  /** The exposed table's short hash, said on the answer's last line. */
  hash?: string;
}

/** Matches shown in full at most; the rest are counted, with how to narrow. */
export const MAX_FULL = 10;
/** The answer's text at most, in UTF-8 bytes, whatever the table holds. */
export const MAX_TEXT_BYTES = 16 * 1024;
/** Room kept for the lines that say what was left out, and the notes and the hash after them. */
const TAIL_BYTES = 1536;
const MAX_SENTENCE = 200;
const MAX_QUOTED = 80;

export interface Match {
  name: string;
  /** The function in the language asked: its signature, its JSDoc call, or its tools/call as JSON. */
  signature: string;
  /** Where its result type comes from: the relay's outputSchema, tinyagent's table, the answers seen, nowhere yet. */
  result: ResultType["source"];
  /** How an answer of the relay's differed from the type tinyagent ships, so the seen one is shown. */
  differs?: string;
  write: boolean;
  /** For a write: the only kinds tinyagent signs for it (none for a write that publishes nothing). */
  kinds?: number[];
  /** In json: the tools/call request itself. */
  request?: Record<string, unknown>;
}

/** The answer: its text, the matches it shows, how many matched in all, the table's hash. */
export interface Found {
  text: string;
  matches: Match[];
  total: number;
  shown: number;
  hash?: string;
}

/** "kind 1621", "kind 9 or 1111". */
function kindWords(kinds: readonly number[]): string {
  return `kind ${kinds.length > 1 ? `${kinds.slice(0, -1).join(", ")} or ${kinds.at(-1)}` : kinds[0]}`;
}

const HELD = "Each call is held by the person's settings: asked first when tinyagent runs with " +
  "--confirm-writes, counted against --max-writes, recorded in --audit-log; a write held back fails with " +
  "an error that says why.";

/** What calling a write tool does, in plain words; undefined for a read tool. */
export function writeNote(name: string): string | undefined {
  if (!isWriteTool(name)) return undefined;
  const kinds = WRITE_KINDS[name];
  if (kinds.length === 0) {
    return `Write: stores a file on the relay and publishes nothing, so no event is signed; it still counts ` +
      `as a write. ${HELD}`;
  }
  return `Write: the relay answers with an unsigned event, which tinyagent signs with the agent's key and ` +
    `publishes, signing only ${kindWords(kinds)} for ${name} (any other kind comes back as an error). The ` +
    `relay's \`event\` argument is tinyagent's own, so it is left out here. ${HELD}`;
}

/** A write's mark on its brief line. */
export function writeMark(name: string): string {
  if (!isWriteTool(name)) return "";
  const kinds = WRITE_KINDS[name];
  return kinds.length === 0 ? " [write: stores a file, publishes nothing]" : ` [write: ${kindWords(kinds)}]`;
}

/**
 * The tool as a program calls it: a write that publishes loses the relay's `event` argument, which
 * only the signed second call carries and tinyagent alone fills (facade.md, "Sign and resubmit").
 */
export function callable(tool: Tool): Tool {
  const schema = tool.inputSchema;
  if (!isWriteTool(tool.name) || WRITE_KINDS[tool.name].length === 0 || !isObject(schema.properties)) {
    return tool;
  }
  if (!Object.hasOwn(schema.properties, "event")) return tool;
  const properties = { ...schema.properties };
  delete properties.event;
  const required = Array.isArray(schema.required) ? schema.required.filter((n) => n !== "event") : undefined;
  return { ...tool, inputSchema: { ...schema, properties, ...(required ? { required } : {}) } };
}

/** The description's first sentence, on one line, cut. */
export function firstSentence(description: string): string {
  const line = description.replace(/\s+/g, " ").trim();
  const sentence = /^.*?[.!?](?=\s|$)/.exec(line)?.[0] ?? line;
  return sentence.length > MAX_SENTENCE ? `${sentence.slice(0, MAX_SENTENCE - 1)}…` : sentence;
}

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).length;

/** The text cut to at most `bytes` UTF-8 bytes on a character boundary. */
function cutToBytes(text: string, bytes: number): string {
  const encoded = encoder.encode(text);
  if (encoded.length <= bytes) return text;
  let end = Math.max(bytes, 0);
  while (end > 0 && (encoded[end] & 0xc0) === 0x80) end--;
  return new TextDecoder().decode(encoded.subarray(0, end));
}

function quoted(query: string): string {
  const line = query.replace(/\s+/g, " ").trim();
  return line.length > MAX_QUOTED ? `${JSON.stringify(line.slice(0, MAX_QUOTED))}…` : JSON.stringify(line);
}

function matchOf(tool: Tool, form: Form, language: Language, result: ResultType): Match {
  const write = isWriteTool(tool.name);
  const match: Match = {
    name: tool.name,
    // A brief line leaves a write's options to the note said once.
    signature: functionText(tool, language, form, result, write && form === "full"),
    result: result.source,
    write,
    ...(result.differs === undefined ? {} : { differs: result.differs }),
  };
  if (write) match.kinds = [...WRITE_KINDS[tool.name]];
  if (language === "json") match.request = toolsCall(tool);
  return match;
}

/**
 * One match as text: a line when brief (with its description's first sentence when it answers a
 * query); the signature, the description and the write's note when full.
 */
function block(tool: Tool, match: Match, form: Form, blank: boolean): string {
  const description = (tool.description ?? "").trim();
  // A brief JSON line stays JSON: the request alone.
  if (form === "brief" && match.request) return match.signature;
  if (form === "brief") {
    const about = description && !blank ? ` — ${firstSentence(description)}` : "";
    return `${match.signature}${about}${writeMark(tool.name)}`;
  }
  return [match.signature, description, writeNote(tool.name)].filter((part) => part).join("\n");
}

/** As many blocks as fit the byte bound after the head; the first one cut to fit when none would. */
function fitted(head: string, blocks: string[], separator: string): string[] {
  let room = MAX_TEXT_BYTES - TAIL_BYTES - byteLength(head);
  const kept: string[] = [];
  for (const text of blocks) {
    const cost = byteLength(separator + text);
    if (cost > room) {
      if (kept.length === 0) kept.push(`${cutToBytes(text, room - byteLength(separator) - 3)}…`);
      break;
    }
    kept.push(text);
    room -= cost;
  }
  return kept;
}

/** The functions of `entries` that meet `query`, in the detail asked (full for a query, brief without). */
export function search(entries: readonly Tool[], query: string, options: SearchOptions = {}): Found {
  const { detail, language = "typescript", resultOf = schemaResult, hash } = options;
  const found = searched(entries, query, detail, language, resultOf);
  if (hash === undefined) return found;
  const text = `${found.text}\n${tableHashLine(hash)}`;
  return { ...found, text, hash };
}

/** The answer's last line: the table's hash, and what it is for. */
export function tableHashLine(hash: string): string {
  return `Table hash: ${hash} (tiny_execute's answer gives the hash of the table its program ran against: ` +
    "another one means the functions changed since this search).";
}

function searched(
  entries: readonly Tool[],
  query: string,
  detail: Detail | undefined,
  language: Language,
  resultOf: (tool: Tool, form: Form) => ResultType,
): Found {
  const blank = query.trim() === "";
  const form: Form = detail ?? (blank ? "brief" : "full");
  if (entries.length === 0) {
    const text = "No function is exposed to this agent: the relay lists none of the tools that --tools and " +
      "--allow-writes let it call.";
    return { text, matches: [], total: 0, shown: 0 };
  }
  const hits = blank ? [...entries] : ranked(entries, query);
  if (hits.length === 0) {
    const text = `No function matches ${quoted(query)}. The closest names: ` +
      `${closestNames(entries, query).join(", ")}. An empty query lists all ${entries.length}.`;
    return { text, matches: [], total: 0, shown: 0 };
  }
  const listed = form === "full" ? hits.slice(0, MAX_FULL) : hits;
  const tools = listed.map(callable);
  const matches = tools.map((tool) => matchOf(tool, form, language, resultOf(tool, form)));
  const head = headLine(hits.length, listed.length, entries.length, query, blank, form);
  const separator = form === "full" ? "\n\n" : "\n";
  const kept = fitted(head, tools.map((tool, i) => block(tool, matches[i], form, blank)), separator);
  const shown = kept.length;
  const tails = [
    ...cutLines(shown, listed.length, hits, blank, form),
    ...notes(tools.slice(0, shown), matches.slice(0, shown), language),
  ];
  const text = [head, ...kept].join(separator) + tails.map((line) => `${separator}${line}`).join("");
  return { text, matches: matches.slice(0, shown), total: hits.length, shown };
}

function headLine(
  hits: number,
  listed: number,
  all: number,
  query: string,
  blank: boolean,
  form: Form,
): string {
  if (blank) {
    return `${hits} function${hits === 1 ? "" : "s"} a tiny_execute program may call, as ` +
      "`await relay.<name>(args)`" + (form === "brief" ? "; search with words for what each does:" : ":");
  }
  return `${hits} of the ${all} functions match${hits === 1 ? "es" : ""} ${quoted(query)}` +
    (listed < hits ? `; the best ${listed} first:` : ":");
}

/** What was left out, and how to see it. */
function cutLines(
  shown: number,
  listed: number,
  hits: readonly Tool[],
  blank: boolean,
  form: Form,
): string[] {
  if (shown < listed) {
    return [
      `[cut at ${MAX_TEXT_BYTES / 1024} KiB: ${shown} of ${hits.length} functions shown; ` +
      (blank
        ? "search with words to narrow]"
        : form === "full"
        ? 'narrow the query, or ask with detail "brief"]'
        : "narrow the query]"),
    ];
  }
  if (listed < hits.length) {
    const more = hits.length - shown;
    return [
      `${more} more match${
        more === 1 ? "es" : ""
      }: ask with detail "brief" for every match on one line, or ` +
      `add words (a function's name, such as ${hits[0].name}) to narrow.`,
    ];
  }
  return [];
}
