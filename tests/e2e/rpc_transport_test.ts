// The helper behind a corporate network, as the plugin starts it (its environment passes the proxy
// variables; rpc-facts.md 2.3, 7.1): a relay behind a private CA (DENO_CERT) and a CONNECT proxy
// (HTTPS_PROXY, HTTP_PROXY, NO_PROXY), for the websocket as for the HTTP requests, inside the sandbox.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, type NostrEvent } from "nostr-tools/pure";
import { startConnectProxy } from "../support/connect_proxy.ts";
import { cacheProgram } from "../support/deno_cache.ts";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { RpcHelper } from "../support/rpc_helper.ts";
import { newKey } from "../support/tinyagent.ts";

const someone = generateSecretKey();

/** A publish, a query and a live event, through whatever stands between the helper and the relay. */
async function exercise(relay: StrictRelay, env: Record<string, string>, url = relay.url): Promise<void> {
  const helper = await RpcHelper.start({ relayUrl: url, key: newKey(), env });
  try {
    const published = await helper.call("publish", {
      event: { kind: 9, content: "via", tags: [["h", "general"]] },
    });
    assert.ok("result" in published, JSON.stringify(published));
    const found = await helper.call("query", { filter: { ids: [(published.result as NostrEvent).id] } });
    assert.equal((found.result as NostrEvent[]).length, 1, JSON.stringify(found));
    await helper.call("subscribe", { subscription: "s", filter: { kinds: [9] } });
    await helper.waitFor("connected", (line) => line.event === "connected");
    const live = finalizeEvent(
      { kind: 9, created_at: Math.floor(Date.now() / 1000), tags: [], content: "x" },
      someone,
    );
    relay.inject(live);
    await helper.waitFor("the live event", (line) => (line.data as NostrEvent)?.id === live.id);
    assert.equal((await helper.end()).code, 0, helper.stderr);
  } finally {
    await helper.close();
  }
}

Deno.test("rpc over TLS with a private CA, and through a proxy", async (t) => {
  // The helper's packages fetched as a user's first run fetches them: the proxy is to see the relay
  // alone, on a fresh DENO_DIR too (where the test's own graph holds fewer packages than the helper's).
  await cacheProgram();
  const proxy = startConnectProxy();
  const tls = await startStrictRelay({ tls: true, keepAlive: true });
  const plain = await startStrictRelay({ keepAlive: true });
  try {
    await t.step("DENO_CERT: wss:// and https:// to a relay behind a private CA", async () => {
      await exercise(tls, { DENO_CERT: tls.caFile! }, tls.wsUrl);
      assert.ok(tls.wsConnections >= 1);
    });
    await t.step("without the CA: a clear error, and the helper goes on", async () => {
      const helper = await RpcHelper.start({ relayUrl: tls.url, key: newKey() });
      try {
        const answer = await helper.call("query", { filter: { kinds: [9] } });
        assert.match((answer.error as { message: string }).message, /certificate|UnknownIssuer|TLS/i);
        assert.ok("result" in await helper.call("identity"));
      } finally {
        await helper.close();
      }
    });
    await t.step("HTTPS_PROXY: the websocket and the requests through CONNECT tunnels", async () => {
      await exercise(tls, { DENO_CERT: tls.caFile!, HTTPS_PROXY: proxy.url });
      assert.ok(proxy.requests.length >= 2, proxy.requests.map((r) => r.line).join());
      const lines = proxy.requests.map((r) => r.line);
      assert.ok(lines.every((line) => line === `CONNECT ${tls.host} HTTP/1.1`), lines.join("\n"));
    });
    await t.step(
      "HTTP_PROXY with a plain relay: the websocket by CONNECT, the requests in absolute form",
      async () => {
        const before = proxy.requests.length;
        await exercise(plain, { HTTP_PROXY: proxy.url });
        const lines = proxy.requests.slice(before).map((r) => r.line);
        assert.ok(lines.includes(`CONNECT ${plain.host} HTTP/1.1`), lines.join());
        assert.ok(
          lines.some((line) => line.startsWith(`POST ${plain.origin}/events HTTP/1.1`)),
          lines.join(),
        );
      },
    );
    await t.step("NO_PROXY naming the relay: straight there", async () => {
      const before = proxy.requests.length;
      await exercise(tls, { DENO_CERT: tls.caFile!, HTTPS_PROXY: proxy.url, NO_PROXY: "127.0.0.1" });
      assert.deepEqual(proxy.requests.slice(before).map((r) => r.line), []);
    });
  } finally {
    await tls.close();
    await plain.close();
    await proxy.close();
  }
});
