// The helper's dispatch (lib/rpc/methods.ts): each of the nine names reaches its method (over a
// recording HTTP side and relay stream; diagnose against the strict relay), every other name is
// `unknown method "<name>"` as the Go peer quotes it, inherited names included, only the stream
// methods answer at once, `call` has no subscribe, the key is found in a line however it is
// spelled, and close() ends the streams, the websocket and the HTTP pool.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { nsecEncode } from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type SignedEvent, Signer } from "../../lib/key/signer.ts";
import { WriteBudget } from "../../lib/oversight/write_budget.ts";
import { WriteGate } from "../../lib/oversight/write_gate.ts";
import { parseRelayUrl, type RelayEndpoint } from "../../lib/relay/endpoint.ts";
import type { SignedHttp, SignedOutcome, SignedRequest } from "../../lib/relay/signed_http.ts";
import type { RpcRequest } from "../../lib/rpc/lines.ts";
import { RPC_METHODS } from "../../lib/rpc/method_names.ts";
import { HelperMethods, type HelperParts } from "../../lib/rpc/methods.ts";
import { RpcError } from "../../lib/rpc/serve.ts";
import type { HelperStreams } from "../../lib/rpc/streams.ts";
import type { RelayStream } from "../../lib/stream/relay_stream.ts";
import type { JsonObject } from "../../lib/wire/mcp.ts";
import { startStrictRelay } from "../support/strict_relay/mod.ts";

