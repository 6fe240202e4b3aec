// The rate-limiting front (rate_front.ts) before the strict relay: a transparent pipe (a NIP-98 token
// signed for the front's URL is the relay's to check, a websocket passes), queued 429s with their
// Retry-After and bodies sent only once the whole request is read, and never reaching the relay; then
// the relay again. Its bounds, the framing it leaves alone, and its clean close. Deno's test sanitizers
// also check that nothing it opened outlives a test.

import assert from "node:assert/strict";
import { errorBody, type RateFront, rpcLimitBody, startRateFront } from "./rate_front.ts";
import { startStrictRelay, type StrictRelay, type StrictRelayOptions } from "./strict_relay/mod.ts";
import { enc, newKey, nip98, WsClient } from "./strict_relay/nostr_test_kit.ts";
import { PROTOCOL_VERSION } from "./strict_relay/types.ts";
import { within } from "./waits.ts";

const KEY = newKey();
let nextId = 1;

/** A signed tools/list to `base`/mcp: the status, headers and parsed body. */
async function toolsList(base: string, o: { id?: number } = {}) {
  const id = o.id ?? nextId++;
  const url = `${base}/mcp`;
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/list",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const res = await fetch(url, {
    method: "POST",
    headers: {
      Authorization: nip98(url, body, KEY),
      "Content-Type": "application/json",
      "MCP-Protocol-Version": PROTOCOL_VERSION,
      "Mcp-Method": "tools/list",
    },
    body,
  });
  const text = await res.text();
  const json = res.headers.get("content-type") === "application/json" ? JSON.parse(text) : undefined;
  return { id, status: res.status, headers: res.headers, text, json };
}

async function withFront(
  options: StrictRelayOptions,
  fn: (front: RateFront, relay: StrictRelay) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay(options);
  const front = startRateFront(relay);
  try {
    await fn(front, relay);
  } finally {
    await front.close();
    await relay.close();
  }
}

/** A raw connection to the front. */
const connect = (front: RateFront) => Deno.connect({ hostname: "127.0.0.1", port: front.port });

/** Everything the connection sends until it ends (bounded by `ms`); `ended` false when time ran out. */
async function readAll(conn: Deno.Conn, ms = 3000): Promise<{ text: string; ended: boolean }> {
  const parts: Uint8Array[] = [];
  const buf = new Uint8Array(64 * 1024);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, ms);
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      parts.push(buf.slice(0, n));
    }
  } catch {
    // closed by the timer
  } finally {
    clearTimeout(timer);
    if (!timedOut) conn.close();
  }
  return { text: new TextDecoder().decode(new Uint8Array(parts.flatMap((p) => [...p]))), ended: !timedOut };
}

Deno.test("rate front: a transparent pipe; the relay checks tokens signed for the front's URL", async () => {
  await withFront({ prefix: "/r/acme", keepAlive: true }, async (front, relay) => {
    assert.equal(front.url, `http://127.0.0.1:${front.port}/r/acme`);
    for (let i = 0; i < 2; i++) {
      const a = await toolsList(front.url);
      assert.equal(a.status, 200, a.text);
      assert.ok(Array.isArray(a.json.result.tools));
    }
    assert.deepEqual(relay.requests.map((r) => r.url), [`${front.url}/mcp`, `${front.url}/mcp`], "Host kept");
    assert.deepEqual(relay.requests.map((r) => r.connection), [1, 1], "one connection, kept alive");
    const ws = await WsClient.open(front.url.replace(/^http/, "ws"));
    try {
      await ws.auth(KEY, front.url.replace(/^http/, "ws"));
    } finally {
      await ws.close();
    }
    assert.deepEqual([front.answered.length, front.pending], [0, 0]);
  });
});

Deno.test("rate front: queued 429s with Retry-After and a JSON-RPC error of each request's id, then the relay", async () => {
  await withFront({}, async (front, relay) => {
    front.limit(2, { retryAfter: 3, body: rpcLimitBody("rate-limited: slow down") });
    assert.equal(front.pending, 2);
    for (let i = 0; i < 2; i++) {
      const limited = await toolsList(front.url);
      assert.equal(limited.status, 429);
      assert.equal(limited.headers.get("retry-after"), "3");
      assert.equal(limited.headers.get("content-type"), "application/json");
      assert.equal(limited.headers.get("connection"), "close");
      assert.deepEqual(limited.json, {
        jsonrpc: "2.0",
        id: limited.id,
        error: { code: -32000, message: "rate-limited: slow down" },
      }, "the request's own id");
    }
    assert.equal(relay.requests.length, 0, "none reached the relay");
    assert.equal(front.pending, 0);
    assert.deepEqual(front.answered.map((r) => [r.method, r.path, r.url]), [
      ["POST", "/mcp", `${front.url}/mcp`],
      ["POST", "/mcp", `${front.url}/mcp`],
    ]);
    assert.deepEqual(front.answered.map((r) => r.auth?.pubkey), [KEY.pk, KEY.pk], "the tokens, as sent");
    assert.equal((front.answered[0].json as { method: string }).method, "tools/list");
    assert.equal((await toolsList(front.url)).status, 200, "then the relay answers again");
    assert.equal(relay.requests.length, 1);
    front.limit(1, { retryAfter: 1 });
    const both = await Promise.all([toolsList(front.url), toolsList(front.url)]);
    assert.deepEqual(both.map((a) => a.status).sort(), [200, 429], "one answer, for one of two at once");
  });
});

