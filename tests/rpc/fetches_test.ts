// The helper's signed reads (lib/rpc/fetches.ts), `request` and `download`, in process against the
// strict relay with a real SignedHttp and Signer: the body sent byte for byte as it stood on the
// line, the management content type only for POST /manage/rpc, the write paths refused however
// they are spelled, empty and non-JSON answers, refusals, the 32 MiB bound, the call's own bound.

import assert from "node:assert/strict";
import { generateSecretKey } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Signer } from "../../lib/key/signer.ts";
import { parseRelayUrl, type RelayEndpoint } from "../../lib/relay/endpoint.ts";
import { SignedHttp } from "../../lib/relay/signed_http.ts";
import { download, type FetchDeps, MAX_RESPONSE_BYTES, request } from "../../lib/rpc/fetches.ts";
import { parseRequestLine } from "../../lib/rpc/lines.ts";
import { RpcError } from "../../lib/rpc/serve.ts";
import type { JsonObject } from "../../lib/wire/mcp.ts";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { within } from "../support/waits.ts";

async function signerFor(key: Uint8Array): Promise<Signer> {
  const result = await Signer.fromValue(bytesToHex(key), "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}
const signer = await signerFor(generateSecretKey());
const encoder = new TextEncoder();
const MiB = 1024 * 1024;

function endpointOf(url: string): RelayEndpoint {
  const parsed = parseRelayUrl(url);
  assert.ok(parsed.ok);
  return parsed.endpoint;
}

function never(): AbortSignal {
  return new AbortController().signal;
}

async function withRelay(
  fn: (relay: StrictRelay, deps: FetchDeps) => Promise<void>,
  options: Parameters<typeof startStrictRelay>[0] = {},
): Promise<void> {
  const relay = await startStrictRelay(options);
  const endpoint = endpointOf(relay.url);
  const http = new SignedHttp({ endpoint, signer, timeoutMs: 10_000 });
  try {
    await fn(relay, { endpoint, http });
  } finally {
    http.close();
    await relay.close();
  }
}

/** `request` as the helper runs it for `line` (params read from the line, the line kept whole). */
function requestLine(deps: FetchDeps, line: string, signal = never()): Promise<unknown> {
  const parsed = parseRequestLine(line);
  assert.ok("request" in parsed, line);
  return request(deps, parsed.request.params, parsed.request.line, signal);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RpcError, `an RpcError, not ${error}`);
    return error.message;
  }
  assert.fail("it went through");
}

const tag = (relay: StrictRelay, index: number, name: string) =>
  relay.requests[index].auth?.tags.find((t) => t[0] === name)?.[1];

Deno.test("request: the body's bytes exactly as on the line, signed; the relay's JSON answer", async () => {
  await withRelay(async (relay, deps) => {
    const body = '{ "method" : "browsegrant",\t"params":[ {"kinds": [9]} ] , "é":"\\u00e9"}';
    const line = `{"id":7,"method":"request","params":{"path":"/manage/rpc","method":"POST","body":${body}}}`;
    const result = await requestLine(deps, line) as JsonObject;
    assert.ok("result" in result, JSON.stringify(result));
    const [sent] = relay.requests;
    assert.equal(sent.bodyText, body);
    assert.equal(sent.headers.get("content-type"), "application/nostr+json+rpc");
    assert.equal(tag(relay, 0, "payload"), bytesToHex(sha256(encoder.encode(body))));
    assert.equal(tag(relay, 0, "u"), `${relay.url}/manage/rpc`);
    assert.equal(tag(relay, 0, "method"), "POST");
  });
});

Deno.test("request: no body, no payload; a body of null is the four bytes null", async () => {
  await withRelay(async (relay, deps) => {
    relay.script({ status: 200, body: "{}" }, { status: 200, body: "{}" });
    await requestLine(deps, '{"method":"request","params":{"path":"/mcp"}}');
    assert.equal(relay.requests[0].method, "GET", "absent: GET");
    assert.equal(relay.requests[0].bodySize, 0);
    assert.equal(tag(relay, 0, "payload"), undefined);
    await requestLine(deps, '{"method":"request","params":{"path":"/mcp","method":"POST","body":null}}');
    assert.equal(relay.requests[1].bodyText, "null");
    assert.equal(tag(relay, 1, "payload"), bytesToHex(sha256(encoder.encode("null"))));
  });
});