const secretKey = generateSecretKey();
const keyHex = bytesToHex(secretKey);
async function signerFor(hex: string): Promise<Signer> {
  const result = await Signer.fromValue(hex, "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}
const signer = await signerFor(keyHex);

function endpointOf(url: string): RelayEndpoint {
  const parsed = parseRelayUrl(url);
  assert.ok(parsed.ok);
  return parsed.endpoint;
}

/** The order things were done in, across the fakes. */
type Log = string[];

/** The HTTP side: each request recorded, answered 200 with `body` (bytes for a binary one). */
function fakeHttp(log: Log, body = '{"accepted":true,"message":""}') {
  const sent: SignedRequest[] = [];
  const http = {
    send(request: SignedRequest): Promise<SignedOutcome> {
      sent.push(request);
      log.push(`http ${request.method} ${request.target}`);
      const headers = new Map([["content-type", request.binary ? "image/png" : "application/json"]]);
      return Promise.resolve({
        ok: true,
        answer: {
          status: 200,
          reason: "OK",
          headers,
          body: request.binary ? "" : body,
          ...(request.binary ? { bytes: new Uint8Array([1, 2, 3]) } : {}),
        },
      });
    },
    close(): void {
      log.push("http close");
    },
  };
  return { http: http as unknown as SignedHttp, sent };
}

function fakeStream(log: Log, answer: () => Promise<SignedEvent[]> = () => Promise.resolve([])) {
  const queries: unknown[][] = [];
  const stream = {
    query(filters: unknown[]): Promise<SignedEvent[]> {
      queries.push(filters);
      log.push("stream query");
      return answer();
    },
    close(): void {
      log.push("stream close");
    },
  };
  return { stream: stream as unknown as RelayStream, queries };
}

function fakeStreams(log: Log) {
  const streams = {
    subscribe(name: string, filter: unknown) {
      log.push(`streams subscribe ${name} ${JSON.stringify(filter)}`);
      return { subscribed: true };
    },
    unsubscribe(name: string) {
      log.push(`streams unsubscribe ${name}`);
      return { stopped: name === "live" };
    },
    close(): void {
      log.push("streams close");
    },
  };
  return streams as unknown as HelperStreams;
}

function methodsFor(options: { streams?: boolean; endpoint?: RelayEndpoint; httpBody?: string } = {}) {
  const log: Log = [];
  const endpoint = options.endpoint ?? endpointOf("http://127.0.0.1:9/r/acme");
  const { http, sent } = fakeHttp(log, options.httpBody);
  const { stream, queries } = fakeStream(log);
  const parts: HelperParts = {
    endpoint,
    signer,
    http,
    stream,
    ...(options.streams === false ? {} : { streams: fakeStreams(log) }),
    gate: new WriteGate({
      relay: endpoint.base,
      session: "test",
      budget: new WriteBudget(),
      where: "terminal",
      log: () => {},
    }),
    timeoutMs: 5000,
  };
  return { methods: new HelperMethods(parts), log, sent, queries };
}

function call(
  methods: HelperMethods,
  method: string,
  params: JsonObject = {},
  line?: string,
): Promise<unknown> {
  const request: RpcRequest = { method, params, line: line ?? JSON.stringify({ method, params }) };
  return methods.call(request, new AbortController().signal);
}

async function refusal(promise: () => Promise<unknown>): Promise<string> {
  try {
    await promise();
  } catch (error) {
    assert.ok(error instanceof RpcError, `an RpcError, not ${error}`);
    return error.message;
  }
  assert.fail("the call went through");
}

Deno.test("identity: the key's public half", async () => {
  const { methods } = methodsFor();
  assert.deepEqual(await call(methods, "identity", { ignored: true }), { pubkey: getPublicKey(secretKey) });
});

Deno.test("publish, request, upload and download reach the relay's HTTP side, each its own way", async () => {
  const { methods, sent } = methodsFor();
  const event = await call(methods, "publish", {
    event: { kind: 9, tags: [["h", "general"]], content: "hi" },
  });
  assert.equal(verifyEvent({ ...(event as SignedEvent) }), true);
  const line = '{"id":1,"method":"request","params":{"path":"/manage/rpc","method":"POST","body":{ "a" :1}}}';
  assert.deepEqual(
    await call(methods, "request", { path: "/manage/rpc", method: "POST", body: { a: 1 } }, line),
    { accepted: true, message: "" },
  );
  await call(methods, "upload", { room: "general", filename: "a.txt", data: "aGk=" });
  assert.deepEqual(await call(methods, "download", { path: "/media/x.png" }), {
    data: "AQID",
    type: "image/png",
  });
  assert.deepEqual(sent.map((r) => `${r.method} ${r.target}`), [
    "POST /r/acme/events",
    "POST /r/acme/manage/rpc",
    "PUT /r/acme/rooms/general/attachments?filename=a.txt",
    "GET /r/acme/media/x.png",
  ]);
  assert.equal(new TextDecoder().decode(sent[1].body), '{ "a" :1}', "the body as the line has it");
  assert.equal(sent[3].binary, true);
});

Deno.test("query reaches the relay stream with its filters; its failure is the caller's error", async () => {
  const { methods, queries } = methodsFor();
  assert.deepEqual(await call(methods, "query", { filter: { kinds: [9] } }), []);
  await call(methods, "query", { filter: [{ kinds: [1] }, { "#h": ["general"] }] });
  assert.deepEqual(queries, [[{ kinds: [9] }], [{ kinds: [1] }, { "#h": ["general"] }]]);
  assert.equal(
    await refusal(() => call(methods, "query", {})),
    "query: params.filter is required: a filter object, or an array of them",
  );
  const log: Log = [];
  const failing = new HelperMethods({
    ...({} as HelperParts),
    signer,
    stream: fakeStream(log, () => Promise.reject(new Error("query exceeds 10000 events"))).stream,
  });
  assert.equal(await refusal(() => call(failing, "query", { filter: {} })), "query exceeds 10000 events");
});

Deno.test("subscribe and unsubscribe reach the streams; their params checked", async () => {
  const { methods, log } = methodsFor();
  assert.deepEqual(await call(methods, "subscribe", { subscription: "tinyagent", filter: { kinds: [9] } }), {
    subscribed: true,
  });
  assert.deepEqual(await call(methods, "unsubscribe", { subscription: "live" }), { stopped: true });
  assert.deepEqual(await call(methods, "unsubscribe", { subscription: "gone" }), { stopped: false });
  assert.deepEqual(log, [
    'streams subscribe tinyagent {"kinds":[9]}',
    "streams unsubscribe live",
    "streams unsubscribe gone",
  ]);
  assert.equal(await refusal(() => call(methods, "subscribe", { filter: {} })), "subscription is required");
  assert.equal(
    await refusal(() => call(methods, "subscribe", { subscription: "n", filter: [{}] })),
    "subscribe: params.filter is required: one filter object (an array is for query)",
  );
  assert.equal(
    await refusal(() => call(methods, "unsubscribe", { subscription: 5 })),
    "unsubscribe: params.subscription must be a string",
  );
});

Deno.test("diagnose: the report against the relay, whatever the verdict; its params checked", async () => {
  const relay = await startStrictRelay();
  try {
    const { methods } = methodsFor({ endpoint: endpointOf(relay.url) });
    const report = await call(methods, "diagnose", { rooms: ["general"], kinds: [9] }) as JsonObject;
    assert.equal(typeof report, "object");
    assert.ok(JSON.stringify(report).includes(relay.url), JSON.stringify(report).slice(0, 300));
    assert.ok(relay.requests.some((r) => r.path === "/manage/rpc"), "browsegrant asked");
    assert.equal(
      await refusal(() => call(methods, "diagnose", { rooms: "general" })),
      "rooms must be an array of room ids",
    );
    assert.equal(
      await refusal(() => call(methods, "diagnose", { kinds: [70000] })),
      "kinds must be event kinds",
    );
  } finally {
    await relay.close();
  }
});

Deno.test('any other name is unknown method "<name>", quoted as JSON, inherited names too', async () => {
  const { methods, log } = methodsFor();
  for (
    const name of [
      "nope",
      "",
      "Identity",
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "valueOf",
      'say "hi"\n',
      "tools/call",
    ]
  ) {
    assert.equal(
      await refusal(() => call(methods, name, {})),
      `unknown method ${JSON.stringify(name)}`,
      JSON.stringify(name),
    );
  }
  assert.equal(await refusal(() => call(methods, "__proto__", {})), 'unknown method "__proto__"');
  assert.deepEqual(log, [], "nothing was reached");
});

Deno.test("only subscribe and unsubscribe answer at once", () => {
  const { methods } = methodsFor();
  for (const name of RPC_METHODS) {
    assert.equal(methods.immediate(name), name === "subscribe" || name === "unsubscribe", name);
  }
  assert.equal(methods.immediate("nope"), false);
});

Deno.test("without streams (under call): subscribe is an unknown method, unsubscribe stops nothing", async () => {
  const { methods, log } = methodsFor({ streams: false });
  assert.equal(
    await refusal(() => call(methods, "subscribe", { subscription: "n", filter: {} })),
    'unknown method "subscribe"',
  );
  assert.deepEqual(await call(methods, "unsubscribe", { subscription: "n" }), { stopped: false });
  assert.deepEqual(log, []);
  await methods.close();
});

Deno.test("every failure is a rejected promise, never a throw out of call()", async () => {
  const cases: [boolean, string, JsonObject][] = [
    [true, "nope", {}],
    [true, "query", {}],
    [true, "publish", {}],
    [true, "subscribe", {}],
    [true, "subscribe", { subscription: "n" }],
    [true, "unsubscribe", {}],
    [false, "subscribe", { subscription: "n", filter: {} }],
  ];
  for (const [streams, method, params] of cases) {
    const { methods } = methodsFor({ streams });
    let promise: Promise<unknown> | undefined;
    try {
      promise = call(methods, method, params);
    } catch (error) {
      assert.fail(`${method} ${JSON.stringify(params)}${streams ? "" : " (no streams)"} threw: ${error}`);
    }
    await assert.rejects(promise, RpcError);
  }
});

Deno.test("holdsKey: the key in hex, either case, or as its nsec, anywhere in a line", async () => {
  const { methods } = methodsFor();
  const nsec = nsecEncode(secretKey);
  for (
    const line of [
      `{"id":1,"method":"publish","params":{"event":{"content":"${keyHex}"}}}`,
      `{"id":1,"method":"publish","params":{"event":{"content":"key=${keyHex.toUpperCase()};"}}}`,
      `{"id":1,"method":"x","params":{"${keyHex}":1}}`,
      `{"id":"${nsec}","method":"identity"}`,
      `not json at all ${nsec.toUpperCase()}`,
      `{"params":{"a":"${keyHex.slice(0, 32)}${keyHex.slice(32).toUpperCase()}"}}`,
    ]
  ) {
    assert.equal(await methods.holdsKey(line), true, line.slice(0, 60));
  }
  for (
    const line of [
      `{"params":{"a":"${keyHex.slice(0, 63)}"}}`,
      `{"params":{"a":"${bytesToHex(generateSecretKey())}"}}`,
      `{"params":{"pubkey":"${getPublicKey(secretKey)}"}}`,
      `{"params":{"a":"${keyHex.slice(0, 32)} ${keyHex.slice(32)}"}}`,
      "",
    ]
  ) {
    assert.equal(await methods.holdsKey(line), false, line.slice(0, 60));
  }
});

Deno.test("close(): the streams end first, then the websocket client and the HTTP pool", async () => {
  const { methods, log } = methodsFor();
  await methods.close();
  assert.deepEqual(log, ["streams close", "stream close", "http close"]);
});
