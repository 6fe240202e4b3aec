// The strict relay's attachment refusals (tinyrelay's room_attachments.go), shown with Deno's fetch
// and NIP-98 tokens signed by hand: the upload's checks in the relay's order (the method, NIP-98
// without the body, the uploader's rights, the body's size, its hash, then the store), plain-text
// bodies with the statuses browseHTTPError gives them, and the download's refusals (/media: the read
// gate, the blob, its rooms).

import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { download, hex, MEMBER, MiB, PNG, upload } from "./attachment_test_kit.ts";
import { enc, newKey, now, withRelay } from "./nostr_test_kit.ts";

const OTHER = newKey();
const EMPTY_HASH = bytesToHex(sha256(new Uint8Array()));
/** A room only its members see, MEMBER among them. */
const VAULT = {
  rooms: [{ id: "vault", name: "Vault", access: "members" as const, members: [{ pubkey: MEMBER.pk }] }],
};

interface Plain {
  status: number;
  text: string;
  headers: Headers;
}

function refused(a: Plain, status: number, text: string): void {
  assert.equal(a.status, status, a.text);
  assert.equal(a.text, `${text}\n`);
  assert.equal(a.headers.get("content-type"), "text/plain; charset=utf-8");
  assert.equal(a.headers.get("x-content-type-options"), "nosniff");
}

Deno.test("strict relay attachments: the method, then NIP-98 without the body, then rights", async (t) => {
  await withRelay({ membersOnly: true, members: [MEMBER.pk], rooms: ["general", "lab"] }, async (relay) => {
    relay.seed(VAULT);
    await t.step("another method: 405, Allow: PUT", async () => {
      const a = await upload(relay, PNG, { method: "POST" });
      refused(a, 405, "method not allowed");
      assert.equal(a.headers.get("allow"), "PUT");
    });
    await t.step("no token, a token for another URL, kind or time: 401 in NIP-98's words", async () => {
      refused(
        await upload(relay, PNG, { authorization: null }),
        401,
        "auth-required: missing Nostr Authorization header",
      );
      const withoutQuery = `${relay.url}/rooms/general/attachments`;
      const otherUrl = "auth-required: token was signed for another URL";
      refused(await upload(relay, PNG, { u: withoutQuery }), 401, otherUrl);
      refused(
        await upload(relay, PNG, { kind: 1, key: OTHER }),
        401,
        "auth-required: token must be kind 27235",
      );
      refused(await upload(relay, PNG, { createdAt: now() - 300 }), 401, "auth-required: token expired");
    });
    await t.step("then the uploader's rights: the relay's, the room's existence, the room's", async () => {
      refused(
        await upload(relay, PNG, { key: OTHER, room: "attic" }),
        403,
        "restricted: file upload is not allowed",
      );
      refused(await upload(relay, PNG, { room: "attic" }), 404, "not found: room");
      const outsider = newKey();
      relay.members.add(outsider.pk);
      refused(
        await upload(relay, PNG, { key: outsider, room: "vault" }),
        403,
        "restricted: this room is members-only",
      );
      assert.equal((await upload(relay, PNG, { room: "General" })).status, 404, "not a room id: no route");
      assert.equal(relay.attachments.size, 0);
      const a = await upload(relay, PNG, { key: outsider, room: "lab" });
      assert.equal(a.status, 200, `any member may upload into an open room: ${a.text}`);
    });
  });
  await withRelay({ grantScope: null }, async (relay) => {
    await t.step("on an open relay, a key with no standing: join the room first", async () => {
      const join = "restricted: join the room before uploading attachments";
      refused(await upload(relay, PNG, { key: OTHER }), 403, join);
    });
  });
});

