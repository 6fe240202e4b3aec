// resources/subscribe and unsubscribe (lib/resources/subscriptions.ts) against a fake stream: the
// filter watched, each new event told once as the URI subscribed, history never, a replay after a
// dropped socket only for what was missed, at most one notification a second for a resource (the
// last never lost), at most 100 subscriptions, and all released on unsubscribe and at the end.

import assert from "node:assert/strict";
import type { SignedEvent } from "../../lib/key/signer.ts";
import type { SubscriptionSink } from "../../lib/stream/stream_subscription.ts";
import {
  LIVE_WAIT_MS,
  MAX_SUBSCRIPTIONS,
  NOTIFY_GAP_MS,
  type StreamPort,
  Subscriptions,
} from "../../lib/resources/subscriptions.ts";
import { INVALID_PARAMS } from "../../lib/wire/mcp.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { within } from "../support/waits.ts";
import { id } from "./fixtures.ts";

const R = "tiny://relay.example";
const NOW = 1_767_225_600_000;

interface Watched {
  filter: Record<string, unknown>;
  sink: SubscriptionSink;
  stopped: boolean;
}

/** A stream that goes live at once (connected, then its end of history), unless told not to. */
function fakeStream(live = true) {
  const watched: Watched[] = [];
  let made = 0;
  const port: StreamPort = {
    subscribe: (filter, sink) => {
      const entry = { filter: filter as Record<string, unknown>, sink, stopped: false };
      watched.push(entry);
      if (live) {
        sink.connected();
        sink.caughtUp?.();
      }
      return { stop: () => void (entry.stopped = true) };
    },
  };
  return { watched, port, made: () => made, make: () => (made++, Promise.resolve(port)) };
}

/** A clock and timers the test moves by hand. */
function fakeTime() {
  let now = NOW;
  const tasks: { at: number; task: () => void; cancelled: boolean }[] = [];
  return {
    now: () => now,
    later: (task: () => void, ms: number) => {
      const entry = { at: now + ms, task, cancelled: false };
      tasks.push(entry);
      return () => void (entry.cancelled = true);
    },
    pass(ms: number) {
      now += ms;
      for (const entry of tasks.filter((t) => !t.cancelled && t.at <= now)) {
        entry.cancelled = true;
        entry.task();
      }
    },
    pending: () => tasks.filter((t) => !t.cancelled).length,
  };
}

function setup(options: { exposed?: readonly string[]; live?: boolean; max?: number } = {}) {
  const stream = fakeStream(options.live ?? true);
  const time = fakeTime();
  const told: string[] = [];
  const lines: string[] = [];
  const subs = new Subscriptions({
    base: { host: "relay.example" },
    exposed: new Set(options.exposed ?? CONTRACT_READ),
    stream: stream.make,
    notify: (uri) => told.push(uri),
    log: (line) => lines.push(line),
    now: time.now,
    later: time.later,
    max: options.max,
  });
  return { subs, stream, time, told, lines };
}

const ev = (n: number) => ({ id: id(String(n).padStart(2, "0")) }) as SignedEvent;

Deno.test("a room is watched with its filter from now; each new event is told once, as the URI subscribed", async () => {
  const { subs, stream, time, told } = setup();
  assert.deepEqual(await subs.subscribe({ uri: `${R}/room/general` }), { result: {} });
  assert.equal(stream.watched.length, 1);
  assert.deepEqual(stream.watched[0].filter["#h"], ["general"]);
  assert.equal(stream.watched[0].filter.since, NOW / 1000);
  const { sink } = stream.watched[0];
  sink.event(ev(1), false);
  assert.deepEqual(told, [`${R}/room/general`]);
  time.pass(NOTIFY_GAP_MS);
  sink.event(ev(2), false);
  assert.deepEqual(told, [`${R}/room/general`, `${R}/room/general`]);
});

