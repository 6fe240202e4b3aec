// An answer's shape as data (lib/code/answer_shape.ts): said as TypeScript within its bounds, and an
// answer checked against it, field by field, whatever the answer holds.

import assert from "node:assert/strict";
import { answerMisfit, type Shape, shapeType } from "../../lib/code/answer_shape.ts";
import { READ_ANSWERS } from "../../lib/code/relay_answers.ts";

const EVENT: Shape = { object: { id: "string", kind: "integer", tags: { array: { array: "string" } } } };
const SHAPE: Shape = {
  object: {
    items: {
      array: {
        object: {
          id: "string",
          about: { optional: "string" },
          clone: { union: [{ array: "string" }, "null"] },
        },
      },
    },
    refs: { map: "string" },
    root: EVENT,
    next_cursor: "string",
  },
};

Deno.test("shape: said as TypeScript, optional fields with ?, nulls and maps as they are", () => {
  assert.equal(
    shapeType(SHAPE, 1000),
    "{ items: { id: string; about?: string; clone: string[] | null }[]; refs: Record<string, string>; " +
      "root: { id: string; kind: number; tags: string[][] }; next_cursor: string }",
  );
  assert.equal(shapeType({ array: { union: ["string", "null"] } }, 100), "(string | null)[]");
});

Deno.test("shape: deeper levels said as object when the whole would not fit", () => {
  const short = shapeType(SHAPE, 80);
  assert.ok(short.length <= 80, short);
  assert.match(short, /^\{ items: object\[\]; refs: object; root: object; next_cursor: string \}$/);
  assert.equal(shapeType(SHAPE, 6), "object");
  assert.equal(shapeType(SHAPE, 5), "unknown");
  // A real answer's type at the bounds tiny_search uses.
  assert.ok(shapeType(READ_ANSWERS.read_room, 1500).includes("messages: { id: string; pubkey: string;"));
  assert.ok(shapeType(READ_ANSWERS.read_room, 300).length <= 300);
});

Deno.test("shape: an answer fits when every field is known, present when required and of its type", () => {
  const fits = {
    items: [{ id: "a", clone: null }, { id: "b", about: "x", clone: ["u"] }],
    refs: { main: "abc" },
    root: { id: "e", kind: 9, tags: [["h", "general"]] },
    next_cursor: "",
  };
  assert.equal(answerMisfit(SHAPE, fits), undefined);
  const cases: [unknown, RegExp][] = [
    [{ ...fits, extra: 1 }, /^answer\.extra is a field the shipped type does not have$/],
    [{ ...fits, next_cursor: undefined }, /next_cursor is undefined, not string/],
    [(({ next_cursor: _, ...rest }) => rest)(fits), /^answer\.next_cursor is missing$/],
    [{ ...fits, items: [{ id: 1, clone: null }] }, /^answer\.items\[0\]\.id is number, not string$/],
    [{ ...fits, items: [{ id: "a" }] }, /^answer\.items\[0\]\.clone is missing$/],
    [{ ...fits, items: [{ id: "a", clone: "u" }] }, /^answer\.items\[0\]\.clone is not a list$/],
    [{ ...fits, root: { ...fits.root, kind: 1.5 } }, /^answer\.root\.kind is number, not integer$/],
    [{ ...fits, refs: { main: 3 } }, /^answer\.refs\.main is number, not string$/],
    [{ ...fits, root: null }, /^answer\.root is not an object$/],
    [[fits], /^answer is not an object$/],
    ["text", /^answer is not an object$/],
  ];
  for (const [answer, reason] of cases) assert.match(answerMisfit(SHAPE, answer) ?? "fits", reason);
});

Deno.test("shape: a hostile answer is checked within bounds, never thrown on", () => {
  let deep: unknown = "leaf";
  for (let i = 0; i < 10_000; i++) deep = { root: deep };
  const nested: Shape = { object: { root: "unknown" } };
  assert.equal(answerMisfit(nested, deep), undefined, "unknown takes anything");
  const many = {
    items: Array.from({ length: 20_000 }, () => ({ id: "a", clone: null })),
    refs: {},
    root: { id: "", kind: 0, tags: [] },
    next_cursor: "",
  };
  assert.equal(answerMisfit(SHAPE, many), undefined);
  const late = { ...many, items: [...many.items.slice(0, 60), { id: 1, clone: null }] };
  assert.equal(answerMisfit(SHAPE, late), undefined, "past the items read a list is taken as it is");
  const wide = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, "v"]));
  assert.equal(answerMisfit({ map: "string" }, wide), undefined);
  assert.match(answerMisfit(SHAPE, { ...wide })!, /is a field the shipped type does not have/);
  const proto = JSON.parse(
    '{"__proto__": {"id": 1}, "items": [], "refs": {}, "root": {"id": "", "kind": 0, "tags": []}, "next_cursor": ""}',
  );
  assert.match(answerMisfit(SHAPE, proto)!, /__proto__ is a field the shipped type does not have/);
});
