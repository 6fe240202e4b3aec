// A tiny:// URI's query (lib/resources/query.ts), as tables: each parameter read and written back in
// one order; spans reversed, zero, past 15 digits or too long refused with a span that would do;
// JSON pointers read by RFC 6901 (~0, ~1), a bad escape refused; what each query may ask of a
// collection, a file and any other resource.

import assert from "node:assert/strict";
import {
  encodeQueryValue,
  formatQuery,
  MAX_LINES,
  MAX_RANGE_BYTES,
  parseQuery,
  parseSpan,
  pointerTokens,
  queryProblem,
  type ReadQuery,
} from "../../lib/resources/query.ts";

Deno.test("spans: FIRST-LAST, from 1 for lines and 0 for bytes, both ends included", () => {
  const cases: [string, 0 | 1, { first: number; last: number } | string, { first: number; last: number }?][] =
    [
      ["1-200", 1, { first: 1, last: 200 }],
      ["5-5", 1, { first: 5, last: 5 }],
      ["0-0", 0, { first: 0, last: 0 }],
      ["007-9", 1, { first: 7, last: 9 }],
      ["0-5", 1, "counted from 1", { first: 1, last: 5 }],
      ["10-5", 1, "reversed", { first: 5, last: 10 }],
      ["1-10001", 1, "a piece is at most 10000", { first: 1, last: 10000 }],
      [`1-${"9".repeat(16)}`, 1, "more than 15 digits", { first: 1, last: 200 }],
      [`1-${"1" + "0".repeat(30)}`, 1, "more than 15 digits", { first: 1, last: 200 }],
      ["1e3-5", 1, "is not FIRST-LAST", { first: 1, last: 200 }],
      ["-5", 1, "is not FIRST-LAST", { first: 1, last: 200 }],
      ["5-", 0, "is not FIRST-LAST", { first: 0, last: 65535 }],
      ["", 1, "is not FIRST-LAST", { first: 1, last: 200 }],
      ["1 - 2", 1, "is not FIRST-LAST", { first: 1, last: 200 }],
    ];
  for (const [text, from, want, near] of cases) {
    const max = from === 1 ? MAX_LINES : MAX_RANGE_BYTES;
    const got = parseSpan(text, from, max, from === 1 ? 200 : 65536);
    if (typeof want === "string") {
      assert.ok(!got.ok, text);
      assert.ok(got.why.includes(want), `${text}: ${got.why}`);
      assert.deepEqual(got.near, near, text);
    } else assert.deepEqual(got, { ok: true, span: want }, text);
  }
});

Deno.test("pointers: RFC 6901, ~1 is / and ~0 is ~, at most 64 steps", () => {
  const cases: [string, string[] | string][] = [
    ["", []],
    ["/", [""]],
    ["/items/0/title", ["items", "0", "title"]],
    ["/a~1b/c~0d/~01", ["a/b", "c~d", "~1"]],
    ["items", "starts with /"],
    ["/a~2", "~0"],
    ["/a~", "~0"],
    ["/x".repeat(64), Array(64).fill("x")],
    ["/x".repeat(65), "64 steps"],
  ];
  for (const [pointer, want] of cases) {
    const got = pointerTokens(pointer);
    if (typeof want === "string") assert.ok(!got.ok && got.why.includes(want), pointer);
    else assert.deepEqual(got, { ok: true, tokens: want }, pointer);
  }
});

