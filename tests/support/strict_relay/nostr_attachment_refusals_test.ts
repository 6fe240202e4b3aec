// The strict relay's attachment refusals (rpc-facts 6.4), shown with Deno's fetch and NIP-98 tokens
// signed by hand: the upload's checks in the real relay's order (NIP-98 without the body, rights,
// the body, its hash, its type), plain-text bodies with their statuses, and the download's refusals.

import assert from "node:assert/strict";
import { download, hex, MEMBER, MiB, PNG, upload } from "./attachment_test_kit.ts";
import { enc, newKey, now, withRelay } from "./nostr_test_kit.ts";

const OTHER = newKey();

interface Plain {
  status: number;
  text: string;
  headers: Headers;
}

function refused(a: Plain, status: number, text: string): void {
  assert.equal(a.status, status, a.text);
  assert.equal(a.text, `${text}\n`);
  assert.equal(a.headers.get("content-type"), "text/plain; charset=utf-8");
}

Deno.test("strict relay attachments: the method, then NIP-98 without the body, then rights", async (t) => {
  await withRelay({ membersOnly: true, members: [MEMBER.pk] }, async (relay) => {
    await t.step("another method: 405, Allow: PUT", async () => {
      const a = await upload(relay, PNG, { method: "POST" });
      refused(a, 405, "method not allowed");
      assert.equal(a.headers.get("allow"), "PUT");
    });
    await t.step("no key, a token for another URL or kind, an old one", async () => {
      refused(await upload(relay, PNG, { authorization: null }), 401, "auth-required: attachment uploader");
      const withoutQuery = `${relay.url}/rooms/general/attachments`;
      const otherUrl = "auth-required: token was signed for another URL";
      refused(await upload(relay, PNG, { u: withoutQuery }), 401, otherUrl);
      refused(await upload(relay, PNG, { kind: 1 }), 401, "auth-required: token must be kind 27235");
      refused(await upload(relay, PNG, { createdAt: now() - 300 }), 401, "auth-required: token expired");
    });
    await t.step("then the uploader's rights: a non-member; an unknown room", async () => {
      const join = "restricted: join the room before uploading attachments";
      refused(await upload(relay, PNG, { key: OTHER }), 403, join);
      refused(await upload(relay, PNG, { room: "attic" }), 400, "invalid: unknown room attic");
      assert.equal((await upload(relay, PNG, { room: "General" })).status, 404, "not a room id: no route");
      assert.equal(relay.attachments.size, 0);
    });
  });
});

Deno.test("strict relay attachments: then the body, its hash, its type", async (t) => {
  await withRelay({ maxMessageBytes: MiB }, async (relay) => {
    await t.step("empty; over 32 MiB; a bad token over 32 MiB is still a 401", async () => {
      refused(
        await upload(relay, new Uint8Array()),
        400,
        "invalid: attachment must be between 1 byte and 32 MiB",
      );
      const huge = new Uint8Array(32 * MiB + 1);
      refused(await upload(relay, huge, { payload: "00".repeat(32) }), 413, "attachment exceeds 32 MiB");
      const old = { createdAt: now() - 300, payload: null };
      refused(await upload(relay, huge, old), 401, "auth-required: token expired");
    });
    await t.step("the token's payload must be the blob's hash; then a parsable type", async () => {
      const reason = "auth-required: token payload hash does not match the blob hash";
      refused(await upload(relay, PNG, { payload: hex(enc.encode("other")) }), 401, reason);
      refused(await upload(relay, PNG, { payload: null }), 401, reason);
      refused(await upload(relay, PNG, { type: "image" }), 400, "invalid: attachment media type");
      refused(await upload(relay, PNG, { type: "image/png; q" }), 400, "invalid: attachment media type");
      assert.equal(relay.attachments.size, 0);
    });
    await t.step("32 MiB exactly is taken, past maxBodyBytes (which still bounds /mcp)", async () => {
      const big = new Uint8Array(32 * MiB).fill(7);
      const a = await upload(relay, big, { type: "application/octet-stream", filename: "big.bin" });
      assert.equal(a.status, 200, a.text);
      assert.equal(a.json.size, 32 * MiB);
      const mcp = await fetch(relay.mcpUrl, { method: "POST", body: new Uint8Array(2 * MiB) });
      assert.equal(mcp.status, 413);
      await mcp.body?.cancel();
    });
  });
});

Deno.test("strict relay media: download refusals", async () => {
  await withRelay({ membersOnly: true, members: [MEMBER.pk] }, async (relay) => {
    const sha = (await upload(relay, PNG)).json.sha256;
    const path = `/media/${sha}.png`;
    const text = (d: { bytes: Uint8Array }) => new TextDecoder().decode(d.bytes);
    const post = await download(relay, path, { method: "POST" });
    assert.deepEqual([post.status, post.headers.get("allow")], [405, "GET, HEAD"]);
    assert.equal((await download(relay, `/media/${"0".repeat(64)}.png`)).status, 404);
    assert.equal((await download(relay, `/media/${sha}.toolongext`)).status, 404);
    assert.equal((await download(relay, `/media/${sha.toUpperCase()}`)).status, 404);
    const noKey = await download(relay, path, { authorization: null });
    assert.deepEqual([noKey.status, text(noKey)], [401, "auth-required: room attachment\n"]);
    const old = await download(relay, path, { token: { createdAt: now() - 300 } });
    assert.deepEqual([old.status, text(old)], [401, "auth-required: token expired\n"]);
    const other = await download(relay, path, { key: OTHER });
    assert.deepEqual([other.status, text(other)], [403, "restricted: room attachment membership required\n"]);
    relay.members.add(OTHER.pk);
    assert.equal((await download(relay, path, { key: OTHER })).status, 200);
    assert.equal((await download(relay, path, { headers: { Range: "bytes=999-" } })).status, 416);
  });
});
