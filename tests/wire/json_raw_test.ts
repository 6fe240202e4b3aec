// rawMember (lib/wire/json_raw.ts): a member's value exactly as written, which is how the helper
// echoes ids byte for byte and forwards a `request` body as given (rpc-facts.md 2.1, 2.2, 3.6):
// scalars and nested values verbatim, the last duplicate key wins, escaped keys, missing paths, deep nesting.

import assert from "node:assert/strict";
import { rawMember } from "../../lib/wire/json_raw.ts";

Deno.test("values come back exactly as written", async (t) => {
  const cases: [string, string][] = [
    ["1.0", "1.0"],
    ["1e3", "1e3"],
    ["1E+2", "1E+2"],
    ["-0", "-0"],
    ["-1.50e-7", "-1.50e-7"],
    ["a 20-digit integer", "12345678901234567890"],
    ["null", "null"],
    ["true", "true"],
    ["false", "false"],
    ["a plain string", '"a"'],
    ["escapes kept as escapes", '"\\u00e9\\n\\t\\/\\\\"'],
    ["an escaped quote", '"say \\"hi\\""'],
    ["brackets and braces inside a string", '"}]{[,:"'],
    ["a string that ends in an escaped backslash", '"a\\\\"'],
    ["a string of a backslash and a quote", '"\\\\\\""'],
    ["non-ASCII written raw", '"é 😀 \u2028"'],
    ["an empty object", "{}"],
    ["an empty array", "[]"],
    ["odd whitespace inside", '{ "a" :\t[ 1 ,\n{"b" : "}"} ,\r\n"]" ] , "c":2 }'],
    ["nested arrays", "[[[],[[1.0]]],[]]"],
  ];
  for (const [name, value] of cases) {
    await t.step(name, () => {
      for (
        const text of [
          `{"id":${value}}`,
          `{ "x": 1, "id" :  ${value}  , "y": [2] }`,
          `{"id":${value},"z":"}"}`,
        ]
      ) {
        assert.equal(rawMember(text, ["id"]), value, text);
      }
    });
  }
});

Deno.test("the path walks nested objects, and the last duplicate key wins, as JSON.parse has it", async (t) => {
  const cases: [string, string, string[], string | undefined][] = [
    ["a nested member", '{"a":{"b":{"c": 1.0 }}}', ["a", "b", "c"], "1.0"],
    ["the whole object at an inner step", '{"a":{ "b" : [1] }}', ["a"], '{ "b" : [1] }'],
    ["the empty path: the whole value, trimmed", '  \n{"a":1} \t', [], '{"a":1}'],
    ["a duplicate: the last", '{"id":1,"id":2}', ["id"], "2"],
    ["three duplicates", '{"id":"x","b":0,"id":[1],"id":{"k":3}}', ["id"], '{"k":3}'],
    ["duplicates of an object: only the last is walked", '{"a":{"x":1},"a":{"y":2}}', ["a", "y"], "2"],
    ["the first duplicate's member is gone", '{"a":{"x":1},"a":{"y":2}}', ["a", "x"], undefined],
    ["an escaped key", '{"\\u0069d":5}', ["id"], "5"],
    ["an escaped key after the plain one wins", '{"id":5,"\\u0069\\u0064":6}', ["id"], "6"],
    ["a key holding a quote", '{"a\\"b":7}', ['a"b'], "7"],
    ["a key holding an escaped slash", '{"a\\/b":8}', ["a/b"], "8"],
    ["a non-ASCII key", '{"clé":9}', ["clé"], "9"],
    ["a key named like a value elsewhere", '{"x":"id","y":{"id":1}}', ["id"], undefined],
    ["a member of an inner object is not the outer's", '{"a":{"id":1}}', ["id"], undefined],
    ["a member after an inner object holding the same key", '{"a":{"id":1},"id":2}', ["id"], "2"],
    ["missing in an empty object", "{}", ["a"], undefined],
    ["missing", '{"a":1}', ["b"], undefined],
    ["a missing inner step", '{"a":{"b":1}}', ["a", "c"], undefined],
    ["through an array", '{"a":[{"b":1}]}', ["a", "b"], undefined],
    ["through a string holding JSON", '{"a":"{\\"b\\":1}"}', ["a", "b"], undefined],
    ["through null", '{"a":null}', ["a", "b"], undefined],
    ["through a number", '{"a":1}', ["a", "b"], undefined],
    ["through true", '{"a":true}', ["a", "b"], undefined],
    ["a top-level array", '[{"a":1}]', ["a"], undefined],
    ["a top-level string", '"{\\"a\\":1}"', ["a"], undefined],
  ];
  for (const [name, text, path, expected] of cases) {
    await t.step(name, () => {
      assert.equal(rawMember(text, path), expected);
      if (expected !== undefined) assert.deepEqual(JSON.parse(expected), valueAt(JSON.parse(text), path));
      else assert.equal(valueAt(JSON.parse(text), path), undefined, "JSON.parse agrees nothing is there");
    });
  }
});

