// The liveness check (lib/stream/ws_liveness.ts) over scripted connections: a read left waiting
// idleMs with no whole frame brings a ping, and pongMs more with none ends the connection; a relay
// that answers keeps it; bytes are not frames (a frame trickled a byte at a time is silence), and a
// message kept open frame by frame, pongs between its fragments or not, is given up as silence is;
// time nobody reads is not the relay's silence; stop() leaves no timer behind.

import assert from "node:assert/strict";
import { MessageDecoder } from "../../lib/stream/ws_frame.ts";
import { Liveness, WaitClock, WatchedConn } from "../../lib/stream/ws_liveness.ts";
import { ScriptedConn } from "../support/scripted_conn.ts";
import { within } from "../support/waits.ts";
import { serverFrame } from "./ws_peers.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Reads `conn` as the websocket does: each read's bytes into a decoder, every event taken, the
 * liveness check told after each step. `paused` holds the reading back (a consumer busy elsewhere).
 */
function consume(conn: WatchedConn, liveness: Liveness) {
  const decoder = new MessageDecoder();
  const state = {
    paused: undefined as Promise<void> | undefined,
    done: Promise.resolve(),
  };
  state.done = (async () => {
    const buffer = new Uint8Array(64);
    for (;;) {
      await state.paused;
      const n = await conn.read(buffer);
      if (n === null) return;
      decoder.push(buffer.slice(0, n));
      for (let event = decoder.next();; event = decoder.next()) {
        liveness.decoded(decoder);
        if (!event) break;
      }
    }
  })();
  return state;
}

/** Pushes `chunks` to the peer's side, one every `ms`; `done` once all are, `stop` ends it early. */
function trickle(scripted: ScriptedConn, chunks: Uint8Array[], ms: number) {
  let stopped = false;
  let finished = false;
  const done = (async () => {
    for (const chunk of chunks) {
      if (stopped) return;
      await sleep(ms);
      scripted.push(chunk);
    }
    finished = true;
  })();
  return {
    done,
    /** Whether every chunk was pushed: the relay has gone quiet. */
    get finished() {
      return finished;
    },
    stop: async () => {
      stopped = true;
      await done;
    },
  };
}

/** A text frame declaring 65535 bytes, as single bytes: at one per 10 ms it would take 11 minutes. */
function trickledFrame(count = 1000): Uint8Array[] {
  const frame = serverFrame({ opcode: 1, payload: "x".repeat(65535) });
  return Array.from({ length: count }, (_, i) => frame.subarray(i, i + 1));
}

/** A message begun and never finished: its first fragment, then `count` continuations. */
function fragmentsWithoutEnd(count = 1000): Uint8Array[] {
  const continuation = serverFrame({ opcode: 0, fin: false, payload: "more" });
  return [serverFrame({ opcode: 1, fin: false, payload: "begun" }), ...Array(count).fill(continuation)];
}

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

Deno.test("a relay that answers each ping with a whole pong stays alive", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  let pings = 0;
  let died: string | undefined;
  const liveness = new Liveness(conn, 40, 60, {
    ping: () => {
      pings++;
      setTimeout(() => scripted.push(serverFrame({ opcode: 10 })), 10); // the answer, a moment later
    },
    dead: (reason) => died = reason,
  });
  const reader = consume(conn, liveness);
  try {
    await sleep(600);
    assert.equal(died, undefined, "never dead while pings are answered");
    assert.ok(pings >= 2, `pinged each time the relay was quiet (${pings})`);
  } finally {
    liveness.stop();
    scripted.close();
    await reader.done;
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

Deno.test("WaitClock: runs while anything waits, once however many wait, and wakes who waits for it", async () => {
  const clock = new WaitClock();
  assert.equal(clock.running, false);
  let woken = 0;
  clock.whenRunning(() => woken++);
  await sleep(60);
  assert.equal(clock.now(), 0, "nothing waited");
  clock.begin();
  assert.equal(woken, 1, "woken as it started");
  clock.begin(); // a second wait alongside: the same time
  await sleep(60);
  clock.end();
  clock.end();
  const waited = clock.now();
  assert.ok(waited >= 55 && waited < 1000, `counted once (${waited} ms)`);
  await sleep(60);
  assert.equal(clock.now(), waited, "stopped with the last wait");
  clock.begin();
  clock.end();
  assert.equal(woken, 1, "woken once");
});

Deno.test("a frame trickled a byte at a time: every read returns, yet pinged after idleMs, dead pongMs later", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  const pings: number[] = [];
  const dead = Promise.withResolvers<string>();
  const started = Date.now();
  const liveness = new Liveness(conn, 100, 150, {
    ping: () => pings.push(Date.now() - started),
    dead: dead.resolve,
  });
  const reader = consume(conn, liveness);
  const relay = trickle(scripted, trickledFrame(), 10);
  try {
    const reason = await within(3000, "the trickling relay given up", dead.promise);
    const waited = Date.now() - started;
    assert.equal(
      reason,
      "the relay did not answer a ping within 0.15 s (a frame it began is still not whole)",
    );
    assert.equal(pings.length, 1, "one ping, then the wait for a whole frame");
    assert.ok(pings[0] >= 95, `the ping came after idleMs (${pings[0]} ms)`);
    assert.ok(waited >= 240, `dead only after idleMs + pongMs (${waited} ms)`);
    assert.ok(!relay.finished, "given up while the relay's bytes kept coming");
    assert.ok(conn.reads > 10, `the relay's bytes kept coming (${conn.reads} reads)`);
  } finally {
    liveness.stop();
    await relay.stop();
    scripted.close();
    await reader.done;
  }
});

Deno.test("a fragmented message trickled frame by frame, a pong between fragments for each ping: pinged, then dead", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  const pings: number[] = [];
  const dead = Promise.withResolvers<string>();
  const started = Date.now();
  const liveness = new Liveness(conn, 100, 150, {
    ping: () => {
      pings.push(Date.now() - started);
      scripted.push(serverFrame({ opcode: 10 })); // answered at once, between two fragments
    },
    dead: dead.resolve,
  });
  const reader = consume(conn, liveness);
  const relay = trickle(scripted, fragmentsWithoutEnd(), 10);
  try {
    const reason = await within(3000, "the relay keeping a message open given up", dead.promise);
    const waited = Date.now() - started;
    assert.equal(reason, "the relay did not finish a message within 0.25 s of its first fragment");
    assert.equal(pings.length, 1, "one ping: its pong does not end the message");
    assert.ok(pings[0] >= 95, `the ping came idleMs into the message (${pings[0]} ms)`);
    assert.ok(waited >= 240, `dead idleMs + pongMs into the message (${waited} ms)`);
    assert.ok(!relay.finished, "given up while the relay's fragments kept coming");
  } finally {
    liveness.stop();
    await relay.stop();
    scripted.close();
    await reader.done;
  }
});

