// `query`, `subscribe` and `unsubscribe` end to end over the relay's websocket (rpc-facts.md 3.3-3.5,
// 4.4-4.6, 6.2): the unprompted challenge answered with a kind 22242 event naming the relay, the REQ
// sent again after AUTH, members-only reads, client-side matching, each event once, `connected`
// once per connection, live events, name reuse, unsubscribe, and the end of every stream.

import assert from "node:assert/strict";
import {
  finalizeEvent,
  generateSecretKey,
  getPublicKey,
  type NostrEvent,
  verifyEvent,
} from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { type HelperLine, RpcHelper } from "../support/rpc_helper.ts";
import { newKey, type TestKey } from "../support/tinyagent.ts";

const someone = generateSecretKey();
const SOMEONE = getPublicKey(someone);
const now = () => Math.floor(Date.now() / 1000);

function said(content: string, extra: { kind?: number; tags?: string[][]; at?: number } = {}): NostrEvent {
  return finalizeEvent({
    kind: extra.kind ?? 9,
    created_at: extra.at ?? now(),
    tags: extra.tags ?? [["h", "general"]],
    content,
  }, someone);
}

async function withHelper(
  relay: StrictRelay,
  fn: (helper: RpcHelper, key: TestKey) => Promise<void>,
  key = newKey(),
): Promise<void> {
  const helper = await RpcHelper.start({ relayUrl: relay.url, key });
  try {
    await fn(helper, key);
    assert.equal((await helper.end()).code, 0, helper.stderr);
  } finally {
    await helper.close();
  }
}

const ids = (events: unknown) => (events as NostrEvent[]).map((event) => event.id);

Deno.test("query: the stored events that match, after the relay's challenge is answered", async (t) => {
  const relay = await startStrictRelay({ prefix: "/r/acme", membersOnly: true });
  const old = said("old", { at: now() - 100 }),
    mid = said("mid", { at: now() - 50 }),
    reaction = said("+", { kind: 7 });
  for (const event of [old, mid, reaction]) relay.inject(event);
  const key = newKey();
  relay.members.add(key.pubkey);
  try {
    await withHelper(relay, async (helper) => {
      await t.step("one filter: newest first, as the relay sends them, each as signed", async () => {
        const answer = await helper.call("query", { filter: { kinds: [9], "#h": ["general"] } });
        assert.deepEqual(ids(answer.result), [mid.id, old.id]);
        for (const event of answer.result as NostrEvent[]) assert.ok(verifyEvent({ ...event }));
      });
      await t.step(
        "the AUTH: kind 22242 naming the relay's websocket and the challenge, then the REQ again",
        () => {
          const sent = relay.clientMessages.map((m) => m.message as unknown[]);
          const auth = sent.find((m) => m[0] === "AUTH")![1] as NostrEvent;
          assert.ok(verifyEvent({ ...auth }));
          assert.equal(auth.kind, 22242);
          assert.equal(auth.pubkey, key.pubkey);
          assert.deepEqual(auth.tags[0], ["relay", relay.wsUrl]);
          assert.match(auth.tags[1][1], /^[0-9a-f]{32}$/);
          const reqs = sent.filter((m) => m[0] === "REQ");
          assert.ok(reqs.length >= 1);
          assert.ok(
            sent.indexOf(reqs.at(-1)!) > sent.findIndex((m) => m[0] === "AUTH"),
            "a REQ after the AUTH",
          );
        },
      );
      await t.step("an array of filters, each its own REQ element; each event once", async () => {
        const answer = await helper.call("query", {
          filter: [{ kinds: [7] }, { ids: [old.id] }, { kinds: [9] }],
        });
        assert.deepEqual(new Set(ids(answer.result)), new Set([old.id, mid.id, reaction.id]));
        assert.equal((answer.result as unknown[]).length, 3);
        const req = relay.clientMessages.map((m) => m.message as unknown[]).filter((m) => m[0] === "REQ").at(
          -1,
        )!;
        assert.equal(req.length, 5);
      });
      await t.step("nothing matches: an empty list", async () => {
        assert.deepEqual((await helper.call("query", { filter: { kinds: [12345] } })).result, []);
      });
      await t.step("one websocket serves every query of the session", () => {
        assert.equal(relay.wsConnections, 1);
      });
      await t.step("bad params: a clear error, nothing sent", async () => {
        const reqs = () => relay.clientMessages.filter((m) => (m.message as unknown[])[0] === "REQ").length;
        const before = reqs();
        for (
          const [params, pattern] of [[{}, /params.filter is required/], [{ filter: [] }, /no filter/], [
            { filter: [1] },
            /each filter must be a JSON object/,
          ]] as const
        ) {
          assert.match(((await helper.call("query", params)).error as { message: string }).message, pattern);
        }
        assert.equal(reqs(), before);
      });
    }, key);
  } finally {
    await relay.close();
  }
});

Deno.test("query on a members-only relay by a key that is no member: refused, in the relay's words", async () => {
  const relay = await startStrictRelay({ membersOnly: true });
  relay.inject(said("secret"));
  try {
    await withHelper(relay, async (helper) => {
      const answer = await helper.call("query", { filter: { kinds: [9] } });
      assert.equal(
        (answer.error as { message: string }).message,
        "query closed by the relay: auth-required: this relay is members-only",
      );
    });
  } finally {
    await relay.close();
  }
});

