// A tool's JSON Schemas as a TypeScript signature (lib/code/signature.ts): every shape, as a table;
// the full form's comments; and hostile schemas (cyclic, 10,000 properties, 1,000 deep, junk) said
// within bounds without throwing.

import assert from "node:assert/strict";
import {
  callee,
  commentText,
  MAX_CHARS,
  MAX_MEMBERS,
  schemaType,
  toolSignature,
} from "../../lib/code/signature.ts";
import type { Tool } from "../../lib/wire/mcp.ts";

const str = { type: "string" };
const num = { type: "number" };

/** Each schema and its type, brief. */
const SHAPES: [string, unknown, string][] = [
  ["string", str, "string"],
  ["number", num, "number"],
  ["integer", { type: "integer", minimum: 0 }, "number"],
  ["boolean", { type: "boolean" }, "boolean"],
  ["null", { type: "null" }, "null"],
  ["a type list", { type: ["string", "null"] }, "string | null"],
  ["a type list with junk", { type: [5, "string"] }, "string"],
  ["a type list of junk", { type: [5] }, "unknown"],
  ["an unknown type", { type: "date" }, "unknown"],
  ["a type that is not a string", { type: 7 }, "unknown"],
  ["string enum", { type: "string", enum: ["open", "done"] }, '"open" | "done"'],
  ["mixed enum", { enum: ["a", 1, true, null] }, '"a" | 1 | true | null'],
  ["enum with a duplicate", { enum: ["a", "a"] }, '"a"'],
  ["enum holding an object", { enum: ["a", { b: 1 }] }, "unknown"],
  ["enum of 65 strings", { enum: Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => `v${i}`) }, "string"],
  ["enum of 65 strings and numbers", {
    enum: Array.from({ length: MAX_MEMBERS + 1 }, (_, i) => (i % 2 ? i : `v${i}`)),
  }, "string | number"],
  ["enum with a long string", { enum: ["x".repeat(81)] }, "string"],
  ["const string", { const: "open" }, '"open"'],
  ["const number", { const: 3 }, "3"],
  ["const false", { const: false }, "false"],
  ["const null", { const: null }, "null"],
  ["const object", { const: { a: 1 } }, "unknown"],
  ["const quoted", { const: 'a"b' }, '"a\\"b"'],
  ["array of strings", { type: "array", items: str }, "string[]"],
  ["array without items", { type: "array" }, "unknown[]"],
  ["array of a union", { type: "array", items: { anyOf: [str, num] } }, "(string | number)[]"],
  ["array of arrays", { type: "array", items: { type: "array", items: num } }, "number[][]"],
  ["tuple (prefixItems)", { type: "array", prefixItems: [str, num] }, "[string, number]"],
  ["tuple (items list)", { type: "array", items: [str, { type: "boolean" }] }, "[string, boolean]"],
  ["items without a type", { items: str }, "string[]"],
  ["anyOf", { anyOf: [str, { type: "integer" }] }, "string | number"],
  ["oneOf", { oneOf: [{ const: "a" }, { const: "b" }] }, '"a" | "b"'],
  ["a union with an unknown member", { anyOf: [str, { $ref: "#/x" }] }, "unknown"],
  ["an empty union", { anyOf: [] }, "unknown"],
  ["allOf", {
    allOf: [{ type: "object", properties: { a: str } }, { type: "object", properties: { b: num } }],
  }, "{ a?: string } & { b?: number }"],
  ["allOf with an unknown member", { allOf: [str, { $ref: "#" }] }, "string"],
  ["$ref", { $ref: "#/definitions/x" }, "unknown"],
  ["$ref beside a type", { $ref: "#", type: "string" }, "unknown"],
  ["nothing said", {}, "unknown"],
  ["true", true, "unknown"],
  ["false", false, "never"],
  ["object, nothing said", { type: "object" }, "object"],
  ["object, properties empty", { type: "object", properties: {} }, "{}"],
  ["object, closed", { type: "object", additionalProperties: false }, "{}"],
  ["object, values typed", { type: "object", additionalProperties: num }, "Record<string, number>"],
  ["object, open, no properties", { type: "object", additionalProperties: true }, "object"],
  ["required and optional", {
    type: "object",
    properties: { owner: str, limit: { type: "integer" } },
    required: ["owner"],
  }, "{ owner: string; limit?: number }"],
  ["nested object", {
    type: "object",
    properties: { a: { type: "object", properties: { b: str }, required: ["b"] } },
  }, "{ a?: { b: string } }"],
  ["properties and an index signature", {
    type: "object",
    properties: { a: str },
    additionalProperties: num,
  }, "{ a?: string; [key: string]: number }"],
  [
    "properties, open",
    { type: "object", properties: { a: str }, additionalProperties: true },
    "{ a?: string; [key: string]: unknown }",
  ],
  ["properties without a type", { properties: { a: str } }, "{ a?: string }"],
  [
    "names that are not identifiers, quoted",
    {
      type: "object",
      properties: { "content-type": str, "2fa": str, "with space": str, 'a"b': str, $ok: str, _ok: str },
    },
    '{ "content-type"?: string; "2fa"?: string; "with space"?: string; "a\\"b"?: string; $ok?: string; _ok?: string }',
  ],
  [
    "a property named __proto__",
    JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}}}'),
    "{ __proto__?: string }",
  ],
  ["properties that are not an object", { type: "object", properties: [str] }, "object"],
  [
    "a property schema that is junk",
    { type: "object", properties: { a: 5, b: null } },
    "{ a?: unknown; b?: unknown }",
  ],
  ["required that is junk", { type: "object", properties: { a: str }, required: "a" }, "{ a?: string }"],
  ["junk: null", null, "unknown"],
  ["junk: a number", 5, "unknown"],
  ["junk: a string", "string", "unknown"],
  ["junk: an array", [str], "unknown"],
];

