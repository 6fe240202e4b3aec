// The nearest valid choices for a wrong guess (lib/wire/nearest.ts): a bounded edit distance with
// transpositions, a cutoff of a third of the guess, stable ties, and hostile sizes bounded.

import assert from "node:assert/strict";
import { cutoffFor, editDistance, MAX_CANDIDATES, MAX_COMPARED, nearest } from "../../lib/wire/nearest.ts";

Deno.test("edit distance: insertions, deletions, substitutions, adjacent transpositions; capped at limit + 1", () => {
  const cases: [string, string, number, number][] = [
    ["", "", 3, 0],
    ["abc", "abc", 3, 0],
    ["genral", "general", 3, 1],
    ["general", "genral", 3, 1],
    ["gneeral", "general", 3, 1], // one transposition
    ["list_issue", "list_issues", 3, 1],
    ["kitten", "sitting", 5, 3],
    ["abc", "", 5, 3],
    ["", "abcd", 2, 3], // over the limit: limit + 1
    ["abcdef", "uvwxyz", 2, 3],
    ["a".repeat(10), "b".repeat(10), 4, 5],
  ];
  for (const [a, b, limit, want] of cases) assert.equal(editDistance(a, b, limit), want, `${a} ${b}`);
  // Symmetric within the limit.
  for (const [a, b] of [["room/genral", "room/general"], ["rooms", "room"], ["abcd", "badc"]]) {
    assert.equal(editDistance(a, b, 5), editDistance(b, a, 5));
  }
});

Deno.test("the cutoff is a third of the guess, at least one, counted on the compared part", () => {
  assert.deepEqual([0, 1, 3, 6, 11, 30, 1_000].map(cutoffFor), [
    1,
    1,
    1,
    2,
    3,
    10,
    Math.floor(MAX_COMPARED / 3),
  ]);
});

Deno.test("nearest: up to three within the cutoff, nearest first, ties in the candidates' order", () => {
  const tools = ["list_issues", "read_issue", "list_pull_requests", "list_rooms", "list_wiki"];
  assert.deepEqual(nearest("list_issue", tools), ["list_issues"]);
  assert.deepEqual(nearest("read_isue", tools), ["read_issue"]);
  assert.deepEqual(nearest("LIST_ROOMS", tools), ["list_rooms"]);
  assert.deepEqual(nearest("frobnicate", tools), []);
  // Ties keep the given order; duplicates count once; only three are named.
  assert.deepEqual(nearest("ab", ["ax", "xb", "ab", "ay", "ab", "yb"]), ["ab", "ax", "xb"]);
  assert.deepEqual(nearest("ab", ["ax", "xb", "ay"], 2), ["ax", "xb"]);
});

Deno.test("hostile sizes: a 100 KB guess and 100 KB candidates compare their first characters only", () => {
  const big = "x".repeat(100_000);
  assert.deepEqual(nearest(big, [`${"x".repeat(MAX_COMPARED)}y`, "short"]), [`${"x".repeat(MAX_COMPARED)}y`]);
  assert.deepEqual(nearest("general", [big, "general"]), ["general"]);
  // Candidates past the bound are not looked at.
  const many = [...Array.from({ length: MAX_CANDIDATES }, (_, i) => `far-away-${i}`), "general"];
  assert.deepEqual(nearest("general", many), []);
});
