// A few kept connections shared by calls that may run at once (lib/transport/transport_pool.ts),
// with fake transports: at most `size`, the one released last reused first, waiters served in order,
// a waiter's abort removing it with its signal's reason, close() rejecting waiters and closing all.

import assert from "node:assert/strict";
import type { RelayTransport } from "../../lib/transport/kept_connection.ts";
import { POOL_SIZE, TransportPool } from "../../lib/transport/transport_pool.ts";

/** The part of a RelayTransport the pool uses, counted. */
class FakeTransport {
  static made = 0;
  readonly name: string;
  opened = 0;
  warmed = 0;
  closed = 0;
  constructor() {
    this.name = `t${++FakeTransport.made}`;
  }
  warm(): void {
    this.warmed++;
  }
  close(): void {
    this.closed++;
  }
}

function pool(size?: number) {
  const made: FakeTransport[] = [];
  const make = () => {
    const transport = new FakeTransport();
    made.push(transport);
    return transport as unknown as RelayTransport;
  };
  return { pool: size === undefined ? new TransportPool(make) : new TransportPool(make, size), made };
}

const NEVER = new AbortController().signal;
const nameOf = (transport: RelayTransport) => (transport as unknown as FakeTransport).name;

/** A call holding its transport until released. */
function hold(from: TransportPool, signal = NEVER) {
  const release = Promise.withResolvers<void>();
  const got = Promise.withResolvers<string>();
  const done = from.use(signal, async (transport) => {
    got.resolve(nameOf(transport));
    await release.promise;
    return nameOf(transport);
  });
  done.catch(() => {}); // observed by the test when it matters
  return { got: got.promise, release: () => release.resolve(), done };
}