Deno.test("a query is read once and written back in one order, each value escaped as needed", () => {
  const cases: [string | undefined, ReadQuery, string][] = [
    [undefined, { as: "markdown" }, ""],
    ["as=markdown", { as: "markdown" }, ""],
    ["as=json", { as: "json" }, "?as=json"],
    ["cursor=x&as=json", { as: "json", cursor: "x" }, "?as=json&cursor=x"],
    ["pointer=/a%20b&as=json", { as: "json", pointer: "/a b" }, "?as=json&pointer=/a%20b"],
    ["cursor=a%26b%3Dc", { as: "markdown", cursor: "a&b=c" }, "?cursor=a%26b%3Dc"],
    ["cursor=1767225600:ab/cd", { as: "markdown", cursor: "1767225600:ab/cd" }, "?cursor=1767225600:ab/cd"],
    ["lines=3-4", { as: "markdown", lines: { first: 3, last: 4 } }, "?lines=3-4"],
    ["range=0-9", { as: "markdown", range: { first: 0, last: 9 } }, "?range=0-9"],
    ["as=stat", { as: "stat" }, "?as=stat"],
    ["as=links&cursor=99", { as: "links", cursor: "99" }, "?as=links&cursor=99"],
  ];
  for (const [query, want, written] of cases) {
    const got = parseQuery(query);
    assert.deepEqual(got, { ok: true, value: want }, query);
    assert.equal(formatQuery(want), written, query);
  }
  for (
    const [query, words] of [
      ["", "empty"],
      ["as=json&as=json", "twice"],
      ["format=json", "not a parameter"],
      ["as=%zz", "percent-encoded"],
      ["as=xml", "is not markdown, json, stat, links"],
      ["cursor=", "1 to 1024"],
      ["lines=2-1", "reversed"],
    ]
  ) {
    const got = parseQuery(query);
    assert.ok(!got.ok && got.refusal.why.includes(words), `${query}: ${JSON.stringify(got)}`);
  }
  assert.equal(encodeQueryValue("a b+c?d#é"), "a%20b%2Bc%3Fd%23%C3%A9");
});

Deno.test("what a query may ask of a collection, a file, and any other resource", () => {
  const item = { collection: false, file: false };
  const file = { collection: false, file: true };
  const list = { collection: true, file: false };
  const fine: [ReadQuery, typeof item][] = [
    [{ as: "markdown", lines: { first: 1, last: 2 } }, item],
    [{ as: "json", pointer: "/a" }, item],
    [{ as: "markdown", range: { first: 0, last: 1 } }, file],
    [{ as: "markdown", lines: { first: 1, last: 2 } }, file],
    [{ as: "markdown", cursor: "c" }, list],
    [{ as: "json", cursor: "c", pointer: "/children/0" }, list],
    [{ as: "links", cursor: "100" }, item],
    [{ as: "stat" }, file],
  ];
  for (const [query, target] of fine) {
    assert.equal(queryProblem(query, target), undefined, formatQuery(query));
  }
  const refused: [ReadQuery, typeof item, string, ReadQuery[]][] = [
    [{ as: "markdown", range: { first: 0, last: 1 } }, item, "range is of a file's bytes", [{
      as: "markdown",
    }]],
    [{ as: "json", lines: { first: 1, last: 2 } }, item, "lines are of the text read", [
      { as: "markdown", lines: { first: 1, last: 2 } },
      { as: "json" },
    ]],
    [{ as: "markdown", pointer: "/a" }, item, "pointer reads into as=json", [{ as: "json", pointer: "/a" }]],
    [{ as: "stat", lines: { first: 1, last: 2 } }, item, "the whole resource", [{ as: "stat" }]],
    [{ as: "markdown", cursor: "c" }, item, "a page at a time", [{ as: "markdown" }]],
    [{ as: "links", cursor: "-1" }, item, "where the page starts", [{ as: "links" }]],
    [{ as: "stat" }, list, "list of children", [{ as: "markdown" }]],
    [{ as: "markdown", lines: { first: 1, last: 2 }, cursor: "c" }, list, "list of children", [
      { as: "markdown", cursor: "c" },
    ]],
    [{ as: "json", lines: { first: 1, last: 1 }, pointer: "" }, item, "one span at a time", [{ as: "json" }]],
  ];
  for (const [query, target, words, near] of refused) {
    const problem = queryProblem(query, target);
    assert.ok(problem?.why.includes(words), `${formatQuery(query)}: ${problem?.why}`);
    assert.deepEqual(problem?.near, near, formatQuery(query));
  }
});
