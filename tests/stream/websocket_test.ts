// The websocket client (lib/stream/websocket.ts) end to end on 127.0.0.1: against Deno's own
// websocket server (an independent implementation) in plain TCP, TLS and through a CONNECT proxy;
// and against servers scripted byte by byte for what no honest server sends: broken frames,
// refusals, silence at each step, a peer that stops reading, a TCP close with no close frame.

import assert from "node:assert/strict";
import { dial, DialError, type DialOptions, type DialTarget } from "../../lib/transport/dial.ts";
import type { Proxy } from "../../lib/transport/tunnel.ts";
import { UpgradeError } from "../../lib/stream/ws_handshake.ts";
import {
  type Ended,
  openWebSocket,
  type WebSocketConnection,
  type WebSocketOptions,
} from "../../lib/stream/websocket.ts";
import { startConnectProxy } from "../support/connect_proxy.ts";
import { testCertificates } from "../support/tls.ts";
import { within } from "../support/waits.ts";
import { clientFrames, closeBody, type RawPeer, rawServer, serverFrame, switching } from "./ws_peers.ts";

const encoder = new TextEncoder();
const MiB = 1024 * 1024;

/** Deno's websocket server; `onSocket` scripts each connection (default: echo every message). */
function denoServer(onSocket?: (socket: WebSocket) => void, tls?: { cert: string; key: string }) {
  const closes: CloseEvent[] = [];
  const firstClose = Promise.withResolvers<CloseEvent>();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {}, ...tls }, (request) => {
    const { socket, response } = Deno.upgradeWebSocket(request);
    socket.addEventListener("close", (event) => {
      closes.push(event);
      firstClose.resolve(event);
    });
    if (onSocket) onSocket(socket);
    else socket.onmessage = (event) => socket.send(event.data);
    return response;
  });
  const scheme = tls ? "wss" : "ws";
  return {
    server,
    closes,
    /** The server's first socket's close event: what close frame it received, once it has. */
    firstClose: () => within(5000, "the server's close event", firstClose.promise),
    url: new URL(`${scheme}://127.0.0.1:${server.addr.port}/relay`),
  };
}

function open(url: URL, options: Partial<WebSocketOptions> = {}): Promise<WebSocketConnection> {
  return within(10_000, "the websocket opening", openWebSocket({ url, stepMs: 3000, ...options }));
}

function proxyFor(port: number): Proxy {
  return {
    hostname: "127.0.0.1",
    port,
    netHost: `127.0.0.1:${port}`,
    display: `http://127.0.0.1:${port}`,
    variable: "HTTPS_PROXY",
  };
}

/** TLS trusting the test CA in this process (dial's own TLS trusts what the process started with). */
function trustingDial(caPem: string) {
  return async (target: DialTarget, options: DialOptions) => {
    const tcp = await dial({ ...target, tls: false, tunnel: true }, options) as Deno.TcpConn;
    const tls = Deno.startTls(tcp, {
      hostname: target.hostname,
      caCerts: [caPem],
      alpnProtocols: ["http/1.1"],
    });
    await (await tls).handshake();
    return tls;
  };
}

/** Opens, waits for the end, and says how it ended and how long it took (next() is what reads). */
async function endOf(ws: WebSocketConnection, bound = 5000): Promise<Ended & { ms: number }> {
  const started = Date.now();
  assert.equal(await within(bound, "next() ending", ws.next()), undefined);
  const ended = await within(bound, "the end", ws.ended);
  return { ...ended, ms: Date.now() - started };
}

/** The close frames the client sent a raw peer: each one's code. */
function closeCodes(peer: RawPeer): (number | undefined)[] {
  return clientFrames(peer.received()).filter((f) => f.opcode === 8).map((f) =>
    f.payload.length >= 2 ? (f.payload[0] << 8) | f.payload[1] : undefined
  );
}

/** A raw server that completes the upgrade, writes `after` (in the same write as the 101), then waits. */
function upgradingServer(
  after: Uint8Array[] = [],
  then: (peer: RawPeer) => Promise<void> = (p) => p.clientGone,
) {
  return rawServer(async (peer) => {
    const parts = [encoder.encode(await switching(peer.key)), ...after];
    const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    let at = 0;
    for (const part of parts) [all.set(part, at), at += part.length];
    await peer.write(all);
    await then(peer);
  });
}

