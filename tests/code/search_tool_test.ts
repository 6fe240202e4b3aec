// `tiny_search` (lib/code/search_tool.ts): its entry (checked by the official SDK's schema), each
// refusal of its arguments in its words, the result's text and structure, the table read at each
// call, and the table unavailable (said, or thrown) as a tool error pointing at tiny_diagnose.

import assert from "node:assert/strict";
import { CallToolResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { search } from "../../lib/code/search.ts";
import {
  MAX_QUERY,
  parseSearchArgs,
  resultOf,
  SEARCH_ENTRY,
  SEARCH_TOOL,
  searchTool,
  tableHash,
  unavailableText,
} from "../../lib/code/search_tool.ts";
import { SeenResults } from "../../lib/code/seen_results.ts";
import { shippedShape } from "../../lib/code/relay_answers.ts";
import { exposedTable } from "../../lib/facade/exposed_table.ts";
import { READ_TOOLS, WRITE_TOOLS } from "../../lib/facade/tools.ts";
import type { CallToolResult, Tool } from "../../lib/wire/mcp.ts";
import { DEFAULT_TOOLS } from "../support/strict_relay/tool_table.ts";

const TABLE = exposedTable(DEFAULT_TOOLS, [...READ_TOOLS, ...WRITE_TOOLS]).value;
const READS = exposedTable(DEFAULT_TOOLS, READ_TOOLS).value;
const textOf = (result: CallToolResult) => result.content[0].text!;

Deno.test("the entry: a valid MCP tool, read-only, a query, an optional detail and language, nothing else", () => {
  assert.equal(SEARCH_TOOL, "tiny_search");
  assert.equal(SEARCH_ENTRY.name, SEARCH_TOOL);
  assert.ok(ToolSchema.safeParse(SEARCH_ENTRY).success);
  const schema = SEARCH_ENTRY.inputSchema as {
    properties: Record<string, Record<string, unknown>>;
    required: string[];
    additionalProperties: boolean;
  };
  assert.deepEqual(Object.keys(schema.properties), ["query", "detail", "language"]);
  assert.deepEqual(schema.properties.language.enum, ["typescript", "javascript", "json"]);
  assert.deepEqual(schema.required, ["query"]);
  assert.equal(schema.additionalProperties, false);
  assert.equal(schema.properties.query.type, "string");
  assert.equal(schema.properties.query.maxLength, MAX_QUERY);
  assert.deepEqual(schema.properties.detail.enum, ["brief", "full"]);
  assert.equal(SEARCH_ENTRY.annotations?.readOnlyHint, true);
  // Written for the model: what it searches, how a program calls, what a call returns and throws.
  const words = [
    /tiny_execute/,
    /`relay\.<name>\(args/,
    /structuredContent/,
    /throws/,
    /empty query/,
    /hash/,
  ];
  const order =
    /outputSchema, else what the relay's version answers \(read from its source\), else the shape of the answers seen this session/;
  for (const said of [...words, order]) {
    assert.match(SEARCH_ENTRY.description!, said);
  }
});

Deno.test("parseSearchArgs: the query, detail and language taken; each refusal in its words", () => {
  assert.deepEqual(parseSearchArgs({ query: "issues" }), { ok: true, query: "issues" });
  assert.deepEqual(parseSearchArgs({ query: "" }), { ok: true, query: "" });
  assert.deepEqual(parseSearchArgs({ query: "x", detail: "brief" }), {
    ok: true,
    query: "x",
    detail: "brief",
  });
  assert.deepEqual(parseSearchArgs({ query: "x", detail: "full" }), { ok: true, query: "x", detail: "full" });
  for (const language of ["typescript", "javascript", "json"]) {
    assert.deepEqual(parseSearchArgs({ query: "x", language }), { ok: true, query: "x", language });
  }
  assert.deepEqual(parseSearchArgs({ query: "q".repeat(MAX_QUERY) }), {
    ok: true,
    query: "q".repeat(MAX_QUERY),
  });
  const refusals: [Record<string, unknown>, string][] = [
    [{}, "invalid arguments: query must be a string (an empty one lists every function)"],
    [{ query: 5 }, "invalid arguments: query must be a string (an empty one lists every function)"],
    [{ query: null }, "invalid arguments: query must be a string (an empty one lists every function)"],
    [{ query: ["issues"] }, "invalid arguments: query must be a string (an empty one lists every function)"],
    [
      { query: "q".repeat(MAX_QUERY + 1) },
      `invalid arguments: query may hold ${MAX_QUERY} characters at most`,
    ],
    [{ query: "x", detail: "verbose" }, 'invalid arguments: detail must be "brief" or "full"'],
    [{ query: "x", detail: null }, 'invalid arguments: detail must be "brief" or "full"'],
    [{ query: "x", detail: ["full"] }, 'invalid arguments: detail must be "brief" or "full"'],
    [
      { query: "x", language: "http" },
      'invalid arguments: language must be "typescript", "javascript" or "json"',
    ],
    [
      { query: "x", language: null },
      'invalid arguments: language must be "typescript", "javascript" or "json"',
    ],
    [{ query: "x", lang: "json" }, 'invalid arguments: unknown field "lang"'],
    [{ query: "x", "a\nb": 1 }, 'invalid arguments: unknown field "a\\nb"'],
  ];
  for (const [args, error] of refusals) {
    assert.deepEqual(parseSearchArgs(args), { ok: false, error }, JSON.stringify(args).slice(0, 60));
  }
});

/** The tool over a table function that counts its calls. */
function counted(table: () => Promise<Tool[] | { unavailable: string }>) {
  let calls = 0;
  const tool = searchTool(() => {
    calls++;
    return table();
  });
  return { tool, calls: () => calls };
}

Deno.test("a call: the rendering as its one text block, the matches as structure, never an error", async () => {
  const { tool } = counted(() => Promise.resolve(TABLE));
  const hash = await tableHash(TABLE);
  for (
    const [query, detail] of [["issues", undefined], ["room messages", "brief"], ["", undefined]] as const
  ) {
    const result = await tool.call(detail ? { query, detail } : { query });
    assert.ok(CallToolResultSchema.safeParse(result).success);
    const found = search(TABLE, query, { detail, hash, resultOf: resultOf(undefined) });
    assert.deepEqual(result, {
      content: [{ type: "text", text: found.text }],
      structuredContent: {
        matches: found.matches,
        total: found.total,
        shown: found.shown,
        language: "typescript",
        tableHash: hash,
      },
      isError: false,
    });
  }
  const issues = await tool.call({ query: "issues" });
  const structured = issues.structuredContent as { matches: { name: string; write: boolean }[] };
  assert.equal(structured.matches[0].name, "list_issues");
  const none = await tool.call({ query: "xyzzy" });
  assert.equal(none.isError, false);
  assert.match(textOf(none), /^No function matches "xyzzy"\. The closest names: /);
  assert.match(textOf(none), new RegExp(`\\nTable hash: ${hash} \\(tiny_execute's answer gives`));
  assert.deepEqual(none.structuredContent, {
    matches: [],
    total: 0,
    shown: 0,
    language: "typescript",
    tableHash: hash,
  });
});

Deno.test("every answer ends with the table's hash: the same table the same, another table another", async () => {
  let table = READS;
  const { tool } = counted(() => Promise.resolve(table));
  const hashOf = async (args: Record<string, unknown>) => {
    const result = await tool.call(args);
    const line = textOf(result).split("\n").at(-1)!;
    assert.match(line, /^Table hash: [0-9a-f]{12} /);
    assert.equal(line.slice(12, 24), (result.structuredContent as { tableHash: string }).tableHash);
    return line.slice(12, 24);
  };
  const first = await hashOf({ query: "rooms" });
  assert.equal(await hashOf({ query: "", language: "json" }), first, "whatever the query and language");
  assert.equal(first, await tableHash(READS));
  assert.equal(await tableHash(READS), await tableHash(READS), "kept for the table held");
  table = READS.map((entry) => entry.name === "list_rooms" ? { ...entry, description: "Changed." } : entry);
  assert.notEqual(await hashOf({ query: "rooms" }), first, "a description changed");
  table = READS.filter((entry) => entry.name !== "read_status");
  assert.notEqual(await hashOf({ query: "rooms" }), first, "a tool gone");
});

Deno.test("result types: the outputSchema's, else the answers seen (marked), else unknown", async () => {
  const seen = new SeenResults((task) => task());
  // A tool tinyagent ships no type for (every read of the relay's has one: result_types_test.ts).
  const rooms = {
    ...READS.find((entry) => entry.name === "list_rooms")!,
    name: "list_widgets",
    outputSchema: undefined,
  };
  const status = {
    ...READS.find((entry) => entry.name === "read_status")!,
    outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
  };
  const table = [rooms, status];
  const tool = searchTool(() => Promise.resolve(table), (name, max) => seen.typeOf(name, max));
  const before = textOf(await tool.call({ query: "list widgets", detail: "brief" }));
  assert.match(before, /relay\.list_widgets\(args\?: \{[^\n]*\}\): Promise<unknown>/);
  assert.match(before, /A result typed `unknown` is not known yet: log the first answer/);
  seen.record("list_widgets", {
    content: [],
    structuredContent: { items: [{ id: "general", members: 2 }], next_cursor: "" },
  });
  const after = await tool.call({ query: "list widgets" });
  assert.match(
    textOf(after),
    /\}\): Promise<\{ items: \{ id: string; members: number \}\[\]; next_cursor: string \}> \/\* as seen in 1 answer, not promised \*\//,
  );
  assert.match(textOf(after), /A type marked as seen is the shape of this session's answers, not a promise/);
  assert.match(
    textOf(after),
    /Pages: an answer with a next_cursor also has hasNextPage\(\), getNextPage\(\)/,
  );
  const matches = (after.structuredContent as { matches: { name: string; result: string }[] }).matches;
  assert.deepEqual(matches.map((match) => [match.name, match.result]), [["list_widgets", "seen"]]);
  // read_status declares an outputSchema: that is its type, whatever was seen.
  seen.record("read_status", { content: [], structuredContent: { other: 1 } });
  const said = resultOf((name, max) => seen.typeOf(name, max))(status, "brief");
  assert.deepEqual(said, { text: "{ ok: boolean }", source: "schema" });
});

Deno.test("the table is read at each call: what --tools and --allow-writes expose now, and only that", async () => {
  let table = READS;
  const { tool, calls } = counted(() => Promise.resolve(table));
  const before = await tool.call({ query: "post message" });
  assert.doesNotMatch(textOf(before), /relay\.post_message/);
  table = TABLE;
  const after = await tool.call({ query: "post message" });
  // Every argument optional: a write takes its arguments, or the signed event alone.
  assert.match(textOf(after), /relay\.post_message\(args\?: \{/);
  assert.equal(calls(), 2);
  assert.match(textOf(await tool.call({ query: "" })), /^35 functions/);
});

Deno.test("bad arguments: a tool error naming the field, and the table not read", async () => {
  const { tool, calls } = counted(() => Promise.resolve(TABLE));
  for (
    const [args, error] of [
      [{}, "invalid arguments: query must be a string (an empty one lists every function)"],
      [{ query: "x", detail: "verbose" }, 'invalid arguments: detail must be "brief" or "full"'],
      [{ query: "x", extra: true }, 'invalid arguments: unknown field "extra"'],
    ] as const
  ) {
    const result = await tool.call(args);
    assert.ok(CallToolResultSchema.safeParse(result).success);
    assert.deepEqual(result, { content: [{ type: "text", text: error }], isError: true });
  }
  assert.equal(calls(), 0);
});

Deno.test("the relay's table unavailable, said or thrown: a tool error that points at tiny_diagnose", async () => {
  const said = await searchTool(() => Promise.resolve({ unavailable: "transport: connection refused" }))
    .call({ query: "issues" });
  assert.deepEqual(said, {
    content: [{
      type: "text",
      text:
        "the relay's tool table could not be read (transport: connection refused), so there is nothing to " +
        "search; call tiny_diagnose to see why",
    }],
    isError: true,
  });
  const thrown = await searchTool(() => Promise.reject(new Error("permission: unauthorized"))).call({
    query: "",
  });
  assert.equal(thrown.isError, true);
  assert.equal(textOf(thrown), unavailableText("permission: unauthorized"));
  const odd = await searchTool(() => Promise.reject("a string")).call({ query: "" });
  assert.equal(textOf(odd), unavailableText("a string"));
  // A reason of any size or shape is said on one line, bounded.
  const long = unavailableText(`relay: ${"x\n".repeat(10_000)}`);
  assert.ok(!long.includes("\n"));
  assert.ok(long.length < 700);
});

// Which result type is shown: the relay's outputSchema; else what its version answers as tinyagent
// ships it, from the first call of a session; unless an answer seen did not fit that, then the seen
// shape, saying so; else the seen shape; else unknown.

const entryOf = (name: string, extra: Partial<Tool> = {}): Tool => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: { cursor: { type: "string" } } },
  ...extra,
});

function shippedSession() {
  const seen = new SeenResults((task) => task(), shippedShape);
  return { seen, of: resultOf((name, max) => seen.typeOf(name, max)) };
}

Deno.test("result types: shipped from the first call, with list_rooms' real fields", () => {
  const { of } = shippedSession();
  const result = of(entryOf("list_rooms"), "full");
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
  assert.ok(of(entryOf("list_rooms"), "brief").text.length <= 300);
  assert.equal(
    of(entryOf("post_message"), "full").text,
    "{ accepted: boolean; event_id: string; message: string }",
  );
  assert.equal(of(entryOf("no_such_tool"), "full").source, "unknown");
});

Deno.test("result types: the relay's outputSchema wins over the shipped type", () => {
  const { of } = shippedSession();
  const declared = entryOf("list_rooms", {
    outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
  });
  assert.deepEqual(of(declared, "full"), { text: "{ n: number }", source: "schema" });
});

Deno.test("result types: an answer that does not fit the shipped type puts the seen one in its place, saying why", () => {
  const { seen, of } = shippedSession();
  seen.record("list_rooms", {
    content: [],
    structuredContent: { items: [{ id: "a", name: "A", members: 1 }], cursor: "" },
  });
  const result = of(entryOf("list_rooms"), "full");
  assert.equal(result.source, "seen");
  assert.equal(result.text, "{ items: { id: string; name: string; members: number }[]; cursor: string }");
  assert.match(result.differs!, /^answer\.cursor is a field the shipped type does not have$|missing/);
  const found = search([entryOf("list_rooms")], "rooms", { resultOf: of });
  assert.match(found.text, /as seen in 1 answer, not promised/);
  assert.match(
    found.text,
    /The relay answered list_rooms otherwise than the type shipped for it \(answer\..*\): its type is the shape of the answers seen\./,
  );
});

Deno.test("result types: a shipped type is marked as what tinyrelay answers, and its note said once", () => {
  const { of } = shippedSession();
  const found = search(
    [
      entryOf("list_rooms"),
      entryOf("read_room", {
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
    const text = search([entryOf("list_rooms")], "rooms", { resultOf: of, language, detail: "full" }).text;
    assert.match(text, /next_cursor: string/, language);
  }
});

Deno.test("result types: the table's hash covers what is shown, and only that", async () => {
  const { seen } = shippedSession();
  const tools = [entryOf("list_rooms"), entryOf("read_status")];
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
