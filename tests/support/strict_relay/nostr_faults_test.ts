// The strict relay's websocket faults and its transport: every wsBehaviour mode, a trickle begun on
// an open connection, the upgrade's own refusals, cutConnections and suspend/resume (plain and TLS),
// and wss with Deno's WebSocket trusting the test CA. Raw upgrades (nostr_test_kit.ts) show what a
// WebSocket cannot: pings, silence, a trickle, 503s.

import assert from "node:assert/strict";
import {
  authEvent,
  clientFrame,
  expectOk,
  newKey,
  rawUpgrade,
  readFor,
  signed,
  withRelay,
  withSocket,
  WsClient,
} from "./nostr_test_kit.ts";
import { within } from "../waits.ts";
import type { StrictRelay } from "./mod.ts";
import { FrameBoundaries } from "./ws_trickle.ts";

const A = newKey();
const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Polls until `check` holds, or fails naming `what`. */
async function until(what: string, check: () => boolean): Promise<void> {
  await within(
    3000,
    what,
    (async () => {
      while (!check()) await new Promise((r) => setTimeout(r, 10));
    })(),
  );
}

Deno.test("strict relay websocket: the upgrade's own answers", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("a GET on any path of the tenant is upgraded", async () => {
      for (const path of ["/r/acme", "/r/acme/", "/r/acme/mcp", "/r/acme/anything/else?x=1"]) {
        const { head, conn } = await rawUpgrade(relay, { path });
        assert.match(head, /^HTTP\/1\.1 101 /, path);
        conn.close();
      }
      await until("the upgraded connections close", () => relay.openWebSockets === 0);
      assert.equal(relay.wsConnections, 4);
    });
    await t.step("another method: 405; outside the tenant: 404; a bad handshake: 400", async () => {
      const post = await rawUpgrade(relay, { method: "POST" });
      assert.match(post.head, /^HTTP\/1\.1 405 /);
      assert.equal(text(post.rest) + text((await readFor(post.conn, 2000)).bytes), "method not allowed\n");
      const outside = await rawUpgrade(relay, { path: "/r/other" });
      assert.match(outside.head, /^HTTP\/1\.1 404 /);
      const body = text(outside.rest) + text((await readFor(outside.conn, 2000)).bytes);
      assert.equal(body, "relay not found\n");
      const bad = await rawUpgrade(relay, { headers: { Connection: "keep-alive" } });
      assert.match(bad.head, /^HTTP\/1\.1 400 /);
      bad.conn.close();
      assert.equal(relay.wsConnections, 4, "none of these was accepted");
      assert.deepEqual(relay.requests.slice(-3).map((r) => r.status), [405, 404, 101]);
    });
  });
});

Deno.test("strict relay websocket: stall completes the upgrade, then is silent, pongs included", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("normal, for comparison: the challenge arrives and a ping is answered", async () => {
      const { conn, rest } = await rawUpgrade(relay);
      await conn.write(clientFrame(0x9));
      const { bytes } = await readFor(conn, 300);
      const all = new Uint8Array([...rest, ...bytes]);
      assert.equal(all[0], 0x81, "a text frame first (the challenge)");
      assert.ok(all.includes(0x8a), "a pong frame");
    });
    await t.step("stall: 101, then nothing at all", async () => {
      relay.wsBehaviour("stall");
      const before = relay.wsConnections;
      const { head, conn, rest } = await rawUpgrade(relay);
      assert.match(head, /^HTTP\/1\.1 101 /);
      assert.equal(rest.length, 0);
      await conn.write(clientFrame(0x9));
      await conn.write(clientFrame(0x1, new TextEncoder().encode('["REQ","s",{}]')));
      assert.equal(relay.openWebSockets, 1);
      const { bytes, ended } = await readFor(conn, 500);
      assert.deepEqual([bytes.length, ended], [0, false]);
      assert.equal(relay.wsConnections, before + 1);
      assert.equal(relay.clientMessages.length, 0, "nothing reached the relay");
      await until("the stalled connection is gone", () => relay.openWebSockets === 0);
    });
  });
});

/** The bytes a trickle sends first: a text frame declaring 65535 bytes, then `["NOTICE","`. */
const TRICKLE_START = [0x81, 126, 0xff, 0xff, ...new TextEncoder().encode('["NOTICE","xxxx')];

/** Whether `bytes` (at least the frame's header) are the start of the trickled frame. */
function trickled(bytes: Uint8Array): boolean {
  const start = TRICKLE_START.slice(0, Math.min(bytes.length, TRICKLE_START.length));
  return bytes.length >= 4 && start.every((byte, i) => bytes[i] === byte) &&
    bytes.subarray(TRICKLE_START.length).every((byte) => byte === 0x78);
}

/** Reads `conn` until `done` holds of what came (that stays open), within 3 s. */
async function readUntil(conn: Deno.Conn, what: string, done: (bytes: Uint8Array) => boolean) {
  let got = new Uint8Array(0);
  const buf = new Uint8Array(64 * 1024);
  await within(
    3000,
    what,
    (async () => {
      while (!done(got)) {
        const n = await conn.read(buf);
        if (n === null) throw new Error(`${what}: the relay closed the connection`);
        got = new Uint8Array([...got, ...buf.subarray(0, n)]);
      }
    })(),
  );
  return got;
}