Deno.test("frames that take a while but end, and messages in fragments that end in time: the relay is heard", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  let pings = 0;
  let died: string | undefined;
  const liveness = new Liveness(conn, 200, 300, { ping: () => pings++, dead: (reason) => died = reason });
  const reader = consume(conn, liveness);
  // A whole frame every 50 ms, each a byte at a time.
  const slowFrames = Array.from({ length: 8 }, () => [...serverFrame({ opcode: 1, payload: "abc" })])
    .flat().map((byte) => Uint8Array.of(byte));
  // Messages of six fragments 50 ms apart: each open 250 ms, past idleMs, and ended within idleMs + pongMs.
  const fragments = Array.from({ length: 4 }, () => [
    serverFrame({ opcode: 1, fin: false, payload: "a" }),
    ...Array(4).fill(serverFrame({ opcode: 0, fin: false, payload: "b" })),
    serverFrame({ opcode: 0, payload: "c" }),
  ]).flat();
  try {
    await within(3000, "the slow frames", trickle(scripted, slowFrames, 10).done);
    await sleep(20); // the last one read
    assert.equal(pings, 0, "never quiet for idleMs");
    await within(5000, "the fragments", trickle(scripted, fragments, 50).done);
    await sleep(20);
    assert.ok(pings >= 1, "a message open past idleMs is pinged");
    assert.equal(died, undefined, "its end, within idleMs + pongMs, is the relay heard");
  } finally {
    liveness.stop();
    scripted.close();
    await reader.done;
  }
});

Deno.test("a busy consumer mid-frame: the time it does not read is not counted", async () => {
  const scripted = new ScriptedConn([], "stall");
  const conn = new WatchedConn(scripted);
  const pings: number[] = [];
  const dead = Promise.withResolvers<string>();
  const liveness = new Liveness(conn, 100, 150, { ping: () => pings.push(Date.now()), dead: dead.resolve });
  const reader = consume(conn, liveness);
  const busy = Promise.withResolvers<void>();
  try {
    scripted.push(serverFrame({ opcode: 1, payload: "a frame begun" }).subarray(0, 5));
    await within(
      2000,
      "the first part read",
      (async () => {
        while (conn.reads < 2) await sleep(5); // the part taken, the next read waiting
      })(),
    );
    reader.paused = busy.promise; // after that read, the consumer works elsewhere
    scripted.push(Uint8Array.of(0x61)); // one more byte: the waiting read returns, nobody reads on
    await sleep(400); // longer than idleMs + pongMs
    assert.deepEqual(pings, [], "no ping while nobody read");
    const resumed = Date.now();
    busy.resolve();
    reader.paused = undefined;
    const reason = await within(3000, "given up once reading again", dead.promise);
    assert.match(reason, /a frame it began is still not whole/);
    assert.equal(pings.length, 1);
    assert.ok(Date.now() - resumed >= 150, "the pong's wait was counted after reading resumed");
  } finally {
    liveness.stop();
    busy.resolve();
    scripted.close();
    await reader.done;
  }
});
