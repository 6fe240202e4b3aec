// What crosses the wire to the relay, and what the host sees back: facade.md
// "Relay protocol", "Exposed tools", "Errors" and "Bounds", end to end
// through the real entry point against the strict relay.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { DEFAULT_TOOLS, startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { type Tinyagent, withFacade } from "../support/tinyagent.ts";
import { rpcLimitBody } from "../support/rate_front.ts";
import {
  CONTRACT_READ,
  CONTRACT_WRITE,
  HANDSHAKE_VERSIONS,
  INVALID_PARAMS,
  NIP98_KIND,
  RELAY_PREFIX,
  RELAY_PROTOCOL_VERSION,
  structuredTruncated,
  structuredTruncationNote,
  TEXT_LIMIT_BYTES,
  TINY_DIAGNOSE,
  truncationMarker,
  UNKNOWN_TOOL,
} from "../support/contract.ts";
import denoConfig from "../../deno.json" with { type: "json" };

type Result = { content: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean };

async function call(facade: Tinyagent, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  const answer = await facade.request("tools/call", { name, arguments: args });
  assert.ok(answer.result, `a result, not ${JSON.stringify(answer.error)}`);
  return answer.result as Result;
}

async function listNames(facade: Tinyagent): Promise<string[]> {
  const answer = await facade.request("tools/list", {});
  return (answer.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
}

const mcpRequests = (relay: StrictRelay) => relay.requests.filter((r) => r.path.endsWith("/mcp"));

Deno.test("each forwarded call is one signed POST with the contract's headers and _meta", async (t) => {
  await withFacade({}, async (facade, relay, key) => {
    await call(facade, "read_room", { id: "général" });
    const [list, callRequest] = mcpRequests(relay);
    await t.step("tools/list first, then the call, both accepted", () => {
      assert.equal((list.json as { method: string }).method, "tools/list");
      assert.equal((callRequest.json as { method: string }).method, "tools/call");
      assert.equal(list.status, 200);
      assert.equal(callRequest.status, 200);
    });
    for (const request of [list, callRequest]) {
      const body = request.json as { method: string; params: Record<string, unknown> };
      await t.step(`${body.method}: headers`, () => {
        assert.equal(request.method, "POST");
        assert.equal(request.headers.get("mcp-protocol-version"), RELAY_PROTOCOL_VERSION);
        assert.equal(request.headers.get("mcp-method"), body.method);
        assert.equal(request.headers.get("accept"), "application/json, text/event-stream");
        assert.equal(request.headers.get("content-type"), "application/json");
        if (body.method === "tools/call") assert.equal(request.headers.get("mcp-name"), "read_room");
        else assert.equal(request.headers.get("mcp-name"), null);
      });
      await t.step(`${body.method}: _meta`, () => {
        assert.deepEqual(body.params._meta, {
          "io.modelcontextprotocol/protocolVersion": RELAY_PROTOCOL_VERSION,
          "io.modelcontextprotocol/clientCapabilities": {},
          "io.modelcontextprotocol/clientInfo": { name: "tinyagent", version: denoConfig.version },
        });
      });
      await t.step(`${body.method}: NIP-98 token bound to the exact URL, method and body bytes`, () => {
        const event = request.auth!;
        assert.ok(verifyEvent(event), "signature verifies with nostr-tools");
        assert.equal(event.kind, NIP98_KIND);
        assert.equal(event.pubkey, key.pubkey);
        const tag = (name: string) => event.tags.find((t) => t[0] === name)?.[1];
        assert.equal(tag("u"), relay.mcpUrl);
        assert.equal(tag("method"), "POST");
        assert.equal(tag("payload"), bytesToHex(sha256(request.body)));
        assert.match(tag("nonce") ?? "", /^[0-9a-f]{24}$/);
        assert.ok(Math.abs(event.created_at - Date.now() / 1000) < 10);
      });
    }
    await t.step("the call carries the host's name and arguments", () => {
      const params = (callRequest.json as { params: Record<string, unknown> }).params;
      assert.equal(params.name, "read_room");
      assert.deepEqual(params.arguments, { id: "général" });
    });
  });
});

Deno.test("two identical calls in the same second carry different tokens", async () => {
  await withFacade({}, async (facade, relay) => {
    const answers = await Promise.all([1, 2, 3].map(() => call(facade, "list_rooms")));
    for (const answer of answers) assert.equal(answer.isError, false);
    const ids = mcpRequests(relay).map((r) => r.auth!.id);
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(
      mcpRequests(relay).every((r) => r.status === 200),
      "the replay-refusing relay accepted every one",
    );
  });
});

Deno.test("a tenant prefix is kept and a trailing slash normalized", async () => {
  const relay = await startStrictRelay({ prefix: "/r/acme" });
  try {
    await withFacade({ relay, url: `${relay.url}/` }, async (facade) => {
      const answer = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
      assert.equal((answer.result as Result).isError, false);
      for (const request of relay.requests) {
        assert.equal(request.path, "/r/acme/mcp");
        assert.equal(request.auth!.tags.find((t) => t[0] === "u")?.[1], `${relay.origin}/r/acme/mcp`);
      }
    });
  } finally {
    await relay.close();
  }
});

Deno.test("exposure", async (t) => {
  const hidden = { name: TINY_DIAGNOSE, description: "an impostor", inputSchema: { type: "object" } };
  await t.step(
    `default: the ${CONTRACT_READ.length} read tools in order, then tiny_diagnose; nothing else the relay lists`,
    async () => {
      await withFacade({ relay: { extraTools: [hidden] } }, async (facade) => {
        assert.deepEqual(await listNames(facade), [...CONTRACT_READ, TINY_DIAGNOSE]);
      });
    },
  );
  await t.step(`--allow-writes adds the ${CONTRACT_WRITE.length} write tools`, async () => {
    await withFacade({ args: ["--allow-writes"] }, async (facade) => {
      const names = await listNames(facade);
      assert.deepEqual(names, [...CONTRACT_READ, ...CONTRACT_WRITE, TINY_DIAGNOSE]);
      for (
        const never of [
          "publish_event",
          "read_management",
          "set_status",
          "publish_site",
          "create_room",
          "run_job",
        ]
      ) {
        assert.ok(!names.includes(never), never);
      }
    });
  });
  await t.step("--tools: the named tools in the order given; unserved names simply absent", async () => {
    await withFacade(
      { args: ["--tools", "post_message,list_rooms,read_job,list_rooms", "--allow-writes"] },
      async (facade, relay) => {
        relay.setTable(DEFAULT_TOOLS.filter((tool) => tool.name !== "read_job"));
        assert.deepEqual(await listNames(facade), ["post_message", "list_rooms", TINY_DIAGNOSE]);
      },
    );
  });
  await t.step(
    "entries keep the relay's title, description, input schema and annotations; the impostor is ignored",
    async () => {
      // The real relay's entries have no title and no outputSchema; this relay's list_rooms has both.
      const relayEntry = {
        ...DEFAULT_TOOLS.find((tool) => tool.name === "list_rooms")!,
        title: "List rooms",
        outputSchema: { type: "object", properties: { items: { type: "array" } } },
      };
      const table = DEFAULT_TOOLS.map((tool) => tool.name === relayEntry.name ? relayEntry : tool);
      await withFacade({ relay: { tools: table, extraTools: [hidden] } }, async (facade) => {
        const answer = await facade.request("tools/list", {});
        const tools = (answer.result as { tools: Record<string, unknown>[] }).tools;
        const entry = tools.find((tool) => tool.name === "list_rooms")!;
        assert.deepEqual(entry, {
          name: "list_rooms",
          title: relayEntry.title,
          description: relayEntry.description,
          inputSchema: relayEntry.inputSchema,
          annotations: relayEntry.annotations,
        });
        // The contract's list names no outputSchema, and a host checking results against it would
        // refuse every bounded structuredContent.
        assert.ok(relayEntry.outputSchema, "the relay declares one");
        const diagnose = tools.filter((tool) => tool.name === TINY_DIAGNOSE);
        assert.equal(diagnose.length, 1);
        assert.notEqual(diagnose[0].description, "an impostor");
        assert.equal(tools.at(-1)!.name, TINY_DIAGNOSE);
      });
    },
  );
  await t.step(
    `a tool not exposed is ${INVALID_PARAMS} ${UNKNOWN_TOOL} and the relay is not contacted`,
    async () => {
      await withFacade({}, async (facade, relay) => {
        for (const name of ["publish_event", "post_message", "read_management", "nope"]) {
          const answer = await facade.request("tools/call", { name, arguments: {} });
          const error = answer.error as { code: number; message: string };
          assert.equal(error.code, INVALID_PARAMS);
          assert.ok(error.message.startsWith(`${UNKNOWN_TOOL}: ${name}`), error.message);
          if (name === "post_message") assert.match(error.message, /--allow-writes exposes it/);
        }
        const missing = await facade.request("tools/call", { arguments: {} });
        assert.equal((missing.error as { code: number }).code, INVALID_PARAMS);
        assert.equal(relay.requests.length, 0);
      });
    },
  );
});

Deno.test("the tool table: fetched lazily, once, and again after a failure or an unknown tool", async (t) => {
  await withFacade({}, async (facade, relay) => {
    await t.step("starting and the handshake touch no network", async () => {
      await facade.request("initialize", { protocolVersion: HANDSHAKE_VERSIONS[0] });
      assert.equal(relay.requests.length, 0);
    });
    await t.step("a failed fetch lists tiny_diagnose alone and says why on stderr", async () => {
      relay.script({ status: 503, body: "down for maintenance", contentType: "text/plain" });
      assert.deepEqual(await listNames(facade), [TINY_DIAGNOSE]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.match(facade.stderr, /tools\/list: transport: HTTP 503.*down for maintenance/);
    });
    await t.step("the next tools/list fetches again", async () => {
      assert.deepEqual(await listNames(facade), [...CONTRACT_READ, TINY_DIAGNOSE]);
    });
    await t.step("then it is cached", async () => {
      const before = mcpRequests(relay).length;
      await listNames(facade);
      await call(facade, "list_rooms");
      assert.equal(mcpRequests(relay).length, before + 1, "only the call reached the relay");
    });
    await t.step("after the relay reports an unknown tool the table is fetched again", async () => {
      relay.setTable(DEFAULT_TOOLS.filter((tool) => tool.name !== "list_rooms"));
      const result = await call(facade, "list_rooms");
      assert.equal(result.isError, true);
      assert.ok(
        result.content[0].text!.startsWith(`${RELAY_PREFIX}${UNKNOWN_TOOL}: list_rooms`),
        result.content[0].text,
      );
      const names = await listNames(facade);
      assert.ok(!names.includes("list_rooms"));
      const lists = mcpRequests(relay).filter((r) => (r.json as { method: string }).method === "tools/list");
      assert.equal(lists.length, 3);
      const refused = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
      assert.deepEqual(refused.error, {
        code: INVALID_PARAMS,
        message: `${UNKNOWN_TOOL}: list_rooms (the relay does not list it)`,
      });
    });
  });
});

Deno.test("errors the host sees", async (t) => {
  // Through a rate-limiting front, a pipe but for the 429 it is asked for: the relay never sends one.
  await withFacade({ front: true }, async (facade, relay, _key, front) => {
    await listNames(facade);
    const cases: [string, Parameters<StrictRelay["script"]>[0], RegExp][] = [
      ["401", {
        status: 401,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"auth-required: token expired"}}',
      }, /^permission: auth-required: token expired$/],
      ["403", {
        status: 403,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"restricted: not yours"}}',
      }, /^permission: restricted: not yours$/],
      ["500", { status: 500, body: "boom", contentType: "text/plain" }, /^transport: HTTP 500/],
      ["503 JSON", { status: 503, body: '{"error":"overloaded"}' }, /^transport: HTTP 503: overloaded/],
      ["reset mid-body", { resetMidBody: true }, /^transport: /],
      ["invalid JSON", { status: 200, body: "{not json" }, /^transport: .*not valid JSON/],
      [
        "wrong content type",
        { status: 200, body: "<html></html>", contentType: "text/html" },
        /^transport: .*text\/html/,
      ],
      ["a huge answer", { hugeBodyBytes: 70 * 1024 * 1024, chunked: true }, /^transport: .*exceeds 64 MiB/],
      [
        "JSON-RPC error",
        { jsonrpcError: { code: -32601, message: "Method not found" }, status: 404 },
        /^relay: Method not found$/,
      ],
      [
        "404 without JSON",
        { status: 404, body: "Not Found", contentType: "text/plain" },
        /^relay: HTTP 404: Not Found$/,
      ],
    ];
    for (const [name, fault, expected] of cases) {
      await t.step(name, async () => {
        relay.script(fault);
        const result = await call(facade, "list_rooms");
        assert.equal(result.isError, true);
        assert.match(result.content[0].text!, expected);
        // The next call succeeds once the relay recovers.
        assert.equal((await call(facade, "list_rooms")).isError, false);
      });
    }
    await t.step("429 from the front, without Retry-After", async () => {
      front!.limit(1, { body: rpcLimitBody("rate-limited: slow down") });
      const result = await call(facade, "list_rooms");
      assert.equal(result.isError, true);
      assert.match(result.content[0].text!, /^relay: rate-limited: slow down; retry later$/);
      assert.equal(front!.answered.length, 1, "the front answered it");
      assert.equal((await call(facade, "list_rooms")).isError, false);
    });
    await t.step("a connection dropped after the relay accepted the request", async () => {
      for (let i = 0; i < 5; i++) {
        relay.setTool("read_room", () => ({ drop: true }));
        const result = await call(facade, "read_room", { id: "x" });
        assert.equal(result.isError, true);
        assert.match(
          result.content[0].text!,
          /^transport: no answer from \S+: the relay closed the connection/,
        );
        relay.setTool("read_room", () => ({ content: [{ type: "text", text: "back" }], isError: false }));
        assert.equal((await call(facade, "read_room", { id: "x" })).isError, false);
      }
    });
    await t.step("restricted: and auth-required: in a tool error gain the permission: prefix", async () => {
      relay.setTool("read_room", () => ({
        content: [{ type: "text", text: "restricted: the room is private" }, { type: "text", text: "other" }],
        structuredContent: { message: "auth-required: join first" },
        isError: true,
      }));
      const result = await call(facade, "read_room", { id: "x" });
      assert.equal(result.isError, true);
      assert.equal(result.content[0].text, "permission: restricted: the room is private");
      assert.equal(result.content[1].text, "other");
      assert.deepEqual(result.structuredContent, { message: "permission: auth-required: join first" });
    });
  });
});

