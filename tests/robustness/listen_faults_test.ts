// `mcp --listen` under faults, a real process on pipes against the strict relay: the relay drops
// the websocket, or closes every subscription, while events are being sent (nothing it still holds
// is lost, nothing is given twice); a relay that trickles a frame a byte at a time, before and after
// EOSE (given up within 16 s, listened to again after a wait); a flood of 10,000 events from an allowed author (memory bounded,
// the inbox within its bound, ping answered throughout); and a host that stops reading its stdout
// during a flood (the listener pauses, says so, and every event still arrives once when the host
// reads again).

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay, type WsMode } from "../support/strict_relay/mod.ts";
import {
  assertKeyNeverLeaks,
  command,
  narrowFlags,
  newKey,
  parseStdoutLine,
  type TestKey,
  Tinyagent,
} from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";

const CHANNEL = "notifications/claude/channel";
const META_KEY = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "faults", version: "1" },
};
const MIB = 1024 * 1024;

const aliceKey = generateSecretKey();
const ALICE = getPublicKey(aliceKey);
const now = () => Math.floor(Date.now() / 1000);
const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));
function until(ms: number, what: string, check: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!check()) await tick(20);
    })(),
  );
}

/** Mentions of `agent` by alice, signed before any clock starts. */
function mentions(
  agent: string,
  count: number,
  content: (i: number) => string = (i) => `m${i}`,
): NostrEvent[] {
  const at = now();
  return Array.from(
    { length: count },
    (_, i) =>
      finalizeEvent(
        { kind: 9, created_at: at, tags: [["h", "general"], ["p", agent]], content: content(i) },
        aliceKey,
      ),
  );
}

/** The event id of a channel notification line (its contract checked), or undefined for any other line. */
function notifiedId(line: string): string | undefined {
  if (!line.includes(`"method":"${CHANNEL}"`)) return undefined;
  const { method, params } = JSON.parse(line);
  assert.equal(method, CHANNEL);
  assert.equal(typeof params.content, "string");
  for (const [key, value] of Object.entries(params.meta)) {
    assert.match(key, META_KEY);
    assert.equal(typeof value, "string");
  }
  return params.meta.event_id;
}

/** Counts the notifications of a growing list of lines, once each line. */
class Tally {
  ids: string[] = [];
  #read = 0;
  constructor(readonly lines: string[]) {}
  update(): Tally {
    for (; this.#read < this.lines.length; this.#read++) {
      const id = notifiedId(this.lines[this.#read]);
      if (id !== undefined) this.ids.push(id);
    }
    return this;
  }
  get distinct(): number {
    return new Set(this.update().ids).size;
  }
}

type Inboxed = { events: unknown[]; dropped: number; remaining: number };

async function rss(pid: number): Promise<number> {
  const output = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdout: "piped" }).output();
  const match = /^VmRSS:\s+(\d+) kB/m.exec(new TextDecoder().decode(output.stdout));
  assert.ok(match, "VmRSS");
  return Number(match[1]) * 1024;
}

interface Listening {
  facade: Tinyagent;
  relay: StrictRelay;
  key: TestKey;
  tally: Tally;
}

/**
 * `fn` with `mcp --listen` live against a strict relay. `wsMode`: how the relay's websocket behaves
 * from the start; `goingLive`: waits for the listener to be live in its own way (default: the line).
 */
