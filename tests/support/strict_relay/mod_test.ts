// The strict relay's test machinery, apart from what it imitates: scripted faults and tool handlers
// observable from fetch, delays and concurrency, close(), and HTTP/1.1 framing (keep-alive, chunked
// bodies, malformed heads). What the relay answers as tinyrelay does is proven by mcp_*_test.ts,
// manage_test.ts and the unit tests of its modules.

import assert from "node:assert/strict";
import { startStrictRelay } from "./mod.ts";
import { parseResponses, rawExchange } from "../http_raw.ts";
import { answer, call, enc, ME, META, nip98, rpc, rpcRequest, withRelay } from "./mcp_test_kit.ts";
import { PROTOCOL_VERSION } from "./mod.ts";

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
      assert.equal(relay.requests.at(-1)?.auth?.pubkey, ME.pk); // recorded even though never checked
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
      const failed = await call(relay, "list_rooms", {}, { id: 42 });
      assert.equal(failed.status, 500);
      assert.deepEqual(failed.json, { jsonrpc: "2.0", id: 42, error: { code: -32603, message: "internal" } });
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

Deno.test("strict relay: raw HTTP framing", async (t) => {
  await withRelay({ keepAlive: true }, async (relay) => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: META },
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
