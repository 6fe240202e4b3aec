// What the relay or the network does to the helper's websocket (the rpc issue's faults): every
// socket dropped, every subscription closed, a websocket stalled after the upgrade, a frame trickled
// a byte at a time (before and after EOSE), an oversized message, AUTH refused, the relay gone for a
// minute, stdout not read. The helper recovers or errs
// clearly, no call outlives its bound, it never spins, nothing reaches a stream twice, and it keeps
// serving.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, type NostrEvent } from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { type HelperLine, RpcHelper } from "../support/rpc_helper.ts";
import { newKey } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

const someone = generateSecretKey();
const said = (content: string, at = Math.floor(Date.now() / 1000)) =>
  finalizeEvent({ kind: 9, created_at: at, tags: [["h", "general"]], content }, someone);
const eventIds = (lines: HelperLine[]) =>
  lines.filter((line) => line.event === "event").map((line) => (line.data as NostrEvent).id);
const message = (line: HelperLine) => (line.error as { message: string } | undefined)?.message ?? "";

async function withHelper(
  relay: StrictRelay,
  fn: (helper: RpcHelper) => Promise<void>,
  args: string[] = [],
): Promise<void> {
  const helper = await RpcHelper.start({ relayUrl: relay.url, key: newKey(), args });
  try {
    await fn(helper);
    assert.equal((await helper.end(30_000)).code, 0, helper.stderr);
  } finally {
    await helper.close();
  }
}

/** Subscribes to the room and waits for `connected`; the count of connected lines so far. */
async function subscribed(helper: RpcHelper, name = "room"): Promise<void> {
  await helper.call("subscribe", { subscription: name, filter: { kinds: [9], "#h": ["general"] } });
  await helper.waitFor("connected", (line) => line.event === "connected" && line.subscription === name);
}

const connectedCount = (helper: RpcHelper, name = "room") =>
  helper.stream(name).filter((line) => line.event === "connected").length;

Deno.test("the relay drops every socket: subscriptions come back, replays are not passed on twice", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      const first = said("first");
      relay.inject(first);
      await subscribed(helper);
      await helper.waitFor("the first event", (line) => (line.data as NostrEvent)?.id === first.id);
      for (let round = 0; round < 3; round++) {
        const before = connectedCount(helper);
        assert.ok(relay.cutConnections("rst") >= 1);
        await helper.waitFor(`connected again (${round})`, () => connectedCount(helper) > before, 20_000);
        const next = said(`after cut ${round}`);
        relay.inject(next);
        await helper.waitFor(
          `the event after cut ${round}`,
          (line) => (line.data as NostrEvent)?.id === next.id,
        );
      }
      const ids = eventIds(helper.stream("room"));
      assert.equal(new Set(ids).size, ids.length, "each event once, though the relay replayed the history");
      assert.ok("result" in await helper.call("identity"), "still serving");
    });
  } finally {
    await relay.close();
  }
});

Deno.test("a query whose socket is dropped before its end is sent again once", async () => {
  const relay = await startStrictRelay();
  const old = said("old", Math.floor(Date.now() / 1000) - 10);
  relay.inject(old);
  try {
    await withHelper(relay, async (helper) => {
      relay.delay(0);
      relay.wsBehaviour("stall");
      const id = await helper.send("query", { filter: { kinds: [9] } });
      await new Promise((resolve) => setTimeout(resolve, 300));
      relay.wsBehaviour("normal");
      relay.cutConnections("fin");
      const answer = await helper.answer(id, 20_000);
      assert.deepEqual(
        (answer.result as NostrEvent[]).map((event) => event.id),
        [old.id],
        JSON.stringify(answer),
      );
    });
  } finally {
    await relay.close();
  }
});

Deno.test("the relay closes every subscription on a policy change: subscribed again at once, same socket", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      await subscribed(helper);
      const reqs = () => relay.clientMessages.filter((m) => (m.message as unknown[])[0] === "REQ").length;
      for (let round = 0; round < 3; round++) {
        const before = reqs();
        assert.equal(relay.closeSubscriptions(), 1);
        await within(
          5000,
          `the REQ again (${round})`,
          (async () => {
            while (reqs() === before) await new Promise((resolve) => setTimeout(resolve, 10));
          })(),
        );
        const next = said(`after policy change ${round}`);
        relay.inject(next);
        await helper.waitFor(
          `the event after round ${round}`,
          (line) => (line.data as NostrEvent)?.id === next.id,
        );
      }
      assert.equal(relay.wsConnections, 1, "no reconnect was needed");
      const ids = eventIds(helper.stream("room"));
      assert.equal(new Set(ids).size, ids.length);
    });
  } finally {
    await relay.close();
  }
});

