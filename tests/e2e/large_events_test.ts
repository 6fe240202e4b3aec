// Events at the websocket's 1 MiB bound, end to end against the strict relay (issue 37): an EVENT
// message of exactly 1,048,576 bytes is delivered by `rpc` (a subscription and a query) and by
// `mcp --listen` (a channel notification), though libsecp256k1's fixed WebAssembly memory cannot hold
// such an event (lib/key/native_bound.ts); one byte more is refused by the websocket and the stream
// goes on; a forgery of that size is refused; and a 1,000,000-byte post_message is signed and
// accepted through `mcp --allow-writes`, from a code-mode program too, within the relay's 1 MiB /mcp
// bound (the signed event goes back alone), and published by `rpc`.

import assert from "node:assert/strict";
import {
  finalizeEvent,
  generateSecretKey,
  getEventHash,
  getPublicKey,
  type NostrEvent,
  verifyEvent,
} from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { type HelperLine, RpcHelper } from "../support/rpc_helper.ts";
import { assertKeyNeverLeaks, narrowFlags, newKey, Tinyagent } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

const MIB = 1024 * 1024;
const alice = generateSecretKey();
const ALICE = getPublicKey(alice);
const now = () => Math.floor(Date.now() / 1000);

let serial = 0;

/** A fresh kind 9 of Alice's in `general` whose EVENT message on subscription `sub` is exactly `bytes` long. */
function eventOfMessage(bytes: number, sub: string, extra: string[][] = []): NostrEvent {
  const tags = [["h", "general"], ["n", String(serial++)], ...extra];
  const created_at = now();
  const sign = (content: string) => canonical(finalizeEvent({ kind: 9, created_at, tags, content }, alice));
  const empty = JSON.stringify(["EVENT", sub, sign("")]).length;
  const event = sign("x".repeat(bytes - empty));
  assert.equal(new TextEncoder().encode(JSON.stringify(["EVENT", sub, event])).length, bytes);
  return event;
}

/** The members in the order the relay sends them, so the message's size is the one computed. */
function canonical(ev: NostrEvent): NostrEvent {
  const { id, pubkey, created_at, kind, tags, content, sig } = ev;
  return { id, pubkey, created_at, kind, tags, content, sig } as NostrEvent;
}

/** The wire id of the last REQ the relay received whose filter names `field`. */
function lastReqId(relay: StrictRelay, field: string): string {
  const reqs = relay.clientMessages.filter((m) =>
    Array.isArray(m.message) && m.message[0] === "REQ" && field in (m.message[2] as object)
  );
  assert.ok(reqs.length > 0, `a REQ with ${field}`);
  return (reqs.at(-1)!.message as string[])[1];
}

const idOf = (line: HelperLine) => (line.data as NostrEvent | undefined)?.id;

