// The strict relay's TLS and HTTP/2 front ends, connection accounting, idle close and cuts, and the
// network parts the transport tests put in front of it (the CONNECT proxy and the delay proxy),
// all shown with Deno's own fetch and hand-made NIP-98 tokens, never with lib/.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes } from "@noble/hashes/utils.js";
import { PROTOCOL_VERSION, startStrictRelay, type StrictRelay, type StrictRelayOptions } from "./mod.ts";
import { testCertificates } from "../tls.ts";
import { startConnectProxy } from "../connect_proxy.ts";
import { eventually, startTcpProxy } from "../robustness_kit.ts";

const SK = generateSecretKey();
const PK = getPublicKey(SK);
const enc = new TextEncoder();
let nextId = 1;

/** A signed NIP-98 Authorization value for a POST of `body` to `url`. */
function token(url: string, body: Uint8Array): string {
  const event = finalizeEvent({
    kind: 27235,
    created_at: Math.floor(Date.now() / 1000),
    tags: [["u", url], ["method", "POST"], ["payload", bytesToHex(sha256(body))], [
      "nonce",
      bytesToHex(randomBytes(12)),
    ]],
    content: "",
  }, SK);
  return `Nostr ${btoa(JSON.stringify(event))}`;
}

interface Call {
  url: string;
  init: RequestInit & { client?: Deno.HttpClient };
  authorization: string;
}

/**
 * A signed MCP request. The body is a Blob unless `bytes`: fetch may resend a Uint8Array body on a
 * reused connection, never a Blob (FINDINGS Q1), and some tests need each kind.
 */
function mcp(
  relay: StrictRelay,
  method: string,
  params: Record<string, unknown>,
  client: Deno.HttpClient | undefined,
  o: { bytes?: boolean; url?: string; signal?: AbortSignal } = {},
): Call {
  const url = o.url ?? relay.mcpUrl;
  const body = enc.encode(JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "tls-test", version: "0" },
      },
    },
  }));
  const authorization = token(url, body);
  const headers: Record<string, string> = {
    "Authorization": authorization,
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
    "Mcp-Method": method,
  };
  if (method === "tools/call") headers["Mcp-Name"] = String(params.name);
  return {
    url,
    authorization,
    init: { method: "POST", headers, body: o.bytes ? body : new Blob([body]), client, signal: o.signal },
  };
}

// deno-lint-ignore no-explicit-any
async function post(call: Call): Promise<{ status: number; json: any; text: string; headers: Headers }> {
  const res = await fetch(call.url, call.init);
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text, headers: res.headers };
}

function listTools(relay: StrictRelay, client?: Deno.HttpClient, o?: { bytes?: boolean; url?: string }) {
  return post(mcp(relay, "tools/list", {}, client, o));
}

function callTool(relay: StrictRelay, name: string, client?: Deno.HttpClient, o?: { bytes?: boolean }) {
  return post(mcp(relay, "tools/call", { name, arguments: {} }, client, o));
}

/** Every request whose Authorization was `authorization`. */
function withToken(relay: StrictRelay, authorization: string) {
  return relay.requests.filter((r) => r.headers.get("authorization") === authorization);
}

async function withTlsRelay(
  options: StrictRelayOptions,
  fn: (relay: StrictRelay, client: Deno.HttpClient) => Promise<void>,
  clientOptions: Deno.CreateHttpClientOptions = {},
): Promise<void> {
  const relay = await startStrictRelay(options);
  const client = Deno.createHttpClient({ ...clientOptions, caCerts: [relay.caPem ?? ""] });
  try {
    await fn(relay, client);
  } finally {
    client.close();
    await relay.close();
  }
}

/** The three front ends, as each test runs them. */
const FRONT_ENDS: { name: string; options: StrictRelayOptions; version: string }[] = [
  { name: "plain HTTP/1.1", options: { keepAlive: true }, version: "1.1" },
  { name: "TLS HTTP/1.1", options: { tls: true, keepAlive: true }, version: "1.1" },
  { name: "TLS HTTP/2", options: { tls: true, http2: true }, version: "2" },
];