Deno.test("strict relay attachments: then the body's size, its hash, then the store", async (t) => {
  await withRelay({ maxMessageBytes: MiB }, async (relay) => {
    await t.step("over 32 MiB: 413; a bad token over 32 MiB is still a 401", async () => {
      const huge = new Uint8Array(32 * MiB + 1);
      refused(await upload(relay, huge, { payload: "00".repeat(32) }), 413, "attachment exceeds 32 MiB");
      const old = { createdAt: now() - 300, payload: null };
      refused(await upload(relay, huge, old), 401, "auth-required: token expired");
    });
    await t.step("the token's payload must be the blob's hash, an empty blob's too", async () => {
      const reason = "auth-required: token payload hash does not match the blob hash";
      refused(await upload(relay, PNG, { payload: hex(enc.encode("other")) }), 401, reason);
      refused(await upload(relay, PNG, { payload: null }), 401, reason);
      refused(await upload(relay, new Uint8Array(), { payload: null }), 401, reason);
    });
    await t.step("then the store: at least a byte, a type that parses", async () => {
      refused(
        await upload(relay, new Uint8Array(), { payload: EMPTY_HASH }),
        400,
        "invalid: attachment must be between 1 byte and 32 MiB",
      );
      refused(await upload(relay, PNG, { type: "image" }), 400, "invalid: attachment media type");
      refused(await upload(relay, PNG, { type: "image/png; q" }), 400, "invalid: attachment media type");
      assert.equal(relay.attachments.size, 0);
    });
    await t.step("bytes the relay holds without a room: 400 conflict", async () => {
      const seeded = enc.encode("a file of the relay's own\n");
      relay.seed({
        files: [{ bytes: seeded, type: "text/plain", uploader: MEMBER.pk, uploaded: 1767225600 }],
      });
      refused(
        await upload(relay, seeded),
        400,
        "conflict: this file already exists without room restrictions; share its existing link",
      );
    });
    await t.step("32 MiB exactly is taken, past maxMessageBytes (which still bounds /mcp)", async () => {
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

const text = (d: { bytes: Uint8Array }) => new TextDecoder().decode(d.bytes);

Deno.test("strict relay media: download refusals on a members-only relay", async () => {
  await withRelay({ membersOnly: true, members: [MEMBER.pk] }, async (relay) => {
    const sha = (await upload(relay, PNG)).json.sha256;
    const path = `/media/${sha}.png`;
    const post = await download(relay, path, { method: "POST" });
    assert.deepEqual([post.status, post.headers.get("allow"), text(post)], [
      405,
      "GET, HEAD",
      "method not allowed\n",
    ]);
    for (const bad of [`/media/${sha}.toolongext`, `/media/${sha.toUpperCase()}`, `/media/${sha}.p-g`]) {
      const d = await download(relay, bad);
      assert.deepEqual([d.status, text(d)], [404, "404 page not found\n"], bad);
    }
    const members = "auth-required: this relay is members-only\n";
    const noKey = await download(relay, path, { authorization: null });
    assert.deepEqual([noKey.status, text(noKey)], [401, members], "anonymous");
    const other = await download(relay, path, { key: OTHER });
    assert.deepEqual([other.status, text(other)], [401, members], "a stranger");
    const old = await download(relay, path, { token: { createdAt: now() - 300 } });
    assert.deepEqual([old.status, text(old)], [401, "auth-required: token expired\n"]);
    const payload = await download(relay, path, { token: { payload: hex(PNG) } });
    assert.deepEqual([payload.status, text(payload)], [
      401,
      "auth-required: token payload hash does not match the body\n",
    ]);
    const missing = await download(relay, `/media/${"0".repeat(64)}.png`);
    assert.deepEqual(
      [missing.status, text(missing)],
      [400, "sql: no rows in result set\n"],
      "Go's own words",
    );
    relay.members.add(OTHER.pk);
    assert.equal((await download(relay, path, { key: OTHER })).status, 200);
    const past = await download(relay, path, { headers: { Range: "bytes=999-" } });
    assert.deepEqual([past.status, past.headers.get("content-range")], [416, `bytes */${PNG.length}`]);
  });
});

Deno.test("strict relay media: a room attachment is read by whoever sees one of its rooms", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(VAULT);
    const secret = enc.encode("for the vault only\n");
    assert.equal((await upload(relay, secret, { room: "vault" })).status, 200);
    const path = `/media/${hex(secret)}`;
    const anonymous = await download(relay, path, { authorization: null });
    assert.deepEqual([anonymous.status, text(anonymous)], [401, "auth-required: room attachment\n"]);
    const other = await download(relay, path, { key: OTHER });
    assert.deepEqual([other.status, text(other)], [403, "restricted: room attachment membership required\n"]);
    assert.deepEqual((await download(relay, path)).bytes, secret, "the room's member");
    assert.equal(
      (await download(relay, `/files/raw?hash=${hex(secret)}`, { key: OTHER })).status,
      403,
      "/files/raw alike",
    );
    assert.equal(
      (await upload(relay, secret, { room: "general" })).status,
      200,
      "the same bytes, an open room",
    );
    assert.deepEqual((await download(relay, path, { authorization: null })).bytes, secret, "now anyone's");
  });
});