Deno.test("a websocket that stalls after the upgrade: the call ends at its bound, the next one works", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      relay.wsBehaviour("stall");
      const started = Date.now();
      const stalled = await helper.call("query", { filter: { kinds: [9] } }, 30_000);
      assert.match(message(stalled), /no answer within 6 s|did not answer a ping/);
      assert.ok(Date.now() - started < 25_000, "within the call's bound");
      assert.ok("result" in await helper.call("identity"), "still serving meanwhile");
      relay.wsBehaviour("normal");
      const fine = await helper.call("query", { filter: { kinds: [9] } }, 30_000);
      assert.deepEqual(fine.result, [], JSON.stringify(fine));
    }, ["--timeout", "6"]);
  } finally {
    await relay.close();
  }
});

/** What the stream says when the trickling connection is given up (SILENCE_MS + PONG_MS: 15 s). */
const TRICKLE_GIVEN_UP =
  /the connection to ws:\/\/\S+ ended: the relay did not answer a ping within 5 s \(a frame it began is still not whole\); subscribing again in 1 s/;

const givenUp = (line: HelperLine) =>
  line.event === "error" && TRICKLE_GIVEN_UP.test((line.data as { message: string }).message);

/** The time the relay's websocket connections fall to none, watched until `stop` (every 20 ms). */
function watchClosed(relay: StrictRelay) {
  let closedAt: number | undefined;
  let stopped = false;
  const watching = (async () => {
    while (!stopped && closedAt === undefined) {
      if (relay.openWebSockets === 0) closedAt = Date.now();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await watching;
      return closedAt;
    },
  };
}

/**
 * The trickling connection was given up, then the stream came back on a new connection after its
 * wait (1 s: the second upgrade at least half of it after the first socket closed, never at once).
 */
async function reconnectedAfterWait(
  relay: StrictRelay,
  helper: RpcHelper,
  closed: ReturnType<typeof watchClosed>,
  connected: number,
) {
  await helper.waitFor("connected on a new connection", () => connectedCount(helper) === connected, 10_000);
  const closedAt = await closed.stop();
  const upgrades = relay.requests.filter((r) => r.status === 101);
  assert.equal(upgrades.length, 2, "one connection given up, one new one");
  assert.ok(closedAt !== undefined, "the trickling connection was closed");
  assert.ok(
    upgrades[1].receivedAt - closedAt >= 500,
    `waited before connecting again (${upgrades[1].receivedAt - closedAt} ms)`,
  );
}

Deno.test("a relay that trickles a frame before EOSE: given up within 16 s, subscribed again after a wait, events flow", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      const old = said("stored before");
      relay.inject(old);
      relay.wsBehaviour("trickle");
      await helper.call("subscribe", { subscription: "room", filter: { kinds: [9], "#h": ["general"] } });
      await within(
        10_000,
        "the trickling connection",
        (async () => {
          while (relay.wsConnections === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        })(),
      );
      relay.wsBehaviour("normal"); // the next connection is a good one
      const closed = watchClosed(relay);
      await helper.waitFor("the trickling connection given up", givenUp, 16_000);
      assert.equal(connectedCount(helper), 0, "never connected before the end of history");
      await reconnectedAfterWait(relay, helper, closed, 1);
      await helper.waitFor("the stored event", (line) => (line.data as NostrEvent)?.id === old.id);
      const live = said("live after");
      relay.inject(live);
      await helper.waitFor("a live event after", (line) => (line.data as NostrEvent)?.id === live.id);
      const ids = eventIds(helper.stream("room"));
      assert.deepEqual(ids, [old.id, live.id], "each once");
    });
  } finally {
    await relay.close();
  }
});