Deno.test("Deno's server: echo, many messages in order, and sends never interleaved", async () => {
  const { server, firstClose, url } = denoServer();
  const ws = await open(url);
  try {
    await ws.send("hello ☃");
    assert.deepEqual(await within(5000, "the echo", ws.next()), { type: "text", text: "hello ☃" });
    for (let i = 0; i < 300; i++) {
      await ws.send(`message ${i}`);
      assert.deepEqual(await within(5000, `echo ${i}`, ws.next()), { type: "text", text: `message ${i}` });
    }
    // Sent all at once, of sizes across the length encodings: each arrives whole, in order.
    const sizes = Array.from({ length: 60 }, (_, i) => [3, 200, 70000][i % 3]);
    await within(
      10_000,
      "the burst",
      Promise.all(sizes.map((size, i) => ws.send(`${i}:${"z".repeat(size)}`))),
    );
    for (const [i, size] of sizes.entries()) {
      assert.deepEqual(await within(5000, `burst ${i}`, ws.next()), {
        type: "text",
        text: `${i}:${"z".repeat(size)}`,
      });
    }
    ws.close(1000, "bye");
    const ended = await within(5000, "the close", ws.ended);
    assert.deepEqual(ended, {
      by: "local",
      code: 1000,
      reason: 'tinyagent closed the connection with code 1000 (normal closure): "bye"',
    });
    assert.equal(await ws.next(), undefined);
    await assert.rejects(ws.send("late"), /tinyagent closed the connection/);
    ws.close(); // idempotent
    const seen = await firstClose();
    assert.equal(seen.code, 1000, "the server saw our close code");
    assert.equal(seen.reason, "bye");
  } finally {
    ws.abort("test over");
    await server.shutdown();
  }
});

/** A dial whose connection takes at most `max` bytes per write, a moment later: writes in pieces. */
function tricklingDial(max: number) {
  return async (target: DialTarget, options: DialOptions) => {
    const conn = await dial(target, options);
    return {
      read: (buffer: Uint8Array) => conn.read(buffer),
      write: async (bytes: Uint8Array) => {
        await new Promise((resolve) => setTimeout(resolve, 0));
        return await conn.write(bytes.subarray(0, max));
      },
      close: () => conn.close(),
    };
  };
}

Deno.test("sends at once over a connection that writes in small pieces: each frame whole, in order", async () => {
  const { server, url } = denoServer();
  const ws = await open(url, { dial: tricklingDial(700) });
  try {
    const texts = Array.from({ length: 12 }, (_, i) => `${i}:${"q".repeat(i % 2 ? 3000 : 10)}`);
    await within(10_000, "the burst", Promise.all(texts.map((text) => ws.send(text))));
    for (const text of texts) {
      assert.deepEqual(await within(5000, "an echo", ws.next()), { type: "text", text });
    }
    ws.close();
    assert.equal((await within(5000, "the close", ws.ended)).by, "local");
  } finally {
    ws.abort("test over");
    await server.shutdown();
  }
});

Deno.test("Deno's server: a message of exactly 1 MiB is taken, one byte more ends the connection", async () => {
  const { server, url } = denoServer((socket) => {
    socket.onmessage = (event) => socket.send("x".repeat(Number(event.data)));
  });
  const ws = await open(url);
  try {
    await ws.send(String(MiB));
    const message = await within(5000, "the 1 MiB message", ws.next());
    assert.equal(message?.type === "text" && message.text.length, MiB);
    await ws.send(String(MiB + 1));
    const ended = await endOf(ws);
    assert.equal(ended.by, "error");
    assert.equal(ended.code, 1009);
    assert.equal(ended.reason, "the relay sent a 1048577-byte message, over the 1 MiB limit");
  } finally {
    ws.abort("test over");
    await server.shutdown();
  }
});

