// The tool table the host sees (facade.md, "Exposed tools" and `tools/list`): the relay's entries
// restricted to the exposed set, in exposure order, each made a valid MCP tool.

import assert from "node:assert/strict";
import { resolveExposure } from "../../lib/facade/tools.ts";
import { exposedTable, withOutputSchemas } from "../../lib/facade/exposed_table.ts";
import {
  CONTRACT_READ,
  CONTRACT_WRITE,
  HIDDEN_RELAY_TOOLS as HIDDEN,
  TINY_DIAGNOSE,
} from "../support/contract.ts";

function names(result: ReturnType<typeof resolveExposure>): string[] {
  assert.ok(result.ok, `expected ok, got ${JSON.stringify(result)}`);
  return result.names;
}

function relayEntry(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    title: `Title of ${name}`,
    description: `Description of ${name}`,
    inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
    outputSchema: { type: "object", properties: { ok: { type: "boolean" } } },
    annotations: { readOnlyHint: name.startsWith("read") || name.startsWith("list") },
    ...extra,
  };
}

/** The table the host would see. */
function tableOf(relay: unknown[], exposed: readonly string[]) {
  return exposedTable(relay, exposed).value;
}

Deno.test("exposedTable", async (t) => {
  await t.step("keeps only title, description, inputSchema and annotations (never outputSchema)", () => {
    const entry = relayEntry("read_room", {
      _meta: { secret: "x" },
      execution: { taskSupport: "optional" },
      icons: [{ src: "https://x/icon.png" }],
      extra: 1,
    });
    const table = tableOf([entry], ["read_room"]);
    assert.equal(table.length, 1);
    assert.deepEqual(table[0], {
      name: "read_room",
      title: entry.title,
      description: entry.description,
      inputSchema: entry.inputSchema,
      annotations: entry.annotations,
    });
    assert.ok(entry.outputSchema, "the relay's entry had one");
  });
  await t.step("drops tools outside the exposed set, including hidden ones", () => {
    const relay = [...HIDDEN, ...CONTRACT_READ, ...CONTRACT_WRITE].map((name) => relayEntry(name));
    const read = tableOf(relay, names(resolveExposure(undefined, false)));
    assert.deepEqual(read.map((entry) => entry.name), CONTRACT_READ);
    const all = tableOf(relay, names(resolveExposure(undefined, true)));
    assert.deepEqual(all.map((entry) => entry.name), [...CONTRACT_READ, ...CONTRACT_WRITE]);
    for (const hidden of HIDDEN) {
      assert.ok(!all.some((entry) => entry.name === hidden), hidden);
    }
  });
  await t.step("ignores a relay tool named tiny_diagnose", () => {
    const relay = [relayEntry(TINY_DIAGNOSE, { description: "relay impostor" }), relayEntry("read_room")];
    assert.deepEqual(tableOf(relay, ["read_room"]).map((entry) => entry.name), ["read_room"]);
    // Even if the exposed list names it, the relay's entry is never offered.
    const table = tableOf(relay, [TINY_DIAGNOSE, "read_room"]);
    assert.deepEqual(table.map((entry) => entry.name), ["read_room"]);
    assert.ok(!JSON.stringify(table).includes("relay impostor"));
  });
  await t.step("keeps the exposure order, not the relay's order", () => {
    const relay = [...CONTRACT_READ].reverse().map((name) => relayEntry(name));
    const exposed = ["read_status", "list_repositories", "read_room", "list_files"];
    assert.deepEqual(tableOf(relay, exposed).map((entry) => entry.name), exposed);
  });
  await t.step("skips names the relay does not serve", () => {
    const relay = [relayEntry("list_rooms"), relayEntry("read_status")];
    const table = tableOf(relay, ["read_room", "list_rooms", "read_thread", "read_status"]);
    assert.deepEqual(table.map((entry) => entry.name), ["list_rooms", "read_status"]);
  });
  await t.step("an empty or failed relay table gives an empty table", () => {
    assert.deepEqual(tableOf([], CONTRACT_READ), []);
  });
  await t.step("malformed relay entries are ignored", () => {
    const relay = [null, 5, "read_room", [relayEntry("read_room")], { name: 7 }, relayEntry("read_room")];
    const table = tableOf(relay as unknown[], ["read_room"]);
    assert.equal(table.length, 1);
    assert.equal(table[0].name, "read_room");
  });
  await t.step("an entry without inputSchema still gets an object schema", () => {
    const table = tableOf([{ name: "read_room", description: "d" }], ["read_room"]);
    assert.deepEqual(table[0], { name: "read_room", description: "d", inputSchema: { type: "object" } });
  });
});

Deno.test("withOutputSchemas: a program's search keeps the relay's object output schemas, nothing else", () => {
  const schema = { type: "object", properties: { items: { type: "array" } } };
  const relay = [
    relayEntry("list_rooms", { outputSchema: schema }),
    relayEntry("read_room", { outputSchema: { type: "string" } }),
    relayEntry("read_thread", { outputSchema: "not a schema" }),
    relayEntry("list_issues", { outputSchema: undefined }),
    relayEntry("list_rooms", { outputSchema: { type: "object", properties: {} } }),
  ];
  const table = tableOf(relay, ["list_rooms", "read_room", "read_thread", "list_issues"]);
  const searchable = withOutputSchemas(table, relay);
  assert.deepEqual(searchable.map((tool) => tool.outputSchema), [schema, undefined, undefined, undefined]);
  assert.deepEqual(searchable[0], { ...table[0], outputSchema: schema }, "the first entry of a name counts");
  assert.equal(searchable[1], table[1], "the others as they are");
  assert.ok(table.every((tool) => tool.outputSchema === undefined), "the host's table untouched");
  const none = tableOf([relayEntry("read_room", { outputSchema: undefined })], ["read_room"]);
  assert.equal(withOutputSchemas(none, []), none);
});