Deno.test("rate front: Retry-After and bodies as given, or none", async () => {
  await withFront({}, async (front) => {
    front.limit(1, {
      retryAfter: "Wed, 21 Oct 2015 07:28:00 GMT",
      body: errorBody("rate-limited: slow down"),
    });
    front.limit(1, {});
    front.limit(1, { retryAfter: 0, body: "Too Many Requests\n", contentType: "text/plain" });
    const dated = await toolsList(front.url);
    assert.deepEqual([dated.status, dated.headers.get("retry-after"), dated.text], [
      429,
      "Wed, 21 Oct 2015 07:28:00 GMT",
      '{"error":"rate-limited: slow down"}',
    ]);
    const bare = await toolsList(front.url);
    assert.deepEqual(
      [bare.status, bare.headers.get("retry-after"), bare.headers.get("content-type"), bare.text],
      [429, null, null, ""],
    );
    const plain = await toolsList(front.url);
    assert.deepEqual(
      [plain.status, plain.headers.get("retry-after"), plain.headers.get("content-type"), plain.text],
      [429, "0", "text/plain", "Too Many Requests\n"],
    );
    assert.throws(() => front.limit(0, {}), /0 answers/);
  });
});

Deno.test("rate front: a 429 comes only once the whole request is read", async () => {
  await withFront({ keepAlive: true }, async (front, relay) => {
    const conn = await connect(front);
    const body = new Uint8Array(256 * 1024).fill(0x20);
    const head = `POST /mcp HTTP/1.1\r\nHost: ${front.host}\r\nContent-Length: ${body.length}\r\n\r\n`;
    // First a request the relay answers, on the same connection (kept alive), then the limit.
    const first = `GET /nothing HTTP/1.1\r\nHost: ${front.host}\r\n\r\n`;
    await conn.write(enc.encode(first));
    const answer = new Uint8Array(4096);
    const n = await within(3000, "the relay's answer", conn.read(answer));
    assert.match(new TextDecoder().decode(answer.subarray(0, n!)), /^HTTP\/1\.1 404 /);
    front.limit(1, { retryAfter: 1 });
    await conn.write(enc.encode(head));
    await conn.write(body.subarray(0, body.length - 1));
    const firstByte = new Uint8Array(1);
    let arrived = false;
    const reading = conn.read(firstByte).then((n) => (arrived = n === 1));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(arrived, false, "nothing while a byte of the body is due");
    await conn.write(body.subarray(body.length - 1));
    await within(3000, "the 429's first byte", reading);
    const { text, ended } = await readAll(conn);
    assert.ok(ended, "the connection closes after the 429");
    assert.match(String.fromCharCode(firstByte[0]) + text, /^HTTP\/1\.1 429 Too Many Requests\r\n/);
    assert.match(text, /\r\nRetry-After: 1\r\n/);
    assert.equal(front.answered[0].body.length, body.length);
    assert.deepEqual(relay.requests.map((r) => r.path), ["/nothing"], "the limited one never reached it");
  });
});

Deno.test("rate front: framing it does not read is piped; its bounds close the connection", async (t) => {
  await withFront({}, async (front, relay) => {
    await t.step("a chunked request goes to the relay, the queued answer waits", async () => {
      front.limit(1, { retryAfter: 5 });
      const conn = await connect(front);
      await conn.write(enc.encode(
        `POST /nothing HTTP/1.1\r\nHost: ${front.host}\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n`,
      ));
      const { text } = await readAll(conn);
      assert.match(text, /^HTTP\/1\.1 404 /);
      assert.deepEqual([relay.requests.at(-1)?.bodyText, front.pending], ["hi", 1]);
    });
    await t.step("a head over 64 KiB: closed, nothing answered, nothing passed on", async () => {
      const before = relay.requests.length;
      const conn = await connect(front);
      await conn.write(enc.encode(`GET / HTTP/1.1\r\nX-Long: ${"x".repeat(70 * 1024)}`)).catch(() => 0);
      const { text, ended } = await readAll(conn);
      assert.deepEqual([text, ended, relay.requests.length, front.pending], ["", true, before, 1]);
    });
    await t.step("a body over 64 MiB to be answered: closed unread, the answer still queued", async () => {
      const conn = await connect(front);
      await conn.write(
        enc.encode(
          `POST /mcp HTTP/1.1\r\nHost: ${front.host}\r\nContent-Length: ${65 * 1024 * 1024}\r\n\r\n`,
        ),
      );
      const { text, ended } = await readAll(conn);
      assert.deepEqual([text, ended, front.pending, front.answered.length], ["", true, 1, 0]);
    });
  });
});

Deno.test("rate front: close() ends held connections and stops listening", async () => {
  const relay = await startStrictRelay({});
  const front = startRateFront(relay);
  try {
    const idle = await connect(front);
    const midHead = await connect(front);
    await midHead.write(enc.encode("POST /mcp HTTP/1.1\r\n"));
    const limited = await connect(front);
    front.limit(1, {});
    await limited.write(
      enc.encode(`POST /mcp HTTP/1.1\r\nHost: ${front.host}\r\nContent-Length: 10\r\n\r\n12`),
    );
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(front.openConnections, 3);
    await within(3000, "close()", front.close());
    assert.equal(front.openConnections, 0);
    for (const conn of [idle, midHead, limited]) assert.equal((await readAll(conn)).ended, true);
    await assert.rejects(connect(front), Deno.errors.ConnectionRefused);
  } finally {
    await front.close();
    await relay.close();
  }
});
