// What reaches the host is valid MCP whatever the relay sent (conform.ts):
// each repair checked here, and every output checked with the official SDK's
// own schemas rather than with our idea of them.

import assert from "node:assert/strict";
import { CallToolResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import { conformResult, conformTool } from "../../lib/facade/conform.ts";
import type { JsonObject } from "../../lib/wire/mcp.ts";
import { TEXT_LIMIT_BYTES, truncationMarker } from "../support/contract.ts";

const SCHEMA = { type: "object", properties: { id: { type: "string" } }, required: ["id"] };

function validTool(tool: unknown): void {
  const parsed = ToolSchema.safeParse(tool);
  assert.ok(parsed.success, `not a valid MCP tool: ${JSON.stringify(parsed.error?.issues)}`);
}

function validResult(result: unknown): void {
  const parsed = CallToolResultSchema.safeParse(result);
  assert.ok(
    parsed.success,
    `not a valid CallToolResult: ${String(JSON.stringify(parsed.error?.issues)).slice(0, 400)}`,
  );
}

Deno.test("conformTool: each field the relay sent, kept or repaired", async (t) => {
  const cases: [string, JsonObject, JsonObject, RegExp | undefined][] = [
    [
      "a valid entry keeps its title, description, input schema and annotations",
      {
        title: "Read a room",
        description: "Reads.",
        inputSchema: SCHEMA,
        annotations: { readOnlyHint: true },
      },
      {
        title: "Read a room",
        description: "Reads.",
        inputSchema: SCHEMA,
        annotations: { readOnlyHint: true },
      },
      undefined,
    ],
    ["a description that is a number is left out", { description: 42, inputSchema: SCHEMA }, {
      inputSchema: SCHEMA,
    }, /description is a number/],
    ["a title that is an object is left out", { title: { en: "x" }, inputSchema: SCHEMA }, {
      inputSchema: SCHEMA,
    }, /title is an object/],
    ["an input schema that is a string becomes an object schema", { inputSchema: "object" }, {
      inputSchema: { type: "object" },
    }, /inputSchema is not an object schema/],
    ["an array schema becomes an object schema", { inputSchema: { type: "array" } }, {
      inputSchema: { type: "object" },
    }, /inputSchema/],
    ["properties that are not schemas", { inputSchema: { type: "object", properties: { a: 1 } } }, {
      inputSchema: { type: "object" },
    }, /inputSchema/],
    ["required that is not a list of names", { inputSchema: { type: "object", required: "a" } }, {
      inputSchema: { type: "object" },
    }, /inputSchema/],
    ["no input schema at all", {}, { inputSchema: { type: "object" } }, undefined],
    ["annotations that are a string are left out", { inputSchema: SCHEMA, annotations: "read-only" }, {
      inputSchema: SCHEMA,
    }, /annotations is a string/],
    [
      "annotation hints of the wrong type are dropped, the others kept",
      { inputSchema: SCHEMA, annotations: { readOnlyHint: "yes", title: "T", openWorldHint: false, x: 1 } },
      { inputSchema: SCHEMA, annotations: { title: "T", openWorldHint: false } },
      /annotations fields/,
    ],
    ["the relay's outputSchema is never passed on", { inputSchema: SCHEMA, outputSchema: SCHEMA }, {
      inputSchema: SCHEMA,
    }, undefined],
    [
      "icons, _meta and other fields are not passed on",
      {
        inputSchema: SCHEMA,
        icons: "x",
        _meta: 5,
        execution: { taskSupport: "sometimes" },
      },
      { inputSchema: SCHEMA },
      undefined,
    ],
  ];
  for (const [name, entry, expected, note] of cases) {
    await t.step(name, () => {
      const { value, notes } = conformTool("read_room", { name: "read_room", ...entry });
      assert.deepEqual(value, { name: "read_room", ...expected });
      validTool(value);
      if (note) assert.match(notes.join("\n"), note);
      else assert.deepEqual(notes, []);
      for (const line of notes) assert.match(line, /^read_room: /, "each note names the tool");
    });
  }
  await t.step("a description over 64 KiB is bounded like any text the model reads", () => {
    const { value } = conformTool("read_room", { description: "d".repeat(100_000) });
    const marker = `\n${truncationMarker(TEXT_LIMIT_BYTES, 100_000)}`;
    assert.ok(value.description!.endsWith(marker), value.description!.slice(-80));
  });
});

const PNG = "iVBORw0KGgo=";

Deno.test("conformResult: content blocks", async (t) => {
  const cases: [string, unknown[], unknown[], RegExp | undefined][] = [
    ["valid text, image, audio, resource and link blocks pass", [
      { type: "text", text: "hi", annotations: { audience: ["user"], priority: 0.5 } },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: PNG, mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a", text: "x", mimeType: "text/plain" } },
      { type: "resource", resource: { uri: "file:///b", blob: PNG } },
      { type: "resource_link", uri: "https://relay.example.test/f", name: "f", size: 3 },
    ], [
      { type: "text", text: "hi", annotations: { audience: ["user"], priority: 0.5 } },
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: PNG, mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///a", mimeType: "text/plain", text: "x" } },
      { type: "resource", resource: { uri: "file:///b", blob: PNG } },
      { type: "resource_link", uri: "https://relay.example.test/f", name: "f", size: 3 },
    ], undefined],
    ['a block typed "Text" keeps its words as a text block', [{ type: "Text", text: "hello" }], [
      { type: "text", text: "hello" },
    ], /"Text" block is not an MCP content type; given as text/],
    ["a text that is not a string is given as its JSON", [{ type: "text", text: { a: 1 } }], [
      { type: "text", text: '{"a":1}' },
    ], /text is an object/],
    ["a text block without text is left out", [{ type: "text" }], [], /without text/],
    ["an unknown block without text is left out", [{ type: "video", url: "x" }], [], /"video" block/],
    ["a block that is not an object is left out", ["just a string", null, 3], [], /not an object/],
    [
      "an image without Base64 data is left out",
      [{ type: "image", data: "***", mimeType: "image/png" }],
      [],
      /image block/,
    ],
    ["a resource without a uri is left out", [{ type: "resource", resource: { text: "x" } }], [], /uri/],
    ["a resource link without a name is left out", [{ type: "resource_link", uri: "x" }], [], /name/],
    [
      "content annotations that MCP would refuse are dropped from the block",
      [
        { type: "text", text: "x", annotations: { priority: 7 } },
      ],
      [{ type: "text", text: "x" }],
      undefined,
    ],
  ];
  for (const [name, content, expected, note] of cases) {
    await t.step(name, () => {
      const { value, notes } = conformResult({ content });
      assert.deepEqual(value.content, expected);
      validResult(value);
      if (note) assert.match(notes.join("\n"), note);
    });
  }
});

Deno.test("conformResult: the rest of the result", async (t) => {
  await t.step("content that is not a list becomes an empty list", () => {
    const { value, notes } = conformResult({ content: "oops" });
    assert.deepEqual(value.content, []);
    assert.match(notes[0], /content is a string/);
    validResult(value);
  });
  await t.step(
    "structuredContent that is not an object is given as a text block (a string as it is, anything else as JSON)",
    () => {
      for (const structured of [[1, 2], "text", 5, true]) {
        const { value, notes } = conformResult({
          content: [{ type: "text", text: "t" }],
          structuredContent: structured,
        });
        assert.equal(value.structuredContent, undefined);
        const text = typeof structured === "string" ? structured : JSON.stringify(structured);
        assert.deepEqual(value.content.at(-1), { type: "text", text });
        assert.match(notes[0], /structuredContent is/);
        validResult(value);
      }
    },
  );
  await t.step("a null structuredContent means none", () => {
    const { value, notes } = conformResult({ content: [], structuredContent: null });
    assert.ok(!("structuredContent" in value));
    assert.deepEqual(notes, []);
  });
  await t.step("isError and _meta of the wrong type are left out; resultType and other fields pass", () => {
    const { value } = conformResult({ content: [], isError: "yes", _meta: [], resultType: "complete" });
    assert.deepEqual(value, { content: [], resultType: "complete" });
    validResult(value);
  });
  await t.step("the bounds apply after the repairs: a Text block of 100 KB is cut", () => {
    const { value } = conformResult({ content: [{ type: "Text", text: "x".repeat(100_000) }] });
    const marker = `\n${truncationMarker(TEXT_LIMIT_BYTES, 100_000)}`;
    assert.ok(value.content[0].text!.endsWith(marker), value.content[0].text!.slice(-80));
  });
  await t.step("a valid result passes through untouched, with no note", () => {
    const result = {
      content: [{ type: "text", text: "3 rooms" }],
      structuredContent: { rooms: 3 },
      isError: false,
      _meta: { "io.modelcontextprotocol/serverInfo": { name: "relay" } },
    };
    const { value, notes } = conformResult(structuredClone(result));
    assert.deepEqual(value, result);
    assert.deepEqual(notes, []);
  });
});
