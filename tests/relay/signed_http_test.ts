// The helper's signed HTTP requests (lib/relay/signed_http.ts) against the strict relay in process,
// plain and over TLS: the method on the request line and in the NIP-98 proof (checked with
// nostr-tools), the `u` tag byte for byte the URL sent, `payload` only with a body, answers kept as
// bytes or text with their reason phrase, the size bound, a refused connection, and the pool: one
// connection for requests one at a time, at most poolSize at once, a waiter given up cleanly.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey, type NostrEvent, verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Signer } from "../../lib/key/signer.ts";
import { parseRelayUrl, type RelayEndpoint } from "../../lib/relay/endpoint.ts";
import { SignedHttp, type SignedOutcome, type SignedRequest } from "../../lib/relay/signed_http.ts";
import { dial, type DialOptions, type DialTarget } from "../../lib/transport/dial.ts";
import { POOL_SIZE } from "../../lib/transport/transport_pool.ts";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { within } from "../support/waits.ts";

const secretKey = generateSecretKey();
async function signerFor(key: Uint8Array): Promise<Signer> {
  const result = await Signer.fromValue(bytesToHex(key), "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}
const signer = await signerFor(secretKey);
const encoder = new TextEncoder();

function endpointOf(url: string): RelayEndpoint {
  const parsed = parseRelayUrl(url);
  assert.ok(parsed.ok);
  return parsed.endpoint;
}

/** TLS trusting the test CA in this process (dial's own TLS trusts what the process started with). */
function trustingDial(caPem: string) {
  return async (target: DialTarget, options: DialOptions) => {
    const tcp = await dial({ ...target, tls: false }, options) as Deno.TcpConn;
    const tls = await Deno.startTls(tcp, {
      hostname: target.hostname,
      caCerts: [caPem],
      alpnProtocols: ["http/1.1"],
    });
    await tls.handshake();
    return tls;
  };
}

function httpFor(relay: StrictRelay, extra: { poolSize?: number } = {}): SignedHttp {
  return new SignedHttp({
    endpoint: endpointOf(relay.url),
    signer,
    timeoutMs: 10_000,
    ...extra,
    ...(relay.caPem ? { transport: { dial: trustingDial(relay.caPem) } } : {}),
  });
}

/** A request to `path` (with its query) under the relay's base. */
function to(
  relay: StrictRelay,
  method: SignedRequest["method"],
  path: string,
  body = "",
  extra: Partial<SignedRequest> = {},
): SignedRequest {
  const url = `${relay.url}${path}`;
  return {
    method,
    url,
    target: url.slice(relay.origin.length),
    headers: { "Content-Type": "application/json" },
    body: encoder.encode(body),
    ...extra,
  };
}

function answered(outcome: SignedOutcome) {
  assert.ok(outcome.ok, `an answer, not ${JSON.stringify(outcome)}`);
  return outcome.answer;
}

function never(): AbortSignal {
  return new AbortController().signal;
}

async function withRelay(
  options: Parameters<typeof startStrictRelay>[0],
  fn: (relay: StrictRelay, http: SignedHttp) => Promise<void>,
  extra: { poolSize?: number } = {},
): Promise<void> {
  const relay = await startStrictRelay(options);
  const http = httpFor(relay, extra);
  try {
    await fn(relay, http);
  } finally {
    http.close();
    await relay.close();
  }
}

/** The proof a request carried, verified by nostr-tools. */
function proofOf(relay: StrictRelay, index: number): NostrEvent {
  const event = relay.requests[index].auth;
  assert.ok(event, "a NIP-98 token");
  assert.equal(verifyEvent({ ...event }), true, "nostr-tools verifies the proof");
  assert.equal(event.kind, 27235);
  assert.equal(event.pubkey, getPublicKey(secretKey));
  return event;
}

const tag = (event: NostrEvent, name: string) => event.tags.find((t) => t[0] === name)?.[1];

for (const tls of [false, true]) {
  const over = tls ? "over TLS" : "plain";
  Deno.test(`${over}: each method on the request line and in the proof; u the URL sent, query and all`, async () => {
    await withRelay({ tls, keepAlive: true }, async (relay, http) => {
      const path = "/some/Path%20x?b=2&a=%C3%A9+1&c=";
      for (const method of ["GET", "PUT", "POST", "HEAD", "DELETE", "PATCH"] as const) {
        const answer = answered(await http.send(to(relay, method, path), never(), 1024 * 1024));
        assert.equal(answer.status, 404);
      }
      assert.deepEqual(relay.requests.map((r) => r.method), [
        "GET",
        "PUT",
        "POST",
        "HEAD",
        "DELETE",
        "PATCH",
      ]);
      for (const [i, request] of relay.requests.entries()) {
        assert.equal(request.url, `${relay.url}${path}`, "the request line's target, as given");
        const proof = proofOf(relay, i);
        assert.equal(tag(proof, "u"), `${relay.url}${path}`);
        assert.equal(tag(proof, "method"), request.method);
        assert.equal(tag(proof, "payload"), undefined, "no body, no payload");
        assert.match(tag(proof, "nonce") ?? "", /^[0-9a-f]{24}$/);
      }
      assert.equal(new Set(relay.requests.map((r) => r.auth?.id)).size, 6, "a fresh proof each time");
      assert.ok(relay.url.startsWith(tls ? "https://" : "http://"));
    });
  });
}

Deno.test("payload: the SHA-256 of the exact body bytes, and only with a body; the relay takes the proof", async () => {
  await withRelay({}, async (relay, http) => {
    const body = '{"method":"browsegrant", "params":[]}\n';
    const headers = { "Content-Type": "application/nostr+json+rpc" };
    const answer = answered(
      await http.send(to(relay, "POST", "/manage/rpc", body, { headers }), never(), 1 << 20),
    );
    assert.equal(answer.status, 200, answer.body);
    const [request] = relay.requests;
    assert.equal(request.bodyText, body);
    assert.equal(request.headers.get("content-type"), "application/nostr+json+rpc", "the caller's headers");
    assert.equal(tag(proofOf(relay, 0), "payload"), bytesToHex(sha256(encoder.encode(body))));
    // Bytes that are no UTF-8 go as they are.
    const binary = new Uint8Array([0, 255, 128, 10, 13]);
    await http.send(to(relay, "PUT", "/blob", "", { body: binary }), never(), 1 << 20);
    assert.deepEqual(relay.requests[1].body, binary);
    assert.equal(tag(proofOf(relay, 1), "payload"), bytesToHex(sha256(binary)));
  });
});

Deno.test("a binary answer is kept as bytes; a text answer as text, with its headers and reason phrase", async () => {
  await withRelay({}, async (relay, http) => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const sha = bytesToHex(sha256(bytes));
    relay.attachments.set(sha, {
      bytes,
      type: "image/png",
      rooms: new Set(["general"]),
      filename: "all.png",
      uploaded: 1_700_000_000,
    });
    const media = answered(
      await http.send(
        to(relay, "GET", `/media/${sha}.png`, "", { headers: {}, binary: true }),
        never(),
        1 << 20,
      ),
    );
    assert.equal(media.status, 200);
    assert.deepEqual(media.bytes, bytes);
    assert.equal(media.headers.get("content-type"), "image/png");
    const text = answered(await http.send(to(relay, "GET", "/nothing"), never(), 1 << 20));
    assert.equal(text.body, "404 page not found\n");
    assert.equal(text.reason, "Not Found");
    relay.script({ status: 418, body: "short and stout" });
    const teapot = answered(await http.send(to(relay, "POST", "/mcp", "{}"), never(), 1 << 20));
    assert.equal(teapot.status, 418);
    assert.equal(teapot.reason, "Status", "the relay's own phrase, not one of the client's");
    assert.equal(teapot.body, "short and stout");
  });
});

Deno.test("an answer over the bound is not read: tooLarge, and not unsent", async () => {
  await withRelay({}, async (relay, http) => {
    relay.script({ hugeBodyBytes: 64 * 1024 });
    const outcome = await http.send(to(relay, "POST", "/mcp", "{}"), never(), 16 * 1024);
    assert.equal(outcome.ok, false);
    assert.ok(!outcome.ok && outcome.tooLarge === true && outcome.unsent === false, JSON.stringify(outcome));
    // Within the bound, the same answer is read whole.
    relay.script({ hugeBodyBytes: 8 * 1024 });
    assert.equal(
      answered(await http.send(to(relay, "POST", "/mcp", "{}"), never(), 16 * 1024)).body.length,
      8 * 1024,
    );
  });
});

Deno.test("a refused connection: unsent, in words that name the URL", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const base = `http://127.0.0.1:${port}`;
  const http = new SignedHttp({ endpoint: endpointOf(base), signer, timeoutMs: 5000 });
  try {
    const url = `${base}/events?x=1`;
    const outcome = await within(
      10_000,
      "the failure",
      http.send(
        { method: "POST", url, target: "/events?x=1", headers: {}, body: encoder.encode("{}") },
        never(),
        1024,
      ),
    );
    assert.ok(!outcome.ok && outcome.unsent, JSON.stringify(outcome));
    assert.ok(!outcome.ok && outcome.detail.startsWith(`cannot reach ${url}: `), JSON.stringify(outcome));
    assert.equal(http.connectionsOpened, 0);
  } finally {
    http.close();
  }
});

