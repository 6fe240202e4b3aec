// tiny_search's languages (lib/code/languages.ts): TypeScript's signature with a write's options and the
// result type, JavaScript's JSDoc call, and JSON's tools/call request, valid for the official SDK and for
// the tool's own input schema, with its required arguments filled.

import assert from "node:assert/strict";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { functionText, LANGUAGES, toolsCall } from "../../lib/code/languages.ts";
import { callable } from "../../lib/code/search.ts";
import type { ResultType } from "../../lib/code/signature.ts";
import { exposedTable } from "../../lib/facade/exposed_table.ts";
import { READ_TOOLS, WRITE_TOOLS } from "../../lib/facade/tools.ts";
import type { Tool } from "../../lib/wire/mcp.ts";
import { DEFAULT_TOOLS } from "../support/strict_relay/tool_table.ts";

const TABLE = exposedTable(DEFAULT_TOOLS, [...READ_TOOLS, ...WRITE_TOOLS]).value.map(callable);
const POST: Tool = {
  name: "post_message",
  inputSchema: {
    type: "object",
    properties: { room: { type: "string" }, content: { type: "string" } },
    required: ["room"],
  },
};
const UNKNOWN: ResultType = { text: "unknown", source: "unknown" };
const SEEN: ResultType = { text: "{ event_id: string }", source: "seen", answers: 2 };

Deno.test("the three languages", () => {
  assert.deepEqual(LANGUAGES, ["typescript", "javascript", "json"]);
});

Deno.test("typescript: the signature, a write's options, the result type marked when seen", () => {
  assert.equal(
    functionText(POST, "typescript", "brief", SEEN, true),
    "relay.post_message(args: { room: string; content?: string }, options?: { idempotencyKey?: string }): " +
      "Promise<{ event_id: string }> /* as seen in 2 answers, not promised */",
  );
  assert.equal(
    functionText(POST, "typescript", "brief", UNKNOWN, false),
    "relay.post_message(args: { room: string; content?: string }): Promise<unknown>",
  );
});

Deno.test("javascript: the call with its JSDoc, on one line when brief", () => {
  assert.equal(
    functionText(POST, "javascript", "full", SEEN, true),
    [
      "/**",
      " * @param {{ room: string; content?: string }} args",
      " * @param {{ idempotencyKey?: string }} [options] a key this write is kept under",
      " * @returns {Promise<{ event_id: string }>} /* as seen in 2 answers, not promised */",
      " */",
      "relay.post_message(args, options)",
    ].join("\n"),
  );
  const listRooms = {
    name: "list_rooms",
    inputSchema: { type: "object", properties: { cursor: { type: "string" } } },
  };
  assert.equal(
    functionText(listRooms, "javascript", "brief", UNKNOWN, false),
    "/** @param {{ cursor?: string }} [args] @returns {Promise<unknown>} */ relay.list_rooms(args)",
  );
});

Deno.test("json: the tools/call a host would send, valid for the SDK and for the tool's schema", () => {
  const ajv = new Ajv({ strict: false });
  for (const tool of TABLE) {
    const request = toolsCall(tool);
    assert.ok(CallToolRequestSchema.safeParse(request).success, tool.name);
    const args = (request.params as { arguments: unknown }).arguments;
    assert.ok(ajv.validate(tool.inputSchema, args), `${tool.name}: ${ajv.errorsText()}`);
    const line = functionText(tool, "json", "brief", UNKNOWN, false);
    assert.deepEqual(JSON.parse(line), request, "a brief line is the request alone");
    const full = functionText(tool, "json", "full", SEEN, false).split("\n");
    assert.deepEqual(JSON.parse(full[0]), request);
    assert.equal(
      full[1],
      "Answers (structuredContent): { event_id: string } /* as seen in 2 answers, not promised */",
    );
  }
  assert.deepEqual(toolsCall(POST), {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "post_message", arguments: { room: "<room>" } },
  });
});

Deno.test("json: each schema's example — const, enum, default, minimum, nested, bounded; odd names kept", () => {
  let deep: Record<string, unknown> = {
    type: "object",
    properties: { leaf: { type: "string" } },
    required: ["leaf"],
  };
  for (let i = 0; i < 20; i++) deep = { type: "object", properties: { d: deep }, required: ["d"] };
  const tool: Tool = {
    name: "odd",
    inputSchema: {
      type: "object",
      properties: {
        fixed: { const: "v1" },
        status: { type: "string", enum: ["open", "done"] },
        limit: { type: "integer", minimum: 5 },
        count: { type: "number" },
        flag: { type: "boolean" },
        labels: { type: "array", items: { type: "string" } },
        either: { anyOf: [{ type: "integer" }, { type: "string" }] },
        nullable: { type: ["null", "string"] },
        given: { type: "string", default: "yes" },
        ["__proto__"]: { type: "string" },
        deep,
        missing: { type: "string" },
        untyped: {},
      },
      required: [
        "fixed",
        "status",
        "limit",
        "count",
        "flag",
        "labels",
        "either",
        "nullable",
        "given",
        "__proto__",
        "deep",
        "absent",
        "untyped",
      ],
    },
  };
  const args = (toolsCall(tool).params as { arguments: Record<string, unknown> }).arguments;
  assert.deepEqual(Object.keys(args), [
    "fixed",
    "status",
    "limit",
    "count",
    "flag",
    "labels",
    "either",
    "nullable",
    "given",
    "__proto__",
    "deep",
  ]);
  assert.equal(args.fixed, "v1");
  assert.equal(args.status, "open");
  assert.equal(args.limit, 5);
  assert.equal(args.count, 1);
  assert.equal(args.flag, false);
  assert.deepEqual(args.labels, []);
  assert.equal(args.either, 1);
  assert.equal(args.nullable, "<nullable>");
  assert.equal(args.given, "yes");
  assert.equal(Object.getOwnPropertyDescriptor(args, "__proto__")?.value, "<__proto__>");
  assert.equal(Object.getPrototypeOf(args), Object.prototype);
  assert.match(JSON.stringify(args.deep), /^\{"d":\{"d":\{"d":\{\}\}\}\}$/, "nesting bounded");
});
