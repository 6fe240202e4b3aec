// Which result type tiny_search shows for a function (lib/code/search_tool.ts resultOf): the relay's
// outputSchema; else what its version answers as tinyagent ships it, from the first call of a session;
// unless an answer seen did not fit that, then the seen shape, saying so; else the seen shape; else unknown.

import assert from "node:assert/strict";
import { resultOf, tableHash } from "../../lib/code/search_tool.ts";
import { SeenResults } from "../../lib/code/seen_results.ts";
import { shippedShape } from "../../lib/code/relay_answers.ts";
import { search } from "../../lib/code/search.ts";
import type { Tool } from "../../lib/wire/mcp.ts";

const tool = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: { cursor: { type: "string" } } },
  ...extra,
});

function session() {
  const seen = new SeenResults((task) => task(), shippedShape);
  return { seen, of: resultOf((name, max) => seen.typeOf(name, max)) };
}

Deno.test("result types: shipped from the first call, with list_rooms' real fields", () => {
  const { of } = session();
  const result = of(tool("list_rooms"), "full");
  assert.equal(result.source, "shipped");
  for (
    const field of [
      "items: { id: string",
      "name: string",
      "members: number",
      "last_message_at: number",
      "next_cursor: string",
    ]
  ) {
    assert.ok(result.text.includes(field), `${field} in ${result.text}`);
  }
  assert.ok(of(tool("list_rooms"), "brief").text.length <= 300);
  assert.equal(
    of(tool("post_message"), "full").text,
    "{ accepted: boolean; event_id: string; message: string }",
  );
  assert.equal(of(tool("no_such_tool"), "full").source, "unknown");
});

Deno.test("result types: the relay's outputSchema wins over the shipped type", () => {
  const { of } = session();
  const declared = tool("list_rooms", {
    outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  });
  assert.deepEqual(of(declared, "full"), { text: "{ n: number }", source: "schema" });
});

Deno.test("result types: an answer that does not fit the shipped type puts the seen one in its place, saying why", () => {
  const { seen, of } = session();
  seen.record("list_rooms", {
    content: [],
    structuredContent: { items: [{ id: "a", name: "A", members: 1 }], cursor: "" },
  });
  const result = of(tool("list_rooms"), "full");
  assert.equal(result.source, "seen");
  assert.equal(result.text, "{ items: { id: string; name: string; members: number }[]; cursor: string }");
  assert.match(result.differs!, /^answer\.cursor is a field the shipped type does not have$|missing/);
  const found = search([tool("list_rooms")], "rooms", { resultOf: of });
  assert.match(found.text, /as seen in 1 answer, not promised/);
  assert.match(
    found.text,
    /The relay answered list_rooms otherwise than the type shipped for it \(answer\..*\): its type is the shape of the answers seen\./,
  );
});

Deno.test("result types: a shipped type is marked as what tinyrelay answers, and its note said once", () => {
  const { of } = session();
  const found = search(
    [
      tool("list_rooms"),
      tool("read_room", {
        inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      }),
    ],
    "",
    { resultOf: of, detail: "full" },
  );
  assert.equal(
    found.text.match(/\/\* what tinyrelay answers, as read from its source: not promised \*\//g)?.length,
    2,
  );
  assert.equal(
    found.text.match(/A type marked as tinyrelay's is what this relay's version answers/g)?.length,
    1,
  );
  for (const language of ["javascript", "json"] as const) {
    const text = search([tool("list_rooms")], "rooms", { resultOf: of, language, detail: "full" }).text;
    assert.match(text, /next_cursor: string/, language);
  }
});

Deno.test("result types: the table's hash covers what is shown, and only that", async () => {
  const { seen } = session();
  const tools = [tool("list_rooms"), tool("read_status")];
  const first = await tableHash(tools, seen);
  seen.record("list_rooms", { content: [], structuredContent: { items: [], next_cursor: "" } });
  assert.equal(await tableHash(tools, seen), first, "an answer that fits the shipped type: the same hash");
  seen.record("read_status", { content: [], structuredContent: { errors: {} } });
  const seenOne = await tableHash(tools, seen);
  assert.notEqual(
    seenOne,
    first,
    "read_status's answer is shipped too, but does not fit: its seen type is shown",
  );
  seen.record("list_rooms", { content: [], structuredContent: { items: [], next: "" } });
  assert.notEqual(await tableHash(tools, seen), seenOne, "list_rooms now shown as seen: another hash");
  assert.equal(await tableHash([...tools]), await tableHash([...tools]), "without types, the tools alone");
});