Deno.test("subscribe: connected, the history, live events, each once; unsubscribe ends it", async (t) => {
  const relay = await startStrictRelay({ membersOnly: true });
  const key = newKey();
  relay.members.add(key.pubkey);
  const before = said("before", { at: now() - 10 });
  relay.inject(before);
  try {
    await withHelper(relay, async (helper) => {
      const filter = { kinds: [9, 43001], "#h": ["general"], since: now() - 300 };
      let stream: HelperLine[] = [];
      await t.step("answered at once; connected; then the history", async () => {
        const answer = await helper.call("subscribe", { subscription: "tinyagent", filter });
        assert.deepEqual(answer.result, { subscribed: true });
        await helper.waitFor(
          "connected",
          (line) => line.event === "connected" && line.subscription === "tinyagent",
        );
        await helper.waitFor("the stored event", (line) => (line.data as NostrEvent)?.id === before.id);
        stream = helper.stream("tinyagent");
        assert.equal(stream[0].event, "connected", "connected before the first event");
      });
      await t.step("a live event arrives as signed; one another filter leaves out does not", async () => {
        const live = said("live");
        relay.inject(said("reaction", { kind: 7 }));
        relay.inject(live);
        const line = await helper.waitFor("the live event", (l) => (l.data as NostrEvent)?.id === live.id);
        assert.deepEqual(line.data, JSON.parse(JSON.stringify(live)));
        assert.ok(verifyEvent({ ...(line.data as NostrEvent) }));
        assert.ok(!helper.stream("tinyagent").some((l) => (l.data as NostrEvent)?.kind === 7));
      });
      await t.step("a second subscription of its own name; the first goes on", async () => {
        await helper.call("subscribe", { subscription: "jobs", filter: { kinds: [43001] } });
        await helper.waitFor(
          "jobs connected",
          (line) => line.event === "connected" && line.subscription === "jobs",
        );
        const job = said("do it", { kind: 43001, tags: [["h", "general"], ["p", key.pubkey]] });
        relay.inject(job);
        await helper.waitFor(
          "the job on jobs",
          (l) => l.subscription === "jobs" && (l.data as NostrEvent)?.id === job.id,
        );
        await helper.waitFor(
          "the job on tinyagent",
          (l) => l.subscription === "tinyagent" && (l.data as NostrEvent)?.id === job.id,
        );
      });
      await t.step("a name used again replaces its stream, which ends with an error line", async () => {
        await helper.call("subscribe", { subscription: "jobs", filter: { kinds: [43001] } });
        await helper.waitFor(
          "the old stream's end",
          (l) => l.subscription === "jobs" && l.event === "error" && /replaced/.test(JSON.stringify(l.data)),
        );
      });
      await t.step("unsubscribe: stopped true, then false; the stream's last line says why", async () => {
        assert.deepEqual((await helper.call("unsubscribe", { subscription: "jobs" })).result, {
          stopped: true,
        });
        assert.deepEqual((await helper.call("unsubscribe", { subscription: "jobs" })).result, {
          stopped: false,
        });
        const last = helper.stream("jobs").at(-1)!;
        assert.equal(last.event, "error");
        assert.match(JSON.stringify(last.data), /unsubscribed/);
      });
      await t.step("no event was written twice on one stream", () => {
        const seen = helper.stream("tinyagent").filter((l) => l.event === "event").map((l) =>
          (l.data as NostrEvent).id
        );
        assert.equal(new Set(seen).size, seen.length);
        assert.equal(relay.wsConnections, 1, "one websocket for both subscriptions");
      });
      await t.step("bad params", async () => {
        for (const params of [{}, { subscription: "" }, { subscription: 7, filter: {} }]) {
          assert.deepEqual((await helper.call("subscribe", params)).error, {
            message: "subscription is required",
          });
        }
        assert.match(
          ((await helper.call("subscribe", { subscription: "x", filter: [{}] })).error as { message: string })
            .message,
          /one filter object/,
        );
        assert.match(
          ((await helper.call("unsubscribe", {})).error as { message: string }).message,
          /subscription must be a string/,
        );
      });
    }, key);
  } finally {
    await relay.close();
  }
});

Deno.test("subscribe: events the relay sends that the filter leaves out never pass", async () => {
  const relay = await startStrictRelay();
  relay.wsBehaviour("no-challenge");
  try {
    await withHelper(relay, async (helper) => {
      await helper.call("subscribe", { subscription: "s", filter: { authors: [SOMEONE] } });
      await helper.waitFor("connected", (line) => line.event === "connected");
      const other = finalizeEvent({
        kind: 9,
        created_at: now(),
        tags: [["h", "general"]],
        content: "not them",
      }, generateSecretKey());
      relay.inject(other);
      const real = said("them");
      relay.inject(real);
      await helper.waitFor("the matching event", (line) => (line.data as NostrEvent)?.id === real.id);
      assert.ok(!helper.stream("s").some((line) => (line.data as NostrEvent)?.id === other.id));
    });
  } finally {
    await relay.close();
  }
});