Deno.test("Deno's server closes with a code and a reason: ended by the peer, the code echoed", async () => {
  const { server, firstClose, url } = denoServer((socket) => {
    socket.onopen = () => socket.close(4001, "relay shutting down");
  });
  const ws = await open(url);
  try {
    const ended = await endOf(ws);
    assert.deepEqual({ ...ended, ms: 0 }, {
      by: "peer",
      code: 4001,
      reason: 'the relay closed the connection with code 4001: "relay shutting down"',
      peerReason: "relay shutting down",
      ms: 0,
    });
    assert.equal((await firstClose()).code, 4001, "our close answered with the relay's code");
  } finally {
    await server.shutdown();
  }
});

Deno.test("Deno's server answers our pings: a quiet connection stays open past idleMs + pongMs", async () => {
  const { server, url } = denoServer((socket) => {
    socket.onmessage = () => setTimeout(() => socket.send("late answer"), 900);
  });
  const ws = await open(url, { idleMs: 100, pongMs: 200 });
  try {
    await ws.send("take your time");
    assert.deepEqual(await within(5000, "the late answer", ws.next()), { type: "text", text: "late answer" });
  } finally {
    ws.close();
    await within(5000, "the close", ws.ended);
    await server.shutdown();
  }
});

Deno.test("over TLS, trusting the test CA: echo and close", async () => {
  const certs = await testCertificates();
  const { server, url } = denoServer(undefined, { cert: certs.certPem, key: certs.keyPem });
  const ws = await open(url, { dial: trustingDial(certs.caPem) });
  try {
    await ws.send("over tls");
    assert.deepEqual(await within(5000, "the echo", ws.next()), { type: "text", text: "over tls" });
    ws.close();
    assert.equal((await within(5000, "the close", ws.ended)).by, "local");
  } finally {
    ws.abort("test over");
    await server.shutdown();
  }
});

Deno.test("through a CONNECT proxy: ws: is tunnelled too, and wss: end to end", async () => {
  const certs = await testCertificates();
  const plain = denoServer();
  const secure = denoServer(undefined, { cert: certs.certPem, key: certs.keyPem });
  const proxy = startConnectProxy();
  try {
    for (
      const [url, extra] of [[plain.url, {}], [secure.url, { dial: trustingDial(certs.caPem) }]] as const
    ) {
      const ws = await open(url, { proxy: proxyFor(proxy.port), ...extra });
      await ws.send(`via proxy to ${url.protocol}`);
      assert.deepEqual(await within(5000, "the echo", ws.next()), {
        type: "text",
        text: `via proxy to ${url.protocol}`,
      });
      ws.close();
      await within(5000, "the close", ws.ended);
    }
    assert.deepEqual(proxy.requests.map((r) => r.line), [
      `CONNECT 127.0.0.1:${plain.url.port} HTTP/1.1`,
      `CONNECT 127.0.0.1:${secure.url.port} HTTP/1.1`,
    ]);
  } finally {
    await proxy.close();
    await plain.server.shutdown();
    await secure.server.shutdown();
  }
});

Deno.test("a child process trusting the test CA by DENO_CERT: wss: with the real dial, direct and via a proxy", async () => {
  const certs = await testCertificates();
  const { server, url } = denoServer(undefined, { cert: certs.certPem, key: certs.keyPem });
  const proxy = startConnectProxy();
  const module = new URL("../../lib/stream/websocket.ts", import.meta.url).href;
  const script = `
    import { openWebSocket } from ${JSON.stringify(module)};
    const port = Deno.env.get("WS_PROXY_PORT");
    const proxy = port && { hostname: "127.0.0.1", port: Number(port), netHost: "127.0.0.1:" + port,
      display: "http://127.0.0.1:" + port, variable: "HTTPS_PROXY" };
    const ws = await openWebSocket({ url: new URL(Deno.env.get("WS_URL")), proxy: proxy || undefined, stepMs: 5000 });
    await ws.send("from the child");
    console.log(JSON.stringify(await ws.next()));
    ws.close();
    console.log(JSON.stringify(await ws.ended));`;
  try {
    for (const proxied of [false, true]) {
      const env: Record<string, string> = {
        DENO_CERT: certs.caFile,
        WS_URL: url.href,
      };
      if (proxied) env.WS_PROXY_PORT = String(proxy.port);
      const child = new Deno.Command(Deno.execPath(), {
        args: ["eval", script],
        env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
        stdout: "piped",
        stderr: "piped",
      });
      const output = await within(60_000, "the child", child.output());
      const [message, ended] = new TextDecoder().decode(output.stdout).trim().split("\n");
      assert.ok(output.success, new TextDecoder().decode(output.stderr));
      assert.deepEqual(JSON.parse(message), { type: "text", text: "from the child" });
      assert.equal(JSON.parse(ended).by, "local");
    }
    assert.equal(proxy.tunnels, 1, "the proxied run went through the proxy");
  } finally {
    await proxy.close();
    await server.shutdown();
  }
});

