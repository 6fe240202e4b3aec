// /mcp's refusals before any method runs, as tinyrelay's internal/mcp/server.go makes them: each one's
// status, code, id or none, and words, in the relay's order (a request failing several checks gets the
// first one's answer), and NIP-98's reasons in auth.VerifyNIP98's order (facts §4.2, §4.3).

import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { PROTOCOL_VERSION, type StrictRelay } from "./mod.ts";
import {
  answer,
  assertAuthRefused,
  assertRpcError,
  b64,
  call,
  clock,
  enc,
  META,
  newKey,
  nip98,
  rpc,
  rpcRequest,
  type TokenOptions,
  withRelay,
} from "./mcp_test_kit.ts";

const NOT_SINGLE = { code: -32700, message: "body must be a single JSON-RPC request or notification" };
const NO_METHOD = { code: -32600, message: 'jsonrpc must be "2.0" and method is required' };

/** A POST to /mcp with exactly these headers and body (a token is added only when asked for). */
async function post(relay: StrictRelay, body: string, headers: Record<string, string>, token?: TokenOptions) {
  const all = token ? { ...headers, Authorization: nip98(relay.mcpUrl, body, token) } : headers;
  return await answer(await fetch(relay.mcpUrl, { method: "POST", headers: all, body }));
}

/** A tools/list request whose whole body is `size` bytes (JSON, then spaces). */
function sized(size: number): string {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });
  return body + " ".repeat(size - enc.encode(body).length);
}

Deno.test("mcp: a method other than POST is 405, Go's plain text, before anything else", async () => {
  await withRelay({}, async (relay) => {
    for (const method of ["GET", "DELETE", "PUT"]) {
      const a = await answer(
        await fetch(relay.mcpUrl, {
          method,
          headers: { Origin: "http://evil.example" },
          body: method === "GET" ? undefined : "x".repeat(2 * 1024 * 1024),
        }),
      );
      assert.equal(a.status, 405, method);
      assert.equal(a.text, "method not allowed: the MCP endpoint accepts POST\n");
      assert.equal(a.headers.get("content-type"), "text/plain; charset=utf-8");
      assert.equal(a.headers.get("allow"), "POST");
      assert.equal(a.headers.get("cache-control"), "no-store");
      assert.equal(a.headers.get("x-content-type-options"), "nosniff");
    }
  });
});