Deno.test("schemaType: every shape, brief", () => {
  for (const [what, schema, expected] of SHAPES) assert.equal(schemaType(schema, "brief"), expected, what);
});

const tool = (fields: Partial<Tool>): Tool => ({
  name: "list_issues",
  inputSchema: { type: "object" },
  ...fields,
});

Deno.test("toolSignature: arguments required or optional, the result from outputSchema or unknown", () => {
  const inputSchema = {
    type: "object",
    properties: {
      owner: str,
      repo: str,
      q: str,
      status: { enum: ["open", "done"] },
      limit: { type: "integer" },
    },
    required: ["owner", "repo"],
  };
  assert.equal(
    toolSignature(tool({ inputSchema }), "brief"),
    'relay.list_issues(args: { owner: string; repo: string; q?: string; status?: "open" | "done"; limit?: number }): Promise<unknown>',
  );
  const cases: [string, Partial<Tool>, string][] = [
    [
      "nothing required",
      { inputSchema: { type: "object", properties: { q: str } } },
      "relay.list_issues(args?: { q?: string }): Promise<unknown>",
    ],
    [
      "no parameters",
      { inputSchema: { type: "object", properties: {} } },
      "relay.list_issues(args?: {}): Promise<unknown>",
    ],
    ["required names no property", {
      inputSchema: { type: "object", properties: { q: str }, required: ["x"] },
    }, "relay.list_issues(args?: { q?: string }): Promise<unknown>"],
    ["an output schema", {
      outputSchema: {
        type: "object",
        properties: { tool: str, size: { type: "integer" } },
        required: ["tool"],
      },
    }, "relay.list_issues(args?: object): Promise<{ tool: string; size?: number }>"],
    [
      "an output schema it cannot say",
      { outputSchema: { $ref: "#" } },
      "relay.list_issues(args?: object): Promise<unknown>",
    ],
    [
      "a name that is not an identifier",
      { name: "list-issues" },
      'relay["list-issues"](args?: object): Promise<unknown>',
    ],
    [
      "an input schema that is junk",
      { inputSchema: 5 as unknown as Tool["inputSchema"] },
      "relay.list_issues(args?: unknown): Promise<unknown>",
    ],
  ];
  for (const [what, fields, expected] of cases) {
    assert.equal(toolSignature(tool(fields), "brief"), expected, what);
  }
  assert.equal(callee("read_issue"), "relay.read_issue");
  assert.equal(callee("9lives"), 'relay["9lives"]');
});

Deno.test("the full form: one property a line, each description a short comment; the result stays brief", () => {
  const inputSchema = {
    type: "object",
    properties: {
      owner: { type: "string", description: "Repository owner,\n  hex pubkey." },
      filter: {
        type: "object",
        description: "Narrows the list.",
        properties: { label: { type: "string", description: "One label." }, closed: { type: "boolean" } },
      },
      tags: { type: "array", items: { type: "object", properties: { name: str } } },
    },
    required: ["owner"],
  };
  const outputSchema = {
    type: "object",
    properties: { total: { type: "integer", description: "How many." } },
  };
  assert.equal(
    toolSignature(tool({ inputSchema, outputSchema }), "full"),
    [
      "relay.list_issues(args: {",
      "  /** Repository owner, hex pubkey. */",
      "  owner: string;",
      "  /** Narrows the list. */",
      "  filter?: {",
      "    /** One label. */",
      "    label?: string;",
      "    closed?: boolean;",
      "  };",
      "  tags?: {",
      "    name?: string;",
      "  }[];",
      "}): Promise<{ total?: number }>",
    ].join("\n"),
  );
  assert.equal(
    toolSignature(tool({ inputSchema: { type: "object", properties: {} } }), "full"),
    "relay.list_issues(args?: {}): Promise<unknown>",
  );
});