Deno.test("history is never news; after a dropped socket, only what was missed is", async () => {
  const { subs, stream, told } = setup();
  await subs.subscribe({ uri: `${R}/room/general` });
  const { sink } = stream.watched[0];
  sink.event(ev(1), true); // the first connection's history
  assert.deepEqual(told, []);
  // The relay drops the socket; the next connection replays what is stored since the subscription
  // (the stream passes on only what it has not passed before: here, one missed while away).
  sink.trouble("the connection ended; subscribing again in 1 s");
  sink.connected();
  sink.event(ev(2), true);
  assert.deepEqual(told, [`${R}/room/general`]);
});

Deno.test("a thread and a long task are watched; the other kinds are refused, as is what is not offered", async () => {
  const { subs, stream } = setup();
  await subs.subscribe({ uri: `${R}/room/general/thread/${id("11")}` });
  await subs.subscribe({ uri: `${R}/job/${id("60")}` });
  assert.deepEqual(stream.watched.map((w) => w.filter["#e"]), [[id("11")], [id("60")]]);
  const wiki = await subs.subscribe({ uri: `${R}/wiki/start` });
  assert.ok("error" in wiki);
  assert.equal(wiki.error.code, INVALID_PARAMS);
  assert.match(wiki.error.message, /a wiki resource is not watched; room, thread, job resources are/);
  const hidden = setup({ exposed: ["read_thread"] });
  const room = await hidden.subs.subscribe({ uri: `${R}/room/general` });
  assert.ok("error" in room);
  assert.match(room.error.message, /not offered/);
  for (const params of [{ uri: `${R}/room/../x` }, { uri: "tiny://elsewhere/room/x" }, {}, null]) {
    const answer = await subs.subscribe(params);
    assert.ok("error" in answer);
    assert.equal(answer.error.code, INVALID_PARAMS);
  }
  assert.equal(stream.watched.length, 2, "nothing else was watched");
});

Deno.test("at most one notification a second for a resource, the last never lost", async () => {
  const { subs, stream, time, told } = setup();
  await subs.subscribe({ uri: `${R}/room/general` });
  const { sink } = stream.watched[0];
  for (let n = 1; n <= 50; n++) sink.event(ev(n), false);
  assert.equal(told.length, 1);
  time.pass(NOTIFY_GAP_MS - 1);
  assert.equal(told.length, 1);
  time.pass(1);
  assert.equal(told.length, 2, "the burst's last one, at the second's end");
  time.pass(10 * NOTIFY_GAP_MS);
  assert.equal(told.length, 2);
});

Deno.test("subscribing twice is one subscription; unsubscribing stops it, and nothing more is told", async () => {
  const { subs, stream, time, told } = setup();
  await subs.subscribe({ uri: `${R}/room/general` });
  await subs.subscribe({ uri: `${R}/room/general` });
  assert.equal(stream.watched.length, 1);
  assert.equal(subs.size, 1);
  const { sink } = stream.watched[0];
  sink.event(ev(1), false);
  sink.event(ev(2), false); // waits for the second's end
  assert.deepEqual(subs.unsubscribe({ uri: `${R}/room/general` }), { result: {} });
  assert.equal(stream.watched[0].stopped, true);
  time.pass(NOTIFY_GAP_MS);
  assert.equal(told.length, 1, "the pending one was dropped with the subscription");
  assert.equal(subs.size, 0);
  assert.deepEqual(subs.unsubscribe({ uri: `${R}/room/general` }), { result: {} }, "again: nothing to do");
  const bad = subs.unsubscribe({ uri: `${R}/room/a%2Fb` });
  assert.ok("error" in bad);
});

