// The strict relay's Nostr side over TLS, with Deno's fetch and WebSocket trusting the test CA:
// /events and the attachment round trip on https URLs, an event published over https delivered
// over wss, and close() ending open websockets (a stalled one too) on both transports.

import assert from "node:assert/strict";
import { download, MEMBER, PNG, upload } from "./attachment_test_kit.ts";
import { startStrictRelay } from "./mod.ts";
import { nip98, rawUpgrade, readFor, signed, withRelay, withSocket, WsClient } from "./nostr_test_kit.ts";
import { within } from "../waits.ts";

Deno.test("strict relay over TLS: /events and attachments on https, delivered over wss", async () => {
  await withRelay({ tls: true }, async (relay) => {
    const client = Deno.createHttpClient({ caCerts: [relay.caPem!] });
    try {
      await withSocket(relay.wsUrl, async (ws) => {
        await ws.auth(MEMBER, relay.wsUrl);
        await ws.req("live", {});
        const ev = signed(MEMBER);
        const body = JSON.stringify(ev);
        const url = `${relay.url}/events`;
        assert.match(url, /^https:\/\//);
        const res = await fetch(url, {
          method: "POST",
          headers: { Authorization: nip98(url, body, MEMBER) },
          body,
          client,
        });
        assert.equal(res.status, 200, await res.text());
        assert.deepEqual(await ws.next("the event over wss"), ["EVENT", "live", ev]);
        const plainToken = nip98(url.replace("https:", "http:"), body, MEMBER);
        const refused = await fetch(url, {
          method: "POST",
          headers: { Authorization: plainToken },
          body,
          client,
        });
        assert.equal(refused.status, 401);
        assert.equal(await refused.text(), '{"error":"auth-required: token was signed for another URL"}');
      }, client);
      const up = await upload(relay, PNG, { client });
      assert.equal(up.status, 200, up.text);
      assert.match(up.json.url, /^https:\/\/127\.0\.0\.1:\d+\/r\/acme\/media\/[0-9a-f]{64}\.png$/);
      const down = await download(relay, `/media/${up.json.sha256}.png`, { client });
      assert.deepEqual([down.status, down.bytes], [200, PNG]);
    } finally {
      client.close();
    }
  });
});

for (const tls of [false, true]) {
  Deno.test(`strict relay${tls ? " over TLS" : ""}: close() ends open websockets, a stalled one too`, async () => {
    const relay = await startStrictRelay({ tls });
    const client = tls ? Deno.createHttpClient({ caCerts: [relay.caPem!] }) : undefined;
    let ws: WsClient | undefined;
    try {
      ws = await WsClient.open(relay.wsUrl, client);
      await ws.next("challenge");
      relay.wsBehaviour("stall");
      const stalled = await rawUpgrade(relay);
      assert.match(stalled.head, /^HTTP\/1\.1 101 /);
      const silent = readFor(stalled.conn, 5000);
      await within(5000, "close() with websockets open", relay.close());
      assert.equal((await within(3000, "the websocket's close", ws.closed)).wasClean, false);
      assert.equal((await silent).ended, true, "the stalled connection ended too");
    } finally {
      client?.close();
      await relay.close();
    }
  });
}
