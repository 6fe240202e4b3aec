// What the relay refuses is never reported as done: the official MCP TypeScript SDK client as the host
// of `tinyagent mcp`, against the strict relay as the real relay's twin (its grants, its rate per
// minute, its members-only read gate). A signed post the relay rejects (a room outside the agent's
// grant, one past the grant's rate) reaches the host as an error in the relay's words with tinyagent's
// advice, its receipt and its audit log entry say refused, and --max-writes counts it (an event was
// signed). A key that is not a member still sees the relay's tools, is refused its reads with the
// operator to ask, and tiny_diagnose says not-a-member.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { withHost } from "../support/sdk_host.ts";
import { budgetSpentText } from "../support/oversight.ts";
import { CONTRACT_READ, CONTRACT_WRITE, TINY_DIAGNOSE } from "../support/contract.ts";

type Result = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

const ROOM_REFUSAL = "restricted: agent grant does not allow room ops";
const RATE_REFUSAL = "restricted: agent grant does not allow more than 2 events per minute";

/**
 * A refused publish as the host gets it: an error carrying the relay's reason (and the signed event's
 * id, not accepted), then tinyagent's advice as its own last text block.
 */
function assertRefused(result: Result, reason: string, advice: RegExp): void {
  assert.equal(result.isError, true, JSON.stringify(result));
  const texts = result.content.map((block) => block.text ?? "");
  assert.equal(texts[0], `The relay rejected the event: ${reason}`);
  assert.match(texts.at(-1)!, advice);
  assert.equal(result.structuredContent?.accepted, false);
  assert.match(String(result.structuredContent?.event_id), /^[0-9a-f]{64}$/);
  assert.equal(result.structuredContent?.message, `permission: ${reason}`);
}

async function auditLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  return text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

Deno.test("a write the relay refuses: its reason and the advice at the host, refused in the receipt and the audit log, counted by --max-writes", async () => {
  const dir = await Deno.makeTempDir();
  const log = `${dir}/audit.jsonl`;
  let receipts: string[] = [];
  try {
    await withHost({
      args: ["--allow-writes", "--max-writes", "4", "--audit-log", log],
      // The shipped sandbox, which may write the audit log and nothing else.
      flags: shippedFlags(),
      elicitation: false,
      // The operator's grant: room general, kind 9, two events a minute.
      prepare: (relay, key) => relay.setGrant(key.pubkey, { rooms: ["general"], kinds: [9], rate: 2 }),
    }, async ({ client, relay, stderr }) => {
      const post = (room: string, content: string) =>
        client.callTool({ name: "post_message", arguments: { room, content } }) as Promise<Result>;
      assertRefused(
        await post("ops", "to a room outside the grant"),
        ROOM_REFUSAL,
        /^tinyagent: the agent grant does not cover room ops: request_grant asks the operator for it/,
      );
      for (const content of ["one", "two"]) {
        const accepted = await post("general", content);
        assert.equal(accepted.isError, false, JSON.stringify(accepted));
        assert.equal(accepted.structuredContent?.accepted, true);
      }
      assertRefused(
        await post("general", "three"),
        RATE_REFUSAL,
        /^tinyagent: the agent grant allows 2 events in any 60 seconds .*wait a minute/,
      );
      // The grant is active, so the verdict is ok; tiny_diagnose names the refusal that came last.
      const diagnosed = await client.callTool({ name: "tiny_diagnose", arguments: {} }) as Result;
      assert.match(diagnosed.content[0].text!, /^ok: /);
      assert.match(
        diagnosed.content[0].text!,
        /The relay last refused post_message \(.*restricted: agent grant does not allow more than 2 events per minute\): the agent grant allows 2 events in any 60 seconds/,
      );
      const last = (diagnosed.structuredContent as { last_refusal?: { cause: string } }).last_refusal;
      assert.equal(last?.cause, "grant-rate");
      // Four events were signed, two of them refused: the budget of four is spent all the same.
      const before = relay.requests.length;
      const held = await post("general", "four");
      assert.equal(held.isError, true);
      assert.deepEqual(held.content, [{ type: "text", text: budgetSpentText(4, 4) }]);
      assert.equal(relay.requests.length, before, "the relay was not contacted");
      assert.deepEqual(relay.published.map((event) => event.content), ["one", "two"]);
      receipts = stderr().split("\n").filter((line) => line.includes("receipt:"));
    });
    assert.deepEqual(receipts.map((line) => line.replace(/^.*": /, "")), [
      `refused: ${ROOM_REFUSAL}`,
      "accepted",
      "accepted",
      `refused: ${RATE_REFUSAL}`,
    ]);
    const entries = await auditLines(log);
    assert.deepEqual(entries.map((entry) => [entry.outcome, entry.why]), [
      ["refused", ROOM_REFUSAL],
      ["accepted", undefined],
      ["accepted", undefined],
      ["refused", RATE_REFUSAL],
      ["held", "write budget spent"],
    ]);
    for (const entry of entries.slice(0, 4)) {
      assert.ok(verifyEvent(structuredClone(entry.event) as Parameters<typeof verifyEvent>[0]), "signed");
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a key that is not a member: the relay's tools listed, its reads refused with the operator to ask, tiny_diagnose not-a-member", async () => {
  await withHost({
    args: ["--allow-writes"],
    elicitation: false,
    // A members-only relay this key is not a member of (nor granted: the default grant needs membership).
    prepare: (relay) => {
      relay.membersOnly = true;
      relay.members.clear();
    },
  }, async ({ client, relay }) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
      ...CONTRACT_READ,
      ...CONTRACT_WRITE,
      TINY_DIAGNOSE,
    ]);
    const read = await client.callTool({ name: "list_rooms", arguments: {} }) as Result;
    assert.equal(read.isError, true);
    assert.deepEqual(read.content.map((block) => block.text), [
      "permission: auth-required: this relay is members-only",
      "tinyagent: this key is not a member of the relay: ask the relay's operator for membership or an agent grant (tiny_diagnose shows the key to give them)",
    ]);
    const diagnosis = await client.callTool({ name: TINY_DIAGNOSE, arguments: {} }) as Result;
    assert.equal(diagnosis.isError, false);
    assert.equal(diagnosis.structuredContent?.verdict, "not-a-member");
    assert.equal(relay.published.length, 0);
  });
});