Deno.test("one resource spelt two ways is one subscription: the host's case, a %65 escape", async () => {
  const { subs, stream, told } = setup();
  await subs.subscribe({ uri: `${R}/room/general` });
  // The same room: the relay's host in capitals, then a letter of the id percent-escaped.
  await subs.subscribe({ uri: "tiny://RELAY.example/room/general" });
  await subs.subscribe({ uri: `${R}/room/gen%65ral` });
  assert.equal(stream.watched.length, 1, "one stream subscription, not one per spelling");
  assert.equal(subs.size, 1);
  stream.watched[0].sink.event(ev(1), false);
  assert.deepEqual(told, [`${R}/room/general`], "told once, as first subscribed");
  // Unsubscribing under another spelling releases it: nothing is left running.
  assert.deepEqual(subs.unsubscribe({ uri: "tiny://Relay.Example/room/gen%65ral" }), { result: {} });
  assert.equal(stream.watched[0].stopped, true);
  assert.equal(subs.size, 0);
});

Deno.test("the 101st subscription is refused, clearly; one released makes room", async () => {
  const { subs, stream } = setup();
  const answers = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => subs.subscribe({ uri: `${R}/room/r${i}` })),
  );
  const refused = answers.filter((a) => "error" in a);
  assert.equal(refused.length, 1000 - MAX_SUBSCRIPTIONS);
  assert.equal(stream.watched.length, MAX_SUBSCRIPTIONS);
  assert.equal(stream.made(), 1, "one stream, made once");
  const [first] = refused;
  assert.ok("error" in first);
  assert.equal(first.error.code, INVALID_PARAMS);
  assert.match(
    first.error.message,
    /^At most 100 resources can be subscribed to at once; unsubscribe from one first$/,
  );
  assert.deepEqual((first.error.data as { reason: string }).reason, "too-many");
  subs.unsubscribe({ uri: `${R}/room/r0` });
  assert.deepEqual(await subs.subscribe({ uri: `${R}/room/r999` }), { result: {} });
});

Deno.test("a relay slow to go live: the subscribe is answered after a while all the same", async () => {
  const { subs, stream, time } = setup({ live: false });
  const answered = subs.subscribe({ uri: `${R}/room/general` });
  await within(
    1000,
    "the subscription to start",
    (async () => {
      while (stream.watched.length === 0) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  time.pass(LIVE_WAIT_MS);
  assert.deepEqual(await within(1000, "the answer", answered), { result: {} });
  // Trouble is said once, however many subscriptions meet it.
  stream.watched[0].sink.trouble("cannot reach ws://x");
  stream.watched[0].sink.trouble("cannot reach ws://x");
});

Deno.test("the end releases every subscription; a subscribe after it is refused", async () => {
  const { subs, stream, time, told, lines } = setup();
  await subs.subscribe({ uri: `${R}/room/a` });
  await subs.subscribe({ uri: `${R}/job/${id("60")}` });
  stream.watched[0].sink.trouble("the connection ended");
  stream.watched[1].sink.trouble("the connection ended");
  assert.deepEqual(lines, ["resources: watching: the connection ended"]);
  stream.watched[0].sink.event(ev(1), false);
  stream.watched[0].sink.event(ev(2), false);
  subs.close();
  assert.deepEqual(stream.watched.map((w) => w.stopped), [true, true]);
  assert.equal(time.pending(), 0, "no timer left");
  time.pass(NOTIFY_GAP_MS);
  assert.equal(told.length, 1);
  const after = await subs.subscribe({ uri: `${R}/room/b` });
  assert.ok("error" in after);
  assert.match(after.error.message, /session is ending/);
});

Deno.test("a stream that cannot be made refuses the subscribe, saying why, and holds nothing", async () => {
  const subs = new Subscriptions({
    base: { host: "relay.example" },
    exposed: new Set(CONTRACT_READ),
    stream: () => Promise.reject(new Error("no network permission")),
    notify: () => {},
    log: () => {},
  });
  const answer = await subs.subscribe({ uri: `${R}/room/general` });
  assert.ok("error" in answer);
  assert.match(answer.error.message, /websocket cannot be opened: no network permission/);
  assert.equal(subs.size, 0);
});
