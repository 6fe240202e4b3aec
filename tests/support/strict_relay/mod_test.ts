// The strict relay is the oracle for the whole suite, so these tests prove it refuses what the real
// relay refuses, in the same order, and that every scripted fault is observable from fetch.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes } from "@noble/hashes/utils.js";
import {
  DEFAULT_TOOLS,
  nip86Error,
  PROTOCOL_VERSION,
  startStrictRelay,
  type StrictRelay,
  type StrictRelayOptions,
} from "./mod.ts";
import { parseResponses, rawExchange } from "../http_raw.ts";

const SK = generateSecretKey();
const PK = getPublicKey(SK);
const enc = new TextEncoder();

function b64(text: string, { urlSafe = false, pad = true } = {}): string {
  let out = btoa(String.fromCharCode(...enc.encode(text)));
  if (urlSafe) out = out.replaceAll("+", "-").replaceAll("/", "_");
  return pad ? out : out.replace(/=+$/, "");
}

interface TokenOptions {
  sk?: Uint8Array;
  kind?: number;
  createdAt?: number;
  /** null leaves the tag out */
  u?: string | null;
  method?: string | null;
  /** a hex digest, or null to leave the tag out; default: SHA-256 of body */
  payload?: string | null;
  urlSafe?: boolean;
  pad?: boolean;
  /** edit the signed event (breaking its signature) */
  tamper?: (ev: NostrEvent) => void;
}

/** A signed NIP-98 event for `url` and `body`, as an Authorization header value. */
function nip98(url: string, body: Uint8Array | string, o: TokenOptions = {}): string {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  const tags: string[][] = [["nonce", bytesToHex(randomBytes(12))]];
  if (o.u !== null) tags.push(["u", o.u ?? url]);
  if (o.method !== null) tags.push(["method", o.method ?? "POST"]);
  if (o.payload !== null) tags.push(["payload", o.payload ?? bytesToHex(sha256(bytes))]);
  const ev = finalizeEvent({
    kind: o.kind ?? 27235,
    created_at: o.createdAt ?? Math.floor(Date.now() / 1000),
    tags,
    content: "",
  }, o.sk ?? SK);
  const plain = { ...ev };
  o.tamper?.(plain);
  return `Nostr ${b64(JSON.stringify(plain), { urlSafe: o.urlSafe, pad: o.pad })}`;
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

let nextId = 1;

interface RpcOptions {
  /** header overrides; null removes a header */
  headers?: Record<string, string | null>;
  /** a whole raw body instead of the JSON-RPC message */
  body?: string;
  /** no id: a notification */
  notification?: boolean;
  /** replace params._meta */
  meta?: unknown;
  token?: TokenOptions;
  /** URL to POST to (default relay.mcpUrl); the token is still signed for tokenUrl ?? url */
  url?: string;
  tokenUrl?: string;
  signal?: AbortSignal;
}

function rpcRequest(
  relay: StrictRelay,
  method: string,
  params: Record<string, unknown> = {},
  o: RpcOptions = {},
) {
  const url = o.url ?? relay.mcpUrl;
  const meta = o.meta !== undefined ? o.meta : {
    "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "strict-relay-test", version: "0" },
  };
  const message: Record<string, unknown> = { jsonrpc: "2.0", method, params: { ...params, _meta: meta } };
  if (!o.notification) message.id = nextId++;
  const body = o.body ?? JSON.stringify(message);
  const headers: Record<string, string> = {
    "Authorization": nip98(o.tokenUrl ?? url, body, o.token),
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
    "Mcp-Method": method,
  };
  if (method === "tools/call" && typeof params.name === "string") headers["Mcp-Name"] = params.name;
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    const existing = Object.keys(headers).find((h) => h.toLowerCase() === k.toLowerCase());
    if (existing) delete headers[existing];
    if (v !== null) headers[k] = v;
  }
  return { url, init: { method: "POST", headers, body, signal: o.signal } };
}

async function rpc(
  relay: StrictRelay,
  method: string,
  params: Record<string, unknown> = {},
  o: RpcOptions = {},
) {
  const { url, init } = rpcRequest(relay, method, params, o);
  return await answer(await fetch(url, init));
}

function call(relay: StrictRelay, name: string, args: Record<string, unknown> = {}, o: RpcOptions = {}) {
  return rpc(relay, "tools/call", { name, arguments: args }, o);
}

