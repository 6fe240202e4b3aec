// What tiny_search says once an answer, after its matches, when a function shown needs it: where a
// result type comes from (unknown, tinyrelay's, seen, or seen because the relay answered otherwise),
// pages, and the key a write is kept under. Pure.

import { excerpt, isObject } from "../wire/json.ts";
import type { Tool } from "../wire/mcp.ts";
import type { Language } from "./languages.ts";
import type { ResultType } from "./signature.ts";

/** What the notes read of a match. */
export interface Noted {
  name: string;
  result: ResultType["source"];
  write: boolean;
  differs?: string;
}

/** Said once an answer, when a function shown needs it: unknown and seen results, pages, write keys. */
const NOTES = {
  unknown: "A result typed `unknown` is not known yet: log the first answer " +
    "(console.log(JSON.stringify(answer).slice(0, 2000))) before you rely on its fields.",
  shipped:
    "A type marked as tinyrelay's is what this relay's version answers, read from the relay's source: " +
    "not a promise; a field marked `?` may be missing.",
  seen: "A type marked as seen is the shape of this session's answers, not a promise: a field may be " +
    "missing from the next answer, or another come.",
  pages: "Pages: an answer with a next_cursor also has hasNextPage(), getNextPage() (the same call with " +
    "that cursor; null after the last page) and `for await (const item of answer)` over its items and the " +
    "next pages'; none shows in JSON.stringify.",
  keys: 'Writes: pass `{ idempotencyKey: "…" }` (at most 200 characters) as every write\'s second ' +
    "argument: run again with the same key and arguments, it is answered from the write already sent, " +
    "never sent twice.",
};

export function notes(tools: readonly Tool[], matches: readonly Noted[], language: Language): string[] {
  const said: string[] = [];
  if (matches.some((match) => match.result === "unknown")) said.push(NOTES.unknown);
  if (matches.some((match) => match.result === "shipped")) said.push(NOTES.shipped);
  if (matches.some((match) => match.result === "seen")) said.push(NOTES.seen);
  for (const match of matches.filter((match) => match.differs !== undefined).slice(0, 3)) {
    said.push(
      `The relay answered ${match.name} otherwise than the type shipped for it (${
        excerpt(match.differs!, 160)
      }): its type is the shape of the answers seen.`,
    );
  }
  if (language === "json") return said;
  if (tools.some(takesCursor)) said.push(NOTES.pages);
  if (matches.some((match) => match.write)) said.push(NOTES.keys);
  return said;
}

/** Whether a tool's arguments take a cursor: its answers come in pages. */
function takesCursor(tool: Tool): boolean {
  return isObject(tool.inputSchema.properties) && Object.hasOwn(tool.inputSchema.properties, "cursor");
}
