// The twin's tool table against the facts read from tinyrelay's source (tinyrelay_tools.json): the same
// tools in the same order, each with the same annotations and the same closed input schema, bound for
// bound. A tool added to, renamed in or loosened in the table (or in the facts) fails here.

import assert from "node:assert/strict";
import { DEFAULT_TOOLS } from "./tool_table.ts";
import type { ToolDef } from "./types.ts";

type Json = Record<string, unknown>;
interface Facts {
  types: Record<string, Json>;
  annotations: Record<string, Json>;
  tools: { name: string; annotations: string; properties: Record<string, unknown>; required?: string[] }[];
}

const facts: Facts = JSON.parse(
  await Deno.readTextFile(new URL("./tinyrelay_tools.json", import.meta.url)),
);

/** A schema of the facts written out: a type's name becomes that type, within items and properties too. */
function expand(schema: unknown): Json {
  if (typeof schema === "string") {
    const named = facts.types[schema];
    if (!named) throw new Error(`tinyrelay_tools.json names no type ${schema}`);
    return expand(named);
  }
  const out: Json = { ...(schema as Json) };
  if (out.items !== undefined) out.items = expand(out.items);
  if (out.properties !== undefined) {
    out.properties = Object.fromEntries(
      Object.entries(out.properties as Json).map(([key, value]) => [key, expand(value)]),
    );
  }
  return out;
}

function closed(properties: Record<string, unknown>, required: string[] = []): Json {
  return expand({
    type: "object",
    properties,
    additionalProperties: false,
    ...(required.length ? { required } : {}),
  });
}

/** Where a table departs from the facts: a name out of place, a schema or annotation set not the source's. */
function drift(table: ToolDef[]): string[] {
  const problems: string[] = [];
  const names = table.map((tool) => tool.name);
  const factNames = facts.tools.map((tool) => tool.name);
  if (JSON.stringify(names) !== JSON.stringify(factNames)) {
    const extra = names.filter((name) => !factNames.includes(name));
    const missing = factNames.filter((name) => !names.includes(name));
    problems.push(
      `tools differ: not in the facts ${extra.join(", ") || "none"}; missing ${missing.join(", ") || "none"}`,
    );
  }
  for (const fact of facts.tools) {
    const tool = table.find((entry) => entry.name === fact.name);
    if (!tool) continue;
    try {
      assert.deepEqual(tool.inputSchema, closed(fact.properties, fact.required));
    } catch (error) {
      problems.push(`${fact.name}: input schema: ${(error as Error).message}`);
    }
    try {
      assert.deepEqual(tool.annotations, facts.annotations[fact.annotations]);
    } catch {
      problems.push(`${fact.name}: annotations are not the ${fact.annotations} set`);
    }
  }
  return problems;
}

Deno.test("twin table: tinyrelay's tools in its order, each schema closed with every bound, each annotation set", () => {
  assert.deepEqual(drift(DEFAULT_TOOLS), []);
});

Deno.test("twin table: a description for every tool, and no output schema (tinyrelay's tools carry none)", () => {
  for (const tool of DEFAULT_TOOLS) {
    assert.ok(tool.description.length > 20, tool.name);
    assert.equal(tool.outputSchema, undefined, tool.name);
    assert.equal(tool.title, undefined, tool.name);
  }
});

Deno.test("twin table: a tool loosened, opened, renamed, added or re-annotated is drift", () => {
  const changed = (name: string, change: (tool: ToolDef) => void) =>
    DEFAULT_TOOLS.map((tool) => {
      if (tool.name !== name) return tool;
      const copy = structuredClone(tool);
      change(copy);
      return copy;
    });
  const props = (tool: ToolDef) => tool.inputSchema.properties as Json;
  const cases: ToolDef[][] = [
    changed("list_rooms", (tool) => (props(tool).limit = { type: "integer", minimum: 1 })),
    changed("read_room", (tool) => (tool.inputSchema.additionalProperties = true)),
    changed("read_file", (tool) => (tool.inputSchema.required = [])),
    changed("react", (tool) => (props(tool).content = { type: "string" })),
    changed("read_file", (tool) => (tool.name = "read_blob")),
    changed("post_message", (tool) => (tool.annotations = { readOnlyHint: true, openWorldHint: false })),
    [...DEFAULT_TOOLS, { ...DEFAULT_TOOLS[0], name: "read_everything" }],
    DEFAULT_TOOLS.filter((tool) => tool.name !== "read_job"),
  ];
  for (const table of cases) assert.notDeepEqual(drift(table), []);
});
