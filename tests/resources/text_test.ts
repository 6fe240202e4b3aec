// Relay text made safe to show (lib/resources/text.ts): hiding characters as visible escapes
// (valid inside JSON strings too), zero-width joiners kept, cuts on character boundaries.

import assert from "node:assert/strict";
import { count, cut, escapeHiding, hasHidden, oneLine, shown } from "../../lib/resources/text.ts";

Deno.test("hiding characters become \\uXXXX; text, tabs, line feeds and joiners stay", () => {
  const cases: [string, string][] = [
    ["plain text", "plain text"],
    ["a\u001b[31mred", "a\\u001b[31mred"],
    ["x\u202eevil\u2066y", "x\\u202eevil\\u2066y"],
    ["c1\u0085 del\u007f", "c1\\u0085 del\\u007f"],
    ["line\u2028sep\u2029", "line\\u2028sep\\u2029"],
    ["zero\u200bwidth\ufeff", "zero\\u200bwidth\\ufeff"],
    ["tag\u{e0041}", "tag\\udb40\\udc41"], // an invisible tag character, as its surrogate pair
    ["tab\tand\nline", "tab\tand\nline"],
    ["cr\r", "cr\\u000d"],
    ["👨‍👩‍👧 and क्‍ष", "👨‍👩‍👧 and क्‍ष"], // ZWJ sequences
  ];
  for (const [input, want] of cases) assert.equal(escapeHiding(input), want, JSON.stringify(input));
  // Escaped inside JSON, a string still parses to the same text, now visible.
  const json = escapeHiding(JSON.stringify({ name: "a\u202eb\u0085" }));
  assert.deepEqual(JSON.parse(json), { name: "a\u202eb\u0085" });
  assert.ok(!/[\u202e\u0085]/.test(json));
  assert.equal(hasHidden("ok"), false);
  assert.equal(hasHidden("a\u202eb"), true);
  assert.equal(hasHidden("a\nb"), true);
});

Deno.test("cuts never split a surrogate pair, and say how much was left out", () => {
  assert.deepEqual(cut("abcdef", 10), { shown: "abcdef", left: 0 });
  assert.deepEqual(cut("abcdef", 4), { shown: "abcd", left: 2 });
  assert.deepEqual(cut("a😀b", 2), { shown: "a", left: 3 });
  const big = cut("x".repeat(10_000_000), 5);
  assert.deepEqual(big, { shown: "xxxxx", left: 9_999_995 });
});

Deno.test("one line: breaks and tabs as spaces, escapes, an ellipsis when cut; quoted for messages", () => {
  assert.equal(oneLine("a\r\nb\nc\td", 50), "a b c d");
  assert.equal(oneLine("a\u202eb", 50), "a\\u202eb");
  assert.equal(oneLine("abcdef", 3), "abc…");
  assert.equal(shown('say "hi"\n'), '"say \\"hi\\" "');
  assert.equal(shown("x".repeat(100), 5), '"xxxxx…"');
  assert.equal(count(1234567), "1,234,567");
  // Exactly what toLocaleString("en-US") writes, whatever the number.
  const numbers = [
    0,
    1,
    12,
    123,
    1234,
    12345,
    123456,
    1_000_000,
    -1,
    -1234,
    -999_999,
    2 ** 53 - 1,
    1.5,
    -0.25,
    1e21,
  ];
  for (const n of numbers) assert.equal(count(n), n.toLocaleString("en-US"), String(n));
});

Deno.test("every C0 and C1 control but tab and line feed is escaped, whatever else the text holds", () => {
  for (let code = 0; code <= 0x9f; code++) {
    const char = String.fromCharCode(code);
    const hiding = (code < 0x20 && code !== 0x09 && code !== 0x0a) || code >= 0x7f;
    const expected = hiding ? `\\u${code.toString(16).padStart(4, "0")}` : char;
    assert.equal(escapeHiding(`plain ${char} text`), `plain ${expected} text`, `U+${code.toString(16)}`);
  }
});