Deno.test("rpc: EVENT messages up to exactly 1 MiB delivered and checked; one byte more refused; a large forgery refused", async (t) => {
  const relay = await startStrictRelay();
  relay.wsBehaviour("no-challenge");
  const helper = await RpcHelper.start({ relayUrl: relay.url, key: newKey() });
  try {
    await helper.call("subscribe", { subscription: "s", filter: { authors: [ALICE], kinds: [9] } });
    await helper.waitFor("connected", (line) => line.event === "connected");
    const sub = lastReqId(relay, "authors");
    const sizes: [string, number][] = [
      ["in between", 600_000],
      ["past the WASM's memory", 1_000_000],
      ["exactly 1 MiB", MIB],
    ];
    for (const [name, bytes] of sizes) {
      await t.step(`${name}: delivered, whole and valid, before the small event sent after it`, async () => {
        const event = eventOfMessage(bytes, sub);
        const small = eventOfMessage(1_000, sub);
        relay.inject(event);
        relay.inject(small);
        const line = await helper.waitFor(name, (l) => idOf(l) === event.id, 30_000);
        assert.equal((line.data as NostrEvent).content.length, event.content.length);
        assert.ok(verifyEvent({ ...(line.data as NostrEvent) }));
        await helper.waitFor("the small one", (l) => idOf(l) === small.id, 30_000);
        const order = helper.stream("s").map(idOf);
        assert.ok(order.indexOf(event.id) < order.indexOf(small.id), "in the order the relay sent them");
      });
    }
    await t.step("a forgery of exactly 1 MiB is refused; the next event still comes", async () => {
      const real = eventOfMessage(MIB, sub);
      const forged = { ...real, content: `y${real.content.slice(1)}` };
      // The same change with its id made anew: now only the signature is wrong.
      const resigned = { ...forged, id: getEventHash(forged) };
      relay.pass(forged);
      relay.pass(resigned);
      const after = eventOfMessage(1_000, sub);
      relay.inject(after);
      await helper.waitFor("the event after it", (l) => idOf(l) === after.id, 30_000);
      assert.ok(
        !helper.lines.some((l) => idOf(l) === forged.id && (l.data as NostrEvent).content === forged.content),
      );
      assert.ok(!helper.lines.some((l) => idOf(l) === resigned.id));
    });
    await t.step("one byte past 1 MiB ends that connection; the stream goes on on the next", async () => {
      const over = eventOfMessage(MIB + 1, sub);
      relay.pass(over);
      await helper.waitFor(
        "connected again",
        (l) => l.event === "connected" && helper.stream("s").indexOf(l) > 0,
        30_000,
      );
      const after = eventOfMessage(1_000, lastReqId(relay, "authors"));
      relay.inject(after);
      await helper.waitFor("a later event", (l) => idOf(l) === after.id, 30_000);
      assert.ok(!helper.lines.some((l) => idOf(l) === over.id), "never delivered");
      assert.equal(relay.wsConnections, 2, "the connection it came on was given up, and another opened");
    });
    await t.step("a query's stored events near 1 MiB each come back, checked", async () => {
      const answer = await helper.call("query", { filter: { authors: [ALICE], kinds: [9] } }, 60_000);
      const events = answer.result as NostrEvent[];
      assert.ok(Array.isArray(events), JSON.stringify(answer).slice(0, 300));
      const large = events.filter((event) => event.content.length > 900_000);
      assert.equal(large.length, 2, "the 1,000,000-byte message's event and the 1 MiB one");
      for (const event of large) assert.ok(verifyEvent({ ...event }));
    });
    await t.step("publish: a 1,000,000-byte event signed, accepted and stored", async () => {
      const content = "p".repeat(1_000_000);
      const answer = await helper.call(
        "publish",
        { event: { kind: 9, content, tags: [["h", "general"]] } },
        60_000,
      );
      const event = answer.result as NostrEvent;
      assert.ok(verifyEvent({ ...event }), JSON.stringify(answer).slice(0, 300));
      assert.ok(relay.events.some((stored) => stored.id === event.id && stored.content === content));
    });
    assert.equal((await helper.end()).code, 0, helper.stderr);
  } finally {
    await helper.close();
    await relay.close();
  }
});

const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "large-events-test", version: "1" },
};