Deno.test("strict relay websocket: trickle, from the upgrade and on a connection already open", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("trickle: 101, then one frame a byte at a time, never whole, no pong", async () => {
      relay.wsBehaviour("trickle");
      const { head, conn, rest } = await rawUpgrade(relay);
      assert.match(head, /^HTTP\/1\.1 101 /);
      await conn.write(clientFrame(0x9));
      await conn.write(clientFrame(0x1, new TextEncoder().encode('["REQ","s",{}]')));
      const { bytes, ended } = await readFor(conn, 700);
      const all = new Uint8Array([...rest, ...bytes]);
      assert.equal(ended, false);
      assert.ok(all.length >= 5 && all.length <= 30, `a byte at a time (${all.length} in 700 ms)`);
      assert.ok(trickled(all), `the frame's first bytes, nothing else: ${all}`);
      assert.equal(relay.clientMessages.length, 0, "nothing reached the relay");
      relay.wsBehaviour("normal");
    });
    await t.step("trickleWebSockets: the frames so far pass whole, then only the trickle", async () => {
      const { conn, rest } = await rawUpgrade(relay);
      await conn.write(clientFrame(0x1, new TextEncoder().encode('["REQ","s",{}]')));
      const eose = '["EOSE","s",["finish","auth"]]';
      const before = await readUntil(conn, "the challenge, then EOSE", (got) => {
        const all = text(new Uint8Array([...rest, ...got]));
        return all.endsWith(eose);
      });
      assert.ok(text(before).endsWith(eose), "EOSE, a whole frame, last");
      assert.equal(relay.trickleWebSockets(), 1);
      relay.inject(signed(A, { content: "not passed" }));
      await conn.write(clientFrame(0x9));
      const { bytes, ended } = await readFor(conn, 700);
      assert.equal(ended, false);
      assert.ok(bytes.length >= 5 && trickled(bytes), `the trickle alone, no event, no pong: ${bytes}`);
      await until("the connection gone", () => relay.openWebSockets === 0);
      assert.equal(relay.trickleWebSockets(), 0, "none open");
    });
  });
});

Deno.test("the trickle's frame boundaries: in any chunking, the first end is found, headers of every length", () => {
  const frames = [
    Uint8Array.of(0x81, 2, 0x61, 0x62), // "ab"
    Uint8Array.of(0x8a, 0), // an empty pong
    Uint8Array.of(0x82, 126, 0, 130, ...new Uint8Array(130)),
    Uint8Array.of(0x82, 127, 0, 0, 0, 0, 0, 1, 0, 0, ...new Uint8Array(65536)),
    Uint8Array.of(0x81, 0x83, 1, 2, 3, 4, 9, 9, 9), // masked, as a server never sends
  ];
  const ends: number[] = [];
  let total = 0;
  for (const frame of frames) ends.push(total += frame.length);
  const all = new Uint8Array(total);
  frames.reduce((at, frame) => (all.set(frame, at), at + frame.length), 0);
  for (const size of [1, 3, 7, 1000, total]) {
    const passing = new FrameBoundaries();
    const found: number[] = [];
    for (let at = 0; at < total;) {
      const chunk = all.subarray(at, Math.min(at + size, total));
      const taken = passing.take(chunk, true);
      assert.ok(taken > 0 && taken <= chunk.length);
      at += taken;
      if (passing.atBoundary) found.push(at);
    }
    assert.deepEqual(found, ends, `chunks of ${size}`);
    const whole = new FrameBoundaries();
    assert.equal(whole.take(all.subarray(0, 5), false), 5, "without stop, all of it");
    assert.equal(whole.atBoundary, false, "5 bytes: the pong's header begun");
  }
});

Deno.test("strict relay websocket: oversized, then auth-false", async (t) => {
  await withRelay({ membersOnly: true, members: [A.pk] }, async (relay) => {
    await t.step("oversized: after the challenge, one 2 MiB message", async () => {
      relay.wsBehaviour("oversized");
      await withSocket(relay.wsUrl, async (ws) => {
        assert.equal((await ws.next("challenge"))[0], "AUTH");
        assert.equal((await ws.next("the oversized message"))[0], "NOTICE");
        assert.equal(ws.sizes[1], 2 * 1024 * 1024);
      });
    });
    await t.step("auth-false: every AUTH is refused", async () => {
      relay.wsBehaviour("auth-false");
      await withSocket(relay.wsUrl, async (ws) => {
        const [, challenge] = await ws.next("challenge");
        await expectOk(
          ws,
          ["AUTH", authEvent(A, relay.wsUrl, challenge as string)],
          false,
          "restricted: not allowed",
        );
        assert.deepEqual((await ws.req("s", {})).end, [
          "CLOSED",
          "s",
          "auth-required: this relay is members-only",
        ]);
      });
    });
  });
});

