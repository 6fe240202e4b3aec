// Small JSON helpers (lib/wire/json.ts): what counts as an object, parsing that never throws, and
// the one-line excerpt of a body that is not JSON.

import assert from "node:assert/strict";
import { excerpt, isObject, parseJson } from "../../lib/wire/json.ts";

Deno.test("isObject: a JSON object, not null, not an array", () => {
  for (const value of [{}, { a: 1 }, JSON.parse('{"__proto__":1}'), Object.create(null)]) {
    assert.equal(isObject(value), true, JSON.stringify(value));
  }
  for (const value of [null, undefined, [], [1], "x", 1, true]) {
    assert.equal(isObject(value), false, JSON.stringify(value));
  }
});

Deno.test("parseJson: the value, or undefined for text that is not JSON", () => {
  assert.deepEqual(parseJson('{"a":[1,"b",null]}'), { a: [1, "b", null] });
  assert.equal(parseJson("null"), null, "JSON null is a value, not a failure");
  assert.equal(parseJson(" 7 "), 7);
  for (const text of ["", "{", "{not json}", "undefined", "NaN", "'x'", '{"a":1} trailing']) {
    assert.equal(parseJson(text), undefined, text);
  }
});

Deno.test("excerpt: one line, whitespace collapsed, cut with an ellipsis", () => {
  assert.equal(
    excerpt("  <html>\n  <body>\tBad\r\nGateway</body>  ", 100),
    "<html> <body> Bad Gateway</body>",
  );
  assert.equal(excerpt("abcdef", 6), "abcdef");
  assert.equal(excerpt("abcdefg", 6), "abcdef…");
  assert.equal(excerpt("a\n".repeat(500), 10), "a a a a a …");
  assert.equal(excerpt("", 10), "");
});