async function mcpSession(
  relay: StrictRelay,
  flags: string[],
  fn: (facade: Tinyagent, agent: string) => Promise<void>,
) {
  const key = newKey();
  const facade = new Tinyagent({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, ...flags],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  try {
    await within(30_000, "initialize", facade.request("initialize", INITIALIZE));
    await facade.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await within(30_000, "tools/list", facade.request("tools/list", {}));
    await fn(facade, key.pubkey);
    const output = await facade.finish();
    assert.equal(output.code, 0, output.stderr.slice(-2000));
    for (const line of output.lines) JSON.parse(line);
    assertKeyNeverLeaks(key, output, [relay]);
  } finally {
    await facade.kill();
  }
}

Deno.test("mcp --listen: a mention in an EVENT message of exactly 1 MiB reaches the channel", async () => {
  const relay = await startStrictRelay();
  try {
    await mcpSession(relay, ["--listen", "general", "--allow-from", ALICE], async (facade, agent) => {
      await within(
        30_000,
        "the listener live",
        (async () => {
          while (!facade.stderr.includes("listen: live in")) await new Promise((r) => setTimeout(r, 20));
        })(),
      );
      const mention = eventOfMessage(MIB, lastReqId(relay, "#h"), [["p", agent]]);
      relay.inject(mention);
      await within(
        30_000,
        "the channel notification",
        (async () => {
          while (!facade.lines.some((line) => line.includes(mention.id))) {
            await new Promise((r) => setTimeout(r, 20));
          }
        })(),
      );
      const note = JSON.parse(facade.lines.find((line) => line.includes(mention.id))!);
      assert.equal(note.method, "notifications/claude/channel");
      assert.equal(note.params.meta.event_id, mention.id);
    });
  } finally {
    await relay.close();
  }
});

/** The relay's /mcp bound (tinyrelay's, with no --max-message-bytes): 1 MiB. */
const MCP_BOUND = MIB;

/**
 * The 1,000,000-byte post_message went through the relay's 1 MiB /mcp bound: the template asked for
 * with the arguments, the signed event sent back alone (with the arguments again it would pass the
 * bound), no request over the bound or refused for its size, and the event published whole, once.
 */
function assertPublishedWhole(relay: StrictRelay, content: string): NostrEvent {
  const calls = relay.requests.filter((r) =>
    (r.json as { params?: { name?: string } } | undefined)?.params?.name === "post_message"
  );
  const [first, second] = calls.map((r) => (r.json as { params: { arguments: Record<string, unknown> } }));
  assert.equal(calls.length, 2, "the template, then the signed event: nothing sent twice");
  assert.deepEqual(Object.keys(first.params.arguments).sort(), ["content", "room"]);
  assert.deepEqual(Object.keys(second.params.arguments), ["event"], "the event alone");
  for (const request of relay.requests.filter((r) => r.path.endsWith("/mcp"))) {
    assert.ok(request.bodySize <= MCP_BOUND, `a body of ${request.bodySize} bytes`);
    assert.equal(request.status, 200);
  }
  const stored = relay.published.filter((event) => event.content === content);
  assert.equal(stored.length, 1, "published once, as written");
  assert.ok(verifyEvent({ ...stored[0] }));
  return stored[0];
}

Deno.test("mcp --allow-writes: a 1,000,000-byte post_message is signed and accepted", async () => {
  const relay = await startStrictRelay();
  try {
    await mcpSession(relay, ["--allow-writes"], async (facade) => {
      const content = "z".repeat(1_000_000);
      const answer = await within(
        60_000,
        "post_message",
        facade.request("tools/call", { name: "post_message", arguments: { room: "general", content } }),
      );
      const result = answer.result as { isError?: boolean; structuredContent?: { accepted?: boolean } };
      assert.notEqual(result.isError, true, JSON.stringify(answer).slice(0, 500));
      assert.equal(result.structuredContent?.accepted, true);
      const stored = assertPublishedWhole(relay, content);
      assert.match(
        facade.stderr,
        new RegExp(`receipt: post_message signed kind 9 event ${stored.id} .*: accepted`),
      );
    });
  } finally {
    await relay.close();
  }
});

Deno.test("mcp --code-mode --allow-writes: a program's 1,000,000-byte post_message is signed and accepted", async () => {
  const relay = await startStrictRelay();
  try {
    await mcpSession(relay, ["--code-mode", "--allow-writes"], async (facade) => {
      const code = `async function run(relay) {
        return await relay.post_message({ room: "general", content: "z".repeat(1000000) });
      }`;
      const answer = await within(
        60_000,
        "tiny_execute",
        facade.request("tools/call", { name: "tiny_execute", arguments: { code } }),
      );
      const result = answer.result as {
        isError?: boolean;
        structuredContent?: {
          writesSent?: number;
          calls?: { write?: { outcome: string; event?: string } }[];
        };
      };
      assert.notEqual(result.isError, true, JSON.stringify(answer).slice(0, 500));
      const stored = assertPublishedWhole(relay, "z".repeat(1_000_000));
      assert.equal(result.structuredContent?.writesSent, 1);
      assert.deepEqual(result.structuredContent?.calls?.[0].write, { outcome: "accepted", event: stored.id });
    });
  } finally {
    await relay.close();
  }
});
