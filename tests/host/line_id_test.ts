// The id of a request line as the host wrote it (lib/host/line_id.ts), found by scanning, never by
// parsing the whole line: direct rows for rawIdOf and IdScanner, fed as text and as UTF-8 bytes in
// any chunking. readLines' use of it on over-long lines is tested in stdio_test.ts.

import assert from "node:assert/strict";
import { IdScanner, rawIdOf } from "../../lib/host/line_id.ts";

const encoder = new TextEncoder();

/** The scanner fed the line's UTF-8 bytes in chunks of `size`. */
function scanBytes(line: string, size: number): IdScanner {
  const scanner = new IdScanner();
  const bytes = encoder.encode(line);
  for (let at = 0; at < bytes.length; at += size) scanner.feed(bytes.subarray(at, at + size));
  return scanner;
}

/** [name, line, the id's raw text or undefined, the id's value]. */
const ROWS: [string, string, string | undefined, string | number | null][] = [
  ["a number", '{"jsonrpc":"2.0","id":42,"method":"ping"}', "42", 42],
  ["a string", '{"id":"abc","method":"ping"}', '"abc"', "abc"],
  ["the last member", '{"method":"ping","id":7}', "7", 7],
  ["whitespace everywhere", ' \t{ "id" \r\n:  -3.5e2 , "method":"x"}', "-3.5e2", -350],
  ["an integer past 2^53, digit for digit", '{"id":9007199254740993}', "9007199254740993", 9007199254740992],
  ["zero, negative zero", '{"id":-0}', "-0", -0],
  ["a string with escapes", '{"id":"a\\"b\\\\c\\u00e9}{,"}', '"a\\"b\\\\c\\u00e9}{,"', 'a"b\\cé}{,'],
  ["a non-ASCII string", '{"id":"ünï 😀"}', '"ünï 😀"', "ünï 😀"],
  ["the key spelled with escapes", '{"\\u0069\\u0064":5}', "5", 5],
  ["the key half escaped", '{"i\\u0064":"x"}', '"x"', "x"],
  ["nested ids are not the id", '{"params":{"id":1,"list":[{"id":2}]},"id":3}', "3", 3],
  ["ids inside strings are not the id", '{"a":"\\"id\\":1","b":"id","id":4}', "4", 4],
  ["a value that is the string id", '{"x":"id","y":6}', undefined, null],
  ["the first of two ids", '{"id":1,"id":2}', "1", 1],
  ["a longer key that starts with id", '{"identifier":1,"idx":2}', undefined, null],
  ["no id", '{"jsonrpc":"2.0","method":"ping"}', undefined, null],
  ["a null id", '{"id":null}', undefined, null],
  ["a boolean id", '{"id":true}', undefined, null],
  ["an object id", '{"id":{"a":1}}', undefined, null],
  ["an array id", '{"id":[1]}', undefined, null],
  ["a number too large to be finite", '{"id":1e400}', undefined, null],
  ["not a number", '{"id":12abc}', undefined, null],
  ["an unterminated string", '{"id":"abc', undefined, null],
  ["an array line", '[{"id":1}]', undefined, null],
  ["a string line", '"id"', undefined, null],
  ["an empty line", "", undefined, null],
];

Deno.test("rawIdOf and IdScanner: one row each, as text and as bytes in any chunking", async (t) => {
  for (const [name, line, raw, id] of ROWS) {
    await t.step(name, () => {
      assert.equal(rawIdOf(line), raw, "rawIdOf");
      const text = new IdScanner();
      text.feedText(line);
      assert.equal(text.raw(), raw, "fed as text");
      assert.ok(Object.is(text.id(), id), `id() ${text.id()} for ${id}`);
      for (const size of [1, 2, 3, 7, 1000]) {
        const bytes = scanBytes(line, size);
        assert.equal(bytes.raw(), raw, `fed as bytes, ${size} at a time`);
        assert.ok(Object.is(bytes.id(), id), `id() in chunks of ${size}`);
      }
    });
  }
});

Deno.test("the id's bound: 1 KiB of id is read, more is no id", () => {
  const fits = `"${"a".repeat(1020)}"`; // 1022 bytes with its quotes
  assert.equal(rawIdOf(`{"id":${fits}}`), fits);
  const over = `"${"a".repeat(1100)}"`;
  assert.equal(rawIdOf(`{"id":${over},"method":"x"}`), undefined);
  const digits = "1".repeat(2000);
  assert.equal(rawIdOf(`{"id":${digits}}`), undefined);
});

Deno.test("scanning stops at the id: what follows is not read", () => {
  const scanner = new IdScanner();
  scanner.feedText('{"id":8,');
  assert.equal(scanner.raw(), "8");
  scanner.feedText('"id":9,"more":"x"}');
  assert.equal(scanner.raw(), "8", "fed more, the first id stands");
});

Deno.test("an id after megabytes of other members, fed in pieces, is still found", () => {
  const scanner = new IdScanner();
  scanner.feedText('{"params":{"blob":"');
  const chunk = encoder.encode("x".repeat(1 << 20));
  for (let i = 0; i < 8; i++) scanner.feed(chunk); // 8 MiB inside a string
  scanner.feedText('"},"id":"late"}');
  assert.equal(scanner.raw(), '"late"');
});
