// The strict relay's file download, /files/raw?hash= (read_file's download_url, tinyrelay's
// fileDownload), shown with Deno's fetch and NIP-98 tokens signed by hand: a seeded file whole and
// by one range (206 with Content-Range, Last-Modified), past its end 416, without a token 401, an
// unknown hash 404, a members-only relay's stranger 403, and a store that cannot seek sending it
// whole whatever Range asks.

import assert from "node:assert/strict";
import { download, hex, MEMBER } from "./attachment_test_kit.ts";
import { withRelay } from "./nostr_test_kit.ts";

const BYTES = new TextEncoder().encode("0123456789abcdef\n".repeat(100));
const seed = { files: [{ bytes: BYTES, type: "text/plain", uploader: MEMBER.pk, uploaded: 1767225600 }] };

Deno.test("strict relay /files/raw: whole, one range, past the end, and the refusals", async () => {
  await withRelay({}, async (relay) => {
    relay.seed(seed);
    const path = `/files/raw?hash=${hex(BYTES)}`;
    const whole = await download(relay, path);
    assert.equal(whole.status, 200);
    assert.deepEqual(whole.bytes, BYTES);
    assert.equal(whole.headers.get("content-type"), "application/octet-stream", "text is not served inline");
    assert.equal(whole.headers.get("accept-ranges"), "bytes");
    assert.equal(whole.headers.get("last-modified"), "Thu, 01 Jan 2026 00:00:00 GMT");
    const piece = await download(relay, path, { headers: { Range: "bytes=17-33" } });
    assert.equal(piece.status, 206);
    assert.deepEqual(piece.bytes, BYTES.subarray(17, 34));
    assert.equal(piece.headers.get("content-range"), `bytes 17-33/${BYTES.length}`);
    const clamped = await download(relay, path, { headers: { Range: `bytes=1690-9999` } });
    assert.equal(clamped.headers.get("content-range"), `bytes 1690-1699/1700`, "the end clamped, as Go does");
    const past = await download(relay, path, { headers: { Range: "bytes=1700-1800" } });
    assert.equal(past.status, 416);
    assert.equal(past.headers.get("content-range"), "bytes */1700");
    assert.equal((await download(relay, path, { authorization: null })).status, 401);
    assert.equal((await download(relay, `/files/raw?hash=${"0".repeat(64)}`)).status, 404);
    assert.equal((await download(relay, path, { method: "POST" })).status, 405);
    relay.filesSeekable = false;
    const unseekable = await download(relay, path, { headers: { Range: "bytes=17-33" } });
    assert.equal(unseekable.status, 200, "a store that cannot seek sends the whole");
    assert.deepEqual(unseekable.bytes, BYTES);
  });
  await withRelay({ membersOnly: true, members: [] }, async (relay) => {
    relay.seed(seed);
    assert.equal((await download(relay, `/files/raw?hash=${hex(BYTES)}`)).status, 403);
  });
});