Deno.test("mcp: each early refusal in the relay's order, the first failing check answering", async (t) => {
  await withRelay({}, async (relay) => {
    const bad = { Origin: "http://evil.example", Accept: "text/html", "Content-Type": "text/plain" };
    const huge = "x".repeat(1024 * 1024 + 1);

    await t.step("a foreign Origin is 403, before the size and the token", async () => {
      assertRpcError(await post(relay, huge, bad), 403, {
        code: -32600,
        message: "origin http://evil.example is not allowed",
      });
    });

    await t.step("a body past 1 MiB is 413, before the token", async () => {
      const { Origin: _, ...rest } = bad;
      assertRpcError(await post(relay, huge, rest), 413, {
        code: -32600,
        message: "request body exceeds 1048576 bytes",
      });
    });

    await t.step("no token is 401, before Accept and Content-Type", async () => {
      const a = await post(relay, "x", { Accept: "text/html", "Content-Type": "text/plain" });
      assertAuthRefused(a, "missing Nostr Authorization header");
    });

    await t.step("an Accept without JSON is 406, before Content-Type", async () => {
      const a = await post(relay, "x", { Accept: "text/event-stream", "Content-Type": "text/plain" }, {});
      assertRpcError(a, 406, { code: -32600, message: "Accept must include application/json" });
    });

    await t.step("Accept's media types are compared as written, Content-Type's without case", async () => {
      const a = await post(relay, "x", { Accept: "Application/JSON", "Content-Type": "text/plain" }, {});
      assertRpcError(a, 406, { code: -32600, message: "Accept must include application/json" });
      const b = await post(relay, "x", { "Content-Type": "Application/JSON" }, {});
      assertRpcError(b, 400, NOT_SINGLE);
    });

    await t.step("a Content-Type other than JSON is 415, before the body is read", async () => {
      const a = await post(relay, "x", { "Content-Type": "text/plain" }, {});
      assertRpcError(a, 415, { code: -32600, message: "Content-Type must be application/json" });
      const none = await post(relay, "x", {}, {});
      assertRpcError(none, 415, { code: -32600, message: "Content-Type must be application/json" });
    });

    const json = { "Content-Type": "application/json" };
    await t.step("a body that is not one JSON object is -32700, with no id", async () => {
      const typed = ['{"jsonrpc":"2.0","id":1,"method":5}', '{"jsonrpc":2,"id":1,"method":"tools/list"}'];
      for (
        const body of ["x", "[]", '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]', '"{}"', "{", ...typed]
      ) {
        assertRpcError(await post(relay, body, json, {}), 400, NOT_SINGLE);
      }
    });

    await t.step("jsonrpc other than 2.0, or no method, is -32600, with no id", async () => {
      for (const body of ['{"jsonrpc":"1.0","id":1,"method":"x"}', '{"jsonrpc":"2.0","id":1,"method":""}']) {
        assertRpcError(await post(relay, body, json, {}), 400, NO_METHOD);
      }
      assertRpcError(await post(relay, '{"jsonrpc":"2.0","id":1}', json, {}), 400, NO_METHOD);
    });

    await t.step("an id neither string nor number is -32600, with no id", async () => {
      for (const id of ["null", "true", "{}", "[1]"]) {
        const body = `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`;
        assertRpcError(await post(relay, body, json, {}), 400, {
          code: -32600,
          message: "id must be a string or a number",
        });
      }
    });

    await t.step("a notification is 202 with no body, before params and headers", async () => {
      const a = await post(
        relay,
        '{"jsonrpc":"2.0","method":"notifications/initialized","params":"x"}',
        json,
        {},
      );
      assert.equal(a.status, 202);
      assert.equal(a.text, "");
      assert.equal(a.headers.get("cache-control"), "no-store");
      assert.equal(a.headers.get("content-type"), null);
    });

    await t.step("params that are not an object are -32602, now with the id", async () => {
      const a = await post(relay, '{"jsonrpc":"2.0","id":"a","method":"tools/list","params":[1]}', json, {});
      assertRpcError(a, 400, { code: -32602, message: "params must be an object" }, "a");
    });
  });
});

