// The helper's HTTP methods end to end (rpc-facts.md 3.6-3.9, 4.1-4.3, 6.4): `request` to a path of
// the relay with its body sent exactly as written, `upload` and `download` of a room attachment, and
// `diagnose`; every request under a fresh NIP-98 proof of its exact URL (query included), method and
// bytes, on the relay's own origin and under its tenant prefix.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { RpcHelper } from "../support/rpc_helper.ts";
import { newKey, type TestKey } from "../support/tinyagent.ts";

async function withHelper(relay: StrictRelay, fn: (helper: RpcHelper, key: TestKey) => Promise<void>) {
  const key = newKey();
  const helper = await RpcHelper.start({ relayUrl: relay.url, key });
  try {
    await fn(helper, key);
    assert.equal((await helper.end()).code, 0, helper.stderr);
  } finally {
    await helper.close();
  }
}

const tag = (event: { tags: string[][] }, name: string) => event.tags.find((t) => t[0] === name)?.[1];
const message = (line: Record<string, unknown>) => (line.error as { message: string } | undefined)?.message;

Deno.test("request: a signed request to a path of the relay, its body exactly as written", async (t) => {
  const relay = await startStrictRelay({ prefix: "/r/acme" });
  try {
    await withHelper(relay, async (helper, key) => {
      await t.step(
        "POST /manage/rpc: the management type, the body's own bytes, the relay's JSON",
        async () => {
          const body = '{ "method" : "browsegrant",  "params": [ ] }';
          await helper.writeLine(
            `{"id":100,"method":"request","params":{"path":"/manage/rpc","method":"POST","body":${body}}}`,
          );
          const answer = await helper.answer(100);
          assert.ok("result" in answer, JSON.stringify(answer));
          const request = relay.requests.at(-1)!;
          assert.equal(request.url, `${relay.url}/manage/rpc`);
          assert.equal(request.bodyText, body, "sent as written, spaces and all");
          assert.equal(request.headers.get("content-type"), "application/nostr+json+rpc");
          const proof = request.auth!;
          assert.ok(verifyEvent({ ...proof }));
          assert.equal(proof.pubkey, key.pubkey);
          assert.equal(tag(proof, "u"), `${relay.url}/manage/rpc`);
          assert.equal(tag(proof, "method"), "POST");
          assert.equal(tag(proof, "payload"), bytesToHex(sha256(new TextEncoder().encode(body))));
        },
      );
      await t.step("GET with a query: the query is sent and signed; no body, no payload tag", async () => {
        const answer = await helper.call("request", { path: "/nowhere?x=1&y=a%20b" });
        assert.match(message(answer) ?? "", /^relay HTTP 404 Not Found: 404 page not found$/);
        const request = relay.requests.at(-1)!;
        assert.equal(request.method, "GET");
        assert.equal(request.url, `${relay.url}/nowhere?x=1&y=a%20b`);
        assert.equal(tag(request.auth!, "u"), `${relay.url}/nowhere?x=1&y=a%20b`);
        assert.equal(tag(request.auth!, "payload"), undefined);
        assert.equal(request.headers.get("content-length"), null);
      });
      await t.step("paths off the relay or out of the tenant are refused, nothing sent", async () => {
        const before = relay.requests.length;
        for (const path of ["relative", "//evil.example/x", "https://evil.example/"]) {
          assert.equal(
            message(await helper.call("request", { path })),
            "path must be same-origin and absolute",
          );
        }
        for (const path of ["/../mcp", "/a/%2e%2e/mcp", "/a\\b", "/./mcp"]) {
          assert.equal(message(await helper.call("request", { path })), "unsafe path", path);
        }
        assert.equal(message(await helper.call("request", {})), "path is required");
        assert.equal(
          message(await helper.call("request", { path: "/x", method: "get" })),
          "invalid HTTP method",
        );
        assert.equal(relay.requests.length, before);
      });
      await t.step("the paths publish and upload own go through them, under the person's hold", async () => {
        for (const path of ["/events", "/%65vents", "/rooms/general/attachments?filename=x"]) {
          assert.match(
            message(await helper.call("request", { path, method: "POST" })) ?? "",
            /call (publish|upload)/,
          );
        }
      });
    });
  } finally {
    await relay.close();
  }
});