Deno.test("each broken frame from the relay ends the connection with our close frame saying why", async () => {
  const cases: [string, Uint8Array[], number, RegExp][] = [
    [
      "masked",
      [serverFrame({ opcode: 1, payload: "hi", mask: Uint8Array.of(1, 2, 3, 4) })],
      1002,
      /masked frame/,
    ],
    ["RSV1", [serverFrame({ opcode: 1, payload: "hi", rsv: 0b100 })], 1002, /reserved bit/],
    ["unknown opcode", [serverFrame({ opcode: 5 })], 1002, /unknown opcode 5/],
    ["fragmented ping", [serverFrame({ opcode: 9, fin: false })], 1002, /fragmented ping/],
    [
      "invalid UTF-8",
      [serverFrame({ opcode: 1, payload: Uint8Array.of(0xf8, 0x88, 0x80) })],
      1007,
      /not valid UTF-8/,
    ],
    [
      "a 2 MiB header, no payload",
      [serverFrame({ opcode: 1, length: 2 * MiB })],
      1009,
      /^the relay sent a 2097152-byte message, over the 1 MiB limit$/,
    ],
  ];
  for (const [name, frames, code, pattern] of cases) {
    const server = upgradingServer(frames);
    try {
      const ws = await open(server.url());
      const ended = await endOf(ws);
      assert.equal(ended.by, "error", name);
      assert.equal(ended.code, code, name);
      assert.match(ended.reason, pattern, name);
      assert.ok(ended.ms < 3000, `${name}: ended at once, not after a wait (${ended.ms} ms)`);
      await within(3000, `${name}: the server seeing the client leave`, server.peers[0].clientGone);
      assert.deepEqual(closeCodes(server.peers[0]), [code], `${name}: our close frame's code`);
    } finally {
      await server.close();
    }
  }
});

Deno.test("frames in the same segment as the 101 are read, a ping is answered with its payload, a stray pong ignored", async () => {
  const server = upgradingServer(
    [
      serverFrame({ opcode: 10, payload: "unsolicited" }), // a pong nobody asked for is fine
      serverFrame({ opcode: 1, payload: "first" }),
      serverFrame({ opcode: 9, payload: "are you there" }),
    ],
    async (peer) => {
      await within(
        3000,
        "the pong",
        (async () => {
          while (!clientFrames(peer.received()).some((f) => f.opcode === 10)) {
            await new Promise((r) => setTimeout(r, 5));
          }
        })(),
      );
      await peer.write(serverFrame({ opcode: 1, payload: "after the pong" }));
      await peer.write(serverFrame({ opcode: 8, payload: closeBody(1000) }));
      await peer.clientGone;
    },
  );
  try {
    const ws = await open(server.url());
    assert.deepEqual(await within(3000, "the first", ws.next()), { type: "text", text: "first" });
    assert.deepEqual(await within(3000, "the second", ws.next()), { type: "text", text: "after the pong" });
    assert.equal((await endOf(ws)).by, "peer");
    await within(3000, "the server seeing the client leave", server.peers[0].clientGone);
    const frames = clientFrames(server.peers[0].received());
    const pong = frames.find((f) => f.opcode === 10);
    assert.equal(new TextDecoder().decode(pong?.payload), "are you there");
    assert.ok(frames.every((f) => f.masked), "every client frame is masked");
    assert.deepEqual(closeCodes(server.peers[0]), [1000], "the close echoed");
  } finally {
    await server.close();
  }
});

Deno.test("the relay's TCP close without a close frame: ended by error, in those words", async () => {
  const server = upgradingServer([], (peer) => Promise.resolve(peer.conn.close()));
  try {
    const ws = await open(server.url());
    const ended = await endOf(ws);
    assert.equal(ended.by, "error");
    assert.match(ended.reason, /^the relay closed the connection without a close frame/);
    await assert.rejects(ws.send("after"), /without a close frame/);
  } finally {
    await server.close();
  }
});

