// The `tiny_diagnose` tool (facade.md, "Exposed tools"): its entry and its arguments.

import assert from "node:assert/strict";
import { DIAGNOSE_ENTRY, parseAsked } from "../../lib/diagnose/tool.ts";
import { TINY_DIAGNOSE } from "../support/contract.ts";

Deno.test("parseAsked", async (t) => {
  await t.step("valid arguments, duplicates dropped", () => {
    assert.deepEqual(parseAsked({}), { ok: true, asked: { rooms: [], kinds: [] } });
    assert.deepEqual(parseAsked({ rooms: ["general", "ops", "general"], kinds: [9, 0, 65535, 9] }), {
      ok: true,
      asked: { rooms: ["general", "ops"], kinds: [9, 0, 65535] },
    });
  });
  const badRooms: unknown[] = ["general", [""], ["  "], [1], [null], { general: true }, [["general"]]];
  for (const rooms of badRooms) {
    await t.step(`rooms ${JSON.stringify(rooms)} names rooms`, () => {
      const parsed = parseAsked({ rooms, kinds: [9] });
      assert.ok(!parsed.ok);
      if (parsed.ok) return;
      assert.match(parsed.error, /\brooms\b/);
      assert.doesNotMatch(parsed.error, /\bkinds\b/);
    });
  }
  const badKinds: unknown[] = [[70000], [65536], [-1], ["9"], [1.5], "9", [null], { 9: true }];
  for (const kinds of badKinds) {
    await t.step(`kinds ${JSON.stringify(kinds)} names kinds`, () => {
      const parsed = parseAsked({ rooms: ["general"], kinds });
      assert.ok(!parsed.ok);
      if (parsed.ok) return;
      assert.match(parsed.error, /\bkinds\b/);
      assert.doesNotMatch(parsed.error, /\brooms\b/);
    });
  }
  await t.step("more than 256 entries names the list", () => {
    const rooms = parseAsked({ rooms: Array.from({ length: 257 }, (_, i) => `r${i}`) });
    assert.ok(!rooms.ok && /\brooms\b/.test(rooms.error));
    const kinds = parseAsked({ kinds: Array.from({ length: 257 }, (_, i) => i) });
    assert.ok(!kinds.ok && /\bkinds\b/.test(kinds.error));
    assert.ok(parseAsked({ kinds: Array.from({ length: 256 }, (_, i) => i) }).ok);
  });
  await t.step("an unknown field is named", () => {
    const parsed = parseAsked({ rooms: [], room: ["general"] });
    assert.ok(!parsed.ok && parsed.error.includes("room"));
  });
});

Deno.test("DIAGNOSE_ENTRY matches its arguments", () => {
  assert.equal(DIAGNOSE_ENTRY.name, TINY_DIAGNOSE);
  const schema = DIAGNOSE_ENTRY.inputSchema as { type: string; properties: Record<string, unknown> };
  assert.equal(schema.type, "object");
  assert.deepEqual(Object.keys(schema.properties).sort(), ["kinds", "rooms"]);
});
