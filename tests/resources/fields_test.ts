// The relay's answers read defensively (lib/resources/fields.ts): a missing field or one of the
// wrong type reads as absent; events normalized; lists bounded; oldest first by time, then id.

import assert from "node:assert/strict";
import {
  arr,
  bool,
  eventOf,
  eventsOf,
  MAX_ENTRIES,
  MAX_TAGS,
  num,
  obj,
  oldestFirst,
  str,
  strings,
  tagValue,
  tagValues,
} from "../../lib/resources/fields.ts";

Deno.test("getters: the right type or nothing, whatever the value is", () => {
  const values: unknown[] = [undefined, null, 42, "text", [], [1], { a: 1 }, true];
  for (const value of values) {
    assert.equal(str(value, "a"), undefined);
    assert.equal(num(value, "x"), undefined);
    assert.deepEqual(arr(value, "a"), []);
    assert.equal(obj(value, "a"), undefined);
  }
  const answer = {
    s: "x",
    n: 3,
    inf: Infinity,
    nan: NaN,
    b: false,
    a: [1, "two", null],
    o: { k: 1 },
    nul: null,
  };
  assert.equal(str(answer, "s"), "x");
  assert.equal(str(answer, "n"), undefined);
  assert.equal(num(answer, "n"), 3);
  assert.equal(num(answer, "inf"), undefined);
  assert.equal(num(answer, "nan"), undefined);
  assert.equal(bool(answer, "b"), false);
  assert.equal(bool(answer, "s"), undefined);
  assert.deepEqual(arr(answer, "a"), [1, "two", null]);
  assert.deepEqual(strings(answer, "a"), ["two"]);
  assert.deepEqual(obj(answer, "o"), { k: 1 });
  assert.equal(obj(answer, "a"), undefined);
  assert.equal(obj(answer, "nul"), undefined);
  assert.equal(arr({ a: Array(MAX_ENTRIES + 5).fill(0) }, "a").length, MAX_ENTRIES);
});

Deno.test("events: fields of the right type kept, malformed tags dropped, content defaulted", () => {
  assert.equal(eventOf("x"), undefined);
  assert.equal(eventOf(null), undefined);
  const raw = {
    id: 7,
    pubkey: "k",
    created_at: "yesterday",
    kind: 9,
    tags: [["h", "g"], ["e", 3], "x", ["p"]],
    content: null,
  };
  const ev = eventOf(raw)!;
  assert.deepEqual({ ...ev, raw: undefined }, {
    id: undefined,
    pubkey: "k",
    createdAt: undefined,
    kind: 9,
    tags: [["h", "g"], ["p"]],
    content: "",
    raw: undefined,
  });
  assert.equal(ev.raw, raw);
  assert.equal(eventOf({ tags: Array(MAX_TAGS + 1).fill(["t", "x"]) })!.tags.length, MAX_TAGS);
  assert.deepEqual(eventsOf({ list: [{ id: "a" }, 3, null, { id: "b" }] }, "list").map((e) => e.id), [
    "a",
    "b",
  ]);
  assert.equal(tagValue([["e"], ["e", "1"], ["e", "2"]], "e"), "1");
  assert.deepEqual(tagValues([["e", "1"], ["p", "x"], ["e", "2"]], "e"), ["1", "2"]);
});

Deno.test("oldest first: by time, then id; an unknown time sorts first; input order never matters", () => {
  const events = [
    { id: "c", createdAt: 20 },
    { id: "a", createdAt: 10 },
    { id: "b", createdAt: 10 },
    { id: "z", createdAt: undefined },
  ];
  assert.deepEqual(oldestFirst(events).map((e) => e.id), ["z", "a", "b", "c"]);
  assert.deepEqual(oldestFirst([...events].reverse()).map((e) => e.id), ["z", "a", "b", "c"]);
});
