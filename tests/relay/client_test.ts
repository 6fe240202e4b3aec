// The relay client in process (facade.md, "Relay protocol" and "Errors"):
// a RelayClient against the strict local relay, which verifies every token
// with nostr-tools and refuses replays. No tinyagent process is spawned.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { parseRelayUrl } from "../../lib/relay/endpoint.ts";
import { dial } from "../../lib/transport/dial.ts";
import { RelayClient } from "../../lib/relay/client.ts";
import { failureText, type RelayAnswer } from "../../lib/relay/answer.ts";
import { Signer } from "../../lib/key/signer.ts";
import {
  type Fault,
  startStrictRelay,
  type StrictRelay,
  type StrictRelayOptions,
} from "../support/strict_relay/mod.ts";

const { signer } = await Signer.generate();
const { pubkey } = await signer.identity();

async function withClient(
  options: { relay?: StrictRelayOptions; timeoutMs?: number; maxAnswerBytes?: number },
  fn: (client: RelayClient, relay: StrictRelay) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay(options.relay);
  const parsed = parseRelayUrl(relay.url);
  assert.ok(parsed.ok);
  const client = new RelayClient({
    endpoint: parsed.endpoint,
    signer,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxAnswerBytes: options.maxAnswerBytes,
  });
  try {
    await fn(client, relay);
  } finally {
    client.close();
    await relay.close();
  }
}

function failureOf(answer: RelayAnswer): string {
  assert.equal(answer.ok, false, JSON.stringify(answer));
  return answer.ok ? "" : failureText(answer.failure);
}

Deno.test("each request is one POST with a fresh proof the relay accepts", async (t) => {
  for (const prefix of ["", "/r/acme"]) {
    await t.step(`tools/list, tools/call and browsegrant${prefix ? ` under ${prefix}` : ""}`, async () => {
      await withClient({ relay: { prefix } }, async (client, relay) => {
        const list = await client.listTools();
        assert.ok(list.ok && Array.isArray(list.result.tools));
        const call = await client.callTool("list_rooms", {});
        assert.ok(call.ok, JSON.stringify(call));
        const manage = await client.manage("browsegrant", []);
        assert.ok(manage.ok && manage.status === 200, JSON.stringify(manage));
        assert.deepEqual(relay.requests.map((r) => r.path), [
          `${prefix}/mcp`,
          `${prefix}/mcp`,
          `${prefix}/manage/rpc`,
        ]);
        const urls = [relay.mcpUrl, relay.mcpUrl, relay.manageUrl];
        relay.requests.forEach((request, i) => {
          const event = request.auth!;
          assert.ok(verifyEvent(event));
          assert.equal(event.pubkey, pubkey);
          const tag = (name: string) => event.tags.find((tag) => tag[0] === name)?.[1];
          assert.equal(tag("u"), urls[i]);
          assert.equal(tag("method"), "POST");
          assert.equal(tag("payload"), bytesToHex(sha256(request.body)));
          assert.equal(request.status, 200);
        });
        assert.equal(new Set(relay.requests.map((r) => r.auth!.id)).size, 3, "a fresh token every time");
      });
    });
  }
  await t.step("a tool name that is not plain ASCII goes in Mcp-Name as =?base64?…?=", async () => {
    await withClient({}, async (client, relay) => {
      await client.callTool("salle_é", {});
      const header = relay.requests[0].headers.get("mcp-name");
      assert.equal(header, `=?base64?${new TextEncoder().encode("salle_é").toBase64()}?=`);
    });
  });
  await t.step("the management call is NIP-86: its content type and a method with params", async () => {
    await withClient({}, async (client, relay) => {
      await client.manage("browsegrant", [{ rooms: ["general"] }]);
      const [request] = relay.requests;
      assert.equal(request.headers.get("content-type"), "application/nostr+json+rpc");
      assert.deepEqual(request.json, { method: "browsegrant", params: [{ rooms: ["general"] }] });
    });
  });
});

Deno.test("calls are serialized: the relay never sees two at once", async () => {
  await withClient({}, async (client, relay) => {
    relay.delay(30);
    const answers = await Promise.all([
      client.listTools(),
      client.callTool("list_rooms", {}),
      client.manage("browsegrant", []),
      client.callTool("list_rooms", {}),
    ]);
    assert.ok(answers.every((answer) => answer.ok));
    assert.equal(relay.maxConcurrent, 1);
    assert.equal(relay.requests.length, 4);
  });
});

Deno.test("failures: each is the contract's prefix, and the next call succeeds", async (t) => {
  const cases: [string, Fault, RegExp, { timeoutMs?: number; maxAnswerBytes?: number }?][] = [
    [
      "a dropped connection",
      { drop: true },
      /^transport: no answer from .*: the relay closed the connection before any answer/,
    ],
    ["a body cut short", { resetMidBody: true }, /^transport: /],
    ["no answer within the bound", { hang: true }, /^transport: no answer from .* within 0.5 s$/, {
      timeoutMs: 500,
    }],
    ["HTTP 500", { status: 500, body: "{}" }, /^transport: HTTP 500/],
    [
      "HTTP 401",
      { status: 401, body: JSON.stringify({ error: "auth-required: token expired" }) },
      /^permission: auth-required: token expired$/,
    ],
    ["HTTP 403", { status: 403, body: "" }, /^permission: HTTP 403$/],
    [
      "a redirect, never followed",
      { status: 307, headers: { location: "http://127.0.0.1:9/mcp" } },
      /^relay: HTTP 307/,
    ],
    [
      "an answer over the size bound",
      { hugeBodyBytes: 4096, chunked: true },
      /^transport: the relay's answer exceeds/,
      { maxAnswerBytes: 1024 },
    ],
    ["a JSON-RPC error", { jsonrpcError: { code: -32000, message: "busy" } }, /^relay: busy$/],
  ];
  for (const [name, fault, expected, options] of cases) {
    await t.step(name, async () => {
      await withClient(options ?? {}, async (client, relay) => {
        relay.script(fault);
        assert.match(failureOf(await client.callTool("list_rooms", {})), expected);
        assert.ok((await client.callTool("list_rooms", {})).ok, "the next call succeeds");
      });
    });
  }
  await t.step("a relay that is not there", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const parsed = parseRelayUrl(`http://127.0.0.1:${port}`);
    assert.ok(parsed.ok);
    const client = new RelayClient({ endpoint: parsed.endpoint, signer, timeoutMs: 5_000 });
    assert.match(
      failureOf(await client.listTools()),
      /^transport: cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: /,
    );
  });
});