Deno.test("the relay's close, then our answer cannot be written: still ended by the peer, as it said", async () => {
  const server = upgradingServer([serverFrame({ opcode: 8, payload: closeBody(1001, "restarting") })]);
  let writes = 0;
  const failingAfterUpgrade = async (target: DialTarget, options: DialOptions) => {
    const conn = await dial(target, options);
    return {
      read: (buffer: Uint8Array) => conn.read(buffer),
      write: (bytes: Uint8Array) =>
        ++writes === 1 ? conn.write(bytes) : Promise.reject(new Error("Broken pipe (os error 32)")),
      close: () => conn.close(),
    };
  };
  try {
    const ws = await open(server.url(), { dial: failingAfterUpgrade });
    const ended = await endOf(ws);
    assert.equal(writes, 2, "the close was answered (and the answer failed)");
    assert.deepEqual({ by: ended.by, code: ended.code, peerReason: ended.peerReason }, {
      by: "peer",
      code: 1001,
      peerReason: "restarting",
    });
  } finally {
    await server.close();
  }
});

Deno.test("a relay silent after the upgrade: pinged after idleMs, given up pongMs later", async () => {
  const server = upgradingServer([], (peer) => peer.held);
  try {
    const ws = await open(server.url(), { idleMs: 200, pongMs: 300 });
    const ended = await endOf(ws, 10_000);
    assert.deepEqual({ by: ended.by, reason: ended.reason }, {
      by: "error",
      reason: "the relay did not answer a ping within 0.3 s",
    });
    assert.ok(ended.ms >= 450 && ended.ms < 10 * 500, `within idleMs + pongMs (${ended.ms} ms)`);
    assert.ok(clientFrames(server.peers[0].received()).some((f) => f.opcode === 9), "a ping was sent");
  } finally {
    await server.close();
  }
});

Deno.test("a relay that stops reading: the stalled write fails within writeMs and ends the connection", async () => {
  const stalled = rawServer(async (peer) => {
    peer.stopReading = true; // before the 101: nothing the client sends is read
    await peer.write(await switching(peer.key));
    await peer.held;
  });
  try {
    const ws = await open(stalled.url(), { writeMs: 300, idleMs: 60_000 });
    const big = "w".repeat(MiB);
    const started = Date.now();
    const failure = await within(
      20_000,
      "the stalled write",
      (async () => {
        for (let i = 0; i < 256; i++) await ws.send(big);
        return undefined;
      })().catch((error: Error) => error),
    );
    assert.ok(failure instanceof Error, "a send failed");
    assert.match(
      failure.message,
      /^a write to the relay did not complete within 0\.3 s: the relay is not reading$/,
    );
    const ended = await within(3000, "the end", ws.ended);
    assert.equal(ended.by, "error");
    assert.ok(Date.now() - started < 15_000);
    await assert.rejects(ws.send("more"), /did not complete within 0\.3 s/);
  } finally {
    await stalled.close();
  }
});

Deno.test("our close with a relay that never answers it: closed after closeMs, and said so", async () => {
  const server = upgradingServer([], (peer) => peer.held);
  try {
    const ws = await open(server.url(), { closeMs: 300 });
    const started = Date.now();
    ws.close(4000, "done here");
    const ended = await within(5000, "the close", ws.ended);
    assert.deepEqual(ended, {
      by: "local",
      code: 4000,
      reason: 'tinyagent closed the connection with code 4000: "done here"; ' +
        "the relay did not answer the close within 0.3 s",
    });
    assert.ok(Date.now() - started >= 250, "the relay's close was waited for");
    assert.equal(await ws.next(), undefined);
    await within(3000, "the server seeing the client leave", server.peers[0].clientGone);
    assert.deepEqual(closeCodes(server.peers[0]), [4000]);
  } finally {
    await server.close();
  }
});

