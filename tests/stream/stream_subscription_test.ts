// A subscription's REQ (lib/stream/stream_subscription.ts) driven by hand, with a sink and a client
// control that record what they are told (the waits run by the test): `connected` once per
// connection, events passed once each, the pause when the sink refuses one and the resume that
// fetches it again, closings answered at once or after a growing wait, and silence after stop().

import assert from "node:assert/strict";
import type { SignedEvent } from "../../lib/key/signer.ts";
import type { RelayConnection } from "../../lib/stream/relay_connection.ts";
import {
  type SubscriptionControl,
  SubscriptionReq,
  type SubscriptionSink,
} from "../../lib/stream/stream_subscription.ts";

const connection = (name: string) => ({ name }) as unknown as RelayConnection;

/** An event as the connection passes it on (shape and signature checked there). */
function event(n: number, fields: Partial<SignedEvent> = {}): SignedEvent {
  return {
    id: n.toString(16).padStart(64, "0"),
    pubkey: "a".repeat(64),
    created_at: 1_700_000_000 + n,
    kind: 9,
    tags: [["h", "general"]],
    content: `event ${n}`,
    sig: "b".repeat(128),
    ...fields,
  };
}

/** What the sink was told, in order: "connected", "event <n>", "trouble: <text>". */
class Sink implements SubscriptionSink {
  said: string[] = [];
  /** Whether the next events are taken. */
  taking = true;
  connected(): void {
    this.said.push("connected");
  }
  event(event: SignedEvent): boolean {
    this.said.push(`${this.taking ? "event" : "refused"} ${parseInt(event.id, 16)}`);
    return this.taking;
  }
  trouble(message: string): void {
    this.said.push(`trouble: ${message}`);
  }
  /** What was said since the last call. */
  #read = 0;
  fresh(): string[] {
    const fresh = this.said.slice(this.#read);
    this.#read = this.said.length;
    return fresh;
  }
}

/** The client side: resends and cancels recorded, waits kept for the test to run. */
class Control implements SubscriptionControl {
  calls: string[] = [];
  waits: { task: () => void; ms: number }[] = [];
  resend(req: SubscriptionReq): void {
    this.calls.push(`resend ${req.id}`);
  }
  cancel(id: string): void {
    this.calls.push(`cancel ${id}`);
  }
  later(task: () => void, ms: number): void {
    this.calls.push(`later ${ms}`);
    this.waits.push({ task, ms });
  }
  /** Runs the oldest wait's task. */
  runWait(): void {
    const wait = this.waits.shift();
    assert.ok(wait, "a wait was asked for");
    wait.task();
  }
  #read = 0;
  fresh(): string[] {
    const fresh = this.calls.slice(this.#read);
    this.#read = this.calls.length;
    return fresh;
  }
}

function start(filter: unknown = { kinds: [9], "#h": ["general"] }) {
  const sink = new Sink();
  const control = new Control();
  const req = new SubscriptionReq("s1", filter, sink, control);
  return { sink, control, req };
}

/** Runs `fn` with Date.now() reading `clock.now`, restored after. */
function withClock(fn: (clock: { now: number }) => void): void {
  const real = Date.now;
  const clock = { now: real() };
  Date.now = () => clock.now;
  try {
    fn(clock);
  } finally {
    Date.now = real;
  }
}

Deno.test("the filter is the REQ's only filter, as given", () => {
  const filter = { kinds: [9], since: 5 };
  const { req } = start(filter);
  assert.equal(req.id, "s1");
  assert.deepEqual(req.filters, [filter]);
  assert.equal(req.filter, filter);
});

Deno.test("connected once per connection: before its first event, or at its EOSE", () => {
  const { sink, req } = start();
  const first = connection("c1");
  req.sent(first);
  req.event(event(1));
  req.event(event(2));
  req.eose();
  req.sent(first); // the REQ again on the same connection (after AUTH): not a new connection
  req.eose();
  assert.deepEqual(sink.fresh(), ["connected", "event 1", "event 2"]);
  req.lost("the connection ended");
  req.sent(connection("c2"));
  req.eose(); // no history this time: connected at EOSE
  req.event(event(3));
  assert.deepEqual(sink.fresh(), ["trouble: the connection ended", "connected", "event 3"]);
});

Deno.test("connected is said on a new connection even without the old one being said lost", () => {
  const { sink, req } = start();
  req.sent(connection("c1"));
  req.eose();
  req.sent(connection("c2"));
  req.eose();
  assert.deepEqual(sink.fresh(), ["connected", "connected"]);
});

Deno.test("an event the filter leaves out is not passed, and does not say connected", () => {
  const { sink, req } = start();
  req.sent(connection("c1"));
  req.event(event(1, { kind: 1 }));
  req.event(event(2, { tags: [["h", "other"]] }));
  assert.deepEqual(sink.fresh(), []);
  req.event(event(3));
  assert.deepEqual(sink.fresh(), ["connected", "event 3"]);
});

Deno.test("each event passed once: the history replayed on a new connection is not passed again", () => {
  const { sink, req } = start();
  req.sent(connection("c1"));
  req.event(event(1));
  req.event(event(2));
  req.event(event(1)); // the relay sends it again on the same connection
  req.lost("dropped");
  req.sent(connection("c2"));
  req.event(event(1));
  req.event(event(2));
  req.event(event(3));
  assert.deepEqual(sink.fresh(), [
    "connected",
    "event 1",
    "event 2",
    "trouble: dropped",
    "connected",
    "event 3",
  ]);
});

Deno.test("a refused event pauses the subscription; resume says what was held back and fetches it again", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  req.event(event(1));
  sink.taking = false;
  req.event(event(2));
  assert.deepEqual(control.fresh(), ["cancel s1"], "the REQ is closed at the relay");
  sink.taking = true;
  // While paused, nothing reaches the sink: each event is counted.
  req.event(event(3));
  req.event(event(4));
  assert.deepEqual(sink.fresh(), ["connected", "event 1", "refused 2"]);
  assert.equal(req.resume(), 3, "the refused event and the two after it");
  assert.deepEqual(control.fresh(), ["resend s1"]);
  assert.equal(req.resume(), 0, "not paused: nothing held, nothing sent again");
  assert.deepEqual(control.fresh(), []);
  // The REQ sent again brings the history: the refused event was not marked passed, so it passes now.
  req.event(event(1));
  req.event(event(2));
  req.event(event(3));
  assert.deepEqual(sink.fresh(), ["event 2", "event 3"]);
});

Deno.test("a subscription refused twice counts each pause afresh", () => {
  const { sink, req } = start();
  req.sent(connection("c1"));
  sink.taking = false;
  req.event(event(1));
  req.event(event(2));
  assert.equal(req.resume(), 2);
  req.event(event(1));
  assert.equal(req.resume(), 1);
  sink.taking = true;
  req.event(event(1));
  assert.deepEqual(sink.fresh(), ["connected", "refused 1", "refused 1", "event 1"]);
});

Deno.test('"subscribe again" is answered at once, at most 5 times in 10 s; then the waits apply', () => {
  withClock((clock) => {
    const { sink, control, req } = start();
    req.sent(connection("c1"));
    req.eose();
    sink.fresh();
    const reason = "blocked: relay access policy changed; subscribe again";
    for (let i = 0; i < 5; i++) {
      req.closed(reason);
      clock.now += 1000;
    }
    assert.deepEqual(control.fresh(), Array(5).fill("resend s1"));
    assert.deepEqual(sink.fresh(), [], "answered at once, nothing to say");
    // Each wait's task sends the REQ again; the relay's next closing waits longer.
    for (const closing of [reason, "blocked: relay policy changed; Subscribe Again", reason]) {
      req.closed(closing);
      control.runWait();
    }
    assert.deepEqual(control.fresh(), [
      "later 1000",
      "resend s1",
      "later 2000",
      "resend s1",
      "later 4000",
      "resend s1",
    ]);
    assert.deepEqual(
      sink.fresh(),
      [1, 2, 4].map((s) =>
        `trouble: the relay closed the subscription: ${
          s === 2 ? "blocked: relay policy changed; Subscribe Again" : reason
        }; subscribing again in ${s} s`
      ),
    );
    // Once the quick ones are 10 s old, a "subscribe again" is answered at once again.
    clock.now += 10_000;
    req.closed(reason);
    req.closed("blocked: relay policy changed; Subscribe Again"); // in any case
    assert.deepEqual(control.fresh(), ["resend s1", "resend s1"]);
  });
});

Deno.test("any other closing waits 1, 2, 4 … 30 s, each said with its reason and its wait", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  req.eose();
  sink.fresh();
  const waits = [1, 2, 4, 8, 16, 30, 30];
  for (const _ of waits) {
    req.closed("error: query failed: slow consumer");
    control.runWait();
  }
  assert.deepEqual(control.fresh(), waits.flatMap((s) => [`later ${s * 1000}`, "resend s1"]));
  assert.deepEqual(
    sink.fresh(),
    waits.map((s) =>
      `trouble: the relay closed the subscription: error: query failed: slow consumer; subscribing again in ${s} s`
    ),
  );
});