Deno.test("request: the management content type for POST /manage/rpc only", async (t) => {
  const cases: [string, string, string][] = [
    ["POST", "/manage/rpc", "application/nostr+json+rpc"],
    ["POST", "/manage/rpc?x=1", "application/nostr+json+rpc"],
    ["PUT", "/manage/rpc", "application/json"],
    ["GET", "/manage/rpc", "application/json"],
    ["POST", "/mcp", "application/json"],
    ["POST", "/manage/rpc/", "application/json"],
    ["POST", "/manage/rpcx", "application/json"],
  ];
  await withRelay(async (relay, deps) => {
    for (const [i, [method, path, type]] of cases.entries()) {
      await t.step(`${method} ${path}`, async () => {
        relay.script({ status: 200, body: "{}" });
        await requestLine(deps, JSON.stringify({ method: "request", params: { path, method, body: {} } }))
          .catch(() => {}); // paths the relay does not script answer 404: only the header matters here
        assert.equal(relay.requests[i].headers.get("content-type"), type);
      });
    }
  });
});

Deno.test("request under a tenant prefix: the caller's /manage/rpc is the management call, sent under the prefix", async () => {
  await withRelay(async (relay, deps) => {
    await requestLine(
      deps,
      '{"method":"request","params":{"path":"/manage/rpc","method":"POST","body":{"method":"browsegrant","params":[]}}}',
    );
    assert.equal(relay.requests[0].url, `${relay.url}/manage/rpc`);
    assert.ok(relay.url.endsWith("/r/acme"));
    assert.equal(relay.requests[0].headers.get("content-type"), "application/nostr+json+rpc");
    assert.equal(relay.requests[0].status, 200);
  }, { prefix: "/r/acme" });
});

Deno.test("request: /events and room attachments are refused however spelled, and nothing is sent", async () => {
  await withRelay(async (relay, deps) => {
    const publish = (bare: string) =>
      `request: ${bare} is written through the method publish, which the person's --max-writes and ` +
      `--audit-log hold; call publish instead`;
    const upload = (bare: string) =>
      `request: ${bare} is written through the method upload, which the person's --max-writes and ` +
      `--audit-log hold; call upload instead`;
    const cases: [string, string][] = [
      ["/events", publish("/events")],
      ["/events/", publish("/events/")],
      ["/events?x=1", publish("/events")],
      ["/%65vents", publish("/events")],
      ["/%65%76%65%6E%74%73", publish("/events")],
      ["/rooms/general/attachments", upload("/rooms/general/attachments")],
      ["/rooms/general/attachments?filename=a.txt", upload("/rooms/general/attachments")],
      ["/rooms/g%65neral/%61ttachments/", upload("/rooms/general/attachments/")],
      ["/%72ooms/x/attachments", upload("/rooms/x/attachments")],
    ];
    for (const [path, expected] of cases) {
      for (const method of ["POST", "GET", "PUT"]) {
        assert.equal(
          await refusal(requestLine(deps, JSON.stringify({ method: "request", params: { path, method } }))),
          expected,
          `${method} ${path}`,
        );
      }
    }
    assert.equal(relay.requests.length, 0);
  });
});

Deno.test("request: a 2xx without a body is null; one that is not JSON says so", async () => {
  await withRelay(async (relay, deps) => {
    relay.script({ status: 200, body: "" }, { status: 204 }, { status: 200, body: " \r\n " });
    const line = '{"method":"request","params":{"path":"/mcp","method":"POST","body":{}}}';
    assert.equal(await requestLine(deps, line), null);
    assert.equal(await requestLine(deps, line), null);
    assert.equal(await requestLine(deps, line), null);
    relay.script({ status: 200, body: "<html>hello</html>", contentType: "text/html" });
    assert.match(await refusal(requestLine(deps, line)), /^decode response: \S/);
    relay.script({ status: 200, body: '{"a":' });
    assert.match(await refusal(requestLine(deps, line)), /^decode response: /);
    relay.script({ status: 201, body: '[1,"two",{"three":3}]' });
    assert.deepEqual(await requestLine(deps, line), [1, "two", { three: 3 }]);
  });
});

Deno.test("request: a refusal in the Go peer's words; bad params and paths before anything is sent", async () => {
  await withRelay(async (relay, deps) => {
    assert.equal(
      await refusal(requestLine(deps, '{"method":"request","params":{"path":"/nowhere"}}')),
      "relay HTTP 404 Not Found: 404 page not found",
    );
    relay.script({ status: 403, body: '  {"error":"restricted: members only"}\n' });
    assert.equal(
      await refusal(
        requestLine(deps, '{"method":"request","params":{"path":"/mcp","method":"POST","body":{}}}'),
      ),
      'relay HTTP 403 Forbidden: {"error":"restricted: members only"}',
    );
    const before = relay.requests.length;
    for (
      const [params, expected] of [
        [{}, "path is required"],
        [{ path: "" }, "path is required"],
        [{ path: "/x", method: "get" }, "invalid HTTP method"],
        [{ path: "/x", method: "OPTIONS" }, "invalid HTTP method"],
        [{ path: "x" }, "path must be same-origin and absolute"],
        [{ path: "//evil.example/x" }, "path must be same-origin and absolute"],
        [{ path: "http://evil.example/x" }, "path must be same-origin and absolute"],
        [{ path: "/../x" }, "unsafe path"],
        [{ path: "/a/%2e%2e/x" }, "unsafe path"],
        [{ path: "/a/%zz" }, "unsafe path"],
      ] as [JsonObject, string][]
    ) {
      assert.equal(
        await refusal(requestLine(deps, JSON.stringify({ method: "request", params }))),
        expected,
        JSON.stringify(params),
      );
    }
    assert.equal(relay.requests.length, before);
  });
});