Deno.test("messages that arrive while our close waits are dropped; the relay's close ends it at once", async () => {
  const server = upgradingServer([], async (peer) => {
    await within(
      3000,
      "our close",
      (async () => {
        while (closeCodes(peer).length === 0) await new Promise((r) => setTimeout(r, 5));
      })(),
    );
    await peer.write(serverFrame({ opcode: 1, payload: "dropped" }));
    await peer.write(serverFrame({ opcode: 8, payload: closeBody(1000) }));
    await peer.clientGone;
  });
  try {
    const ws = await open(server.url(), { closeMs: 5000 });
    const started = Date.now();
    ws.close();
    assert.equal(await within(5000, "next() while closing", ws.next()), undefined);
    const ended = await within(5000, "the close", ws.ended);
    assert.equal(ended.reason, "tinyagent closed the connection with code 1000 (normal closure)");
    assert.ok(Date.now() - started < 4000, "ended by the relay's close, not closeMs");
  } finally {
    await server.close();
  }
});

Deno.test("refusals of the upgrade reject openWebSocket with an UpgradeError in words", async () => {
  const answers: [string, RegExp][] = [
    [
      "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
      /^the relay answered the websocket upgrade with 200 OK: hello$/,
    ],
    [
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n",
      /wrong Sec-WebSocket-Accept/,
    ],
  ];
  for (const [answer, pattern] of answers) {
    const server = rawServer(async (peer) => {
      await peer.write(answer);
      await peer.clientGone;
    });
    try {
      await assert.rejects(open(server.url()), (error: unknown) => {
        assert.ok(error instanceof UpgradeError, `an UpgradeError, not ${error}`);
        assert.match(error.message, pattern);
        return true;
      });
      await within(3000, "the server seeing the client leave", server.peers[0].clientGone);
    } finally {
      await server.close();
    }
  }
});

Deno.test("a server that accepts TCP and never answers the upgrade: rejected at stepMs", async () => {
  const server = rawServer((peer) => peer.held);
  try {
    const started = Date.now();
    await assert.rejects(
      open(server.url(), { stepMs: 300 }),
      (error: unknown) =>
        error instanceof UpgradeError &&
        error.message === "the relay did not answer the websocket upgrade within 0.3 s",
    );
    assert.ok(Date.now() - started < 3000);
  } finally {
    await server.close();
  }
});

Deno.test("the abort signal gives the opening up, at the proxy step and at the upgrade", async () => {
  const proxy = startConnectProxy();
  proxy.stallConnects = true;
  const server = rawServer((peer) => peer.held);
  try {
    const atProxy = new AbortController();
    setTimeout(() => atProxy.abort(), 100);
    const started = Date.now();
    await assert.rejects(
      open(server.url(), { proxy: proxyFor(proxy.port), signal: atProxy.signal, stepMs: 5000 }),
      (error: unknown) =>
        error instanceof DialError && error.stage === "proxy" && /given up/.test(error.message),
    );
    const atUpgrade = new AbortController();
    setTimeout(() => atUpgrade.abort(), 100);
    await assert.rejects(
      open(server.url(), { signal: atUpgrade.signal, stepMs: 5000 }),
      (error: unknown) => error instanceof UpgradeError && error.message === "the attempt was given up",
    );
    assert.ok(Date.now() - started < 4000, "given up when told, not at the deadlines");
    await within(3000, "the upgrade's connection closed", server.peers[0].clientGone);
  } finally {
    await proxy.close();
    await server.close();
  }
});

Deno.test("abort() closes at once; a URL that is not ws: or wss: is refused before any dial", async () => {
  const server = upgradingServer([], (peer) => peer.held);
  try {
    const ws = await open(server.url());
    assert.throws(() => ws.close(1005), /1005 is not a close code that may be sent/);
    ws.abort("the session is over");
    assert.deepEqual(await within(3000, "the end", ws.ended), { by: "local", reason: "the session is over" });
    await within(3000, "the server seeing the client leave", server.peers[0].clientGone);
    assert.deepEqual(closeCodes(server.peers[0]), [], "no close handshake");
  } finally {
    await server.close();
  }
  let dialled = false;
  const dialSpy = () => {
    dialled = true;
    return Promise.reject(new Error("not here"));
  };
  await assert.rejects(
    openWebSocket({ url: new URL("https://relay.test/"), dial: dialSpy }),
    /https:\/\/ is not a websocket URL/,
  );
  assert.equal(dialled, false);
});