Deno.test("commentText: one line, cut at 160 characters, never closing the comment early", () => {
  assert.equal(commentText("  a\n\tb  "), "a b");
  assert.equal(commentText("ends */ here"), "ends *\\/ here");
  const cut = commentText("w".repeat(500));
  assert.equal(cut.length, 160);
  assert.ok(cut.endsWith("…"));
  const hostile = { type: "object", properties: { a: { type: "string", description: "x */ y(); /*" } } };
  assert.equal(schemaType(hostile, "full"), "{\n  /** x *\\/ y(); /* */\n  a?: string;\n}");
});

/** A schema `depth` objects deep, each with one property `p`. */
function deep(depth: number): Record<string, unknown> {
  let schema: Record<string, unknown> = { type: "string" };
  for (let i = 0; i < depth; i++) schema = { type: "object", properties: { p: schema } };
  return schema;
}

Deno.test("hostile schemas: bounded depth, members and size; cyclic and junk said as unknown, never thrown", () => {
  // Depth 1,000, and as anyOf and items chains: cut at the bound.
  const tooDeep = schemaType(deep(1000), "brief");
  assert.match(tooDeep, /^\{ p\?: \{ p\?: .*unknown.* \}$/);
  assert.ok(tooDeep.length < 200, tooDeep);
  assert.equal(schemaType(deep(3), "brief"), "{ p?: { p?: { p?: string } } }");
  let chain: unknown = str;
  for (let i = 0; i < 1000; i++) chain = i % 2 ? { anyOf: [chain, num] } : { type: "array", items: chain };
  assert.ok(schemaType(chain, "brief").length < 500);
  // A schema that refers to itself (in memory: JSON cannot), and one through $ref.
  const cyclic: Record<string, unknown> = { type: "object", properties: {} };
  (cyclic.properties as Record<string, unknown>).self = cyclic;
  (cyclic.properties as Record<string, unknown>).items = { type: "array", items: cyclic };
  assert.ok(schemaType(cyclic, "full").length < MAX_CHARS * 4);
  assert.equal(schemaType({ type: "object", properties: { a: { $ref: "#" } } }, "brief"), "{ a?: unknown }");
  // Wide and cyclic: 64 properties each the whole object again, 64^9 paths, read MAX_NODES nodes at most.
  const wide: Record<string, unknown> = { type: "object", properties: {} };
  for (let i = 0; i < MAX_MEMBERS; i++) (wide.properties as Record<string, unknown>)[`k${i}`] = wide;
  assert.ok(schemaType(wide, "brief").length <= MAX_CHARS + 100);
  // 10,000 properties: 64 shown, the rest counted.
  const many = {
    type: "object",
    properties: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`p${i}`, str])),
  };
  const said = schemaType(many, "brief");
  assert.equal(said.match(/p\d+\?: string;?/g)?.length, MAX_MEMBERS);
  assert.ok(said.endsWith(`/* ${10_000 - MAX_MEMBERS} more properties not shown */ }`), said.slice(-80));
  // Long descriptions: the members listed stop at MAX_CHARS, the rest counted.
  const wordy = {
    type: "object",
    properties: Object.fromEntries(
      Array.from({ length: 60 }, (_, i) => [`p${i}`, { type: "string", description: "d".repeat(400) }]),
    ),
  };
  const full = schemaType(wordy, "full");
  assert.ok(full.length <= MAX_CHARS + 100, String(full.length));
  assert.match(full, /more properties not shown \*\/\n\}$/);
  // A name too long to say is counted, not shown.
  assert.equal(
    schemaType({ type: "object", properties: { ["n".repeat(81)]: str, ok: str } }, "brief"),
    "{ ok?: string; /* 1 more property not shown */ }",
  );
  // Wide unions and long enums: unknown rather than pages of text.
  const union = { anyOf: Array.from({ length: 10_000 }, (_, i) => ({ const: i })) };
  assert.equal(schemaType(union, "brief"), "unknown");
  const longEnums = {
    anyOf: Array.from({ length: 60 }, (_, i) => ({
      enum: Array.from({ length: 60 }, (_, j) => `${i}-${j}-${"x".repeat(70)}`),
    })),
  };
  assert.equal(schemaType(longEnums, "brief"), "unknown");
  assert.equal(
    schemaType({ type: Array(100_000).fill("object"), properties: { a: str } }, "brief"),
    "{ a?: string }",
  );
  // Whatever it is given, a signature comes back, bounded.
  for (const junk of [deep(1000), many, wordy, cyclic, wide, union, longEnums, null, [], "x", 1]) {
    const signature = toolSignature(
      tool({ inputSchema: junk as Tool["inputSchema"], outputSchema: junk as Tool["inputSchema"] }),
      "full",
    );
    assert.ok(signature.length < 3 * MAX_CHARS, String(signature.length));
  }
});