async function manage(
  relay: StrictRelay,
  body: unknown,
  o: { token?: TokenOptions; contentType?: string; tokenUrl?: string } = {},
): Promise<Answer> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetch(relay.manageUrl, {
    method: "POST",
    headers: {
      "Authorization": nip98(o.tokenUrl ?? relay.manageUrl, text, o.token),
      "Content-Type": o.contentType ?? "application/nostr+json+rpc",
    },
    body: text,
  });
  return await answer(res);
}

/** Runs fn against a fresh relay and always closes it. */
async function withRelay(
  options: StrictRelayOptions,
  fn: (relay: StrictRelay) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay(options);
  try {
    await fn(relay);
  } finally {
    await relay.close();
  }
}

function assertRpcError(a: Answer, status: number, code: number, message?: RegExp) {
  assert.equal(a.status, status, a.text);
  assert.equal(a.json?.jsonrpc, "2.0");
  assert.equal(a.json?.error?.code, code, a.text);
  if (message) assert.match(a.json.error.message, message);
}

function assertAuthRefused(a: Answer, reason: RegExp) {
  assert.equal(a.status, 401, a.text);
  assert.equal(a.headers.get("www-authenticate"), 'Nostr realm="tiny"');
  assert.equal(a.json.id, null);
  assert.equal(a.json.error.code, -32600);
  assert.match(a.json.error.message, /^auth-required: /);
  assert.match(a.json.error.message, reason);
}

