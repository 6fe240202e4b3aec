// The nearest valid choices for a wrong guess (lib/resources/nearest.ts): a bounded edit distance
// with transpositions, a cutoff of a third of the guess, stable ties, hostile sizes bounded, and
// the -32602 refusal naming up to three.

import assert from "node:assert/strict";
import {
  cutoffFor,
  echoedUri,
  editDistance,
  MAX_CANDIDATES,
  MAX_COMPARED,
  nearest,
  nearestUris,
  refusal,
  resourcePart,
} from "../../lib/resources/nearest.ts";

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

Deno.test("URIs are compared on what names the resource, not the relay or tenant", () => {
  assert.equal(resourcePart("tiny://relay.example/room/general"), "room/general");
  assert.equal(resourcePart("tiny://h:1/r/acme/room/general?as=json"), "room/general?as=json");
  assert.equal(resourcePart("https://other.example/rooms/general"), "rooms/general");
  const rooms = ["general", "random", "dev", "genesis"].map((id) => `tiny://relay.example/room/${id}`);
  assert.deepEqual(nearestUris("tiny://relay.example/room/genral", rooms), [
    "tiny://relay.example/room/general",
  ]);
  assert.deepEqual(nearestUris("tiny://relay.example/rooms/general", rooms), [
    "tiny://relay.example/room/general",
    "tiny://relay.example/room/genesis",
  ]);
  assert.deepEqual(nearestUris("tiny://x.example/room/gensis", rooms), ["tiny://relay.example/room/genesis"]);
  assert.deepEqual(nearestUris("tiny://relay.example/wiki/nothing-like-it", rooms), []);
});

Deno.test("hostile sizes: a 100 KB guess and 100 KB candidates compare their first characters only", () => {
  const big = "x".repeat(100_000);
  assert.deepEqual(nearest(big, [`${"x".repeat(MAX_COMPARED)}y`, "short"]), [`${"x".repeat(MAX_COMPARED)}y`]);
  assert.deepEqual(nearest("general", [big, "general"]), ["general"]);
  assert.deepEqual(
    nearestUris(`tiny://relay.example/room/${big}`, ["tiny://relay.example/room/general"]),
    [],
  );
  // Candidates past the bound are not looked at.
  const many = [...Array.from({ length: MAX_CANDIDATES }, (_, i) => `far-away-${i}`), "general"];
  assert.deepEqual(nearest("general", many), []);
});

Deno.test("the refusal: -32602, the words, up to three nearest, and data {uri, nearest, reason}", () => {
  const near = [
    "tiny://h/room/general",
    "tiny://h/room/genesis",
    "tiny://h/room/generic",
    "tiny://h/room/gen",
  ];
  assert.deepEqual(refusal("tiny://h/room/genral", "not-found", "no room genral here.", near), {
    code: -32602,
    message:
      "no room genral here. Nearest that resolve: tiny://h/room/general, tiny://h/room/genesis, tiny://h/room/generic.",
    data: { uri: "tiny://h/room/genral", nearest: near.slice(0, 3), reason: "not-found" },
  });
  assert.equal(
    refusal("u", "syntax", "bad", ["tiny://h/room/a"]).message,
    "bad. Nearest that resolves: tiny://h/room/a.",
  );
  assert.equal(refusal("u", "syntax", "bad", []).message, "bad.");
  // An over-long URI is never echoed whole.
  const long = `tiny://h/${"a".repeat(100_000)}`;
  const refused = refusal(long, "too-long", "too long", []);
  assert.ok(refused.data.uri.length <= 65 + 1, String(refused.data.uri.length));
  assert.ok(!JSON.stringify(refused).includes("a".repeat(100)));
  assert.equal(echoedUri("tiny://h/room/a"), "tiny://h/room/a");
});