Deno.test("upload and download: a room attachment there and back, as the plugin sends and reads it", async (t) => {
  const relay = await startStrictRelay({ prefix: "/r/acme" });
  const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) & 0xff);
  const digest = bytesToHex(sha256(bytes));
  try {
    await withHelper(relay, async (helper) => {
      let url = "";
      await t.step(
        "upload: PUT …/rooms/<room>/attachments?filename=…, the bytes, the type, a proof of both",
        async () => {
          const answer = await helper.call("upload", {
            room: "general",
            filename: "dir/my report.png",
            type: "image/png",
            data: bytes.toBase64(),
          });
          const stored = answer.result as Record<string, unknown>;
          assert.equal(stored.sha256, digest, JSON.stringify(answer));
          url = stored.url as string;
          assert.equal(url, `${relay.url}/media/${digest}.png`);
          const request = relay.requests.at(-1)!;
          assert.equal(request.method, "PUT");
          assert.equal(request.url, `${relay.url}/rooms/general/attachments?filename=my+report.png`);
          assert.equal(tag(request.auth!, "u"), request.url);
          assert.equal(tag(request.auth!, "method"), "PUT");
          assert.equal(tag(request.auth!, "payload"), digest);
          assert.equal(request.headers.get("content-type"), "image/png");
          assert.equal(request.headers.get("x-filename"), null);
          assert.deepEqual(relay.attachments.get(digest)!.bytes, bytes);
        },
      );
      await t.step("download: the bytes back, with the type the relay served", async () => {
        const answer = await helper.call("download", { path: `/media/${digest}.png` });
        const result = answer.result as { data: string; type: string };
        assert.deepEqual(Uint8Array.fromBase64(result.data), bytes);
        assert.equal(result.type, "image/png");
        const request = relay.requests.at(-1)!;
        assert.equal(request.method, "GET");
        assert.equal(request.url, `${relay.url}/media/${digest}.png`);
        assert.equal(tag(request.auth!, "payload"), undefined);
      });
      await t.step("an upload without a type or a name: the relay sniffs, the name is '.'", async () => {
        const answer = await helper.call("upload", { room: "general", data: btoa("plain words") });
        assert.ok("result" in answer, JSON.stringify(answer));
        assert.match(relay.requests.at(-1)!.url, /\?filename=\.$/);
        assert.equal(relay.requests.at(-1)!.headers.get("content-type"), null);
      });
      await t.step("refusals: the Go peer's words, and the relay's", async () => {
        const before = relay.requests.length;
        assert.equal(message(await helper.call("upload", { data: "eA==" })), "room is required");
        assert.equal(
          message(await helper.call("upload", { room: "general", data: "eA" })),
          "invalid attachment data",
        );
        assert.equal(message(await helper.call("upload", { room: "general", data: "" })), "invalid upload");
        assert.match(
          message(await helper.call("upload", { room: "general" })) ?? "",
          /params.data is required/,
        );
        assert.equal(relay.requests.length, before, "nothing sent for bad params");
        assert.match(
          message(await helper.call("upload", { room: "nowhere", data: "eA==" })) ?? "",
          // The relay's own order: the room looked up before anything is stored, a 404.
          /^relay HTTP 404 Not Found: not found: room$/,
        );
        assert.match(
          message(await helper.call("download", { path: `/media/${"0".repeat(64)}.png` })) ?? "",
          // A file the relay does not hold: its database's words, passed on as a 400.
          /^relay HTTP 400 Bad Request: sql: no rows in result set$/,
        );
        assert.equal(
          message(await helper.call("download", { path: "" })),
          "path must be same-origin and absolute",
        );
      });
    });
  } finally {
    await relay.close();
  }
});

Deno.test("diagnose: the report of tinyagent diagnose, a result whatever the verdict", async () => {
  const relay = await startStrictRelay();
  try {
    await withHelper(relay, async (helper, key) => {
      const answer = await helper.call("diagnose", { rooms: ["general"], kinds: [9] });
      const report = answer.result as { verdict: string; pubkey: string; relay: string };
      assert.equal(report.verdict, "ok", JSON.stringify(report));
      assert.equal(report.pubkey, key.pubkey);
      assert.equal(report.relay, relay.url);
      relay.members.clear();
      relay.membersOnly = true;
      const refused = (await helper.call("diagnose", {})).result as { verdict: string };
      assert.equal(refused.verdict, "not-a-member");
      assert.equal(
        message(await helper.call("diagnose", { rooms: "general" })),
        "rooms must be an array of room ids",
      );
      assert.equal(message(await helper.call("diagnose", { kinds: [70000] })), "kinds must be event kinds");
    });
  } finally {
    await relay.close();
  }
});
