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

Deno.test("diagnoseTool: the relay's last refusal the session saw follows the verdict, named by its cause", async () => {
  const active = http(200, {
    result: {
      member: true,
      role: "agent",
      state: "active",
      enforced: true,
      grant: { name: "agent", owner: "a".repeat(64), expires: 1_900_000_000, paused: false, revoked: false },
    },
  });
  const said = "restricted: agent grant does not allow more than 60 events per minute";
  const refusal = {
    tool: "post_message",
    said,
    cause: "grant-rate" as const,
    advice:
      "the agent grant allows 60 events in any 60 seconds and this key has published that many in the last " +
      "minute; nothing was published: wait a minute before publishing again",
  };
  const tool = diagnoseTool((asked) => Promise.resolve(reportFor(active, asked)), () => refusal);
  const result = await tool.call({});
  const report = result.structuredContent as { verdict: string; advice: string; last_refusal: unknown };
  assert.equal(report.verdict, "ok", "the grant itself is active: the verdict cannot show the rate");
  assert.deepEqual(report.last_refusal, refusal);
  assert.equal(
    result.content[0].text,
    `ok: ${report.advice} The relay last refused post_message (${said}): ${refusal.advice}.`,
  );
  const none = await diagnoseTool((asked) => Promise.resolve(reportFor(active, asked)), () => undefined).call(
    {},
  );
  assert.equal((none.structuredContent as Record<string, unknown>).last_refusal, undefined);
  assert.doesNotMatch(none.content[0].text!, /last refused/);
});
