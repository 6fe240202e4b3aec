// Go's JSON syntax errors as the twin words them (go_json_syntax.ts): each place Go's scanner can
// stop, in its words, and agreement with JSON.parse on which texts are JSON at all.

import assert from "node:assert/strict";
import { goSyntaxError } from "./go_json_syntax.ts";

const enc = new TextEncoder();
const check = (text: string) => goSyntaxError(enc.encode(text));

Deno.test("Go's JSON syntax errors: each place the scanner stops, in its words", () => {
  const cases: [string, string][] = [
    ["", "unexpected end of JSON input"],
    [" \n\t", "unexpected end of JSON input"],
    ["{not json", "invalid character 'n' looking for beginning of object key string"],
    ["hello", "invalid character 'h' looking for beginning of value"],
    ["'x'", "invalid character '\\'' looking for beginning of value"],
    ["\u00e9", "invalid character '\u00c3' looking for beginning of value"],
    ["[1,]", "invalid character ']' looking for beginning of value"],
    ['{"a" 1}', "invalid character '1' after object key"],
    ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
    ["[1 2]", "invalid character '2' after array element"],
    ["{} x", "invalid character 'x' after top-level value"],
    ["01", "invalid character '1' after top-level value"],
    ["tx", "invalid character 'x' in literal true (expecting 'r')"],
    ["nul", "invalid character ' ' in literal null (expecting 'l')"],
    ["fals!", "invalid character '!' in literal false (expecting 'e')"],
    ['"a\u0001"', "invalid character '\\x01' in string literal"],
    ['"a\n"', "invalid character '\\n' in string literal"],
    ['"\\q"', "invalid character 'q' in string escape code"],
    ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ["-x", "invalid character 'x' in numeric literal"],
    ["-", "invalid character ' ' in numeric literal"],
    ["1.x", "invalid character 'x' after decimal point in numeric literal"],
    ["1ex", "invalid character 'x' in exponent of numeric literal"],
    ["1e", "invalid character ' ' in exponent of numeric literal"],
    ["[1", "unexpected end of JSON input"],
    ['{"a":"b', "unexpected end of JSON input"],
    ["[".repeat(10001), "invalid character '[' exceeded max depth"],
    ["[".repeat(10000), "unexpected end of JSON input"],
  ];
  for (const [text, error] of cases) assert.equal(check(text), error, JSON.stringify(text.slice(0, 20)));
  for (const text of ['{"a":[1,-2.5e+3,true,false,null,"\\u00e9\\n"]}', "  12  ", "0", '""', "[]", "{}"]) {
    assert.equal(check(text), undefined, text);
  }
});

Deno.test("Go's JSON syntax errors: a text is JSON to the scanner exactly when JSON.parse takes it", () => {
  // A small alphabet of JSON's own bytes makes near-misses common; the seed keeps every run the same.
  const alphabet = [
    "{",
    "}",
    "[",
    "]",
    '"',
    ":",
    ",",
    " ",
    "1",
    "0",
    "-",
    ".",
    "e",
    "t",
    "r",
    "u",
    "n",
    "l",
    "\\",
    "a",
  ];
  let seed = 42;
  const next = (n: number) => (seed = (seed * 1103515245 + 12345) % 2147483648) % n;
  let parsed = 0;
  for (let i = 0; i < 20000; i++) {
    const text = Array.from({ length: 1 + next(8) }, () => alphabet[next(alphabet.length)]).join("");
    let valid = true;
    try {
      JSON.parse(text);
      parsed++;
    } catch {
      valid = false;
    }
    assert.equal(check(text) === undefined, valid, JSON.stringify(text));
  }
  assert.ok(parsed > 100, `enough valid texts to compare (${parsed})`);
});
