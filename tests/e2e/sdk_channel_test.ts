// The official MCP TypeScript SDK client as the host of `mcp --listen --allow-writes`: it spawns
// tinyagent, receives the relay's events as `notifications/claude/channel` (its fallback handler:
// no schema of ours in between), and a model-free script answers each using only the meta it was
// given: reply_in_thread with room and root = meta.thread, accept_job with meta.job and
// meta.author_pubkey. The relay then holds each answer where it belongs, checked with nostr-tools.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Notification } from "@modelcontextprotocol/sdk/types.js";
import {
  finalizeEvent,
  generateSecretKey,
  getPublicKey,
  type NostrEvent,
  verifyEvent,
} from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { assertKeyNeverLeaks, newKey, sdkStdio, type TestKey } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

type Listened = { content: string; meta: Record<string, string> };

const aliceKey = generateSecretKey();
const ALICE = getPublicKey(aliceKey);
const now = () => Math.floor(Date.now() / 1000);
const signed = (kind: number, tags: string[][], content: string): NostrEvent =>
  finalizeEvent({ kind, created_at: now(), tags, content }, aliceKey);
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));
function until(ms: number, what: string, check: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!check()) await tick();
    })(),
  );
}

const tagValue = (event: NostrEvent, name: string, marker?: string) =>
  event.tags.find((tag) => tag[0] === name && (marker === undefined || tag[3] === marker))?.[1];

async function withHost(
  fn: (
    ctx: { client: Client; relay: StrictRelay; key: TestKey; received: Listened[]; methods: string[] },
  ) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay();
  const key = newKey();
  const { transport, stderr } = sdkStdio({
    netHost: relay.host,
    relayUrl: relay.url,
    key,
    args: ["--allow-writes", "--listen", "general", "--allow-from", nip19.npubEncode(ALICE)],
  });
  const client = new Client({ name: "sdk-channel-test", version: "1.0.0" });
  const received: Listened[] = [];
  const methods: string[] = [];
  client.fallbackNotificationHandler = (notification: Notification) => {
    methods.push(notification.method);
    if (notification.method === "notifications/claude/channel") {
      received.push(notification.params as Listened);
    }
    return Promise.resolve();
  };
  try {
    await within(30_000, "connect", client.connect(transport));
    assert.deepEqual(client.getServerCapabilities()?.experimental, { "claude/channel": {} });
    assert.ok((client.getInstructions() ?? "").includes("tiny_inbox"));
    await client.listTools();
    await until(30_000, "the listener live", () => stderr().includes("listen: live in"));
    await fn({ client, relay, key, received, methods });
  } finally {
    await client.close();
    await relay.close();
  }
  assertKeyNeverLeaks(key, { lines: [], stderr: stderr() }, [relay]);
}

Deno.test("the SDK host receives the channel; a script answers from meta alone; the relay holds the answers in place", async () => {
  await withHost(async ({ client, relay, key, received, methods }) => {
    // Alice starts a thread naming the agent, then replies in it naming it again; and asks a job.
    const thread = signed(
      11,
      [["h", "general"], ["p", key.pubkey], ["title", "Plans"]],
      "what do you think?",
    );
    relay.inject(thread);
    const inThread = signed(
      12,
      [["h", "general"], ["e", thread.id, "", "root"], ["p", key.pubkey]],
      "and now?",
    );
    relay.inject(inThread);
    const job = signed(43001, [["h", "general"], ["p", key.pubkey], ["subject", "Summarise"]], "the notes");
    relay.inject(job);
    await until(20_000, "three notifications", () => received.length === 3);
    assert.deepEqual(methods, Array(3).fill("notifications/claude/channel"));
    assert.deepEqual(received.map((r) => r.meta.event_id), [thread.id, inThread.id, job.id]);

    // The script: for each message, reply in its thread; for each job, accept it. Meta alone.
    for (const { meta } of received) {
      for (const value of Object.values(meta)) assert.equal(typeof value, "string");
      const call = meta.kind === "43001"
        ? {
          name: "accept_job",
          arguments: { e: meta.job, p: meta.author_pubkey, room: meta.room, content: "on it" },
        }
        : {
          name: "reply_in_thread",
          arguments: { room: meta.room, root: meta.thread, content: `answering ${meta.event_id}` },
        };
      const result = await within(20_000, call.name, client.callTool(call)) as CallToolResult;
      assert.equal(result.isError, false, JSON.stringify(result));
    }

    const answers = relay.published.filter((event) => event.pubkey === key.pubkey);
    assert.equal(answers.length, 3);
    for (const event of answers) {
      assert.ok(verifyEvent(event));
      assert.ok(relay.events.some((stored) => stored.id === event.id), "stored, as the relay holds it");
    }
    const [first, second, accepted] = answers;
    for (const [answer, answered] of [[first, thread], [second, inThread]] as const) {
      assert.equal(answer.kind, 12);
      assert.equal(tagValue(answer, "h"), "general");
      // The relay's reply names the thread root in its one e tag, unmarked (its reply_in_thread template).
      assert.equal(tagValue(answer, "e"), thread.id, "in the thread whose root alice started");
      assert.equal(answer.content, `answering ${answered.id}`);
    }
    assert.equal(accepted.kind, 43002);
    assert.equal(tagValue(accepted, "e"), job.id);
    assert.equal(tagValue(accepted, "p"), ALICE);
    assert.equal(tagValue(accepted, "h"), "general");

    // The agent's own answers come back on the subscription: none reaches the host.
    const sentinel = signed(9, [["h", "general"], ["p", key.pubkey]], "thanks");
    relay.inject(sentinel);
    await until(20_000, "the sentinel", () => received.length === 4);
    await tick(300);
    assert.deepEqual(received.map((r) => r.meta.event_id), [thread.id, inThread.id, job.id, sentinel.id]);
  });
});

Deno.test("the SDK host drains tiny_inbox with wait, as a host without channels does", async () => {
  await withHost(async ({ client, relay, key }) => {
    const held = client.callTool({ name: "tiny_inbox", arguments: { wait: 30 } });
    await tick(300);
    const mention = signed(9, [["h", "general"], ["p", key.pubkey]], "are you there?");
    relay.inject(mention);
    const result = await within(20_000, "the held call", held) as CallToolResult;
    assert.equal(result.isError, false);
    const { events } = result.structuredContent as { events: Listened[] };
    assert.deepEqual(events.map((e) => [e.meta.event_id, e.content]), [[mention.id, "are you there?"]]);
    assert.match((result.content as { text: string }[])[0].text, /^1 event\n\n\[room="general" thread=/);
  });
});
