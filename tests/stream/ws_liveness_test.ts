// The liveness check (lib/stream/ws_liveness.ts) over scripted connections: a read left waiting
// idleMs brings a ping, and pongMs more with no read returning ends the connection; a relay that
// answers keeps it; time nobody reads is not the relay's silence; stop() leaves no timer behind.

import assert from "node:assert/strict";
import { Liveness, WatchedConn } from "../../lib/stream/ws_liveness.ts";
import { ScriptedConn } from "../support/scripted_conn.ts";
import { within } from "../support/waits.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

Deno.test("WatchedConn: counts reads, knows when the one waiting began, holds what is in flight", async () => {
  const scripted = new ScriptedConn(["ab"], "stall");
  const conn = new WatchedConn(scripted);
  assert.equal(conn.readingSince, undefined);
  const buffer = new Uint8Array(10);
  assert.equal(await conn.read(buffer), 2);
  await conn.reading;
  assert.equal(conn.readingSince, undefined, "no read is waiting once it returned");
  const before = Date.now();
  const waiting = conn.read(buffer);
  assert.equal(conn.reads, 2);
  assert.ok(conn.readingSince !== undefined && conn.readingSince >= before);
  scripted.push("c");
  assert.equal(await within(2000, "the read", waiting), 1);
  await conn.reading;
  assert.equal(conn.readingSince, undefined);
  assert.equal(await conn.write(Uint8Array.of(1, 2)), 2);
  assert.deepEqual(scripted.written, [Uint8Array.of(1, 2)]);
  await conn.writing;
  conn.close();
  assert.ok(scripted.closed);
  const failing = new WatchedConn({
    read: () => Promise.reject(new Error("reset")),
    write: () => Promise.reject(new Error("broken pipe")),
    close: () => {
      throw new Error("already closed");
    },
  });
  await assert.rejects(failing.read(buffer), /reset/);
  await assert.rejects(failing.write(buffer), /broken pipe/);
  await failing.reading; // settled, never rejected
  await failing.writing;
  assert.equal(failing.readingSince, undefined);
  failing.close(); // quiet
});

Deno.test("a read left waiting: one ping after idleMs, then dead pongMs later", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  const pings: number[] = [];
  const dead = Promise.withResolvers<string>();
  const started = Date.now();
  const reading = conn.read(new Uint8Array(10));
  const liveness = new Liveness(conn, 100, 150, {
    ping: () => pings.push(Date.now() - started),
    dead: dead.resolve,
  });
  try {
    const reason = await within(3000, "the dead connection", dead.promise);
    const waited = Date.now() - started;
    assert.equal(reason, "the relay did not answer a ping within 0.15 s");
    assert.equal(pings.length, 1, "one ping, then the wait for its answer");
    assert.ok(pings[0] >= 95, `the ping came after idleMs (${pings[0]} ms)`);
    assert.ok(waited >= 240, `dead only after idleMs + pongMs (${waited} ms)`);
  } finally {
    liveness.stop();
    scripted.close();
    await reading;
  }
});

Deno.test("a relay that answers each ping stays alive", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  let pings = 0;
  let died: string | undefined;
  const liveness = new Liveness(conn, 40, 60, {
    ping: () => {
      pings++;
      setTimeout(() => scripted.push("pong"), 10); // the answer, a moment later
    },
    dead: (reason) => died = reason,
  });
  let stop = false;
  const reader = (async () => {
    const buffer = new Uint8Array(10);
    while (!stop && await conn.read(buffer) !== null) { /* every byte is the relay heard */ }
  })();
  try {
    await sleep(600);
    assert.equal(died, undefined, "never dead while pings are answered");
    assert.ok(pings >= 2, `pinged each time the relay was quiet (${pings})`);
  } finally {
    stop = true;
    liveness.stop();
    scripted.close();
    await reader;
    await sleep(20); // the last answer's timer
  }
});

Deno.test("while nobody reads, the relay's silence is not counted; stop() ends the check", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  let pings = 0;
  let died = false;
  const liveness = new Liveness(conn, 30, 1000, { ping: () => pings++, dead: () => died = true });
  await sleep(200);
  assert.equal(pings, 0, "no ping while no read waits");
  assert.equal(died, false);
  // A read now: quiet from its start, so a ping comes after idleMs, then dead.
  const reading = conn.read(new Uint8Array(4));
  await within(
    2000,
    "a ping once a read waits",
    (async () => {
      while (pings === 0) await sleep(5);
    })(),
  );
  liveness.stop();
  const pinged = pings;
  await sleep(150);
  assert.equal(pings, pinged, "nothing after stop()");
  assert.equal(died, false, "stopped before the answer was due");
  scripted.close();
  await reading;
});
