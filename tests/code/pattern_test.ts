// The pattern subset (lib/code/pattern.ts): which patterns it reads, the example it makes for each,
// and its matching, held against JavaScript's own RegExp on the same strings.

import assert from "node:assert/strict";
import { parsePattern, patternExample, patternMatches } from "../../lib/code/pattern.ts";

Deno.test("pattern: the example each pattern of the subset gives, and what is not the subset", () => {
  const cases: [string, string | undefined][] = [
    ["^[0-9a-f]{64}$", "0".repeat(64)],
    ["^[0-9a-f]{40}$", "0".repeat(40)],
    ["^[a-z0-9_-]{1,64}$", "a"],
    ["^[a-z0-9-]{1,32}$", "a"],
    ["^\\d{3}-\\d{2}$", "000-00"],
    ["^v\\.[0-9]+(beta)?$", undefined],
    ["^[A-Z]{2}[0-9]*$", "AA"],
    ["^[^a0_\\-xA.b1]{2}$", undefined],
    ["^[^a]$", "0"],
    ["^[^\\d]$", "a"],
    ["^[\\-+]$", "-"],
    ["^[é]$", undefined],
    ["^[\\d-x]$", undefined],
    ["^.{3}$", "aaa"],
    ["npub1", "npub1"],
    ["^a?b+c*$", "b"],
    ["^(open|closed)$", undefined],
    ["^a|b$", undefined],
    ["^[z-a]$", undefined],
    ["^[a-z", undefined],
    ["^a{2,1}$", undefined],
    ["^\\bword$", undefined],
    ["^\\w\\s\\d$", "a 0"],
    ["^a{99999}$", undefined],
    ["^" + "a{1000}".repeat(2) + "$", undefined],
    ["x".repeat(300), undefined],
  ];
  for (const [source, want] of cases) {
    const pattern = parsePattern(source);
    assert.equal(pattern && patternExample(pattern), want, source);
    if (want !== undefined) assert.ok(new RegExp(source, "u").test(want), `${source}: RegExp agrees`);
  }
});

Deno.test("pattern: matching agrees with RegExp, anchored or not", () => {
  const patterns = [
    "^[0-9a-f]{64}$",
    "^[a-z0-9_-]{1,64}$",
    "^[a-z]+[0-9]?$",
    "[0-9]{2}",
    "^ab",
    "cd$",
    "^a*a*b$",
    "^.+$",
    "^\\$x\\.y$",
    "^[\\d-]+$",
    "^[^a-c]{2}$",
  ];
  const texts = [
    "",
    "a",
    "room",
    "Room",
    "room-1",
    "<room>",
    "a".repeat(64),
    "A".repeat(64),
    "a".repeat(65),
    "x12y",
    "abcd",
    "zcd",
    "aaab",
    "aaa",
    "line\nbreak",
    "$x.y",
    "$xzy",
    "1-x-2",
    "1+2",
    "de",
    "😀😀",
  ];
  for (const source of patterns) {
    const pattern = parsePattern(source)!;
    assert.ok(pattern, source);
    for (const text of texts) {
      assert.equal(patternMatches(pattern, text), new RegExp(source, "u").test(text), `${source} on ${text}`);
    }
  }
});

Deno.test("pattern: many counts against a long text stay quick; over 256 characters never matches", () => {
  const pattern = parsePattern(".*".repeat(120) + "b")!;
  const started = performance.now();
  assert.equal(patternMatches(pattern, "a".repeat(256)), false);
  assert.equal(patternMatches(pattern, "a".repeat(255) + "b"), true);
  assert.ok(performance.now() - started < 250, "one pass an atom, no backtracking");
  assert.equal(patternMatches(parsePattern("a")!, "a".repeat(257)), false);
});

Deno.test("pattern: random patterns of the subset match as RegExp does", () => {
  let state = 7;
  const next = (n: number) => (state = (state * 1103515245 + 12345) % 2 ** 31) % n;
  const pick = <T>(list: readonly T[]) => list[next(list.length)];
  const atoms = ["a", "b", "-", "\\.", ".", "\\d", "\\w", "[a-c]", "[^ab]", "[0-9_-]", "[\\d.]"];
  const counts = ["", "?", "*", "+", "{2}", "{0,2}", "{1,}"];
  for (let round = 0; round < 300; round++) {
    const body = Array.from({ length: 1 + next(4) }, () => pick(atoms) + pick(counts)).join("");
    const source = (next(2) ? "^" : "") + body + (next(2) ? "$" : "");
    const pattern = parsePattern(source);
    assert.ok(pattern, source);
    const regexp = new RegExp(source, "u");
    assert.ok(regexp.test(patternExample(pattern)), `${source}: its example`);
    for (let t = 0; t < 20; t++) {
      const text = Array.from({ length: next(6) }, () => pick([..."abc01-._ x"])).join("");
      assert.equal(patternMatches(pattern, text), regexp.test(text), `${source} on ${JSON.stringify(text)}`);
    }
  }
});