Deno.test("mcp: the headers and _meta each request must carry, in order", async (t) => {
  await withRelay({}, async (relay) => {
    const caps = "io.modelcontextprotocol/clientCapabilities";
    const version = "io.modelcontextprotocol/protocolVersion";
    const cases: [string, () => ReturnType<typeof rpc>, number, string, unknown?][] = [
      [
        "no MCP-Protocol-Version (and nothing else right)",
        () =>
          rpc(relay, "tools/list", {}, { id: 3, meta: undefined, headers: { "MCP-Protocol-Version": null } }),
        -32020,
        `missing MCP-Protocol-Version header; this server speaks ${PROTOCOL_VERSION}`,
      ],
      [
        "an unsupported version",
        () =>
          rpc(relay, "tools/list", {}, {
            id: 3,
            meta: undefined,
            headers: { "MCP-Protocol-Version": "2025-06-18" },
          }),
        -32022,
        "Unsupported protocol version",
        { supported: [PROTOCOL_VERSION], requested: "2025-06-18" },
      ],
      [
        "no version in _meta",
        () => rpc(relay, "tools/list", {}, { id: 3, meta: { [caps]: {} }, headers: { "Mcp-Method": null } }),
        -32602,
        `params._meta["${version}"] is required`,
      ],
      [
        "_meta's version not the header's",
        () => rpc(relay, "tools/list", {}, { id: 3, meta: { [version]: "2025-06-18" } }),
        -32020,
        `Header mismatch: MCP-Protocol-Version header value '${PROTOCOL_VERSION}' does not match body value '2025-06-18'`,
      ],
      [
        "no client capabilities",
        () =>
          rpc(relay, "tools/list", {}, {
            id: 3,
            meta: { [version]: PROTOCOL_VERSION },
            headers: { "Mcp-Method": null },
          }),
        -32602,
        `params._meta["${caps}"] is required; send {} when the client has none`,
      ],
      [
        "no Mcp-Method",
        () => rpc(relay, "tools/list", {}, { id: 3, headers: { "Mcp-Method": null } }),
        -32020,
        "missing Mcp-Method header",
      ],
      [
        "Mcp-Method not the body's",
        () => rpc(relay, "tools/list", {}, { id: 3, headers: { "Mcp-Method": "tools/call" } }),
        -32020,
        "Header mismatch: Mcp-Method header value 'tools/call' does not match body value 'tools/list'",
      ],
      [
        "no Mcp-Name on a tools/call",
        () => call(relay, "list_rooms", {}, { id: 3, headers: { "Mcp-Name": null } }),
        -32020,
        "missing Mcp-Name header",
      ],
      [
        "Mcp-Name not the tool's",
        () => call(relay, "list_rooms", {}, { id: 3, headers: { "Mcp-Name": "list_files" } }),
        -32020,
        "Header mismatch: Mcp-Name header value 'list_files' does not match body value 'list_rooms'",
      ],
      [
        "a Base64 Mcp-Name not the tool's",
        () =>
          call(relay, "list_rooms", {}, {
            id: 3,
            headers: { "Mcp-Name": `=?base64?${b64("list_files")}?=` },
          }),
        -32020,
        "Header mismatch: Mcp-Name header value 'list_files' does not match body value 'list_rooms'",
      ],
      [
        "a method the relay does not serve",
        () => rpc(relay, "initialize", { protocolVersion: "2025-06-18" }, { id: 3 }),
        -32601,
        "method initialize is not supported",
      ],
    ];
    for (const [name, send, code, message, data] of cases) {
      await t.step(name, async () => {
        const status = code === -32601 ? 404 : 400;
        assertRpcError(await send(), status, { code, message, ...(data ? { data } : {}) }, 3);
      });
    }

    await t.step("an Mcp-Name that does not decode is a mismatch", async () => {
      const a = await call(relay, "list_rooms", {}, { id: 3, headers: { "Mcp-Name": "=?base64?%%?=" } });
      assert.equal(a.status, 400);
      assert.equal(a.json.error.code, -32020);
      assert.match(a.json.error.message, /^Header mismatch: Mcp-Name /);
    });

    await t.step("tools/call's params: name, a known tool, arguments an object", async () => {
      const noName = await rpc(relay, "tools/call", {}, { id: 4, headers: { "Mcp-Name": "=?base64??=" } });
      assertRpcError(noName, 400, { code: -32602, message: "params.name is required" }, 4);
      const unknown = await call(relay, "tiny_diagnose", {}, { id: 4 });
      assertRpcError(unknown, 400, { code: -32602, message: "Unknown tool: tiny_diagnose" }, 4);
      for (const args of [[], "x", 5]) {
        const a = await rpc(relay, "tools/call", { name: "list_rooms", arguments: args }, { id: 4 });
        assertRpcError(a, 400, { code: -32602, message: "params.arguments must be an object" }, 4);
      }
      const none = await rpc(relay, "tools/call", { name: "read_status", arguments: null });
      assert.equal(none.status, 200, none.text);
    });
  });
});

Deno.test("mcp: Origin, Accept and Content-Type that pass", async () => {
  await withRelay({}, async (relay) => {
    const passing: Record<string, string | null>[] = [
      { Origin: relay.origin },
      { Origin: relay.origin.toUpperCase() },
      { Accept: "*/*" },
      { Accept: "application/*" },
      { Accept: "text/html, application/json;q=0.5" },
      { Accept: null },
      { "Content-Type": "application/json; charset=utf-8" },
    ];
    for (const headers of passing) {
      const a = await rpc(relay, "tools/list", {}, { headers });
      assert.equal(a.status, 200, `${JSON.stringify(headers)}: ${a.text}`);
    }
  });
});

