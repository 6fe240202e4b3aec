// The JSON language's example values (lib/code/example.ts), schema by schema: each valid for its
// schema (Ajv says so), patterns, lengths, bounds, items and minProperties met, a readable
// placeholder kept where it fits; and every tool of the real relay's table given arguments that
// both Ajv and the relay's own check accept.

import assert from "node:assert/strict";
import { Ajv } from "ajv";
import { example } from "../../lib/code/example.ts";
import { DEFAULT_TOOLS } from "../support/strict_relay/tool_table.ts";
import { validateArguments } from "../support/strict_relay/tool_validate.ts";

const HEX = "^[0-9a-f]{64}$";

Deno.test("example: each schema's value, valid for it", () => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["text", { type: "string" }, "<text>"],
    ["owner", { type: "string", pattern: HEX }, "0".repeat(64)],
    ["commit", { type: "string", pattern: "^[0-9a-f]{40}$" }, "0".repeat(40)],
    ["room", { type: "string", pattern: "^[a-z0-9_-]{1,64}$" }, "room"],
    ["Room", { type: "string", pattern: "^[a-z0-9_-]{1,64}$" }, "a"],
    ["tag", { type: "string", pattern: "^<[a-z]+>$" }, "<tag>"],
    ["id", { type: "string", pattern: "^[a-z]{3}$" }, "aaa"],
    ["token", { type: "string", minLength: 16 }, "<token>xxxxxxxxx"],
    ["name", { type: "string", maxLength: 3 }, "<na"],
    ["key", { type: "string", pattern: "^x{4}$", maxLength: 8 }, "xxxx"],
    ["limit", { type: "integer", minimum: 1, maximum: 100 }, 1],
    ["offset", { type: "integer", minimum: 0 }, 0],
    ["count", { type: "integer", minimum: 5 }, 5],
    ["below", { type: "integer", maximum: -3 }, -3],
    ["under", { type: "number", maximum: 0.5 }, 0.5],
    ["after", { type: "integer", exclusiveMinimum: 3 }, 4],
    ["half", { type: "integer", minimum: 1.5 }, 2],
    ["cap", { type: "integer", exclusiveMaximum: 0 }, -1],
    ["kinds", { type: "array", items: { type: "integer" }, minItems: 2 }, [1, 1]],
    ["keys", { type: "array", items: { type: "string", pattern: HEX }, minItems: 1 }, ["0".repeat(64)]],
    ["labels", { type: "array", items: { type: "string" } }, []],
    ["any", { type: "array", minItems: 1 }, ["<any>"]],
    ["patch", { type: "object", minProperties: 1 }, { "<key>": "<value>" }],
    [
      "counts",
      { type: "object", minProperties: 2, additionalProperties: { type: "integer", minimum: 7 } },
      { "<key>": 7, "<key2>": 7 },
    ],
    [
      "filter",
      { type: "object", minProperties: 1, properties: { kinds: { type: "array" }, "#h": { type: "array" } } },
      { kinds: [] },
    ],
    [
      "event",
      { type: "object", properties: { id: { type: "string", pattern: HEX } }, required: ["id"] },
      { id: "0".repeat(64) },
    ],
    ["state", { type: "string", enum: ["open", "done"], pattern: "^o" }, "open"],
  ];
  const ajv = new Ajv({ strict: false });
  for (const [name, schema, want] of cases) {
    const value = example(schema, name);
    assert.deepEqual(value, want, name);
    assert.ok(ajv.validate(schema, value), `${name}: ${ajv.errorsText()}`);
  }
});

Deno.test("example: a pattern outside the subset keeps the placeholder; none where nothing fits", () => {
  assert.equal(example({ type: "string", pattern: "^(open|shut)$" }, "state"), "<state>");
  assert.deepEqual(example({ type: "object", minProperties: 1, additionalProperties: false }, "x"), {});
  assert.equal(example(true, "x"), undefined);
  assert.equal(example({ description: "anything" }, "x"), undefined);
});

Deno.test("example: every tool of the real relay's table, its arguments accepted by Ajv and the relay", () => {
  const ajv = new Ajv({ strict: false });
  for (const tool of DEFAULT_TOOLS) {
    const args = example(tool.inputSchema, "args") as Record<string, unknown>;
    assert.ok(ajv.validate(tool.inputSchema, args), `${tool.name}: ${ajv.errorsText()}`);
    assert.equal(validateArguments(tool.inputSchema, args), undefined, tool.name);
  }
});

Deno.test("example: bounded whatever the table holds: values in all, and depth through unions", () => {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 4; i++) {
    const properties = Object.fromEntries(Array.from({ length: 64 }, (_, j) => [`p${j}`, schema]));
    const items = { type: "object", properties, required: Object.keys(properties) };
    schema = { type: "array", minItems: 64, items };
  }
  const started = performance.now();
  const text = JSON.stringify(example({ type: "object", properties: { a: schema }, required: ["a"] }, "x"));
  assert.ok(text.length < 32 * 1024, `${text.length} characters`);
  assert.ok(performance.now() - started < 1000);
  let union: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < 10_000; i++) union = { anyOf: [union] };
  assert.equal(example(union, "x"), undefined, "nested past the depth: none, and no stack overflow");
});