/** Lets every pending callback run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

Deno.test("the default size", () => assert.equal(POOL_SIZE, 4));

Deno.test("sequential use stays on one transport", async () => {
  const { pool: p, made } = pool();
  const names: string[] = [];
  for (let i = 0; i < 5; i++) {
    names.push(await p.use(NEVER, (transport) => Promise.resolve(nameOf(transport))));
  }
  assert.equal(made.length, 1);
  assert.deepEqual(names, Array(5).fill(made[0].name));
});

Deno.test("at most `size` transports; the next call waits for one", async () => {
  const { pool: p, made } = pool(2);
  const a = hold(p), b = hold(p), c = hold(p);
  const [first, second] = await Promise.all([a.got, b.got]);
  await settle();
  assert.equal(made.length, 2);
  let third: string | undefined;
  c.got.then((name) => third = name);
  await settle();
  assert.equal(third, undefined, "the third call waits");
  b.release();
  assert.equal(await c.got, second, "and gets the one released");
  assert.equal(made.length, 2);
  a.release();
  c.release();
  await Promise.all([a.done, b.done, c.done]);
  assert.notEqual(first, second);
});

Deno.test("the transport released last is reused first", async () => {
  const { pool: p, made } = pool(3);
  const calls = [hold(p), hold(p), hold(p)];
  const names = await Promise.all(calls.map((call) => call.got));
  assert.deepEqual(names, made.map((t) => t.name));
  for (const index of [1, 0, 2]) {
    calls[index].release();
    await calls[index].done;
  }
  // Free now, released in the order t2, t1, t3: t3 first, then t1, then t2.
  const next = [hold(p), hold(p), hold(p)];
  assert.deepEqual(await Promise.all(next.map((call) => call.got)), [names[2], names[0], names[1]]);
  assert.equal(made.length, 3);
  next.forEach((call) => call.release());
  await Promise.all(next.map((call) => call.done));
});

Deno.test("a failed call releases its transport too", async () => {
  const { pool: p, made } = pool(1);
  await assert.rejects(p.use(NEVER, () => Promise.reject(new Error("boom"))), /boom/);
  assert.equal(await p.use(NEVER, (t) => Promise.resolve(nameOf(t))), made[0].name);
  assert.equal(made.length, 1);
});

Deno.test("waiters are served in the order they came", async () => {
  const { pool: p } = pool(1);
  const holder = hold(p);
  await holder.got;
  const order: string[] = [];
  const waiters = ["w1", "w2", "w3"].map((name) => {
    const call = hold(p);
    call.got.then(() => order.push(name));
    return call;
  });
  await settle();
  assert.deepEqual(order, []);
  holder.release();
  await waiters[0].got;
  await settle();
  assert.deepEqual(order, ["w1"]);
  waiters[0].release();
  await waiters[1].got;
  await settle();
  assert.deepEqual(order, ["w1", "w2"]);
  waiters[1].release();
  waiters[2].release();
  await Promise.all([holder.done, ...waiters.map((call) => call.done)]);
  assert.deepEqual(order, ["w1", "w2", "w3"]);
});

Deno.test("a waiter whose signal aborts", async (t) => {
  await t.step("is rejected with the signal's reason and removed; the next waiter is served", async () => {
    const { pool: p, made } = pool(1);
    const holder = hold(p);
    await holder.got;
    const controller = new AbortController();
    const aborted = hold(p, controller.signal);
    const after = hold(p);
    const reason = new Error("the call's bound");
    controller.abort(reason);
    await assert.rejects(aborted.done, (error) => error === reason);
    holder.release();
    assert.equal(await after.got, made[0].name);
    after.release();
    await Promise.all([holder.done, after.done]);
    let ran = false;
    aborted.got.then(() => ran = true);
    await settle();
    assert.equal(ran, false, "the aborted call never ran");
  });
  await t.step("in the middle of the queue, the others keep their places", async () => {
    const { pool: p } = pool(1);
    const holder = hold(p);
    await holder.got;
    const controller = new AbortController();
    const order: string[] = [];
    const w1 = hold(p), w2 = hold(p, controller.signal), w3 = hold(p);
    w1.got.then(() => order.push("w1"));
    w3.got.then(() => order.push("w3"));
    controller.abort("stop");
    await assert.rejects(w2.done, (error) => error === "stop");
    holder.release();
    await w1.got;
    w1.release();
    await w3.got;
    w3.release();
    await Promise.all([holder.done, w1.done, w3.done]);
    assert.deepEqual(order, ["w1", "w3"]);
  });
  await t.step("a signal aborted before the call: rejected at once, nothing made", async () => {
    const { pool: p, made } = pool(1);
    const controller = new AbortController();
    controller.abort("already");
    await assert.rejects(p.use(controller.signal, () => Promise.resolve(1)), (error) => error === "already");
    assert.equal(made.length, 0);
  });
  await t.step("a signal that aborts after its waiter was served removes no other waiter", async () => {
    const { pool: p, made } = pool(1);
    const holder = hold(p);
    await holder.got;
    const controller = new AbortController();
    const served = hold(p, controller.signal);
    holder.release();
    await served.got;
    const next = hold(p);
    await settle();
    controller.abort("late"); // the served call's own work decides what that means; the queue is untouched
    served.release();
    assert.equal(await next.got, made[0].name);
    next.release();
    await Promise.all([holder.done, next.done]);
    await served.done;
  });
});

Deno.test("close()", async (t) => {
  await t.step("rejects the waiters and closes every transport", async () => {
    const { pool: p, made } = pool(2);
    const a = hold(p), b = hold(p);
    await Promise.all([a.got, b.got]);
    const w1 = hold(p), w2 = hold(p);
    await settle();
    p.close();
    await assert.rejects(w1.done, /the transport is closed/);
    await assert.rejects(w2.done, /the transport is closed/);
    assert.deepEqual(made.map((transport) => transport.closed), [1, 1]);
    a.release();
    b.release();
    assert.deepEqual(
      await Promise.all([a.done, b.done]),
      [made[0].name, made[1].name],
      "calls in flight finish",
    );
  });
  await t.step("idle transports are closed too, and later calls are refused", async () => {
    const { pool: p, made } = pool(3);
    const calls = [hold(p), hold(p)];
    await Promise.all(calls.map((call) => call.got));
    calls.forEach((call) => call.release());
    await Promise.all(calls.map((call) => call.done));
    p.close();
    assert.deepEqual(made.map((transport) => transport.closed), [1, 1]);
    await assert.rejects(p.use(NEVER, () => Promise.resolve(1)), /the transport is closed/);
    assert.equal(made.length, 2, "nothing new is made");
  });
});

Deno.test("opened sums the transports' opened", async () => {
  const { pool: p, made } = pool(3);
  assert.equal(p.opened, 0);
  const calls = [hold(p), hold(p), hold(p)];
  await Promise.all(calls.map((call) => call.got));
  made[0].opened = 2;
  made[1].opened = 1;
  made[2].opened = 4;
  assert.equal(p.opened, 7);
  calls.forEach((call) => call.release());
  await Promise.all(calls.map((call) => call.done));
  assert.equal(p.opened, 7, "released transports still count");
});

Deno.test("warm() opens the first transport ahead of the first call, and that call uses it", async () => {
  const { pool: p, made } = pool(2);
  p.warm();
  assert.equal(made.length, 1);
  assert.equal(made[0].warmed, 1);
  p.warm();
  assert.equal(made.length, 1);
  assert.equal(made[0].warmed, 2);
  assert.equal(await p.use(NEVER, (t) => Promise.resolve(nameOf(t))), made[0].name);
  assert.equal(made.length, 1);
});
