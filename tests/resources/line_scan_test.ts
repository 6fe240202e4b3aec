// A file read through a chunk at a time (lib/resources/line_scan.ts): the same hash, lines and kept
// bytes however the chunks fall (a multi-byte character or a line break split across two); text
// or not (a NUL, invalid UTF-8); the lines asked kept up to the bound, and where it stopped.

import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { LineScan, MAX_LINES_BYTES } from "../../lib/resources/line_scan.ts";
import type { Span } from "../../lib/resources/query.ts";

function scan(bytes: Uint8Array, span: Span, chunk: number) {
  const lines = new LineScan(span, sha256.create());
  for (let at = 0; at < bytes.length; at += chunk) lines.feed(bytes.subarray(at, at + chunk));
  return lines.end();
}

const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

Deno.test("the same answer however the chunks fall", () => {
  const file = text("héllo\nwörld\n\nlast line, no break");
  for (const chunk of [1, 2, 3, 5, 7, 64]) {
    const got = scan(file, { first: 2, last: 3 }, chunk);
    assert.equal(got.lines, 4, `chunk ${chunk}`);
    assert.equal(got.text, true);
    assert.equal(got.size, file.length);
    assert.deepEqual(got.digest, sha256(file));
    assert.equal(decode(got.kept), "wörld\n\n", `chunk ${chunk}`);
    assert.equal(got.over, undefined);
  }
  assert.equal(decode(scan(file, { first: 4, last: 4 }, 3).kept), "last line, no break");
  assert.equal(scan(text("a\nb\n"), { first: 1, last: 1 }, 1).lines, 2, "a final break ends the last line");
  assert.equal(scan(new Uint8Array(), { first: 1, last: 1 }, 1).lines, 0);
});

Deno.test("text or not: a NUL byte, invalid UTF-8 (split or not), a sequence cut at the end", () => {
  assert.equal(scan(text("a\u0000b"), { first: 1, last: 1 }, 2).text, false);
  assert.equal(scan(Uint8Array.of(0x61, 0xff, 0x0a), { first: 1, last: 1 }, 1).text, false);
  assert.equal(scan(Uint8Array.of(0xc3, 0xa9), { first: 1, last: 1 }, 1).text, true, "é split in two");
  assert.equal(scan(Uint8Array.of(0x61, 0xc3), { first: 1, last: 1 }, 1).text, false, "cut at the end");
});

Deno.test("the lines asked are kept up to the bound; past it, the last line that fit is said", () => {
  const line = "x".repeat(1000) + "\n";
  const file = text(line.repeat(300));
  const got = scan(file, { first: 1, last: 300 }, 4096);
  assert.ok(got.kept.length <= MAX_LINES_BYTES);
  assert.equal(got.over, Math.floor(MAX_LINES_BYTES / line.length));
  assert.equal(got.kept.length, got.over! * line.length);
  assert.equal(got.lines, 300, "the whole is still read through");
  assert.equal(scan(file, { first: 1, last: 0 }, 4096).kept.length, 0, "an empty span keeps nothing");
});
