// The canonical JSON and the hashes (lib/code/digest.ts): key order never matters, anything else does;
// a value JSON cannot hold is said as undefined, never thrown.

import assert from "node:assert/strict";
import { canonicalJson, sha256Hex, SHORT_HASH_CHARS, shortHash } from "../../lib/code/digest.ts";

Deno.test("canonical JSON: keys sorted at every depth, arrays kept in order", () => {
  const rows: [unknown, string][] = [
    [{ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }, '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}'],
    [[2, 1], "[2,1]"],
    ["x", '"x"'],
    [{ ["__proto__"]: 1, a: 2 }, '{"__proto__":1,"a":2}'],
  ];
  for (const [value, text] of rows) assert.equal(canonicalJson(value), text);
  assert.equal(canonicalJson(JSON.parse('{"__proto__":{"x":1}}')), '{"__proto__":{"x":1}}');
  assert.equal(
    canonicalJson({ room: "general", content: "hi" }),
    canonicalJson({ content: "hi", room: "general" }),
  );
});

Deno.test("canonical JSON: what JSON cannot hold is undefined, not an exception", () => {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  assert.equal(canonicalJson(cycle), undefined);
  assert.equal(canonicalJson({ n: 1n }), undefined);
  let deep: unknown = [];
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(canonicalJson(deep), undefined, "nesting past the stack");
});

Deno.test("hashes: SHA-256 in hex; the short one of the canonical text", async () => {
  assert.equal(await sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  const short = await shortHash({ b: 1, a: 2 });
  assert.equal(short.length, SHORT_HASH_CHARS);
  assert.equal(short, (await sha256Hex('{"a":2,"b":1}')).slice(0, SHORT_HASH_CHARS));
  assert.equal(await shortHash({ a: 2, b: 1 }), short);
  assert.notEqual(await shortHash({ a: 2, b: 2 }), short);
});