Deno.test("mcp: the body bound is 1 MiB, or the operator's --max-message-bytes", async (t) => {
  for (const [limit, options] of [[1024 * 1024, {}], [1024, { maxMessageBytes: 1024 }]] as const) {
    await t.step(`${limit} bytes pass, one more is 413`, async () => {
      await withRelay(options, async (relay) => {
        const json = {
          "Content-Type": "application/json",
          "MCP-Protocol-Version": PROTOCOL_VERSION,
          "Mcp-Method": "tools/list",
        };
        const fits = await post(relay, sized(limit), json, {});
        assert.equal(fits.status, 200, fits.text.slice(0, 200));
        const over = await post(relay, sized(limit + 1), json, {});
        assertRpcError(over, 413, { code: -32600, message: `request body exceeds ${limit} bytes` });
        assert.equal(relay.requests.at(-1)?.bodySize, limit + 1);
        // The oversized body was read to its end: the relay goes on serving.
        assert.equal((await rpc(relay, "tools/list")).status, 200);
      });
    });
  }
});

Deno.test("mcp: NIP-98, each reason in VerifyNIP98's words", async (t) => {
  await withRelay({}, async (relay) => {
    const flip = (hex: string) => hex.replace(/^./, (c) => (c === "0" ? "1" : "0"));
    const cases: [string, Parameters<typeof rpc>[3], string | RegExp][] = [
      ["no header", { headers: { Authorization: null } }, "missing Nostr Authorization header"],
      ["another scheme", { headers: { Authorization: "Bearer abc" } }, "missing Nostr Authorization header"],
      ["three fields", { headers: { Authorization: "Nostr abc def" } }, "missing Nostr Authorization header"],
      ["not Base64", { headers: { Authorization: "Nostr %%%" } }, "malformed NIP-98 token"],
      ["not JSON", { headers: { Authorization: `Nostr ${b64("hello")}` } }, /^invalid event JSON: /],
      [
        "a JSON array",
        { headers: { Authorization: `Nostr ${b64("[]")}` } },
        "invalid event JSON: json: cannot unmarshal array into Go value of type map[string]json.RawMessage",
      ],
      ["no sig", { token: { tamper: (ev) => delete ev.sig } }, "invalid: missing sig"],
      ["an id that is not hex", { token: { tamper: (ev) => (ev.id = "xyz") } }, "invalid: bad id"],
      ["a sig that is not hex", { token: { tamper: (ev) => (ev.sig = "00") } }, "invalid: bad sig"],
      [
        "a broken signature",
        { token: { tamper: (ev) => (ev.sig = flip(ev.sig as string)) } },
        "invalid: id or signature does not match content",
      ],
      [
        "an edited event",
        { token: { tamper: (ev) => (ev.created_at = (ev.created_at as number) - 1) } },
        "invalid: id or signature does not match content",
      ],
      ["kind 27236", { token: { kind: 27236 } }, "token must be kind 27235"],
      ["61 s old", { token: { createdAt: clock.now - 61 } }, "token expired"],
      ["61 s ahead", { token: { createdAt: clock.now + 61 } }, "token expired"],
      ["another URL", { tokenUrl: "http://127.0.0.1:1/mcp" }, "token was signed for another URL"],
      ["no u tag", { token: { u: null } }, "token was signed for another URL"],
      ["another method", { token: { method: "GET" } }, "token was signed for another method"],
      ["no method tag", { token: { method: null } }, "token was signed for another method"],
      [
        "another payload",
        { token: { payload: "00".repeat(32) } },
        "token payload hash does not match the body",
      ],
      ["no payload tag", { token: { payload: null } }, "token payload hash does not match the body"],
    ];
    for (const [name, options, reason] of cases) {
      await t.step(name, async () => {
        const a = await rpc(relay, "tools/list", {}, options);
        if (typeof reason === "string") return assertAuthRefused(a, reason);
        assert.equal(a.status, 401);
        assert.match(a.json.error.message.replace(/^auth-required: /, ""), reason);
        assert.match(a.json.error.message, /^auth-required: /);
      });
    }

    await t.step("each check before the next: kind, clock, URL, method, payload", async () => {
      const pairs: [TokenOptions & { tokenUrl?: string }, string][] = [
        [{ kind: 1, createdAt: clock.now - 600 }, "token must be kind 27235"],
        [{ createdAt: clock.now - 600, tokenUrl: "http://127.0.0.1:1/mcp" }, "token expired"],
        [{ tokenUrl: "http://127.0.0.1:1/mcp", method: "GET" }, "token was signed for another URL"],
        [{ method: "GET", payload: "00".repeat(32) }, "token was signed for another method"],
      ];
      for (const [{ tokenUrl, ...token }, reason] of pairs) {
        assertAuthRefused(await rpc(relay, "tools/list", {}, { token, tokenUrl }), reason);
      }
    });

    await t.step("exactly 60 s off either way is accepted", async () => {
      for (const createdAt of [clock.now - 60, clock.now + 60]) {
        assert.equal((await rpc(relay, "tools/list", {}, { token: { createdAt } })).status, 200);
      }
    });

    await t.step(
      "u compares scheme and host without case and the query exactly; method without case",
      async () => {
        const upper = relay.mcpUrl.replace("http://", "HTTP://");
        assert.equal(
          (await rpc(relay, "tools/list", {}, { tokenUrl: upper, token: { method: "post" } })).status,
          200,
        );
        const query = await rpc(relay, "tools/list", {}, { tokenUrl: `${relay.mcpUrl}?x=1` });
        assertAuthRefused(query, "token was signed for another URL");
        assert.equal((await rpc(relay, "tools/list", {}, { url: `${relay.mcpUrl}?x=1` })).status, 200);
      },
    );

    await t.step("URL-safe and unpadded Base64 are read too", async () => {
      const a = await rpc(relay, "tools/list", {}, { token: { urlSafe: true, pad: false } });
      assert.equal(a.status, 200, a.text);
    });

    await t.step("the payload is the hash of the raw bytes, not of a re-serialization", async () => {
      const body = `{ "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": ${
        JSON.stringify(META)
      }} }`;
      const compact = JSON.stringify(JSON.parse(body));
      const wrong = await rpc(relay, "tools/list", {}, {
        body,
        token: { payload: bytesToHex(sha256(enc.encode(compact))) },
      });
      assertAuthRefused(wrong, "token payload hash does not match the body");
      const ok = await rpc(relay, "tools/list", {}, { body });
      assert.equal(ok.json.id, 7, ok.text);
    });

    await t.step("a token is used once; one refused before the end is not counted as used", async () => {
      const { url, init } = rpcRequest(relay, "tools/list");
      const other = { ...init, body: init.body.replace('"tools/list"', '"tools/list" ') };
      assertAuthRefused(await answer(await fetch(url, other)), "token payload hash does not match the body");
      assert.equal((await answer(await fetch(url, init))).status, 200);
      assertAuthRefused(await answer(await fetch(url, other)), "token payload hash does not match the body");
      assertAuthRefused(await answer(await fetch(url, init)), "token replay detected");
    });

    await t.step("any valid signer is answered: /mcp asks no membership", async () => {
      const stranger = newKey();
      const a = await rpc(relay, "tools/list", {}, { token: { key: stranger } });
      assert.equal(a.status, 200, a.text);
      assert.equal(relay.requests.at(-1)?.auth?.pubkey, stranger.pk);
    });
  });
});

Deno.test("mcp: under a tenant prefix, only <prefix>/mcp is the endpoint", async () => {
  await withRelay({ prefix: "/r/acme" }, async (relay) => {
    assert.equal(relay.url, `${relay.origin}/r/acme`);
    assert.equal(relay.mcpUrl, `${relay.origin}/r/acme/mcp`);
    assert.equal((await rpc(relay, "tools/list")).status, 200);
    const bare = await rpc(relay, "tools/list", {}, { url: `${relay.origin}/mcp` });
    assert.equal(bare.status, 404);
    assert.equal(bare.text, "404 page not found\n");
    const signedForBare = await rpc(relay, "tools/list", {}, { tokenUrl: `${relay.origin}/mcp` });
    assertAuthRefused(signedForBare, "token was signed for another URL");
  });
});