Deno.test("test certificates: a CA and a server certificate for 127.0.0.1, 127.0.0.2 and localhost", async () => {
  const certs = await testCertificates();
  assert.match(certs.caPem, /^-----BEGIN CERTIFICATE-----/);
  assert.match(certs.keyPem, /PRIVATE KEY-----/);
  assert.equal(await testCertificates(), certs, "made once per process");
  const text = new TextDecoder().decode(
    (await new Deno.Command("openssl", {
      args: ["x509", "-in", certs.certFile, "-noout", "-text"],
      stdout: "piped",
    })
      .output()).stdout,
  );
  assert.match(text, /IP Address:127\.0\.0\.1, IP Address:127\.0\.0\.2, DNS:localhost/);
  assert.equal(await Deno.readTextFile(certs.caFile), certs.caPem);
});

Deno.test("strict relay over TLS: h1 and h2 answer with a valid token, one connection for sequential calls", async (t) => {
  for (const { name, options, version } of FRONT_ENDS) {
    await t.step(name, async () => {
      const relay = await startStrictRelay(options);
      const client = Deno.createHttpClient({ caCerts: relay.caPem ? [relay.caPem] : [] });
      try {
        const scheme = options.tls ? "https" : "http";
        assert.equal(relay.url, `${scheme}://127.0.0.1:${relay.port}`);
        assert.equal(relay.origin, relay.url);
        assert.equal(relay.scheme, scheme);
        for (let i = 0; i < 3; i++) {
          const a = await listTools(relay, client);
          assert.equal(a.status, 200, a.text);
          assert.ok(Array.isArray(a.json.result.tools));
        }
        const called = await callTool(relay, "list_rooms", client);
        assert.equal(called.json.result.isError, false, called.text);
        assert.equal(relay.requests.at(-1)?.auth?.pubkey, PK, "the call's signer, admitted");
        assert.equal(relay.connections, 1);
        assert.deepEqual(relay.requests.map((r) => r.connection), [1, 1, 1, 1]);
        assert.deepEqual(relay.requests.map((r) => r.httpVersion), [version, version, version, version]);
        assert.equal(relay.requests[0].url, `${relay.mcpUrl}`);
      } finally {
        client.close();
        await relay.close();
      }
    });
  }

  await t.step("TLS HTTP/1.1 without keepAlive: Connection: close, a connection per call", async () => {
    await withTlsRelay({ tls: true }, async (relay, client) => {
      for (let i = 0; i < 3; i++) {
        const a = await listTools(relay, client);
        assert.equal(a.status, 200);
        assert.equal(a.headers.get("connection"), "close");
      }
      assert.equal(relay.connections, 3);
      assert.deepEqual(relay.requests.map((r) => r.connection), [1, 2, 3]);
    });
  });

  await t.step("an h2 relay still serves HTTP/1.1 to a client that does not offer h2", async () => {
    await withTlsRelay({ tls: true, http2: true }, async (relay, client) => {
      assert.equal((await listTools(relay, client)).status, 200);
      assert.equal(relay.requests.at(-1)?.httpVersion, "1.1");
    }, { http2: false });
  });

  await t.step("an untrusted client fails the handshake; the relay counts the connection", async () => {
    const relay = await startStrictRelay({ tls: true });
    try {
      await assert.rejects(listTools(relay), /fetch failed|certificate|UnknownIssuer/i);
      assert.equal(relay.requests.length, 0);
      assert.equal(relay.connections, 1);
    } finally {
      await relay.close();
    }
  });

  await t.step("a replayed token is refused and both copies are recorded", async () => {
    await withTlsRelay({ tls: true, http2: true }, async (relay, client) => {
      const call = mcp(relay, "tools/list", {}, client, { bytes: true });
      assert.equal((await post(call)).status, 200);
      const again = await post(call);
      assert.equal(again.status, 401);
      assert.equal(again.json.error.message, "auth-required: token replay detected");
      assert.equal(withToken(relay, call.authorization).length, 2);
    });
  });
});