Deno.test("a request the relay cannot have read goes once more, on a new connection, with a new token", async (t) => {
  const relay = await startStrictRelay({ keepAlive: true });
  try {
    const parsed = parseRelayUrl(relay.url);
    assert.ok(parsed.ok);
    let dials = 0;
    // The first connection is one the relay already closed: the write of the request fails.
    const closedByTheRelay = {
      write: () => Promise.reject(new Deno.errors.BrokenPipe("Broken pipe (os error 32)")),
      read: () => Promise.resolve(null),
      close: () => {},
    };
    const client = new RelayClient({
      endpoint: parsed.endpoint,
      signer,
      timeoutMs: 10_000,
      transport: {
        dial: (target, options) => {
          dials++;
          return dials === 1 ? Promise.resolve(closedByTheRelay) : dial(target, options);
        },
      },
    });
    try {
      await t.step("the call succeeds on the second connection", async () => {
        assert.ok((await client.listTools()).ok);
        assert.equal(dials, 2);
      });
      await t.step("the relay saw the request once, with a token never sent before", () => {
        assert.equal(relay.requests.length, 1);
        assert.ok(verifyEvent(relay.requests[0].auth!));
      });
    } finally {
      client.close();
    }
  } finally {
    await relay.close();
  }
});

Deno.test("a request the relay may have read is never sent again: the connection dies after the call ran", async () => {
  for (const how of ["fin", "close"] as const) {
    const relay = await startStrictRelay({ keepAlive: true });
    const parsed = parseRelayUrl(relay.url);
    assert.ok(parsed.ok);
    const client = new RelayClient({ endpoint: parsed.endpoint, signer, timeoutMs: 10_000 });
    try {
      assert.ok((await client.callTool("list_rooms", {})).ok);
      assert.ok((await client.callTool("list_rooms", {})).ok);
      relay.script({ cutAfterRun: true, how });
      const lost = await client.callTool("list_rooms", {});
      assert.match(failureOf(lost), /^transport: no answer from /);
      assert.equal(
        !lost.ok && lost.failure.unsent,
        undefined,
        "the relay may have read it: not marked unsent",
      );
      assert.equal(relay.requests.length, 3, `${how}: the third request reached the relay once`);
      assert.ok((await client.callTool("list_rooms", {})).ok, "the next call succeeds");
      assert.equal(client.connectionsOpened, 2);
    } finally {
      client.close();
      await relay.close();
    }
  }
});

Deno.test("a call whose bound ends while its connection opens names the step, gives the attempt up, and the next call dials afresh", async () => {
  const relay = await startStrictRelay({ keepAlive: true });
  try {
    const parsed = parseRelayUrl(relay.url);
    assert.ok(parsed.ok);
    const given: AbortSignal[] = [];
    const client = new RelayClient({
      endpoint: parsed.endpoint,
      signer,
      timeoutMs: 300,
      transport: {
        // The first dial reaches the TLS step and stalls there; it settles only when given up.
        stepMs: 60_000,
        dial: (target, options) => {
          given.push(options.signal!);
          if (given.length > 1) return dial(target, options);
          options.onStage?.("connect");
          options.onStage?.("tls");
          return new Promise((_, reject) => {
            options.signal!.addEventListener("abort", () => reject(new Error("given up")), { once: true });
          });
        },
      },
    });
    try {
      const stalled = await client.callTool("list_rooms", {});
      assert.equal(!stalled.ok && stalled.failure.unsent, true, "nothing went out: marked unsent");
      assert.match(
        failureOf(stalled),
        /^transport: cannot reach http:\/\/127\.0\.0\.1:\d+\/mcp: the TLS handshake with 127\.0\.0\.1:\d+ did not complete within 0\.3 s; if the relay serves plain HTTP there, use http:\/\/ in --relay$/,
      );
      assert.equal(given[0].aborted, true, "the stalled attempt was given up");
      assert.ok((await client.callTool("list_rooms", {})).ok, "the next call succeeds on a new dial");
      assert.equal(given.length, 2);
      assert.equal(relay.requests.length, 1, "nothing was sent on the stalled attempt");
    } finally {
      client.close();
    }
  } finally {
    await relay.close();
  }
});

Deno.test("a relay nobody listens for: the failure says nothing went out (unsent)", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const parsed = parseRelayUrl(`http://127.0.0.1:${port}`);
  assert.ok(parsed.ok);
  const client = new RelayClient({ endpoint: parsed.endpoint, signer, timeoutMs: 5_000 });
  try {
    const answer = await client.callTool("post_message", { room: "general" });
    assert.match(failureOf(answer), /^transport: cannot reach /);
    assert.equal(!answer.ok && answer.failure.unsent, true);
  } finally {
    client.close();
  }
});
