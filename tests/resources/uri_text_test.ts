// The characters of a tiny:// URI (lib/resources/uri_text.ts): raw characters allowed, strict
// percent-decoding, segment rules, and the RFC 6570 encoding formatting uses.

import assert from "node:assert/strict";
import {
  decodeSegment,
  decodeStrict,
  describeChar,
  encodeForbidden,
  encodeValue,
  firstRawForbidden,
} from "../../lib/resources/uri_text.ts";

Deno.test("raw characters: pchar in a path, also / and ? in a query", () => {
  assert.equal(firstRawForbidden("/room/a-b_c.d~e!$&'()*+,;=:@%41", false), undefined);
  assert.equal(firstRawForbidden("/room/a b", false), " ");
  assert.equal(firstRawForbidden("/wiki/é", false), "é");
  assert.equal(firstRawForbidden("as=json/x?y", true), undefined);
  assert.equal(firstRawForbidden("a?b", false), "?");
  assert.equal(firstRawForbidden("a#b", true), "#");
  assert.equal(encodeForbidden("/wiki/a b<é>", false), "/wiki/a%20b%3C%C3%A9%3E");
  assert.equal(describeChar("<"), "U+003C (<)");
  assert.equal(describeChar(" "), "U+0020");
  assert.equal(describeChar("😀"), "U+1F600");
});

Deno.test("strict decoding: two hex digits after every %, and valid UTF-8 only", () => {
  const cases: [string, string | RegExp][] = [
    ["plain", "plain"],
    ["%41%62", "Ab"],
    ["caf%C3%A9", "café"],
    ["%F0%9F%98%80", "😀"],
    ["%EF%BB%BF", "\ufeff"], // the BOM is kept, for the segment rule to refuse
    ["%", /not a percent-escape/],
    ["%A", /not a percent-escape/],
    ["%-1", /not a percent-escape/],
    ["%C0%AE", /not valid UTF-8/],
    ["%E0%80%AF", /not valid UTF-8/],
    ["%ED%B0%80", /not valid UTF-8/],
    ["%F4%90%80%80", /not valid UTF-8/], // past U+10FFFF
    ["%80", /not valid UTF-8/],
  ];
  for (const [raw, want] of cases) {
    const decoded = decodeStrict(raw);
    if (typeof want === "string") assert.deepEqual(decoded, { ok: true, value: want }, raw);
    else assert.ok(!decoded.ok && want.test(decoded.why), raw);
  }
});

Deno.test("segments: empty, dot and %2F-bearing ones refused; controls and format characters too", () => {
  const refused: [string, RegExp][] = [
    ["", /empty segment/],
    [".", /dot segments/],
    ["..", /dot segments/],
    ["%2E", /encoded or not/],
    ["%2e%2E", /encoded or not/],
    ["a%2Fb", /cannot contain \//],
    ["%09", /controls/],
    ["%7F", /controls/],
    ["%C2%85", /controls/],
    ["%E2%80%8B", /invisible/], // zero-width space
    ["%E2%81%A6", /invisible/], // left-to-right isolate
    ["%F3%A0%80%81", /invisible/], // a tag character
  ];
  for (const [raw, why] of refused) {
    const decoded = decodeSegment(raw);
    assert.ok(!decoded.ok && why.test(decoded.why), `${raw}: ${JSON.stringify(decoded)}`);
  }
  assert.deepEqual(decodeSegment("..."), { ok: true, value: "..." });
  assert.deepEqual(decodeSegment("a%20b"), { ok: true, value: "a b" });
});

Deno.test("encoding is RFC 6570 simple expansion: all but unreserved characters escaped, UTF-8, uppercase", () => {
  assert.equal(encodeValue("general"), "general");
  assert.equal(encodeValue("a-b_c.d~e"), "a-b_c.d~e");
  assert.equal(encodeValue("a b/c?d#e%f"), "a%20b%2Fc%3Fd%23e%25f");
  assert.equal(encodeValue("!'()*:@"), "%21%27%28%29%2A%3A%40");
  assert.equal(encodeValue("café 😀"), "caf%C3%A9%20%F0%9F%98%80");
  assert.equal(encodeValue("\ud800x"), "%EF%BF%BDx"); // a lone surrogate as U+FFFD, never a throw
  for (const value of ["a b", "x/y", "%41", "ü", "a+b", "~"]) {
    assert.deepEqual(decodeStrict(encodeValue(value)), { ok: true, value });
  }
});