Deno.test("requests one after another share one connection", async () => {
  await withRelay({ keepAlive: true }, async (relay, http) => {
    for (let i = 0; i < 5; i++) {
      assert.equal(answered(await http.send(to(relay, "GET", `/n/${i}`), never(), 1 << 20)).status, 404);
    }
    assert.equal(relay.connections, 1);
    assert.equal(http.connectionsOpened, 1);
    assert.deepEqual(relay.requests.map((r) => r.connection), [1, 1, 1, 1, 1]);
  });
});

Deno.test(`requests at once go on at most poolSize connections (default ${POOL_SIZE})`, async (t) => {
  await t.step("poolSize 2", async () => {
    await withRelay({ keepAlive: true }, async (relay, http) => {
      relay.delay(150);
      const outcomes = await within(
        10_000,
        "six at once",
        Promise.all([0, 1, 2, 3, 4, 5].map((i) => http.send(to(relay, "GET", `/n/${i}`), never(), 1 << 20))),
      );
      for (const outcome of outcomes) assert.equal(answered(outcome).status, 404);
      assert.equal(relay.connections, 2);
      assert.equal(relay.maxConcurrent, 2);
    }, { poolSize: 2 });
  });
  await t.step("the default", async () => {
    await withRelay({ keepAlive: true }, async (relay, http) => {
      relay.delay(150);
      await within(
        10_000,
        "ten at once",
        Promise.all(
          Array.from({ length: 10 }, (_, i) => http.send(to(relay, "GET", `/n/${i}`), never(), 1 << 20)),
        ),
      );
      assert.equal(relay.connections, POOL_SIZE);
      assert.equal(relay.maxConcurrent, POOL_SIZE);
    });
  });
});