/**
 * A relay that, after the upgrade, writes `chunks` one every `ms` (until the client leaves), and
 * writes a pong whenever it sees a new ping from the client: between two chunks, as it comes.
 */
function tricklingServer(chunks: Uint8Array[], ms: number) {
  return upgradingServer([], async (peer) => {
    let pingsSeen = 0;
    for (const chunk of chunks) {
      const gone = await Promise.race([
        peer.clientGone.then(() => true),
        peer.held.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), ms)),
      ]);
      if (gone) return;
      const pings = clientFrames(peer.received()).filter((f) => f.opcode === 9).length;
      for (; pingsSeen < pings; pingsSeen++) await peer.write(serverFrame({ opcode: 10 }));
      await peer.write(chunk);
    }
    await peer.clientGone;
  });
}

/** The ping frames the client sent a raw peer. */
const pingsTo = (peer: RawPeer) => clientFrames(peer.received()).filter((f) => f.opcode === 9).length;

Deno.test("a relay that trickles a frame a byte at a time: pinged after idleMs, given up pongMs later", async () => {
  // A text frame declaring 65535 bytes: at a byte every 20 ms it would take 20 minutes. The relay's
  // pong to our ping lands inside that frame, as payload: a pong cannot come between its bytes.
  const frame = serverFrame({ opcode: 1, payload: "x".repeat(65535) });
  const server = tricklingServer(Array.from({ length: 500 }, (_, i) => frame.subarray(i, i + 1)), 20);
  try {
    const ws = await open(server.url(), { idleMs: 200, pongMs: 300 });
    const ended = await endOf(ws, 10_000);
    assert.deepEqual({ by: ended.by, reason: ended.reason }, {
      by: "error",
      reason: "the relay did not answer a ping within 0.3 s (a frame it began is still not whole)",
    });
    assert.ok(ended.ms >= 450 && ended.ms < 10 * 500, `within idleMs + pongMs (${ended.ms} ms)`);
    assert.equal(pingsTo(server.peers[0]), 1, "one ping, answered by a pong that cannot count");
  } finally {
    await server.close();
  }
});

Deno.test("a relay that keeps a message open frame by frame, a pong between fragments: pinged, then given up", async () => {
  const fragments = [
    serverFrame({ opcode: 1, fin: false, payload: '["NOTICE","' }),
    ...Array(500).fill(serverFrame({ opcode: 0, fin: false, payload: "more " })),
  ];
  const server = tricklingServer(fragments, 20);
  try {
    const ws = await open(server.url(), { idleMs: 200, pongMs: 300 });
    const ended = await endOf(ws, 10_000);
    assert.deepEqual({ by: ended.by, reason: ended.reason }, {
      by: "error",
      reason: "the relay did not finish a message within 0.5 s of its first fragment",
    });
    assert.ok(ended.ms >= 450 && ended.ms < 10 * 500, `within idleMs + pongMs (${ended.ms} ms)`);
    assert.equal(pingsTo(server.peers[0]), 1, "one ping: its pong does not finish the message");
  } finally {
    await server.close();
  }
});

Deno.test("a message in fragments that ends in time, a pong between them: taken whole, the connection kept", async () => {
  const fragments = [
    serverFrame({ opcode: 1, fin: false, payload: "slow " }),
    ...Array(14).fill(serverFrame({ opcode: 0, fin: false, payload: "but " })),
    serverFrame({ opcode: 0, payload: "whole" }),
    serverFrame({ opcode: 1, payload: "next" }),
  ];
  const server = tricklingServer(fragments, 20);
  try {
    const ws = await open(server.url(), { idleMs: 200, pongMs: 400 });
    assert.deepEqual(await within(5000, "the slow message", ws.next()), {
      type: "text",
      text: `slow ${"but ".repeat(14)}whole`,
    });
    assert.deepEqual(await within(5000, "the next", ws.next()), { type: "text", text: "next" });
    assert.ok(pingsTo(server.peers[0]) >= 1, "open past idleMs, the message was pinged");
    ws.abort("test over");
    assert.equal((await within(5000, "the end", ws.ended)).by, "local");
  } finally {
    await server.close();
  }
});
