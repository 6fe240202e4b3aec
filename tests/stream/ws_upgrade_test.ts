// The upgrade on an open connection (lib/stream/ws_upgrade.ts), against loopback servers scripted
// byte by byte: bytes right behind the 101 are kept, each refusal says what the relay answered
// (with its body's start), and a relay that stalls, closes, or answers too much is given up within
// the step's bound, with the connection closed.

import assert from "node:assert/strict";
import type { ConnReader } from "../../lib/transport/buffered_reader.ts";
import { UpgradeError } from "../../lib/stream/ws_handshake.ts";
import { MAX_UPGRADE_HEAD_BYTES, upgrade, type UpgradeOptions } from "../../lib/stream/ws_upgrade.ts";
import { within } from "../support/waits.ts";
import { type RawPeer, rawServer, serverFrame, switching } from "./ws_peers.ts";

/** Upgrades a loopback connection to a server running `script`; the reader, or the error, and when. */
async function attempt(
  script: (peer: RawPeer) => Promise<void>,
  options: Partial<UpgradeOptions> = {},
  serverOptions: { readRequest?: boolean } = {},
) {
  const server = rawServer(script, serverOptions);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: server.port });
  const started = Date.now();
  let reader: ConnReader | undefined;
  let error: UpgradeError | undefined;
  try {
    reader = await within(
      10_000,
      "the upgrade",
      upgrade(conn, server.url("/nostr?k=v"), { stepMs: 5000, ...options }),
    );
  } catch (caught) {
    if (!(caught instanceof UpgradeError)) throw caught;
    error = caught;
  }
  return { server, conn, reader, error, ms: Date.now() - started };
}

/** The connection the upgrade gave up was closed: the server sees the client leave. */
async function clientLeft(server: ReturnType<typeof rawServer>): Promise<void> {
  await within(3000, "the server seeing the client close", server.peers[0].clientGone);
}

Deno.test("a 101 and a frame in one segment: the reader holds the frame; the request was origin-form", async () => {
  const frame = serverFrame({ opcode: 1, payload: '["NOTICE","hi"]' });
  const { server, conn, reader, error } = await attempt(async (peer) => {
    const head = new TextEncoder().encode(await switching(peer.key));
    const both = new Uint8Array(head.length + frame.length);
    both.set(head);
    both.set(frame, head.length);
    await peer.write(both);
  });
  try {
    assert.equal(error, undefined);
    assert.ok(reader);
    assert.equal(reader.available, frame.length, "the bytes behind the head are kept");
    assert.deepEqual(reader.take(frame.length), frame);
    const request = server.peers[0].request;
    assert.match(request, /^GET \/nostr\?k=v HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nUpgrade: websocket\r\n/);
  } finally {
    conn.close();
    await server.close();
  }
});

Deno.test("a refusal names the status, the reason, and the start of the body; the connection is closed", async () => {
  const { server, error } = await attempt((peer) =>
    peer.write("HTTP/1.1 404 Not Found\r\nContent-Length: 15\r\n\r\nrelay not found")
  );
  try {
    assert.equal(
      error?.message,
      "the relay answered the websocket upgrade with 404 Not Found: relay not found",
    );
    assert.equal(error?.status, 404);
    await clientLeft(server);
  } finally {
    await server.close();
  }
});

Deno.test("a 200 whose body has no length, the server holding on: the body's start, after a moment", async () => {
  const { server, error, ms } = await attempt(async (peer) => {
    await peer.write("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<h1>Welcome</h1>\n");
    await peer.held;
  });
  try {
    assert.equal(error?.message, "the relay answered the websocket upgrade with 200 OK: <h1>Welcome</h1>");
    assert.ok(ms < 3000, `the body is waited for briefly, not until the step's end (${ms} ms)`);
    await clientLeft(server);
  } finally {
    await server.close();
  }
});

Deno.test("a 101 with the wrong accept is refused, and the connection closed", async () => {
  const { server, error } = await attempt((peer) =>
    peer.write(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
        "Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n",
    )
  );
  try {
    assert.match(error?.message ?? "", /wrong Sec-WebSocket-Accept "AAAAAAAAAAAAAAAAAAAAAAAAAAA="/);
    await clientLeft(server);
  } finally {
    await server.close();
  }
});

Deno.test("a server that closes before answering", async () => {
  const { server, error } = await attempt((peer) => Promise.resolve(peer.conn.close()));
  try {
    assert.equal(error?.message, "the relay closed the connection before answering the websocket upgrade");
  } finally {
    await server.close();
  }
});

Deno.test("a server that never answers (or never reads): given up at the step's deadline", async () => {
  for (const readRequest of [true, false]) {
    const { server, error, ms } = await attempt((peer) => peer.held, { stepMs: 300 }, { readRequest });
    try {
      assert.equal(error?.message, "the relay did not answer the websocket upgrade within 0.3 s");
      assert.ok(ms >= 250 && ms < 3000, `ended at the step's deadline (${ms} ms)`);
      await clientLeft(server);
    } finally {
      await server.close();
    }
  }
});

Deno.test("an answer head past 64 KiB is refused without reading on", async () => {
  const { server, error } = await attempt(async (peer) => {
    await peer.write("HTTP/1.1 101 Switching Protocols\r\n");
    const line = `X-Filler: ${"f".repeat(1000)}\r\n`;
    for (let sent = 0; sent <= MAX_UPGRADE_HEAD_BYTES + 4096; sent += line.length) await peer.write(line);
    await peer.held;
  });
  try {
    assert.equal(error?.message, "the relay's answer to the websocket upgrade has a head over 64 KiB");
    await clientLeft(server);
  } finally {
    await server.close();
  }
});

Deno.test("a malformed answer says so", async () => {
  const { server, error } = await attempt((peer) => peer.write("SSH-2.0-OpenSSH\r\n\r\n"));
  try {
    assert.match(error?.message ?? "", /^the relay's answer to the websocket upgrade is malformed: /);
    await clientLeft(server);
  } finally {
    await server.close();
  }
});

Deno.test("the signal gives the upgrade up at once, before or while it waits", async () => {
  const early = new AbortController();
  early.abort();
  const before = await attempt((peer) => peer.held, { signal: early.signal });
  try {
    assert.equal(before.error?.message, "the attempt was given up");
  } finally {
    await before.server.close();
  }
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const during = await attempt((peer) => peer.held, { signal: controller.signal, stepMs: 5000 });
  try {
    assert.equal(during.error?.message, "the attempt was given up");
    assert.ok(during.ms < 2000, `given up when told, not at the deadline (${during.ms} ms)`);
    await clientLeft(during.server);
  } finally {
    await during.server.close();
  }
});