Deno.test("a relay that trickles a frame after EOSE: given up within 16 s, subscribed again after a wait, events flow", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      await subscribed(helper);
      const first = said("before the trickle");
      relay.inject(first);
      await helper.waitFor("the first event", (line) => (line.data as NostrEvent)?.id === first.id);
      const closed = watchClosed(relay);
      assert.equal(relay.trickleWebSockets(), 1);
      const during = said("sent while the relay trickles");
      relay.inject(during);
      await helper.waitFor("the trickling connection given up", givenUp, 16_000);
      assert.ok(!eventIds(helper.stream("room")).includes(during.id), "nothing passed during the trickle");
      await reconnectedAfterWait(relay, helper, closed, 2);
      await helper.waitFor("the event sent meanwhile", (line) => (line.data as NostrEvent)?.id === during.id);
      const live = said("live after");
      relay.inject(live);
      await helper.waitFor("a live event after", (line) => (line.data as NostrEvent)?.id === live.id);
      assert.deepEqual(eventIds(helper.stream("room")), [first.id, during.id, live.id], "each once");
    });
  } finally {
    await relay.close();
  }
});

Deno.test("an oversized message: the connection is given up, said clearly, and the helper goes on", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      relay.wsBehaviour("oversized");
      const answer = await helper.call("query", { filter: { kinds: [9] } });
      assert.match(message(answer), /1 MiB|1048576/);
      relay.wsBehaviour("normal");
      assert.deepEqual((await helper.call("query", { filter: { kinds: [9] } })).result, []);
    });
  } finally {
    await relay.close();
  }
});

Deno.test("AUTH refused: queries say so, subscriptions wait and try again without spinning", async () => {
  const relay = await startStrictRelay({ membersOnly: true });
  try {
    await withHelper(relay, async (helper) => {
      relay.wsBehaviour("auth-false");
      const answer = await helper.call("query", { filter: { kinds: [9] } });
      assert.equal(message(answer), "relay rejected AUTH: restricted: not allowed");
      await helper.call("subscribe", { subscription: "room", filter: { kinds: [9] } });
      const before = relay.wsConnections;
      await new Promise((resolve) => setTimeout(resolve, 4000));
      assert.ok(relay.wsConnections - before <= 3, `${relay.wsConnections - before} connections in 4 s`);
      const trouble = helper.stream("room").filter((line) => line.event === "error");
      assert.ok(
        trouble.some((line) => /relay rejected AUTH/.test(JSON.stringify(line.data))),
        JSON.stringify(trouble),
      );
      assert.ok(trouble.some((line) => /subscribing again in \d+ s/.test(JSON.stringify(line.data))));
    });
  } finally {
    await relay.close();
  }
});

Deno.test({
  name: "the relay goes away for a minute: calls fail at once and clearly, the stream comes back after",
  async fn() {
    const relay = await startStrictRelay();
    try {
      await withHelper(relay, async (helper) => {
        await subscribed(helper);
        await relay.suspend();
        const started = Date.now();
        const answer = await helper.call("query", { filter: { kinds: [9] } });
        assert.match(message(answer), /cannot reach ws:\/\/127\.0\.0\.1:\d+: .*(refused|reset|closed)/i);
        assert.ok(Date.now() - started < 5000, "a call is not held while the relay is away");
        await new Promise((resolve) => setTimeout(resolve, 60_000));
        const attempts = helper.stream("room").filter((line) =>
          /subscribing again in/.test(JSON.stringify(line.data))
        );
        assert.ok(attempts.length >= 4 && attempts.length <= 8, `${attempts.length} attempts in a minute`);
        const before = connectedCount(helper);
        await relay.resume();
        await helper.waitFor(
          "connected after the relay is back",
          () => connectedCount(helper) > before,
          40_000,
        );
        const back = said("back");
        relay.inject(back);
        await helper.waitFor("a live event after", (line) => (line.data as NostrEvent)?.id === back.id);
      });
    } finally {
      await relay.close();
    }
  },
});

Deno.test("stdout not read: the stream pauses rather than queue without end, then fetches what it held back", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper) => {
      await subscribed(helper);
      helper.pauseReading();
      const big = "x".repeat(200_000);
      const sent: string[] = [];
      for (let i = 0; i < 80; i++) {
        const event = said(`${i} ${big}`);
        sent.push(event.id);
        relay.inject(event);
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
      helper.resumeReading();
      await helper.waitFor(
        "every event",
        () => sent.every((id) => eventIds(helper.stream("room")).includes(id)),
        30_000,
      );
      const notes = helper.stream("room").filter((line) => line.event === "error");
      assert.ok(
        notes.some((line) =>
          /stdout was not read fast enough: \d+ events? (was|were) held back/.test(JSON.stringify(line.data))
        ),
        JSON.stringify(notes.map((line) => line.data)),
      );
      const ids = eventIds(helper.stream("room"));
      assert.equal(new Set(ids).size, ids.length, "none twice");
    });
  } finally {
    await relay.close();
  }
});