Deno.test("a request waiting for a busy pool is given up cleanly when its signal aborts", async () => {
  await withRelay({ keepAlive: true }, async (relay, http) => {
    relay.script({ hang: true });
    const busy = new AbortController();
    const hanging = http.send(to(relay, "POST", "/mcp", "{}"), busy.signal, 1 << 20);
    await within(
      5000,
      "the first request at the relay",
      (async () => {
        while (relay.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
    );
    const waiter = new AbortController();
    const waiting = http.send(to(relay, "GET", "/second"), waiter.signal, 1 << 20);
    await new Promise((resolve) => setTimeout(resolve, 50));
    waiter.abort(new Error("request: no answer within 0.05 s (--timeout)"));
    const given = await within(2000, "the waiter's outcome", waiting);
    assert.ok(!given.ok && given.unsent, JSON.stringify(given));
    assert.ok(!given.ok && given.detail.includes("no answer within 0.05 s"), JSON.stringify(given));
    assert.equal(relay.requests.length, 1, "the waiter sent nothing");
    busy.abort(new Error("gave up"));
    const hung = await within(5000, "the hanging request's outcome", hanging);
    assert.ok(!hung.ok && !hung.unsent, JSON.stringify(hung));
    assert.ok(!hung.ok && hung.detail.startsWith(`no answer from ${relay.url}/mcp: `), JSON.stringify(hung));
    // The pool's one place is free again.
    assert.equal(
      answered(await within(5000, "a third", http.send(to(relay, "GET", "/third"), never(), 1 << 20))).status,
      404,
    );
    assert.deepEqual(relay.requests.map((r) => r.path), ["/mcp", "/third"]);
  }, { poolSize: 1 });
});

Deno.test("closed: nothing more is sent", async () => {
  await withRelay({}, async (relay, http) => {
    http.close();
    const outcome = await http.send(to(relay, "GET", "/x"), never(), 1024);
    assert.ok(!outcome.ok && outcome.unsent, JSON.stringify(outcome));
    assert.equal(relay.requests.length, 0);
  });
});
