// Pieces of a big file (lib/resources/file_pieces.ts) against a fake of the relay's download: a
// range asked with Range and checked against Content-Range; past the end refused with the span
// that fits; lines read through in 1 MiB chunks, hash-checked, the lines kept; a relay ignoring
// Range (the whole file, hash-checked, the piece cut from it); bytes that do not match the hash; a
// missing file; what is learnt kept, so a second note costs no download.

import assert from "node:assert/strict";
import { CHUNK_BYTES, downloadPath, FilePieces } from "../../lib/resources/file_pieces.ts";
import { fakeDownload, fileOf } from "./fake_download.ts";

/** About 2.5 MB of numbered lines: three chunks. */
const LOG = new TextEncoder().encode(
  Array.from({ length: 40_000 }, (_, i) => `line ${String(i + 1).padStart(5, "0")} ${"·".repeat(i % 40)}\n`)
    .join(""),
);
const TEXT = new TextDecoder().decode(LOG);
const BINARY = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7) % 256);

function setup() {
  const fake = fakeDownload([LOG, BINARY]);
  return { fake, pieces: new FilePieces(fake.download), log: fileOf(LOG).sha, bin: fileOf(BINARY).sha };
}

const text = (outcome: unknown) => {
  assert.ok(outcome && typeof outcome === "object" && "bytes" in outcome, JSON.stringify(outcome));
  return new TextDecoder().decode((outcome as { bytes: Uint8Array }).bytes);
};

Deno.test("a range: asked for with Range, exactly the bytes; past the end, the span that fits", async () => {
  const { fake, pieces, bin } = setup();
  const piece = await pieces.range(bin, { first: 1000, last: 1999 });
  assert.ok(piece.ok);
  assert.deepEqual(piece.bytes, BINARY.subarray(1000, 2000));
  assert.deepEqual(fake.asked, [`${downloadPath(bin)} 1000-1999`], "one request, for the range only");
  const over = await pieces.range(bin, { first: 299_000, last: 300_999 });
  assert.ok(!over.ok && "why" in over);
  assert.match(over.why, /range=299000-300999 is past the end: there are 300000 bytes/);
  assert.deepEqual(over.near, [{ as: "markdown", range: { first: 299_000, last: 299_999 } }]);
  const beyond = await pieces.range(bin, { first: 400_000, last: 400_009 });
  assert.ok(!beyond.ok && "why" in beyond);
  assert.deepEqual(beyond.near, [{ as: "markdown", range: { first: 299_990, last: 299_999 } }]);
  assert.equal(pieces.known(bin)?.size, 300_000);
});

Deno.test("lines: read through in chunks, hash-checked, only the lines asked kept", async () => {
  const { fake, pieces, log } = setup();
  const got = await pieces.lines(log, { first: 39_801, last: 40_000 });
  assert.equal(text(got), TEXT.split("\n").slice(39_800, 40_000).join("\n") + "\n");
  assert.equal(fake.asked.length, Math.ceil(LOG.length / CHUNK_BYTES), "one request a chunk");
  assert.deepEqual(pieces.known(log), { size: LOG.length, text: true, lines: 40_000 });
  const past = await pieces.lines(log, { first: 40_001, last: 40_100 });
  assert.ok(!past.ok && "why" in past);
  assert.deepEqual(past.near, [{ as: "markdown", lines: { first: 39_801, last: 40_000 } }]);
  const binary = await pieces.lines(setup().bin, { first: 1, last: 5 });
  assert.ok(!binary.ok && "why" in binary && /not text/.test(binary.why));
  assert.deepEqual(binary.near, [{ as: "markdown", range: { first: 0, last: 65_535 } }]);
  const wide = await pieces.lines(log, { first: 1, last: 10_000 });
  assert.ok(!wide.ok && "why" in wide && /over 262144 bytes/.test(wide.why), "a piece stays under its bound");
});

Deno.test("a relay that ignores Range: the file whole, checked against its hash, the piece cut from it", async () => {
  const { fake, pieces, bin, log } = setup();
  fake.ignoreRange = true;
  const piece = await pieces.range(bin, { first: 5, last: 9 });
  assert.ok(piece.ok);
  assert.deepEqual(piece.bytes, BINARY.subarray(5, 10));
  assert.deepEqual(
    fake.asked,
    [`${downloadPath(bin)} 5-9`, `${downloadPath(bin)} whole`],
    "too big, asked whole",
  );
  assert.equal(text(await pieces.lines(log, { first: 2, last: 2 })), "line 00002 ·\n");
  fake.corrupt = true;
  const other = new FilePieces(fake.download);
  const bad = await other.range(bin, { first: 0, last: 0 });
  assert.ok(!bad.ok && "failure" in bad);
  assert.match(bad.failure, /do not match the file's SHA-256/);
});

Deno.test("bytes that do not match the hash, read through, are refused; a missing file is said so", async () => {
  const { fake, pieces, log } = setup();
  fake.corrupt = true;
  const bad = await pieces.lines(log, { first: 1, last: 1 });
  assert.ok(!bad.ok && "failure" in bad && /SHA-256/.test(bad.failure));
  const missing = await pieces.range("0".repeat(64), { first: 0, last: 1 });
  assert.ok(!missing.ok && "failure" in missing);
  assert.equal(missing.missing, true);
  assert.match(missing.failure, /HTTP 404: file does not exist/);
});

Deno.test("a note's facts: size, text and lines, learnt once; a binary file from its first bytes alone", async () => {
  const { fake, pieces, log, bin } = setup();
  const facts = await pieces.facts(log);
  assert.deepEqual(facts, { size: LOG.length, text: true, lines: 40_000 });
  const asked = fake.asked.length;
  assert.deepEqual(await pieces.facts(log), { size: LOG.length, text: true, lines: 40_000 });
  assert.equal(fake.asked.length, asked, "kept: no second download");
  const binary = await pieces.facts(bin);
  assert.deepEqual(binary, { size: 300_000, text: false });
  assert.equal(fake.asked.length, asked + 1, "the first bytes said it is not text");
  assert.equal(await pieces.size(bin), 300_000);
});