Deno.test("strict relay websocket: no-challenge, then refuse", async (t) => {
  await withRelay({ membersOnly: true, members: [A.pk] }, async (relay) => {
    await t.step("no-challenge: an open relay, reads and writes without AUTH", async () => {
      relay.wsBehaviour("no-challenge");
      relay.inject(signed(A));
      await withSocket(relay.wsUrl, async (ws) => {
        await ws.quiet(300);
        const { events, end } = await ws.req("s", {});
        assert.deepEqual([events.length, end], [1, ["EOSE", "s", ["finish", "auth"]]]);
        const ev = signed(A, { content: "open write" });
        ws.send(["EVENT", ev]);
        assert.deepEqual(await ws.next("OK"), ["OK", ev.id, true, ""]);
        assert.deepEqual(await ws.next("then the event, live"), ["EVENT", "s", ev]);
      });
    });
    await t.step("refuse: 503 relay is starting", async () => {
      relay.wsBehaviour("refuse");
      const before = relay.wsConnections;
      const { head, conn, rest } = await rawUpgrade(relay);
      assert.match(head, /^HTTP\/1\.1 503 /);
      assert.equal(text(rest) + text((await readFor(conn, 2000)).bytes), "relay is starting\n");
      await assert.rejects(WsClient.open(relay.wsUrl), /websocket/);
      assert.equal(relay.wsConnections, before);
      relay.wsBehaviour("normal");
      await withSocket(relay.wsUrl, async (ws) => assert.equal((await ws.next("challenge"))[0], "AUTH"));
    });
  });
});

/** Runs the cut, suspend and resume checks on `relay`, whose websockets `open` opens. */
async function cutAndSuspend(t: Deno.TestContext, relay: StrictRelay, open: () => Promise<WsClient>) {
  await t.step("cutConnections closes a websocket, and counts it", async () => {
    // Connections closed before (over TLS the gate lingers up to 2 s after its inner side closed).
    await until("earlier connections gone", () => relay.openConnections === 0);
    const ws = await open();
    await ws.next("challenge");
    assert.equal(relay.openWebSockets, 1);
    assert.equal(relay.cutConnections("fin"), 1);
    const closed = await within(3000, "the close", ws.closed);
    assert.equal(closed.wasClean, false);
    await until("nothing open", () => relay.openConnections === 0 && relay.openWebSockets === 0);
  });
  await t.step("suspend: the websocket goes, nothing connects; resume: same port, state kept", async () => {
    relay.inject(signed(A, { content: "kept" }));
    const ws = await open();
    await ws.next("challenge");
    await relay.suspend();
    await within(3000, "the close on suspend", ws.closed);
    await assert.rejects(
      Deno.connect({ hostname: "127.0.0.1", port: relay.port }),
      Deno.errors.ConnectionRefused,
    );
    const connections = relay.connections;
    await relay.resume();
    const again = await open();
    try {
      await again.auth(A, relay.wsUrl);
      const { events } = await again.req("s", {});
      assert.deepEqual(events.map((e) => e.content), ["kept"]);
      assert.ok(relay.connections > connections, "the count goes on");
    } finally {
      await again.close();
    }
  });
}

Deno.test("strict relay websocket: cuts and suspend over plain HTTP", async (t) => {
  await withRelay({}, async (relay) => {
    await cutAndSuspend(t, relay, () => WsClient.open(relay.wsUrl));
  });
});

Deno.test("strict relay websocket over TLS: wss, the relay tag, cuts and suspend", async (t) => {
  await withRelay({ tls: true, http2: true }, async (relay) => {
    const client = Deno.createHttpClient({ caCerts: [relay.caPem!] });
    try {
      assert.equal(relay.wsUrl, `wss://127.0.0.1:${relay.port}/r/acme`);
      await t.step("the challenge over wss; AUTH must name wss", async () => {
        const ws = await WsClient.open(relay.wsUrl, client);
        try {
          const [, challenge] = await ws.next("challenge");
          const plainTag = authEvent(A, relay.wsUrl.replace("wss:", "ws:"), challenge as string);
          ws.send(["AUTH", plainTag]);
          assert.deepEqual(await ws.next("OK"), [
            "OK",
            plainTag.id,
            false,
            "invalid: auth relay tag does not name this relay",
          ]);
          const tlsTag = authEvent(A, relay.wsUrl, challenge as string);
          ws.send(["AUTH", tlsTag]);
          assert.deepEqual(await ws.next("OK"), ["OK", tlsTag.id, true, ""]);
        } finally {
          await ws.close();
        }
      });
      await t.step("a raw TLS upgrade: 101, then the challenge frame", async () => {
        const { head, conn, rest } = await rawUpgrade(relay);
        assert.match(head, /^HTTP\/1\.1 101 /);
        const { bytes } = await readFor(conn, 300);
        const frame = new Uint8Array([...rest, ...bytes]);
        assert.equal(frame[0], 0x81);
        assert.match(text(frame.subarray(2)), /^\["AUTH","[0-9a-f]{32}"\]$/);
      });
      await cutAndSuspend(t, relay, () => WsClient.open(relay.wsUrl, client));
    } finally {
      client.close();
    }
  });
});