Deno.test("strict relay: good calls", async (t) => {
  await withRelay({}, async (relay) => {
    assert.equal(relay.url, `http://127.0.0.1:${relay.port}`);
    assert.equal(relay.origin, relay.url);
    assert.equal(relay.host, `127.0.0.1:${relay.port}`);

    await t.step("server/discover", async () => {
      const a = await rpc(relay, "server/discover");
      assert.equal(a.status, 200);
      assert.match(a.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(a.json.result.supportedVersions, [PROTOCOL_VERSION]);
      assert.equal(a.json.result.resultType, "complete");
      assert.deepEqual(a.json.result._meta["io.modelcontextprotocol/serverInfo"], {
        name: "strict-relay",
        version: "test",
      });
    });

    await t.step("tools/list carries the whole table, ttl and cache scope", async () => {
      const a = await rpc(relay, "tools/list");
      assert.equal(a.status, 200);
      const { result, id } = a.json;
      assert.equal(typeof id, "number");
      assert.equal(result.ttlMs, 60000);
      assert.equal(result.cacheScope, "private");
      assert.equal(result.resultType, "complete");
      const names: string[] = result.tools.map((t: { name: string }) => t.name);
      assert.deepEqual(names, DEFAULT_TOOLS.map((t) => t.name));
      assert.ok(!names.includes("tiny_diagnose"));
      for (
        const n of ["list_join_requests", "read_management", "publish_event", "cancel_job", "resume_callback"]
      ) {
        assert.ok(names.includes(n), n);
      }
      for (const tool of result.tools) {
        assert.equal(tool.inputSchema.type, "object", tool.name);
        assert.equal(typeof tool.description, "string");
        assert.ok(tool.annotations);
      }
      assert.ok(result.tools.filter((t: { outputSchema?: unknown }) => t.outputSchema).length >= 3);
      assert.ok(result.tools.filter((t: { title?: unknown }) => t.title).length >= 3);
    });

    await t.step("a read tool answers as the signer", async () => {
      const a = await call(relay, "list_rooms", { limit: 5 });
      assert.equal(a.status, 200);
      const r = a.json.result;
      assert.equal(r.isError, false);
      assert.deepEqual(r.structuredContent, { tool: "list_rooms", arguments: { limit: 5 }, caller: PK });
      assert.deepEqual(JSON.parse(r.content[0].text), r.structuredContent);
      assert.equal(relay.requests.at(-1)?.auth?.pubkey, PK);
      assert.equal(relay.requests.at(-1)?.status, 200);
    });

    await t.step("arguments failing the schema are a tool error", async () => {
      const a = await call(relay, "read_room", { limit: "x" });
      assert.equal(a.status, 200);
      assert.equal(a.json.result.isError, true);
      assert.match(a.json.result.content[0].text, /^invalid: id is required/);
    });

    await t.step("a notification is accepted with 202 and no body", async () => {
      const a = await rpc(relay, "notifications/initialized", {}, { notification: true });
      assert.equal(a.status, 202);
      assert.equal(a.text, "");
    });

    await t.step("URL-safe unpadded token and a base64 Mcp-Name are accepted", async () => {
      const a = await call(relay, "list_files", {}, {
        token: { urlSafe: true, pad: false },
        headers: { "Mcp-Name": `=?base64?${b64("list_files")}?=` },
      });
      assert.equal(a.status, 200, a.text);
    });

    await t.step("write tool: template, then signed event published", async () => {
      const args = { room: "general", content: "hello", mentions: [PK] };
      const first = await call(relay, "post_message", args);
      assert.equal(first.status, 200);
      const { unsigned, next } = first.json.result.structuredContent;
      assert.equal(unsigned.kind, 9);
      assert.deepEqual(unsigned.tags, [["h", "general"], ["p", PK]]);
      assert.equal(unsigned.content, "hello");
      assert.match(next, /call post_message again/);
      const signed = finalizeEvent({ ...unsigned }, SK);
      const second = await call(relay, "post_message", { ...args, event: signed });
      assert.deepEqual(second.json.result.structuredContent, {
        event_id: signed.id,
        accepted: true,
        message: "",
      });
      assert.deepEqual(relay.published.map((e) => e.id), [signed.id]);
    });

    await t.step("write tool refuses a wrong kind, edited tags, a foreign signer", async () => {
      const args = { room: "general", content: "x" };
      const { unsigned } = (await call(relay, "post_message", args)).json.result.structuredContent;
      const wrongKind = finalizeEvent({ ...unsigned, kind: 1 }, SK);
      let a = await call(relay, "post_message", { ...args, event: wrongKind });
      assert.equal(a.json.result.isError, true);
      assert.match(a.json.result.content[0].text, /^invalid: kind 1 /);
      assert.equal(a.json.result.structuredContent.accepted, false);
      const edited = finalizeEvent({ ...unsigned, tags: [["h", "other"]] }, SK);
      a = await call(relay, "post_message", { ...args, event: edited });
      assert.match(a.json.result.content[0].text, /^invalid: tags do not match/);
      const foreign = finalizeEvent({ ...unsigned }, generateSecretKey());
      a = await call(relay, "post_message", { ...args, event: foreign });
      assert.match(a.json.result.content[0].text, /^invalid: event pubkey/);
      const broken = { ...finalizeEvent({ ...unsigned }, SK), content: "changed" };
      a = await call(relay, "post_message", { ...args, event: broken });
      assert.match(a.json.result.content[0].text, /^invalid: bad event signature/);
      assert.equal(relay.published.length, 1);
    });

    await t.step("per-tool kinds: request_decision comment form, request_grant, request_job", async () => {
      const root = "ab".repeat(32);
      const decision = await call(relay, "request_decision", {
        pubkey: PK,
        request: "approve",
        root,
        root_kind: 1621,
        root_pubkey: PK,
      });
      assert.equal(decision.json.result.structuredContent.unsigned.kind, 1111);
      const grant = await call(relay, "request_grant", { reason: "need rooms", changes: { rooms: ["ops"] } });
      assert.equal(grant.json.result.structuredContent.unsigned.kind, 1111);
      const job = await call(relay, "request_job", { room: "general", assignees: [PK], content: "do it" });
      assert.equal(job.json.result.structuredContent.unsigned.kind, 43001);
      const pub = await call(relay, "publish_event", {});
      assert.equal(pub.json.result.isError, true);
      const any = finalizeEvent({ kind: 30023, created_at: 1, tags: [], content: "article" }, SK);
      const published = await call(relay, "publish_event", { event: any });
      assert.equal(published.json.result.structuredContent.accepted, true);
      assert.equal(relay.published.at(-1)?.id, any.id);
      const again = await call(relay, "publish_event", { event: any });
      assert.match(again.json.result.structuredContent.message, /^duplicate:/);
      const closed = await call(relay, "set_status", { target: root, status: "closed" });
      assert.equal(closed.json.result.structuredContent.unsigned.kind, 1632);
    });

    await t.step("upload_attachment then read_attachment returns the bytes", async () => {
      const up = await call(relay, "upload_attachment", {
        room: "general",
        data: b64("hello file"),
        type: "text/plain",
      });
      const d = up.json.result.structuredContent;
      assert.equal(d.sha256, bytesToHex(sha256(enc.encode("hello file"))));
      assert.equal(d.size, 10);
      assert.equal(d.unsigned, undefined);
      const read = await call(relay, "read_attachment", { sha256: d.sha256 });
      assert.equal(read.json.result.structuredContent.data, b64("hello file"));
      const png = await call(relay, "read_attachment", { sha256: "00".repeat(32) });
      assert.equal(png.json.result.content[0].type, "image");
      assert.equal(png.json.result.content[0].mimeType, "image/png");
      assert.equal(png.json.result.structuredContent.type, "image/png");
    });

    await t.step(
      "setTool overrides a tool and extra results still get resultType and serverInfo",
      async () => {
        relay.setTool("read_status", (ctx) => ({ content: [{ type: "text", text: `hi ${ctx.pubkey}` }] }));
        const a = await call(relay, "read_status");
        assert.equal(a.json.result.content[0].text, `hi ${PK}`);
        assert.equal(a.json.result.resultType, "complete");
        assert.ok(a.json.result._meta["io.modelcontextprotocol/serverInfo"]);
      },
    );
  });
});

Deno.test("strict relay: NIP-98 refusals", async (t) => {
  await withRelay({}, async (relay) => {
    const cases: [string, RpcOptions, RegExp][] = [
      ["missing token", { headers: { Authorization: null } }, /missing token/],
      ["bad signature", {
        token: { tamper: (ev) => (ev.sig = ev.sig.replace(/^./, (c) => (c === "0" ? "1" : "0"))) },
      }, /invalid signature/],
      ["edited event", { token: { tamper: (ev) => (ev.created_at -= 1) } }, /invalid signature/],
      ["wrong kind", { token: { kind: 27236 } }, /wrong kind/],
      ["expired", { token: { createdAt: Math.floor(Date.now() / 1000) - 120 } }, /token expired/],
      ["future", { token: { createdAt: Math.floor(Date.now() / 1000) + 120 } }, /future/],
      ["wrong u path", { tokenUrl: "http://127.0.0.1:1/mcp" }, /url mismatch/],
      ["missing u", { token: { u: null } }, /url mismatch/],
      ["wrong method", { token: { method: "GET" } }, /method mismatch/],
      ["wrong payload", { token: { payload: "00".repeat(32) } }, /payload mismatch/],
      ["missing payload", { token: { payload: null } }, /missing payload/],
      ["not base64", { headers: { Authorization: "Nostr %%%" } }, /encoding/],
      ["other scheme", { headers: { Authorization: "Bearer abc" } }, /scheme/],
    ];
    for (const [name, options, reason] of cases) {
      await t.step(name, async () => assertAuthRefused(await rpc(relay, "tools/list", {}, options), reason));
    }

    await t.step("u compares scheme and host lowercase, method case-insensitively", async () => {
      const url = relay.mcpUrl.replace("http://", "HTTP://");
      const a = await rpc(relay, "tools/list", {}, { tokenUrl: url, token: { method: "post" } });
      assert.equal(a.status, 200, a.text);
    });

    await t.step("a query in u must match the request", async () => {
      const a = await rpc(relay, "tools/list", {}, { tokenUrl: `${relay.mcpUrl}?x=1` });
      assertAuthRefused(a, /url mismatch/);
      const b = await rpc(relay, "tools/list", {}, { url: `${relay.mcpUrl}?x=1` });
      assert.equal(b.status, 200, b.text);
    });

    await t.step("a replayed token is refused the second time", async () => {
      const { url, init } = rpcRequest(relay, "tools/list");
      const first = await answer(await fetch(url, init));
      assert.equal(first.status, 200);
      assertAuthRefused(await answer(await fetch(url, init)), /replayed token/);
    });

    await t.step("the payload covers the raw bytes, not a re-serialization", async () => {
      const body = `{ "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "${PROTOCOL_VERSION}",
        "io.modelcontextprotocol/clientCapabilities": {}}} }`;
      const compact = JSON.stringify(JSON.parse(body));
      assertAuthRefused(
        await rpc(relay, "tools/list", {}, {
          body,
          token: { payload: bytesToHex(sha256(enc.encode(compact))) },
        }),
        /payload mismatch/,
      );
      const ok = await rpc(relay, "tools/list", {}, { body });
      assert.equal(ok.status, 200, ok.text);
      assert.equal(ok.json.id, 7);
    });
  });
});

Deno.test("strict relay: request checks in the relay's order", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("GET and DELETE are 405 with Allow: POST", async () => {
      for (const method of ["GET", "DELETE"]) {
        const a = await answer(await fetch(relay.mcpUrl, { method }));
        assert.equal(a.status, 405);
        assert.equal(a.headers.get("allow"), "POST");
      }
    });

    await t.step("other paths are 404", async () => {
      const a = await answer(await fetch(`${relay.origin}/other`, { method: "POST", body: "{}" }));
      assert.equal(a.status, 404);
    });

    await t.step("a foreign Origin is 403, even before auth; the own origin passes", async () => {
      assertRpcError(
        await rpc(relay, "tools/list", {}, {
          headers: { Origin: "http://evil.example", Authorization: null },
        }),
        403,
        -32600,
      );
      const ok = await rpc(relay, "tools/list", {}, { headers: { Origin: relay.origin } });
      assert.equal(ok.status, 200, ok.text);
    });

    await t.step("auth comes before Accept and Content-Type", async () => {
      const a = await rpc(relay, "tools/list", {}, {
        headers: { Authorization: null, Accept: "text/html", "Content-Type": "text/plain" },
      });
      assert.equal(a.status, 401);
    });

    await t.step("Accept without application/json is 406; */* passes", async () => {
      assert.equal(
        (await rpc(relay, "tools/list", {}, { headers: { Accept: "text/event-stream" } })).status,
        406,
      );
      assert.equal((await rpc(relay, "tools/list", {}, { headers: { Accept: "*/*" } })).status, 200);
      assert.equal((await rpc(relay, "tools/list", {}, { headers: { Accept: null } })).status, 200);
    });

    await t.step("Content-Type other than application/json is 415", async () => {
      assert.equal(
        (await rpc(relay, "tools/list", {}, { headers: { "Content-Type": "text/plain" } })).status,
        415,
      );
      const ok = await rpc(relay, "tools/list", {}, {
        headers: { "Content-Type": "application/json; charset=utf-8" },
      });
      assert.equal(ok.status, 200);
    });

    await t.step("bodies that are not one JSON-RPC object", async () => {
      assertRpcError(await rpc(relay, "tools/list", {}, { body: "{not json" }), 400, -32700);
      assertRpcError(await rpc(relay, "tools/list", {}, { body: "[]" }), 400, -32700);
      assertRpcError(
        await rpc(relay, "tools/list", {}, { body: '{"jsonrpc":"1.0","id":1,"method":"tools/list"}' }),
        400,
        -32600,
      );
      assertRpcError(await rpc(relay, "tools/list", {}, { body: '{"jsonrpc":"2.0","id":1}' }), 400, -32600);
    });

    await t.step("protocol version header", async () => {
      assertRpcError(
        await rpc(relay, "tools/list", {}, { headers: { "MCP-Protocol-Version": null } }),
        400,
        -32020,
      );
      const a = await rpc(relay, "tools/list", {}, { headers: { "MCP-Protocol-Version": "2025-06-18" } });
      assertRpcError(a, 400, -32022);
      assert.deepEqual(a.json.error.data, { supported: [PROTOCOL_VERSION], requested: "2025-06-18" });
      assert.equal(typeof a.json.id, "number");
    });

    await t.step("_meta", async () => {
      assertRpcError(await rpc(relay, "tools/list", {}, { meta: null }), 400, -32602);
      assertRpcError(
        await rpc(relay, "tools/list", {}, {
          meta: {
            "io.modelcontextprotocol/protocolVersion": "2025-06-18",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        }),
        400,
        -32020,
      );
      assertRpcError(
        await rpc(relay, "tools/list", {}, {
          meta: { "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION },
        }),
        400,
        -32602,
        /clientCapabilities/,
      );
    });

    await t.step("Mcp-Method and Mcp-Name must match the body", async () => {
      assertRpcError(
        await rpc(relay, "tools/list", {}, { headers: { "Mcp-Method": "tools/call" } }),
        400,
        -32020,
      );
      assertRpcError(await rpc(relay, "tools/list", {}, { headers: { "Mcp-Method": null } }), 400, -32020);
      assertRpcError(await call(relay, "list_rooms", {}, { headers: { "Mcp-Name": null } }), 400, -32020);
      assertRpcError(
        await call(relay, "list_rooms", {}, { headers: { "Mcp-Name": "list_files" } }),
        400,
        -32020,
      );
      assertRpcError(
        await call(relay, "list_rooms", {}, { headers: { "Mcp-Name": `=?base64?${b64("list_files")}?=` } }),
        400,
        -32020,
      );
    });

    await t.step("unknown tool and unserved methods", async () => {
      assertRpcError(await call(relay, "tiny_diagnose"), 400, -32602, /^Unknown tool: tiny_diagnose$/);
      assertRpcError(await rpc(relay, "initialize", { protocolVersion: "2025-06-18" }), 404, -32601);
      assertRpcError(await rpc(relay, "ping"), 404, -32601);
    });
  });

  await t.step("a body over maxBodyBytes is 413", async () => {
    await withRelay({ maxMessageBytes: 1024 }, async (relay) => {
      const a = await call(relay, "list_rooms", { q: "x".repeat(2000) });
      assert.equal(a.status, 413);
      assert.equal(relay.requests[0].bodySize > 1024, true);
      // The connection stays usable: the oversized body was read to its end.
      assert.equal((await rpc(relay, "tools/list")).status, 200);
    });
  });
});

