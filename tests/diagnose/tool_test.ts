// The `tiny_diagnose` tool (facade.md, "Exposed tools"): its entry and its arguments.

import assert from "node:assert/strict";
import { DIAGNOSE_ENTRY, diagnoseTool, parseAsked } from "../../lib/diagnose/tool.ts";
import type { Asked } from "../../lib/diagnose/classify.ts";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { http, NO_ANSWER, reportFor } from "../support/browsegrant.ts";
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

Deno.test("diagnoseTool: the report as a result that is never an error, whatever the verdict", async (t) => {
  const outcomes = [
    ["ok", http(400, { error: "unsupported: browsegrant" })],
    ["unauthorized", http(401, { error: "auth-required: token expired" })],
    ["error", http(404, "not found", "text/plain")],
    ["unreachable", NO_ANSWER],
  ] as const;
  for (const [verdict, outcome] of outcomes) {
    await t.step(verdict, async () => {
      const asked: Asked[] = [];
      const tool = diagnoseTool((given) => {
        asked.push(given);
        return Promise.resolve(reportFor(outcome, given));
      });
      const result = await tool.call({ rooms: ["general", "general"], kinds: [9] });
      assert.deepEqual(asked, [{ rooms: ["general"], kinds: [9] }], "the arguments, read and deduplicated");
      const report = result.structuredContent as { verdict: string; advice: string };
      assert.equal(report.verdict, verdict);
      assert.equal(result.isError, false);
      assert.deepEqual(result.content, [{ type: "text", text: `${verdict}: ${report.advice}` }]);
      assert.ok(CallToolResultSchema.safeParse(result).success);
    });
  }
  await t.step("bad arguments: a tool error naming the field, and no relay call", async () => {
    let runs = 0;
    const tool = diagnoseTool(() => {
      runs++;
      return Promise.reject(new Error("not called"));
    });
    const result = await tool.call({ kinds: ["9"] });
    assert.equal(result.isError, true);
    assert.match(result.content[0].text!, /^invalid arguments: kinds/);
    assert.equal(runs, 0);
  });
  await t.step("the entry is the tool's own", () => {
    assert.equal(diagnoseTool(() => Promise.reject(new Error())).entry, DIAGNOSE_ENTRY);
  });
});
