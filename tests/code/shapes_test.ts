// Seen result shapes (lib/code/shapes.ts): answers merged into field names and JSON types, optional where
// some answer lacked the field, arrays as their elements' merged shape, never a value; and the bounds
// whatever an answer holds: deep, wide, a graph that loops, 10,000 fields, a huge array.

import assert from "node:assert/strict";
import {
  MAX_DEPTH,
  MAX_FIELDS,
  MAX_ITEMS,
  MAX_KEYS_READ,
  MAX_NAME,
  MAX_NODES,
  ResultShape,
} from "../../lib/code/shapes.ts";

function typeOf(answers: unknown[], maxChars = 10_000): string {
  const shape = new ResultShape();
  for (const answer of answers) shape.absorb(answer);
  return shape.type(maxChars);
}

Deno.test("answers merged: fields and JSON types, optional where missing, arrays as their elements", () => {
  const rows: [string, unknown[], string][] = [
    ["nothing seen", [], "unknown"],
    ["a scalar answer", ["some text"], "string"],
    [
      "a list tool's page",
      [{ items: [{ id: "room-1", members: 3 }], next_cursor: "room-1" }],
      "{ items: { id: string; members: number }[]; next_cursor: string }",
    ],
    ["a field missing from one answer", [{ a: 1, b: "x" }, { a: 2 }], "{ a: number; b?: string }"],
    ["a field first seen later", [{ a: 1 }, { a: 2, b: true }], "{ a: number; b?: boolean }"],
    [
      "elements merged, optional within the array",
      [{ xs: [{ id: "1", at: 5 }, { id: "2" }] }],
      "{ xs: { id: string; at?: number }[] }",
    ],
    ["mixed elements", [[1, "a", null, false]], "(string | number | boolean | null)[]"],
    ["only empty arrays", [{ xs: [] }, { xs: [] }], "{ xs: unknown[] }"],
    ["null, then an object", [{ a: null }, { a: { b: 1 } }], "{ a: { b: number } | null }"],
    ["an object or an array", [{ a: { b: 1 } }, { a: [1] }], "{ a: { b: number } | number[] }"],
    ["arrays of arrays", [[["a"], ["b"]]], "string[][]"],
    ["an empty object", [{}], "{}"],
    [
      "names that are not identifiers, quoted",
      [{ "a-b": 1, "x y": 2, "*/": 3, "": 4 }],
      '{ "a-b": number; "x y": number; "*/": number; "": number }',
    ],
    ["an answer that is not JSON", [{ f: () => 1, n: 1n }], "{ f: unknown; n: unknown }"],
  ];
  for (const [what, answers, type] of rows) assert.equal(typeOf(answers), type, what);
});

Deno.test("never a value: strings, numbers and names of values stay out", () => {
  const type = typeOf([{ token: "s3cret-value", count: 424242, list: ["private room"] }]);
  assert.equal(type, "{ token: string; count: number; list: string[] }");
  for (const value of ["s3cret", "424242", "private"]) assert.ok(!type.includes(value), value);
});

Deno.test("hostile answers: deep, wide, looping, 10,000 fields, a huge array — bounded", async (t) => {
  await t.step("deep: levels past MAX_DEPTH are unknown", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 10_000; i++) deep = { d: deep };
    const type = typeOf([deep]);
    assert.equal(type, `${"{ d: ".repeat(MAX_DEPTH)}unknown${" }".repeat(MAX_DEPTH)}`);
  });
  await t.step("a graph that loops (not JSON, but given): ends, bounded by depth", () => {
    const a: Record<string, unknown> = { id: "a" };
    a.self = a;
    a.list = [a, a];
    const type = typeOf([a]);
    assert.match(type, /^\{ id: string; self: \{ id: string; self: /);
    assert.ok(type.length < 10_000);
  });
  await t.step("10,000 fields: MAX_FIELDS kept, the rest said to go on", () => {
    const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`f${i}`, i]));
    const type = typeOf([wide]);
    assert.equal((type.match(/: number/g) ?? []).length, MAX_FIELDS);
    assert.match(type, /f39: number; \/\* more fields not shown \*\/ \}$/);
  });
  await t.step("fields past the keys read in one answer are not counted", () => {
    const shape = new ResultShape();
    const wide = Object.fromEntries(Array.from({ length: MAX_KEYS_READ + 5 }, (_, i) => [`f${i}`, i]));
    shape.absorb({ ...wide, last: "x" });
    assert.ok(!shape.type(10_000).includes("last"));
  });
  await t.step("a name longer than MAX_NAME is left out, said to go on", () => {
    const type = typeOf([{ ["n".repeat(MAX_NAME + 1)]: 1, ok: 2 }]);
    assert.equal(type, "{ ok: number; /* more fields not shown */ }");
  });
  await t.step("a huge array: its first MAX_ITEMS read", () => {
    const items = Array.from({ length: 100_000 }, (_, i) => (i < MAX_ITEMS ? { a: 1 } : { b: 1 }));
    assert.equal(typeOf([items]), "{ a: number }[]");
  });
  await t.step("many answers, each with new names: the shape's nodes stay bounded", () => {
    const shape = new ResultShape();
    for (let i = 0; i < 2_000; i++) shape.absorb({ [`k${i}`]: { [`inner${i}`]: [i] } });
    const type = shape.type(1_000_000);
    assert.ok((type.match(/:/g) ?? []).length <= MAX_NODES, type.length.toString());
    assert.equal(shape.answers, 2_000);
  });
});

Deno.test("the type fits its length: levels below said as object when it would not", () => {
  const page = { items: [{ id: "x", name: "y", members: 1, about: "z" }], next_cursor: "" };
  const shape = new ResultShape();
  shape.absorb(page);
  assert.equal(
    shape.type(10_000),
    "{ items: { id: string; name: string; members: number; about: string }[]; next_cursor: string }",
  );
  assert.equal(shape.type(50), "{ items: object[]; next_cursor: string }");
  assert.equal(shape.type(10), "object");
  assert.equal(shape.type(3), "unknown", "not even `object` fits");
});