Deno.test("strict relay: tenant prefix, extra tools, members-only", async (t) => {
  await t.step("prefix", async () => {
    await withRelay({ prefix: "/r/acme" }, async (relay) => {
      assert.equal(relay.url, `${relay.origin}/r/acme`);
      assert.equal(relay.mcpUrl, `${relay.origin}/r/acme/mcp`);
      assert.equal((await rpc(relay, "tools/list")).status, 200);
      assert.equal((await rpc(relay, "tools/list", {}, { url: `${relay.origin}/mcp` })).status, 404);
      assertAuthRefused(
        await rpc(relay, "tools/list", {}, { tokenUrl: `${relay.origin}/mcp` }),
        /url mismatch/,
      );
    });
  });

  await t.step("extraTools and setTable", async () => {
    const diag = {
      name: "tiny_diagnose",
      description: "relay-side impostor",
      inputSchema: { type: "object" },
    };
    await withRelay({ extraTools: [diag] }, async (relay) => {
      const names = (await rpc(relay, "tools/list")).json.result.tools.map((t: { name: string }) => t.name);
      assert.equal(names.at(-1), "tiny_diagnose");
      assert.equal(names.length, DEFAULT_TOOLS.length + 1);
      relay.setTable([DEFAULT_TOOLS[0]]);
      assert.equal((await rpc(relay, "tools/list")).json.result.tools.length, 1);
      assertRpcError(await call(relay, "list_rooms"), 400, -32602);
    });
  });

  await t.step("members-only refuses a non-member on both endpoints", async () => {
    await withRelay({ membersOnly: true }, async (relay) => {
      const a = await rpc(relay, "tools/list");
      assert.equal(a.status, 403);
      assert.match(a.json.error.message, /^restricted: this relay is members-only$/);
      const m = await manage(relay, { method: "browsegrant", params: [] });
      assert.equal(m.status, 403);
      assert.deepEqual(m.json, { error: "restricted: this relay is members-only" });
      relay.members.add(PK);
      assert.equal((await rpc(relay, "tools/list")).status, 200);
    });
  });
});