Deno.test("strict relay: idleTimeoutMs closes an idle connection; the next call opens another", async (t) => {
  for (const { name, options } of FRONT_ENDS) {
    await t.step(name, async () => {
      const relay = await startStrictRelay({ ...options, idleTimeoutMs: 300 });
      const client = Deno.createHttpClient({ caCerts: relay.caPem ? [relay.caPem] : [] });
      try {
        assert.equal((await listTools(relay, client)).status, 200);
        assert.equal((await listTools(relay, client)).status, 200);
        assert.equal(relay.connections, 1);
        await eventually(() => relay.openConnections === 0, "the idle close", 3000);
        assert.equal((await listTools(relay, client)).status, 200);
        assert.equal(relay.connections, 2);
        assert.deepEqual(relay.requests.map((r) => r.connection), [1, 1, 2]);
      } finally {
        client.close();
        await relay.close();
      }
    });
  }

  await t.step(
    "HTTP/2: the idle close is a GOAWAY(NO_ERROR) naming the last stream, then a close",
    async () => {
      const relay = await startStrictRelay({ tls: true, http2: true, idleTimeoutMs: 200 });
      const conn = await Deno.connectTls({
        hostname: "127.0.0.1",
        port: relay.port,
        caCerts: [relay.caPem!],
        alpnProtocols: ["h2"],
      });
      try {
        assert.equal((await conn.handshake()).alpnProtocol, "h2");
        const settings = new Uint8Array([0, 0, 0, 4, 0, 0, 0, 0, 0]);
        await conn.write(new Uint8Array([...enc.encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"), ...settings]));
        const frames = await readFrames(conn, async (type, flags) => {
          if (type === 4 && !(flags & 1)) await conn.write(new Uint8Array([0, 0, 0, 4, 1, 0, 0, 0, 0]));
        });
        const goaway = frames.find((f) => f.type === 7);
        assert.ok(goaway, `frames: ${frames.map((f) => f.type)}`);
        const view = new DataView(goaway.payload.buffer, goaway.payload.byteOffset);
        assert.equal(view.getUint32(0) & 0x7fffffff, 0, "no stream was opened");
        assert.equal(view.getUint32(4), 0, "NO_ERROR");
      } finally {
        try {
          conn.close();
        } catch {
          // closed by the relay
        }
        await relay.close();
      }
    },
  );
});

/** Reads HTTP/2 frames until the connection ends. */
async function readFrames(
  conn: Deno.Conn,
  onFrame: (type: number, flags: number) => Promise<void>,
): Promise<{ type: number; flags: number; payload: Uint8Array }[]> {
  const frames: { type: number; flags: number; payload: Uint8Array }[] = [];
  let buffered = new Uint8Array(0);
  const chunk = new Uint8Array(16384);
  for (;;) {
    const n = await conn.read(chunk).catch(() => null);
    if (n === null) return frames;
    buffered = new Uint8Array([...buffered, ...chunk.subarray(0, n)]);
    while (buffered.length >= 9) {
      const length = (buffered[0] << 16) | (buffered[1] << 8) | buffered[2];
      if (buffered.length < 9 + length) break;
      const frame = { type: buffered[3], flags: buffered[4], payload: buffered.slice(9, 9 + length) };
      frames.push(frame);
      buffered = buffered.slice(9 + length);
      await onFrame(frame.type, frame.flags);
    }
  }
}

Deno.test("strict relay: cutAfterRun kills the connection after the handler ran", async (t) => {
  for (const { name, options } of FRONT_ENDS) {
    for (const how of ["close", "fin", "rst"] as const) {
      await t.step(`${name}, ${how}`, async () => {
        const relay = await startStrictRelay(options);
        const client = Deno.createHttpClient({ caCerts: relay.caPem ? [relay.caPem] : [] });
        let ran = 0;
        relay.setTool("list_rooms", () => {
          ran++;
          return { cutAfterRun: true, how };
        });
        try {
          assert.equal((await listTools(relay, client)).status, 200);
          const call = mcp(relay, "tools/call", { name: "list_rooms", arguments: {} }, client);
          await assert.rejects(post(call), TypeError);
          assert.equal(ran, 1, "the handler ran once");
          const [record] = withToken(relay, call.authorization);
          assert.equal(record.status, undefined, "no answer was written");
          assert.equal(record.cut, how === "rst" && !options.tls ? "fin" : how);
          assert.equal(withToken(relay, call.authorization).length, 1, "a Blob body is never resent");
          assert.equal((await listTools(relay, client)).status, 200);
          assert.equal(relay.connections, 2);
        } finally {
          client.close();
          await relay.close();
        }
      });
    }
  }

  await t.step("script({ cutAfterRun }) admits the token and runs the tool, then cuts", async () => {
    await withTlsRelay({ tls: true, http2: true }, async (relay, client) => {
      let ran = 0;
      relay.setTool("list_rooms", () => {
        ran++;
        return { content: [{ type: "text", text: "ok" }], isError: false };
      });
      relay.script({ cutAfterRun: true });
      const call = mcp(relay, "tools/call", { name: "list_rooms", arguments: {} }, client);
      await assert.rejects(post(call));
      assert.equal(ran, 1);
      const [record] = withToken(relay, call.authorization);
      assert.equal(record.cut, "fin");
      // The same token again is a replay: the first copy was admitted.
      const again = await post(call);
      assert.equal(again.status, 401);
      assert.equal(again.json.error.message, "auth-required: token replay detected");
    });
  });

  await t.step("a runtime resend of the same token is recorded, and refused as a replay", async () => {
    // fetch may resend a Uint8Array body once when a reused connection dies after the relay read it
    // (FINDINGS Q1, Q2): whatever it does, every copy that arrives is recorded and only one admitted.
    for (const options of [{ tls: true, keepAlive: true }, { tls: true, http2: true }]) {
      await withTlsRelay(options, async (relay, client) => {
        relay.setTool("list_rooms", () => ({ cutAfterRun: true, how: "rst" }));
        assert.equal((await listTools(relay, client, { bytes: true })).status, 200);
        const call = mcp(relay, "tools/call", { name: "list_rooms", arguments: {} }, client, { bytes: true });
        const outcome = await post(call).then((a) => a.status, () => "rejected");
        const copies = withToken(relay, call.authorization);
        assert.ok(copies.length >= 1 && copies.length <= 2, `${copies.length} copies`);
        if (copies.length === 2) {
          assert.equal(copies[1].status, 401, "the resend is refused");
          assert.equal(outcome, 401);
          assert.notEqual(copies[0].connection, copies[1].connection);
        } else {
          assert.equal(outcome, "rejected");
        }
      });
    }
  });
});

Deno.test("strict relay: cutConnections() destroys every open connection at once", async (t) => {
  for (const { name, options } of FRONT_ENDS) {
    await t.step(name, async () => {
      const relay = await startStrictRelay(options);
      const client = Deno.createHttpClient({ caCerts: relay.caPem ? [relay.caPem] : [] });
      const other = Deno.createHttpClient({ caCerts: relay.caPem ? [relay.caPem] : [] });
      try {
        assert.equal((await listTools(relay, client)).status, 200);
        relay.script({ hang: true });
        const hung = post(mcp(relay, "tools/list", {}, other)).then(() => "answered", () => "rejected");
        await eventually(() => relay.inFlight === 1, "the hung request");
        assert.equal(relay.cutConnections("rst"), 2);
        assert.equal(await hung, "rejected");
        await eventually(() => relay.openConnections === 0, "every connection closed");
        assert.equal((await listTools(relay, client)).status, 200);
        assert.equal(relay.connections, 3);
      } finally {
        client.close();
        other.close();
        await relay.close();
      }
    });
  }
});

Deno.test("strict relay over TLS: faults", async (t) => {
  for (const { name, options } of FRONT_ENDS.slice(1)) {
    await t.step(name, async () => {
      await withTlsRelay(options, async (relay, client) => {
        relay.script({ status: 503, body: "down", contentType: "text/plain" });
        const down = await listTools(relay, client);
        assert.equal(down.status, 503);
        assert.equal(down.text, "down");

        relay.script({ drop: true });
        await assert.rejects(listTools(relay, client));
        assert.equal(relay.requests.at(-1)?.status, undefined);
        assert.equal(relay.requests.at(-1)?.cut, "close");

        relay.script({ hang: true });
        const call = mcp(relay, "tools/list", {}, client);
        call.init.signal = AbortSignal.timeout(200);
        await assert.rejects(post(call), (e: Error) => e.name === "TimeoutError");
        await eventually(() => relay.inFlight === 0, "the hung request to end with the client's cancel");

        relay.script({ jsonrpcError: { code: -32000, message: "boom" } });
        const error = await listTools(relay, client);
        assert.equal(error.status, 400);
        assert.equal(error.json.error.message, "boom");
        assert.equal(typeof error.json.id, "number");

        relay.script({ resetMidBody: true });
        const res = await fetch(relay.mcpUrl, { method: "POST", client });
        assert.equal(res.status, 200);
        await assert.rejects(res.text());

        relay.script({ hugeBodyBytes: 3_000_000 }, { hugeBodyBytes: 200_001, chunked: true });
        const huge = await fetch(relay.mcpUrl, { method: "POST", client });
        assert.equal(huge.headers.get("content-length"), "3000000");
        assert.equal(JSON.parse(await huge.text()).length, 2_999_998);
        const chunked = await fetch(relay.mcpUrl, { method: "POST", client });
        assert.equal(chunked.headers.get("content-length"), null);
        assert.equal((await chunked.text()).length, 200_001);

        assert.equal((await listTools(relay, client)).status, 200, "still serving");
      });
    });
  }

  await t.step("HTTP/2: a 40 MiB body arrives whole; over maxBodyBytes it is 413", async () => {
    await withTlsRelay(
      { tls: true, http2: true, maxMessageBytes: 41 * 1024 * 1024 },
      async (relay, client) => {
        const text = JSON.stringify({ pad: "x".repeat(40 * 1024 * 1024) });
        const res = await fetch(relay.mcpUrl, { method: "POST", body: text, client });
        await res.body?.cancel();
        assert.equal(relay.requests.at(-1)?.bodySize, text.length);
        assert.equal(relay.requests.at(-1)?.httpVersion, "2");
      },
    );
    await withTlsRelay({ tls: true, http2: true, maxMessageBytes: 1024 }, async (relay, client) => {
      const body = "x".repeat(4096);
      const res = await fetch(relay.mcpUrl, {
        method: "POST",
        body,
        client,
        headers: { authorization: token(relay.mcpUrl, enc.encode(body)) },
      });
      await res.body?.cancel();
      assert.equal(res.status, 413);
      assert.equal(relay.requests.at(-1)?.bodySize, 4096);
    });
  });
});

Deno.test("connect proxy: tunnels https and forwards absolute-form http, recording each request line", async (t) => {
  await t.step("CONNECT to a TLS relay, HTTP/1.1 and HTTP/2", async () => {
    for (const options of [{ tls: true, keepAlive: true }, { tls: true, http2: true }]) {
      const proxy = startConnectProxy();
      await withTlsRelay(options, async (relay, client) => {
        for (let i = 0; i < 3; i++) assert.equal((await listTools(relay, client)).status, 200);
        assert.deepEqual(proxy.requests.map((r) => r.line), [`CONNECT ${relay.host} HTTP/1.1`]);
        assert.equal(proxy.tunnels, 1);
        assert.equal(relay.connections, 1);
      }, { proxy: { url: proxy.url } }).finally(() => proxy.close());
    }
  });

  await t.step("absolute-form for an http:// relay", async () => {
    const proxy = startConnectProxy();
    const relay = await startStrictRelay({ keepAlive: true });
    const client = Deno.createHttpClient({ proxy: { url: proxy.url } });
    try {
      assert.equal((await listTools(relay, client)).status, 200);
      assert.deepEqual(proxy.requests.map((r) => r.line), [`POST ${relay.mcpUrl} HTTP/1.1`]);
      assert.equal(proxy.tunnels, 0);
    } finally {
      client.close();
      await relay.close();
      await proxy.close();
    }
  });

  await t.step("a raw CONNECT, then TLS through the tunnel", async () => {
    const proxy = startConnectProxy();
    const relay = await startStrictRelay({ tls: true });
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: proxy.port });
    try {
      await conn.write(enc.encode(`CONNECT ${relay.host} HTTP/1.1\r\nHost: ${relay.host}\r\n\r\n`));
      const head = new Uint8Array(39);
      let got = 0;
      while (got < head.length) got += (await conn.read(head.subarray(got))) ?? Infinity;
      assert.equal(new TextDecoder().decode(head), "HTTP/1.1 200 Connection Established\r\n\r\n");
      const tls = await Deno.startTls(conn, { hostname: "127.0.0.1", caCerts: [relay.caPem!] });
      await tls.write(enc.encode(`POST /mcp HTTP/1.1\r\nHost: ${relay.host}\r\nConnection: close\r\n\r\n`));
      const answer = new TextDecoder().decode(await new Response(tls.readable).arrayBuffer());
      assert.match(answer, /^HTTP\/1\.1 401 /);
      assert.equal(proxy.tunnels, 1);
    } finally {
      await relay.close();
      await proxy.close();
    }
  });

  await t.step("a refused CONNECT is a fetch error; the relay sees nothing", async () => {
    const proxy = startConnectProxy({ refuse: 403 });
    await withTlsRelay({ tls: true }, async (relay, client) => {
      await assert.rejects(listTools(relay, client));
      assert.equal(relay.connections, 0);
      assert.equal(proxy.requests.length, 1);
    }, { proxy: { url: proxy.url } }).finally(() => proxy.close());
  });
});

Deno.test("delay proxy: adds the configured delay once per round trip, and cuts on demand", async () => {
  const DELAY = 40; // one way
  await withTlsRelay({ tls: true, http2: true }, async (relay, client) => {
    const proxy = startTcpProxy(relay.port, { delayMs: DELAY });
    const url = `https://${proxy.host}/mcp`;
    try {
      // The first call pays the handshakes (TCP's simulated, then TLS), a kept connection one round trip.
      let started = performance.now();
      assert.equal((await listTools(relay, client, { url })).status, 200);
      assert.ok(
        performance.now() - started >= 3 * 2 * DELAY,
        "TCP, TLS and the request: 3 round trips or more",
      );
      started = performance.now();
      assert.equal((await listTools(relay, client, { url })).status, 200);
      const small = performance.now() - started;
      assert.ok(small >= 2 * DELAY, `${small} ms for one round trip of ${2 * DELAY} ms`);
      // A 1 MiB body is late by the delay once, not per chunk.
      started = performance.now();
      const body = "x".repeat(1024 * 1024);
      const res = await fetch(url, { method: "POST", body, client });
      await res.body?.cancel();
      assert.ok(performance.now() - started >= 2 * DELAY);
      assert.equal(relay.requests.at(-1)?.bodySize, body.length);
      assert.equal(relay.connections, 1);

      assert.equal(proxy.cut(), 1);
      await eventually(() => relay.openConnections === 0, "the relay to see the cut");
      assert.equal((await listTools(relay, client, { url })).status, 200);
      assert.equal(relay.connections, 2);
      assert.equal(proxy.connections, 2);
    } finally {
      await proxy.close();
    }
  });
});