Deno.test("a relay that never answers: the call is bounded by --timeout", async () => {
  await withFacade({ args: ["--timeout", "1"] }, async (facade, relay) => {
    await listNames(facade);
    relay.script({ hang: true });
    const started = Date.now();
    const result = await call(facade, "list_rooms");
    assert.ok(Date.now() - started < 5000);
    assert.match(result.content[0].text!, /^transport: no answer from .* within 1 s$/);
    assert.equal((await call(facade, "list_rooms")).isError, false, "the next call works");
  });
});

Deno.test("bounds on what reaches the host", async (t) => {
  await withFacade({}, async (facade, relay) => {
    await t.step("text over 64 KiB is cut on a character boundary with the marker", async () => {
      const text = "é".repeat(40_000); // 80,000 bytes, two bytes a character
      relay.setTool("read_file", () => ({ content: [{ type: "text", text }], isError: false }));
      const result = await call(facade, "read_file", { hash: "a".repeat(64) });
      assert.equal(
        result.content[0].text,
        `${"é".repeat(TEXT_LIMIT_BYTES / 2)}\n${truncationMarker(TEXT_LIMIT_BYTES, 80_000)}`,
      );
    });
    await t.step("structuredContent over 256 KiB is replaced and noted; image blocks untouched", async () => {
      const data = btoa("z".repeat(300_000));
      relay.setTool("read_attachment", () => ({
        content: [{ type: "image", data, mimeType: "image/png" }],
        structuredContent: { data },
        isError: false,
      }));
      const result = await call(facade, "read_attachment", { sha256: "a".repeat(64) });
      const bytes = JSON.stringify({ data }).length;
      assert.deepEqual(result.structuredContent, structuredTruncated(bytes));
      assert.deepEqual(result.content[0], { type: "image", data, mimeType: "image/png" });
      assert.deepEqual(result.content[1], {
        type: "text",
        text: structuredTruncationNote(bytes),
      });
    });
  });
});