Deno.test("strict relay: faults", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("scripted status and body, consumed before any check", async () => {
      relay.script({ status: 503, body: "down", contentType: "text/plain" });
      const a = await answer(await fetch(relay.mcpUrl, { method: "POST", body: "garbage" }));
      assert.equal(a.status, 503);
      assert.equal(a.text, "down");
      assert.equal((await rpc(relay, "tools/list")).status, 200);
    });

    await t.step("drop: fetch rejects", async () => {
      relay.script({ drop: true });
      const { url, init } = rpcRequest(relay, "tools/list");
      await assert.rejects(fetch(url, init));
      assert.equal(relay.requests.at(-1)?.status, undefined);
      assert.equal(relay.requests.at(-1)?.auth?.pubkey, PK); // recorded even though never checked
      assert.equal((await rpc(relay, "tools/list")).status, 200);
    });

    await t.step("resetMidBody: headers arrive, reading the body rejects", async () => {
      relay.script({ resetMidBody: true });
      const { url, init } = rpcRequest(relay, "tools/list");
      const res = await fetch(url, init);
      assert.equal(res.status, 200);
      await assert.rejects(res.text());
    });

    await t.step("hang: the client's timeout fires; the relay keeps serving", async () => {
      relay.script({ hang: true });
      const { url, init } = rpcRequest(relay, "tools/list", {}, { signal: AbortSignal.timeout(200) });
      await assert.rejects(fetch(url, init), (e: Error) => e.name === "TimeoutError");
      assert.equal((await rpc(relay, "tools/list")).status, 200);
    });

    await t.step("jsonrpcError carries the request id", async () => {
      relay.script({ jsonrpcError: { code: -32000, message: "boom", data: { x: 1 } } });
      const { url, init } = rpcRequest(relay, "tools/list");
      const a = await answer(await fetch(url, init));
      assert.equal(a.status, 400);
      assert.equal(a.json.id, JSON.parse(init.body).id);
      assert.deepEqual(a.json.error, { code: -32000, message: "boom", data: { x: 1 } });
    });

    await t.step("hugeBodyBytes, with Content-Length and chunked", async () => {
      relay.script({ hugeBodyBytes: 300_000 }, { hugeBodyBytes: 200_001, chunked: true });
      const a = await fetch(relay.mcpUrl, { method: "POST" });
      assert.equal(a.headers.get("content-length"), "300000");
      const text = await a.text();
      assert.equal(text.length, 300_000);
      assert.equal(JSON.parse(text).length, 299_998);
      const b = await fetch(relay.mcpUrl, { method: "POST" });
      assert.equal(b.headers.get("content-length"), null);
      assert.equal((await b.text()).length, 200_001);
    });

    await t.step("a tool handler may answer with a fault", async () => {
      relay.setTool("list_rooms", () => ({ status: 502, body: "bad gateway", contentType: "text/plain" }));
      const a = await call(relay, "list_rooms");
      assert.equal(a.status, 502);
      relay.setTool(
        "list_rooms",
        () => ({ jsonrpcError: { code: -32603, message: "internal" }, status: 500 }),
      );
      assertRpcError(await call(relay, "list_rooms"), 500, -32603);
    });

    await t.step("delay and maxConcurrent", async () => {
      relay.delay(150);
      const started = Date.now();
      await Promise.all([rpc(relay, "tools/list"), rpc(relay, "tools/list"), rpc(relay, "tools/list")]);
      assert.ok(Date.now() - started >= 140);
      assert.equal(relay.maxConcurrent, 3);
      relay.delay(0);
    });
  });

  await t.step("a serializing client is seen one at a time", async () => {
    await withRelay({}, async (relay) => {
      relay.delay(5);
      for (let i = 0; i < 20; i++) assert.equal((await rpc(relay, "tools/list")).status, 200);
      assert.equal(relay.maxConcurrent, 1);
      assert.equal(relay.inFlight, 0);
    });
  });

  await t.step("close() ends a hung request and a pending delay", async () => {
    const relay = await startStrictRelay();
    relay.script({ hang: true });
    const { url, init } = rpcRequest(relay, "tools/list");
    const pending = fetch(url, init).then(() => "answered", () => "rejected");
    while (relay.inFlight === 0) await new Promise((r) => setTimeout(r, 5));
    await relay.close();
    assert.equal(await pending, "rejected");
  });
});