Deno.test("request: an answer over 32 MiB, in the Go peer's words; the call's bound in its own", async () => {
  await withRelay(async (relay, deps) => {
    const line = '{"method":"request","params":{"path":"/mcp","method":"POST","body":{}}}';
    relay.script({ hugeBodyBytes: MAX_RESPONSE_BYTES + 2 });
    assert.equal(
      await refusal(within(20_000, "the bound", requestLine(deps, line))),
      "response exceeds 32 MiB",
    );
    relay.script({ hang: true });
    const controller = new AbortController();
    const asked = requestLine(deps, line, controller.signal);
    await within(
      5000,
      "the request at the relay",
      (async () => {
        while (relay.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      })(),
    );
    controller.abort(new RpcError("request: no answer within 0.2 s (--timeout)"));
    assert.equal(
      await refusal(within(5000, "the bound", asked)),
      "request: no answer within 0.2 s (--timeout)",
    );
  });
});

/** Stores `bytes` as a room attachment of the relay, as an upload would have. */
function store(relay: StrictRelay, bytes: Uint8Array, type: string): string {
  const sha = bytesToHex(sha256(bytes));
  relay.attachments.set(sha, { bytes, type, rooms: new Set(["general"]), filename: "f", uploaded: 1 });
  return sha;
}

Deno.test("download: the bytes as base64 and the type as served; GET under a proof without payload", async () => {
  await withRelay(async (relay, deps) => {
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
    const png = store(relay, bytes, "image/png");
    const result = await download(deps, { path: `/media/${png}.png` }, never()) as {
      data: string;
      type: string;
    };
    assert.deepEqual(Uint8Array.fromBase64(result.data), bytes);
    assert.equal(result.type, "image/png");
    const [sent] = relay.requests;
    assert.equal(sent.method, "GET");
    assert.equal(sent.url, `${relay.url}/media/${png}.png`);
    assert.equal(sent.headers.get("content-type"), null);
    assert.equal(tag(relay, 0, "payload"), undefined);
    assert.equal(tag(relay, 0, "method"), "GET");
    // A type the relay serves as a download: what it said, verbatim.
    const text = store(relay, encoder.encode("plain words"), "text/plain");
    const served = await download(deps, { path: `/media/${text}` }, never()) as {
      data: string;
      type: string;
    };
    assert.equal(served.type, "application/octet-stream");
    assert.equal(new TextDecoder().decode(Uint8Array.fromBase64(served.data)), "plain words");
  }, { prefix: "/r/acme" });
});

Deno.test("download: refusals, bad paths, an answer over 32 MiB; exactly 32 MiB is read whole", async () => {
  await withRelay(async (relay, deps) => {
    assert.equal(
      await refusal(download(deps, { path: `/media/${"0".repeat(64)}` }, never())),
      // A file the relay does not hold: its database's words, which it passes on as a 400.
      "relay HTTP 400 Bad Request: sql: no rows in result set",
    );
    assert.equal(
      await refusal(download(deps, { path: "" }, never())),
      "path must be same-origin and absolute",
    );
    assert.equal(await refusal(download(deps, { path: "/media/../x" }, never())), "unsafe path");
    assert.equal(
      await refusal(download(deps, {}, never())),
      'download: params.path must be a string, such as "/media/<sha256>.png"',
    );
    relay.script({ hugeBodyBytes: 32 * MiB + 1 });
    assert.equal(
      await refusal(within(20_000, "the bound", download(deps, { path: "/mcp" }, never()))),
      "response exceeds 32 MiB",
    );
    relay.script({ hugeBodyBytes: 32 * MiB + 1, chunked: true });
    assert.equal(
      await refusal(within(20_000, "the bound", download(deps, { path: "/mcp" }, never()))),
      "response exceeds 32 MiB",
    );
    relay.script({ hugeBodyBytes: 32 * MiB });
    const whole = await within(20_000, "32 MiB", download(deps, { path: "/mcp" }, never())) as {
      data: string;
    };
    assert.equal(Uint8Array.fromBase64(whole.data).length, 32 * MiB);
  });
});