async function withListening(
  fn: (ctx: Listening) => Promise<void>,
  options: { wsMode?: WsMode; goingLive?: (ctx: Listening) => Promise<void> } = {},
): Promise<void> {
  const relay = await startStrictRelay();
  if (options.wsMode) relay.wsBehaviour(options.wsMode);
  const key = newKey();
  const facade = new Tinyagent({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, "--listen", "general", "--allow-from", ALICE],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  try {
    await within(30_000, "initialize", facade.request("initialize", INITIALIZE));
    await facade.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await within(30_000, "tools/list", facade.request("tools/list", {}));
    const ctx = { facade, relay, key, tally: new Tally(facade.lines) };
    if (options.goingLive) await options.goingLive(ctx);
    else await until(30_000, "live", () => facade.stderr.includes("listen: live in"));
    await fn(ctx);
    const output = await facade.finish();
    assert.equal(output.code, 0, output.stderr.slice(-2000));
    for (const [i, line] of output.lines.entries()) {
      if (notifiedId(line) === undefined) parseStdoutLine(line, `stdout line ${i}: `, facade);
    }
    assertKeyNeverLeaks(key, output, [relay]);
  } finally {
    await facade.kill();
    await relay.close();
  }
}

/**
 * Injects `events` in batches of 20 every 100 ms; between them, `fault` whenever the websocket is up
 * and the last fault is 300 ms past, so faults keep landing while events are being sent.
 */
async function sendWithFaults(
  relay: StrictRelay,
  events: NostrEvent[],
  fault: () => number,
): Promise<number> {
  let faults = 0;
  let last = performance.now();
  for (let at = 0; at < events.length; at += 20) {
    for (const event of events.slice(at, at + 20)) relay.inject(event);
    if (relay.openWebSockets > 0 && performance.now() - last > 300 && fault() > 0) {
      faults++;
      last = performance.now();
    }
    await tick(100);
  }
  return faults;
}

async function assertEachOnce(tally: Tally, events: NostrEvent[]): Promise<void> {
  await until(120_000, `all ${events.length} events`, () => tally.distinct === events.length);
  await tick(1500); // a replay that came twice would show now
  tally.update();
  assert.equal(tally.ids.length, events.length, "none twice");
  assert.deepEqual(new Set(tally.ids), new Set(events.map((e) => e.id)));
}

Deno.test("the relay drops the websocket while events are sent: none lost, none twice", async () => {
  await withListening(async ({ relay, key, tally, facade }) => {
    const events = mentions(key.pubkey, 800);
    const cuts = await sendWithFaults(relay, events, () => relay.cutConnections());
    assert.ok(cuts >= 2, `${cuts} cuts`);
    await assertEachOnce(tally, events);
    assert.ok(relay.wsConnections >= 3, `${relay.wsConnections} websocket connections`);
    assert.match(facade.stderr, /listen: the connection to ws:\/\/\S+ ended: .*; subscribing again in \d+ s/);
  });
});

Deno.test("the relay closes every subscription while events are sent: none lost, none twice", async () => {
  await withListening(async ({ relay, key, tally }) => {
    const events = mentions(key.pubkey, 800);
    const closings = await sendWithFaults(relay, events, () => relay.closeSubscriptions());
    assert.ok(closings >= 2, `${closings} closings`);
    await assertEachOnce(tally, events);
  });
});

/** What the listener says when the trickling connection is given up (SILENCE_MS + PONG_MS: 15 s). */
const TRICKLE_GIVEN_UP =
  /listen: the connection to ws:\/\/\S+ ended: the relay did not answer a ping within 5 s \(a frame it began is still not whole\); subscribing again in 1 s/;

/** When the relay's websocket connections fall to none (every 20 ms), until `stop`. */
function watchClosed(relay: StrictRelay) {
  let closedAt: number | undefined;
  let stopped = false;
  const watching = (async () => {
    while (!stopped && closedAt === undefined) {
      if (relay.openWebSockets === 0) closedAt = Date.now();
      await tick(20);
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

/** The trickling connection given up within 16 s, then one new connection, after a wait (1 s). */
/**
 * The trickling connection given up, then a new one after a wait. `givenUp` runs as soon as the first is
 * seen: the new connection comes at least 500 ms later (asserted below), so nothing of it has happened yet.
 */
async function givenUpThenBack(
  relay: StrictRelay,
  facade: Tinyagent,
  givenUp: () => void = () => {},
): Promise<void> {
  const closed = watchClosed(relay);
  await until(16_000, "the trickling connection given up", () => TRICKLE_GIVEN_UP.test(facade.stderr));
  givenUp();
  await until(10_000, "a new connection", () => relay.requests.filter((r) => r.status === 101).length === 2);
  const closedAt = await closed.stop();
  const upgrades = relay.requests.filter((r) => r.status === 101);
  assert.ok(closedAt !== undefined, "the trickling connection was closed");
  assert.ok(
    upgrades[1].receivedAt - closedAt >= 500,
    `waited before connecting again (${upgrades[1].receivedAt - closedAt} ms)`,
  );
}

Deno.test("a relay that trickles a frame before EOSE: given up within 16 s, live after a wait, events flow", async () => {
  await withListening(async ({ relay, key, tally }) => {
    const live = mentions(key.pubkey, 1, () => "live after");
    relay.inject(live[0]);
    await until(10_000, "the mention", () => tally.distinct === 2);
    tally.update();
    assert.equal(tally.ids.length, 2, "each once");
    assert.equal(relay.requests.filter((r) => r.status === 101).length, 2, "no other connection");
  }, {
    wsMode: "trickle",
    goingLive: async ({ relay, facade, key, tally }) => {
      relay.inject(mentions(key.pubkey, 1, () => "stored before")[0]);
      await until(30_000, "the trickling connection", () => relay.wsConnections === 1);
      relay.wsBehaviour("normal"); // the next connection is a good one
      // Checked when the trickling connection is given up: a good connection after it reaches its end of
      // history within ms, so "live" may be said any time after the new connection is made.
      await givenUpThenBack(relay, facade, () => {
        assert.ok(!facade.stderr.includes("listen: live in"), "not live before the end of history");
      });
      await until(10_000, "live on the new connection", () => facade.stderr.includes("listen: live in"));
      await until(10_000, "the stored mention", () => tally.distinct === 1);
    },
  });
});

Deno.test("a relay that trickles a frame after EOSE: given up within 16 s, listened to again after a wait, events flow", async () => {
  await withListening(async ({ relay, key, tally, facade }) => {
    const [first, during, after] = mentions(key.pubkey, 3, (i) => ["first", "during", "after"][i]);
    relay.inject(first);
    await until(10_000, "the first mention", () => tally.distinct === 1);
    assert.equal(relay.trickleWebSockets(), 1);
    relay.inject(during);
    await givenUpThenBack(relay, facade);
    await until(10_000, "the mention sent during the trickle", () => tally.distinct === 2);
    relay.inject(after);
    await until(10_000, "a mention after", () => tally.distinct === 3);
    tally.update();
    assert.deepEqual(tally.ids, [first.id, during.id, after.id], "each once, in order");
  });
});

Deno.test("a flood of 10,000 events: memory bounded, the inbox within its bound, ping answered throughout", async () => {
  await withListening(async ({ relay, key, tally, facade }) => {
    const events = mentions(key.pubkey, 10_000, (i) => `flood ${i} ${"x".repeat(200)}`);
    const pid = facade.child.pid;
    await tick(1000);
    const idle = await rss(pid);
    let peak = idle;
    let slowestPing = 0;
    let inboxSeen = 0;
    let taken = 0;
    let dropped = 0;
    let done = false;
    const watch = (async () => {
      while (!done) {
        const started = performance.now();
        await within(10_000, "a ping during the flood", facade.request("ping"));
        slowestPing = Math.max(slowestPing, performance.now() - started);
        peak = Math.max(peak, await rss(pid));
        const answer = await facade.request("tools/call", { name: "tiny_inbox", arguments: { limit: 1 } });
        const inbox = (answer.result as { structuredContent: Inboxed }).structuredContent;
        inboxSeen = Math.max(inboxSeen, inbox.events.length + inbox.remaining);
        taken += inbox.events.length;
        dropped += inbox.dropped;
        await tick(200);
      }
    })();
    try {
      // In small batches: the relay checks each signature in this process, which must stay free to
      // read tinyagent's answers (the pings are timed here).
      for (let at = 0; at < events.length; at += 25) {
        for (const event of events.slice(at, at + 25)) relay.inject(event);
        await tick(5);
      }
      await until(240_000, "all 10,000", () => tally.distinct === events.length);
    } finally {
      done = true;
      await watch;
    }
    tally.update();
    assert.equal(tally.ids.length, events.length, "each once");
    assert.ok(peak <= idle + 150 * MIB, `RSS ${(idle / MIB).toFixed(0)} → ${(peak / MIB).toFixed(0)} MiB`);
    assert.ok(slowestPing < 5000, `slowest ping ${slowestPing.toFixed(0)} ms`);
    assert.ok(inboxSeen <= 1000, `the inbox held ${inboxSeen}`);
    // Every event is accounted for in the inbox: taken, dropped (and said so), or still waiting, the
    // newest at most the bound.
    const answer = await facade.request("tools/call", { name: "tiny_inbox", arguments: { limit: 100 } });
    const last = (answer.result as { structuredContent: Inboxed }).structuredContent;
    assert.ok(last.events.length + last.remaining <= 1000, `${last.events.length} + ${last.remaining}`);
    assert.ok(dropped + last.dropped > 0, "past the bound, the oldest were dropped");
    assert.equal(taken + dropped + last.dropped + last.events.length + last.remaining, events.length);
  });
});

/** A host that can stop reading tinyagent's stdout for a while. */
class SlowHost {
  readonly child: Deno.ChildProcess;
  readonly lines: string[] = [];
  stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading = Promise.withResolvers<void>();
  #answers = new Map<string, (message: unknown) => void>();
  #done: Promise<void>;
  #next = 1;

  constructor(relay: StrictRelay, key: TestKey) {
    this.child = command({
      flags: narrowFlags(relay.host),
      args: ["mcp", "--relay", relay.url, "--listen", "general", "--allow-from", ALICE],
      env: { TINY_PRIVATE_KEY: key.hex },
    }).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#reading.resolve();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  pause(): void {
    this.#reading = Promise.withResolvers<void>();
  }

  resume(): void {
    this.#reading.resolve();
  }

  async #readStdout(): Promise<void> {
    const reader = this.child.stdout.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      await this.#reading.promise;
      const { done, value } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        this.lines.push(line);
        const message = JSON.parse(line);
        if ("id" in message) this.#answers.get(JSON.stringify(message.id))?.(message);
      }
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.child.stderr) this.stderr += decoder.decode(chunk, { stream: true });
  }

  async request(method: string, params?: unknown): Promise<unknown> {
    const id = `h${this.#next++}`;
    const answered = new Promise((resolve) => this.#answers.set(JSON.stringify(id), resolve));
    await this.#writer.write(
      new TextEncoder().encode(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`),
    );
    return answered;
  }

  async finish(): Promise<number> {
    this.resume();
    await this.#writer.close().catch(() => {});
    const status = await this.child.status;
    await this.#done;
    return status.code;
  }

  async kill(): Promise<void> {
    this.resume();
    try {
      this.child.kill("SIGKILL");
    } catch {
      // gone
    }
    await this.finish().catch(() => {});
  }
}

Deno.test("a host that stops reading stdout: the listener pauses and says so; every event arrives once after", async () => {
  const relay = await startStrictRelay();
  const key = newKey();
  // About 4.6 KB a notification: 3,000 are well past the 8 MiB the listener lets queue on stdout.
  const events = mentions(key.pubkey, 3000, (i) => `big ${i} ${"y".repeat(4000)}`);
  const late = mentions(key.pubkey, 50, (i) => `late ${i}`);
  const host = new SlowHost(relay, key);
  try {
    await within(30_000, "initialize", host.request("initialize", INITIALIZE));
    await within(30_000, "tools/list", host.request("tools/list", {}));
    await until(30_000, "live", () => host.stderr.includes("listen: live in"));
    host.pause();
    for (let at = 0; at < events.length; at += 250) {
      for (const event of events.slice(at, at + 250)) relay.inject(event);
      await tick(20);
    }
    // The listener ends its subscription at the relay rather than queue without end.
    await until(
      120_000,
      "the subscription paused (a CLOSE)",
      () => relay.clientMessages.some((m) => Array.isArray(m.message) && m.message[0] === "CLOSE"),
    );
    for (const event of late) relay.inject(event);
    await tick(1000);
    host.resume();
    const tally = new Tally(host.lines);
    const all = [...events, ...late];
    await until(180_000, "every event", () => tally.distinct === all.length);
    await until(10_000, "said on stderr", () => host.stderr.includes("stdout was behind"));
    assert.match(
      host.stderr,
      /listen: the host's stdout was behind; \d+ event\(s\) are fetched again from the relay/,
    );
    assert.deepEqual(
      (await within(10_000, "ping after", host.request("ping")) as { result: unknown }).result,
      {},
    );
    await tick(1000);
    tally.update();
    assert.equal(tally.ids.length, all.length, "none twice");
    assert.deepEqual(new Set(tally.ids), new Set(all.map((e) => e.id)));
    assert.equal(await host.finish(), 0);
    assertKeyNeverLeaks(key, { lines: host.lines, stderr: host.stderr }, [relay]);
  } finally {
    await host.kill();
    await relay.close();
  }
});