Deno.test("strict relay: NIP-86 browsegrant", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("default result without asked lists has no missing", async () => {
      const a = await manage(relay, { method: "browsegrant", params: [] });
      assert.equal(a.status, 200, a.text);
      const r = a.json.result;
      assert.equal(r.member, true);
      assert.equal(r.role, "agent");
      assert.equal(r.enforced, true);
      assert.equal(r.state, "active");
      assert.equal(r.grant.pubkey, PK);
      assert.equal(r.grant.scope.rate, 60);
      assert.equal(r.expires, r.grant.expires);
      assert.equal(r.missing, undefined);
      assert.equal((await manage(relay, { method: "browsegrant" })).status, 200);
    });

    await t.step("asked rooms and kinds outside the scope are missing", async () => {
      const a = await manage(relay, {
        method: "browsegrant",
        params: [{ rooms: ["general", "ops"], kinds: [9, 30023] }],
      });
      assert.deepEqual(a.json.result.missing, { rooms: ["ops"], kinds: [30023] });
    });

    await t.step("invalid lists", async () => {
      for (
        const p of [{ rooms: [""] }, { kinds: [70000] }, { kinds: [1.5] }, { rooms: Array(257).fill("r") }]
      ) {
        const a = await manage(relay, { method: "browsegrant", params: [p] });
        assert.equal(a.status, 400, JSON.stringify(p));
        assert.match(a.json.error, /^invalid: /);
      }
    });

    await t.step("unsupported method", async () => {
      const a = await manage(relay, { method: "listbannedpubkeys", params: [] });
      assert.equal(a.status, 400);
      assert.deepEqual(a.json, { error: 'unsupported: management method "listbannedpubkeys"' });
    });

    await t.step("content type, u and payload are enforced", async () => {
      assert.equal(
        (await manage(relay, { method: "browsegrant" }, { contentType: "application/json" })).status,
        415,
      );
      const wrongU = await manage(relay, { method: "browsegrant" }, { tokenUrl: relay.mcpUrl });
      assert.equal(wrongU.status, 401);
      assert.equal(wrongU.headers.get("www-authenticate"), 'Nostr realm="tiny"');
      assert.match(wrongU.json.error, /^auth-required: url mismatch/);
      const noPayload = await manage(relay, { method: "browsegrant" }, { token: { payload: null } });
      assert.match(noPayload.json.error, /^auth-required: missing payload/);
    });

    await t.step("setBrowsegrant: a custom result, then a fault", async () => {
      relay.setBrowsegrant((pubkey, params) => ({
        member: false,
        role: "",
        grant: null,
        state: "none",
        pubkey,
        params,
      }));
      const a = await manage(relay, { method: "browsegrant", params: [{ rooms: ["x"] }] });
      assert.deepEqual(a.json.result, {
        member: false,
        role: "",
        grant: null,
        state: "none",
        pubkey: PK,
        params: [{ rooms: ["x"] }],
      });
      relay.setBrowsegrant(() => nip86Error("restricted: grant revoked"));
      const b = await manage(relay, { method: "browsegrant" });
      assert.equal(b.status, 403);
      assert.deepEqual(b.json, { error: "restricted: grant revoked" });
      relay.setBrowsegrant(() => ({ drop: true }));
      await assert.rejects(manage(relay, { method: "browsegrant" }));
    });
  });
});

