// The note a read over its cap gets (lib/resources/cap_note.ts): a text's size and lines and the URIs
// of its pieces (the first few and the last); a file's size, type, its byte ranges and, for text,
// its first and last 200 lines, with the templates to make others; each in markdown and JSON.

import assert from "node:assert/strict";
import { fileNote, TEXT_CAP, textNote } from "../../lib/resources/cap_note.ts";

const F = "tiny://relay.example/file/" + "ab".repeat(32);

Deno.test("a text over the cap: its size, and its pieces of whole lines, the last among them", () => {
  const pieces = Array.from({ length: 12 }, (_, i) => ({ first: i * 100 + 1, last: i * 100 + 100 }));
  const note = textNote("tiny://relay.example/room/general", 3_000_000, 1200, pieces);
  assert.match(note.markdown, /^This read is 3,000,000 characters in 1,200 lines, over the cap of 262,144/);
  assert.match(note.markdown, /comes in 12 pieces of whole lines/);
  const named = [...note.markdown.matchAll(/`(tiny:\/\/\S+\?lines=\d+-\d+)`/g)].map((m) => m[1]);
  assert.deepEqual(named.at(0), "tiny://relay.example/room/general?lines=1-100");
  assert.deepEqual(named.at(-1), "tiny://relay.example/room/general?lines=1101-1200", "the last piece");
  assert.equal(named.length, 8);
  assert.deepEqual(note.json.pieces, named);
  assert.equal(note.json.cap, TEXT_CAP);
  assert.equal(note.json.template, "tiny://relay.example/room/general{?lines}");
});

Deno.test("a file too big for one read: size, ranges, and for text its first and last 200 lines", () => {
  const text = fileNote(F, { size: 5_000_000, type: "text/plain", text: true, lines: 90_000 });
  assert.match(text.markdown, /too big to read whole \(5,000,000 bytes, text\/plain, 90,000 lines of text\)/);
  assert.ok(text.markdown.includes(`${F}?lines=1-200`));
  assert.ok(text.markdown.includes(`${F}?lines=89801-90000`));
  assert.ok(text.markdown.includes(`${F}?range=0-65535`));
  assert.ok(text.markdown.includes(`${F}?range=4980736-4999999`), "the last range");
  assert.ok(text.markdown.includes(`${F}{?lines}`));
  assert.deepEqual(text.json.linePieces, [`${F}?lines=1-200`, `${F}?lines=89801-90000`]);
  assert.equal((text.json.pieces as string[]).length, 8);
  const binary = fileNote(F, { size: 300_000, text: false });
  assert.doesNotMatch(binary.markdown, /lines/, "no lines of a file that is not text");
  assert.deepEqual(binary.json.templates, [`${F}{?range}`]);
  const short = fileNote(F, { size: 100, text: true, lines: 150 });
  assert.deepEqual(
    short.json.linePieces,
    [`${F}?lines=1-150`],
    "one line piece when 200 lines are all of it",
  );
});
