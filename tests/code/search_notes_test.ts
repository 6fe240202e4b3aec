// What tiny_search says once after its matches (lib/code/search_notes.ts): a note for each kind of
// result type shown, the relay's answer that did not fit said for the functions it concerns, pages and
// write keys where they apply.

import assert from "node:assert/strict";
import { type Noted, notes } from "../../lib/code/search_notes.ts";
import type { Tool } from "../../lib/wire/mcp.ts";

const paged: Tool = {
  name: "list_rooms",
  inputSchema: { type: "object", properties: { cursor: { type: "string" } } },
};
const plain: Tool = { name: "read_status", inputSchema: { type: "object", properties: {} } };
const noted = (name: string, result: Noted["result"], extra: Partial<Noted> = {}): Noted => ({
  name,
  result,
  write: false,
  ...extra,
});

Deno.test("notes: one for each kind of result type shown, in order, each once", () => {
  const said = notes([plain], [
    noted("a", "unknown"),
    noted("b", "shipped"),
    noted("c", "seen"),
    noted("d", "shipped"),
  ], "typescript");
  assert.equal(said.length, 3);
  assert.match(said[0], /^A result typed `unknown` is not known yet/);
  assert.match(
    said[1],
    /^A type marked as tinyrelay's is what this relay's version answers, read from the relay's source/,
  );
  assert.match(said[2], /^A type marked as seen is the shape of this session's answers/);
  assert.deepEqual(notes([plain], [noted("a", "schema")], "typescript"), []);
});

Deno.test("notes: a function whose shipped type an answer did not fit, said with how, three at most", () => {
  const differs = (name: string) => noted(name, "seen", { differs: `answer.${name} is missing` });
  const said = notes([plain], ["w", "x", "y", "z"].map(differs), "typescript");
  const lines = said.filter((line) => line.startsWith("The relay answered"));
  assert.deepEqual(
    lines,
    ["w", "x", "y"].map((name) =>
      `The relay answered ${name} otherwise than the type shipped for it (answer.${name} is missing): its type is the shape of the answers seen.`
    ),
  );
  const long = notes([plain], [noted("v", "seen", { differs: "x".repeat(1000) })], "typescript").at(-1)!;
  assert.ok(long.length < 300, "the reason is cut");
});

Deno.test("notes: pages when a tool takes a cursor, keys when a write is shown; neither in JSON", () => {
  const said = notes([paged], [noted("post_message", "shipped", { write: true })], "typescript");
  assert.ok(said.some((line) => line.startsWith("Pages:")));
  assert.ok(said.some((line) => line.startsWith("Writes:")));
  const json = notes([paged], [noted("post_message", "shipped", { write: true })], "json");
  assert.ok(!json.some((line) => line.startsWith("Pages:") || line.startsWith("Writes:")));
});