Deno.test("deep nesting does not overflow the stack", async (t) => {
  const depth = 100_000;
  const deep = "[".repeat(depth) + "]".repeat(depth);
  await t.step("100,000 arrays inside a member, and the member after them", () => {
    const text = `{"a":${deep},"b":7}`;
    assert.equal(rawMember(text, ["b"]), "7");
    assert.equal(rawMember(text, ["a"]), deep);
  });
  await t.step("100,000 objects inside a member", () => {
    const objects = '{"x":'.repeat(depth) + "1" + "}".repeat(depth);
    const text = `{"a":${objects},"id":"after"}`;
    assert.equal(rawMember(text, ["id"]), '"after"');
    assert.equal(rawMember(text, ["a"]), objects);
  });
  await t.step("a path 1,000 keys long", () => {
    const levels = 1_000;
    const text = '{"k": '.repeat(levels) + "[1.0]" + " }".repeat(levels);
    assert.equal(rawMember(text, Array(levels).fill("k")), "[1.0]");
    assert.equal(rawMember(text, [...Array(levels).fill("k"), "k"]), undefined);
  });
});

/** The parsed value at `path`, or undefined when a step is missing or not an object. */
function valueAt(value: unknown, path: readonly string[]): unknown {
  let here = value;
  for (const key of path) {
    if (here === null || typeof here !== "object" || Array.isArray(here)) return undefined;
    if (!Object.hasOwn(here, key)) return undefined;
    here = (here as Record<string, unknown>)[key];
  }
  return here;
}

/** A small seeded generator (mulberry32), so a failure names a seed that reproduces it. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random JSON text with random formatting: every number form, every escape, duplicate keys, deep values. */
function writer(next: () => number) {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)];
  const space = () => next() < 0.5 ? "" : pick([" ", "\t", "\n", "\r\n", "  ", " \n\t "]);
  const KEYS = ["id", "a", "b", "method", "params", "body", "", "}", 'q"', "é", "x y"];
  const NUMBERS = ["0", "-0", "1.0", "1e3", "1E-2", "-12.5e+1", "12345678901234567890", "3.14159", "7"];
  const PIECES = [
    "a",
    "}",
    "]",
    "{",
    "[",
    ",",
    ":",
    " ",
    '\\"',
    "\\\\",
    "\\/",
    "\\n",
    "\\u0041",
    "\\ud83d\\ude00",
    "é",
  ];
  const string = (): string => {
    let text = '"';
    const length = Math.floor(next() * 6);
    for (let i = 0; i < length; i++) text += pick(PIECES);
    return `${text}"`;
  };
  const key = (): string => {
    const name = pick(KEYS);
    // Sometimes the same key spelled with an escape: it is the same name to JSON.parse.
    if (name === "id" && next() < 0.3) return '"\\u0069d"';
    return JSON.stringify(name);
  };
  const value = (depth: number): string => {
    const roll = next();
    if (depth > 5 || roll < 0.35) {
      return pick([() => pick(NUMBERS), string, () => pick(["null", "true", "false"])])();
    }
    const count = Math.floor(next() * 5);
    const items: string[] = [];
    if (roll < 0.7) {
      for (let i = 0; i < count; i++) {
        items.push(`${space()}${key()}${space()}:${space()}${value(depth + 1)}${space()}`);
      }
      return `{${items.join(",")}${count === 0 ? space() : ""}}`;
    }
    for (let i = 0; i < count; i++) items.push(`${space()}${value(depth + 1)}${space()}`);
    return `[${items.join(",")}${count === 0 ? space() : ""}]`;
  };
  return { value, space, pick };
}

/** Every path of object keys in `value` (each step an object), the empty path included. */
function pathsOf(value: unknown, prefix: string[] = []): string[][] {
  const paths = [prefix];
  if (value !== null && typeof value === "object" && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value)) paths.push(...pathsOf(inner, [...prefix, key]));
  }
  return paths;
}

Deno.test("property: JSON.parse of the raw member is the parsed document's value at that path", () => {
  const seeds = 400;
  let checked = 0;
  for (let seed = 1; seed <= seeds; seed++) {
    const next = random(seed);
    const { value, space, pick } = writer(next);
    const text = `${space()}${value(0)}${space()}`;
    const parsed = JSON.parse(text);
    for (const path of pathsOf(parsed)) {
      const raw = rawMember(text, path);
      const label = `seed ${seed}, path ${JSON.stringify(path)}, text ${JSON.stringify(text)}`;
      assert.ok(raw !== undefined, label);
      assert.deepEqual(JSON.parse(raw), valueAt(parsed, path), label);
      assert.equal(raw, raw.trim(), `no surrounding whitespace: ${label}`);
      checked++;
    }
    // A step that is not there, or that goes through something other than an object.
    const missing = [...pick(pathsOf(parsed)), "no such key"];
    assert.equal(rawMember(text, missing), undefined, `seed ${seed}, path ${JSON.stringify(missing)}`);
  }
  assert.ok(checked > seeds * 2, `enough paths were checked (${checked})`);
});