Deno.test("strict relay: raw HTTP framing", async (t) => {
  await withRelay({ keepAlive: true }, async (relay) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    });
    const head = (token: string, extra: string) =>
      `POST /mcp HTTP/1.1\r\nHost: ${relay.host}\r\nAuthorization: ${token}\r\nContent-Type: application/json\r\n` +
      `MCP-Protocol-Version: ${PROTOCOL_VERSION}\r\nMcp-Method: tools/list\r\n${extra}\r\n`;

    await t.step("keep-alive: two requests on one connection", async () => {
      const req1 = head(nip98(relay.mcpUrl, body), `Content-Length: ${enc.encode(body).length}\r\n`) + body;
      const req2 = head(
        nip98(relay.mcpUrl, body),
        `Content-Length: ${enc.encode(body).length}\r\nConnection: close\r\n`,
      ) + body;
      const responses = parseResponses(await rawExchange(relay.port, req1 + req2));
      assert.deepEqual(responses.map((r) => r.status), [200, 200]);
      assert.equal(responses[1].headers.get("connection"), "close");
    });

    await t.step("a chunked body is accepted and its payload is the de-chunked bytes", async () => {
      const bytes = enc.encode(body);
      const chunked = `10\r\n${body.slice(0, 16)}\r\n${(bytes.length - 16).toString(16)}\r\n${
        body.slice(16)
      }\r\n0\r\n\r\n`;
      const req = head(nip98(relay.mcpUrl, body), "Transfer-Encoding: chunked\r\nConnection: close\r\n") +
        chunked;
      const [res] = parseResponses(await rawExchange(relay.port, req));
      assert.equal(res.status, 200, res.text);
      assert.equal(relay.requests.at(-1)?.bodyText, body);
    });

    await t.step("malformed requests are 400 and close the connection", async () => {
      const [res] = parseResponses(
        await rawExchange(relay.port, "POST /mcp HTTP/1.1\r\nContent-Length: 1\r\n\r\nx"),
      );
      assert.equal(res.status, 400);
      const [res2] = parseResponses(await rawExchange(relay.port, "BROKEN\r\n\r\n"));
      assert.equal(res2.status, 400);
    });
  });
});
