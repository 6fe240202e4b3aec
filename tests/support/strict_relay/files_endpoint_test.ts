// The strict relay's file download, /files/raw?hash= (read_file's download_url, tinyrelay's
// fileDownload), shown with Deno's fetch and NIP-98 tokens signed by hand: a seeded file whole, by
// one range (206 with Content-Range, Last-Modified), past its end 416, HEAD, with or without a token;
// the relay's headers; an unknown hash in Go's words, a bad one, another method; a members-only
// relay's read gate; and a store that cannot seek sending it whole whatever Range asks.

import assert from "node:assert/strict";
import { download, hex, MEMBER } from "./attachment_test_kit.ts";
import { withRelay } from "./nostr_test_kit.ts";

const BYTES = new TextEncoder().encode("0123456789abcdef\n".repeat(100));
const SHA = hex(BYTES);
const seed = { files: [{ bytes: BYTES, type: "text/plain", uploader: MEMBER.pk, uploaded: 1767225600 }] };
const text = (d: { bytes: Uint8Array }) => new TextDecoder().decode(d.bytes);

Deno.test("strict relay /files/raw: whole, one range, past the end, HEAD, the headers", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(seed);
    const path = `/files/raw?hash=${SHA}`;
    const whole = await download(relay, path);
    assert.equal(whole.status, 200);
    assert.deepEqual(whole.bytes, BYTES);
    assert.equal(whole.headers.get("content-type"), "application/octet-stream", "text is not served inline");
    assert.equal(whole.headers.get("content-disposition"), `attachment; filename=${SHA}`);
    assert.equal(whole.headers.get("cache-control"), "private, no-store");
    assert.equal(whole.headers.get("content-security-policy"), "sandbox");
    assert.equal(whole.headers.get("x-content-type-options"), "nosniff");
    assert.equal(whole.headers.get("accept-ranges"), "bytes");
    assert.equal(whole.headers.get("last-modified"), "Thu, 01 Jan 2026 00:00:00 GMT");
    const anonymous = await download(relay, path, { authorization: null });
    assert.deepEqual([anonymous.status, anonymous.bytes], [200, BYTES], "no token: an anonymous reader");
    const piece = await download(relay, path, { headers: { Range: "bytes=17-33" } });
    assert.equal(piece.status, 206);
    assert.deepEqual(piece.bytes, BYTES.subarray(17, 34));
    assert.equal(piece.headers.get("content-range"), `bytes 17-33/${BYTES.length}`);
    const clamped = await download(relay, path, { headers: { Range: `bytes=1690-9999` } });
    assert.equal(clamped.headers.get("content-range"), `bytes 1690-1699/1700`, "the end clamped, as Go does");
    const past = await download(relay, path, { headers: { Range: "bytes=1700-1800" } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get("content-range"), "bytes */1700");
    const head = await download(relay, path, { method: "HEAD" });
    assert.deepEqual([head.status, head.headers.get("content-length"), head.bytes.length], [200, "1700", 0]);
    relay.filesSeekable = false;
    const unseekable = await download(relay, path, { headers: { Range: "bytes=17-33" } });
    assert.equal(unseekable.status, 200, "a store that cannot seek sends the whole");
    assert.deepEqual(unseekable.bytes, BYTES);
  });
});

Deno.test("strict relay /files/raw: refusals, with the relay's statuses and words", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(seed);
    const unknown = await download(relay, `/files/raw?hash=${"0".repeat(64)}`);
    assert.deepEqual(
      [unknown.status, text(unknown)],
      [400, "sql: no rows in result set\n"],
      "Go's own words",
    );
    for (const query of [`hash=${SHA.toUpperCase()}`, "hash=abc", "", `h=${SHA}`]) {
      const bad = await download(relay, `/files/raw?${query}`);
      assert.deepEqual([bad.status, text(bad)], [400, "invalid: bad blob sha256\n"], query);
    }
    const post = await download(relay, `/files/raw?hash=${SHA}`, { method: "POST" });
    assert.deepEqual([post.status, post.headers.get("allow"), text(post)], [
      405,
      null,
      "method not allowed\n",
    ]);
    const expired = await download(relay, `/files/raw?hash=${SHA}`, { token: { createdAt: 0 } });
    assert.deepEqual([expired.status, text(expired)], [401, "auth-required: token expired\n"]);
  });
  await withRelay({ membersOnly: true, members: [] }, async (relay) => {
    relay.seed(seed);
    const members = "auth-required: this relay is members-only\n";
    for (const authorization of [undefined, null]) {
      const d = await download(relay, `/files/raw?hash=${SHA}`, { authorization });
      assert.deepEqual(
        [d.status, text(d)],
        [401, members],
        authorization === null ? "anonymous" : "a stranger",
      );
    }
    relay.members.add(MEMBER.pk);
    assert.equal((await download(relay, `/files/raw?hash=${SHA}`)).status, 200, "a member");
  });
});
