// Spans of a read (lib/resources/spans.ts), as tables: lines with their breaks (so pieces put
// together are the text), a span past the end refused with the one that fits, the pieces of a text
// over the cap, and JSON pointers resolved or refused naming the nearest that resolves.

import assert from "node:assert/strict";
import {
  fittingSpan,
  lineCount,
  linePieces,
  pastTheEnd,
  pointerOf,
  resolvePointer,
  sliceLines,
} from "../../lib/resources/spans.ts";

Deno.test("lines: counted from 1, each with its line break, the last one with or without", () => {
  assert.deepEqual([lineCount(""), lineCount("a"), lineCount("a\n"), lineCount("a\nb"), lineCount("\n\n")], [
    0,
    1,
    1,
    2,
    2,
  ]);
  const text = "one\ntwo\nthree\nfour";
  const cases: [number, number, string | number][] = [
    [1, 1, "one\n"],
    [2, 3, "two\nthree\n"],
    [4, 4, "four"],
    [1, 4, text],
    [4, 5, 4],
    [5, 9, 4],
  ];
  for (const [first, last, want] of cases) {
    const got = sliceLines(text, { first, last });
    if (typeof want === "number") assert.deepEqual(got, { ok: false, total: want }, `${first}-${last}`);
    else assert.deepEqual(got, { ok: true, text: want }, `${first}-${last}`);
  }
  assert.deepEqual(
    sliceLines("a\nb\n", { first: 3, last: 3 }),
    { ok: false, total: 2 },
    "no line after the last break",
  );
  assert.deepEqual(sliceLines("", { first: 1, last: 1 }), { ok: false, total: 0 });
  // Consecutive pieces put together are the whole.
  const pieces = [[1, 2], [3, 3], [4, 4]].map(([first, last]) => sliceLines(text, { first, last }));
  assert.equal(pieces.map((p) => p.ok ? p.text : "").join(""), text);
});

Deno.test("past the end: the span that fits, or the last piece", () => {
  const cases: [number, number, number, 0 | 1, { first: number; last: number } | undefined][] = [
    [4801, 5200, 5000, 1, { first: 4801, last: 5000 }],
    [6000, 6100, 5000, 1, { first: 4801, last: 5000 }],
    [3, 10, 2, 1, { first: 1, last: 2 }],
    [1, 5, 0, 1, undefined],
    [900, 2000, 1000, 0, { first: 900, last: 999 }],
  ];
  for (const [first, last, total, from, want] of cases) {
    assert.deepEqual(fittingSpan({ first, last }, total, from, 200), want, `${first}-${last} of ${total}`);
  }
  assert.equal(pastTheEnd("lines", { first: 1, last: 9 }, 1), "lines=1-9 is past the end: there is 1 line");
  assert.equal(pastTheEnd("range", { first: 0, last: 9 }, 5), "range=0-9 is past the end: there are 5 bytes");
});

Deno.test("the pieces of a text over the cap: whole lines, each under it, together the whole", () => {
  const text = Array.from({ length: 10 }, (_, i) => `${"x".repeat(i)}\n`).join("");
  const pieces = linePieces(text, 12);
  for (const piece of pieces) {
    const got = sliceLines(text, piece);
    assert.ok(got.ok && (got.text.length <= 12 || piece.first === piece.last), JSON.stringify(piece));
  }
  assert.equal(pieces.map((p) => (sliceLines(text, p) as { text: string }).text).join(""), text);
  assert.deepEqual(linePieces("", 10), []);
  assert.deepEqual(linePieces("a very long line\nb", 4), [{ first: 1, last: 1 }, { first: 2, last: 2 }]);
});

Deno.test("pointers: the value named, or why not and the nearest that resolves", () => {
  const doc = { item: { title: "Fix it", labels: ["bug", "ui"] }, "a/b": { "c~d": 1 }, n: null };
  const found: [string, unknown][] = [
    ["", doc],
    ["/item/title", "Fix it"],
    ["/item/labels/1", "ui"],
    ["/a~1b/c~0d", 1],
    ["/n", null],
  ];
  for (const [pointer, want] of found) {
    assert.deepEqual(resolvePointer(doc, pointer), { ok: true, value: want });
  }
  const missing: [string, string, string][] = [
    ["/item/titel", "has no member", "/item/title"],
    ["/itme", "has no member", "/item"],
    ["/item/labels/2", "a list of 2", "/item/labels/1"],
    ["/item/labels/01", "not an index", "/item/labels/1"],
    ["/item/labels/-", "not an index", "/item/labels/1"],
    ["/item/title/x", "a string, with nothing inside", "/item/title"],
    ["/n/x", "a null", "/n"],
    ["/zzzzzzzz", "has no member", ""],
    ["/__proto__", "has no member", ""],
  ];
  for (const [pointer, words, near] of missing) {
    const got = resolvePointer(doc, pointer);
    assert.ok(!got.ok && got.why.includes(words), `${pointer}: ${JSON.stringify(got)}`);
    assert.equal(got.near, near, pointer);
  }
  assert.equal(pointerOf(["a/b", "c~d"]), "/a~1b/c~0d");
});