Deno.test("closings while a wait is pending, or while paused, change nothing: a flood costs one wait", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  req.eose();
  sink.fresh();
  for (let i = 0; i < 100_000; i++) req.closed("error: flood");
  assert.deepEqual(control.fresh(), ["later 1000"]);
  assert.equal(sink.fresh().length, 1, "one line said");
  sink.taking = false;
  control.runWait();
  req.event(event(1)); // refused: paused
  control.fresh();
  req.closed("error: while paused");
  assert.deepEqual(control.fresh(), [], "paused: the REQ goes again when it resumes");
  assert.equal(req.paused, true);
});

Deno.test("the closings' waits start again at 1 s once a new connection is live", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  req.eose();
  req.closed("error: one");
  control.runWait();
  req.closed("error: two");
  control.runWait();
  assert.deepEqual(control.fresh(), ["later 1000", "resend s1", "later 2000", "resend s1"]);
  req.sent(connection("c2"));
  req.closed("error: before connected"); // not live yet on c2: the waits go on growing
  control.runWait();
  req.eose();
  req.closed("error: three");
  assert.deepEqual(control.fresh(), ["later 4000", "resend s1", "later 1000"]);
  assert.equal(sink.said.filter((line) => line === "connected").length, 2);
});

Deno.test("a refused AUTH and a lost connection are said through trouble", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  req.refused("");
  req.refused("restricted: not allowed");
  req.lost("the connection to ws://relay ended: reset; subscribing again in 1 s");
  assert.deepEqual(sink.fresh(), [
    "trouble: relay rejected AUTH",
    "trouble: relay rejected AUTH: restricted: not allowed",
    "trouble: the connection to ws://relay ended: reset; subscribing again in 1 s",
  ]);
  assert.deepEqual(control.fresh(), [], "the client decides when to dial again");
});

Deno.test("after stop() nothing reaches the sink, and the REQ is ended once", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  req.event(event(1));
  sink.fresh();
  req.stop();
  req.stop();
  assert.equal(req.stopped, true);
  assert.deepEqual(control.fresh(), ["cancel s1"]);
  req.sent(connection("c2"));
  req.event(event(2));
  req.eose();
  req.closed("blocked: relay access policy changed; subscribe again");
  req.closed("error: other");
  req.refused("no");
  req.lost("gone");
  assert.equal(req.resume(), 0);
  assert.deepEqual(sink.fresh(), []);
  assert.deepEqual(control.fresh(), [], "no resend, no wait");
});

Deno.test("stopped while paused: resume gives nothing and sends nothing", () => {
  const { sink, control, req } = start();
  req.sent(connection("c1"));
  sink.taking = false;
  req.event(event(1));
  req.stop();
  assert.equal(req.resume(), 0);
  assert.deepEqual(
    control.fresh(),
    ["cancel s1", "cancel s1"],
    "the pause's CLOSE, the stop's; no REQ again",
  );
  assert.deepEqual(sink.fresh(), ["connected", "refused 1"]);
});
