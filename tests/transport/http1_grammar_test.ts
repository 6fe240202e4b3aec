// The grammar of the relay's HTTP/1.1 answers (lib/transport/http1_grammar.ts, RFC 9112), row by
// row: bytes or lines in, a value out or a FramingError naming the rule broken.

import assert from "node:assert/strict";
import {
  chunkSize,
  contentLength,
  fieldValue,
  FramingError,
  isChunked,
  latin1,
  MAX_FIELDS,
  parseFields,
  parseHead,
} from "../../lib/transport/http1_grammar.ts";
import { latin1Bytes } from "../support/scripted_conn.ts";

const fields = (entries: [string, string[]][]) => new Map(entries);
const refused = (fn: () => unknown, message: RegExp) =>
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof FramingError, `a FramingError, not ${error}`);
    assert.match(error.message, message);
    return true;
  });

Deno.test("latin1: one character per byte, every byte value", () => {
  const all = Uint8Array.from({ length: 256 }, (_, i) => i);
  const text = latin1(all);
  assert.equal(text.length, 256);
  for (let i = 0; i < 256; i++) assert.equal(text.charCodeAt(i), i);
  assert.equal(latin1(new Uint8Array(20_000).fill(0x41)), "A".repeat(20_000), "past one 8 KiB slice");
});

Deno.test("parseHead", async (t) => {
  const good: [string, string, "1.0" | "1.1", number, [string, string[]][]][] = [
    ["a 200", "HTTP/1.1 200 OK", "1.1", 200, []],
    ["no reason phrase", "HTTP/1.1 204", "1.1", 204, []],
    ["an empty reason phrase", "HTTP/1.1 404 ", "1.1", 404, []],
    ["HTTP/1.0", "HTTP/1.0 200 OK", "1.0", 200, []],
    ["an interim answer", "HTTP/1.1 100 Continue", "1.1", 100, []],
    ["the highest status", "HTTP/1.1 599 x", "1.1", 599, []],
    ["obs-text in the reason", "HTTP/1.1 200 D\xe9j\xe0 vu\tok", "1.1", 200, []],
    [
      "fields, by lowercase name, repeated ones kept in order",
      "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-A: 1\r\nx-a:2",
      "1.1",
      200,
      [["content-type", ["application/json"]], ["x-a", ["1", "2"]]],
    ],
  ];
  for (const [name, raw, version, status, expected] of good) {
    await t.step(name, () => {
      const head = parseHead(latin1Bytes(raw));
      assert.equal(head.version, version);
      assert.equal(head.status, status);
      assert.deepEqual(head.fields, fields(expected));
    });
  }
  const bad: [string, string, RegExp][] = [
    ["HTTP/2", "HTTP/2 200 OK", /not HTTP\/1\.1/],
    ["HTTP/1.2", "HTTP/1.2 200 OK", /not HTTP\/1\.1/],
    ["lowercase http", "http/1.1 200 OK", /not HTTP\/1\.1/],
    ["a two-digit status", "HTTP/1.1 20 OK", /not HTTP\/1\.1/],
    ["a four-digit status", "HTTP/1.1 2000 OK", /not HTTP\/1\.1/],
    ["no space before the status", "HTTP/1.1200 OK", /not HTTP\/1\.1/],
    ["two spaces", "HTTP/1.1  200 OK", /not HTTP\/1\.1/],
    ["a leading space", " HTTP/1.1 200 OK", /not HTTP\/1\.1/],
    ["nothing", "", /not HTTP\/1\.1/],
    ["an SSH banner", "SSH-2.0-OpenSSH_9.6", /not HTTP\/1\.1: "SSH-2\.0/],
    ["status 099", "HTTP/1.1 099 x", /status 099, outside 100-599/],
    ["status 600", "HTTP/1.1 600 x", /status 600, outside 100-599/],
    ["a NUL in the reason", "HTTP/1.1 200 O\x00K", /control character in its reason/],
    ["a bare LF in the reason", "HTTP/1.1 200 O\nK", /control character in its reason/],
    ["DEL in the reason", "HTTP/1.1 200 OK\x7f", /control character in its reason/],
    ["a bad field after a good status line", "HTTP/1.1 200 OK\r\nno colon", /malformed header name/],
  ];
  for (const [name, raw, message] of bad) {
    await t.step(`refused: ${name}`, () => refused(() => parseHead(latin1Bytes(raw)), message));
  }
  await t.step("the status line is quoted at most 60 characters long", () => {
    refused(
      () => parseHead(latin1Bytes(`X${"y".repeat(500)}`)),
      /^the relay's answer is not HTTP\/1\.1: "Xy{59}"$/,
    );
  });
});

Deno.test("parseFields", async (t) => {
  await t.step("OWS around the value is dropped, inner spaces kept, empty values allowed", () => {
    assert.deepEqual(
      parseFields(["A: \t x  y \t", "B:", "C:   ", "D:v"]),
      fields([["a", ["x  y"]], ["b", [""]], ["c", [""]], ["d", ["v"]]]),
    );
  });
  await t.step("obs-text in a value is kept", () => {
    assert.deepEqual(parseFields(["X: caf\xe9"]), fields([["x", ["caf\xe9"]]]));
  });
  await t.step("every tchar is allowed in a name", () => {
    assert.deepEqual([...parseFields(["!#$%&'*+-.^_`|~09azAZ: v"]).keys()], ["!#$%&'*+-.^_`|~09azaz"]);
  });
  const bad: [string, string[], RegExp][] = [
    ["obs-fold (a space)", ["A: b", " c"], /obs-fold/],
    ["obs-fold (a tab)", ["A: b", "\tc"], /obs-fold/],
    ["no colon", ["Content-Length 5"], /malformed header name "Content-Length 5"/],
    ["an empty name", [": v"], /malformed header name ""/],
    ["a space before the colon", ["Content-Length : 5"], /malformed header name/],
    ["a separator in the name", ["A(b): v"], /malformed header name/],
    ["a non-ASCII name", ["n\xe9: v"], /malformed header name/],
    ["a NUL in the value", ["A: b\x00c"], /header A has a control character/],
    ["a bare CR in the value", ["A: b\rc"], /header A has a control character/],
    ["a bare LF in the value", ["A: b\nc"], /header A has a control character/],
    ["an escape character in the value", ["A: \x1b[31m"], /header A has a control character/],
  ];
  for (const [name, lines, message] of bad) {
    await t.step(`refused: ${name}`, () => refused(() => parseFields(lines), message));
  }
  await t.step(`at most ${MAX_FIELDS} fields`, () => {
    const lines = Array.from({ length: MAX_FIELDS }, (_, i) => `X-${i}: ${i}`);
    assert.equal(parseFields(lines).size, MAX_FIELDS);
    refused(
      () => parseFields([...lines, "One-More: x"]),
      new RegExp(`more than ${MAX_FIELDS} header fields`),
    );
  });
  await t.step("a long name is quoted at most 40 characters long", () => {
    refused(() => parseFields([`${"n".repeat(100)} v`]), new RegExp(`"n{40}"$`));
  });
});

Deno.test("fieldValue: repeated fields joined with a comma", () => {
  const f = parseFields(["Vary: a", "Vary: b", "X: 1"]);
  assert.equal(fieldValue(f, "vary"), "a, b");
  assert.equal(fieldValue(f, "x"), "1");
  assert.equal(fieldValue(f, "missing"), undefined);
});

Deno.test("contentLength", async (t) => {
  const good: [string, string[] | undefined, number | undefined][] = [
    ["absent", undefined, undefined],
    ["zero", ["0"], 0],
    ["a number", ["1234"], 1234],
    ["leading zeros", ["000042"], 42],
    ["all zeros", ["000"], 0],
    ["OWS around", [" \t7 "], 7],
    ["repeated, the same", ["5", "5"], 5],
    ["a list of the same", ["5, 5,5"], 5],
    ["the same with leading zeros", ["5", "005"], 5],
    ["15 digits", ["999999999999999"], 999_999_999_999_999],
    ["16 digits is too large to be safe", ["1000000000000000"], Infinity],
    ["leading zeros do not make a number large", ["0000000000000000001"], 1],
  ];
  for (const [name, values, expected] of good) {
    await t.step(name, () => {
      const f = values === undefined ? fields([]) : fields([["content-length", values]]);
      assert.equal(contentLength(f), expected);
    });
  }
  const bad: [string, string[], RegExp][] = [
    ["empty", [""], /Content-Length is not a number: ""/],
    ["a sign", ["+5"], /not a number/],
    ["negative", ["-5"], /not a number/],
    ["hex", ["0x10"], /not a number/],
    ["a fraction", ["5.0"], /not a number/],
    ["an exponent", ["1e3"], /not a number/],
    ["an inner space", ["1 2"], /not a number/],
    ["an empty list element", ["5,"], /not a number/],
    ["a unit", ["5 bytes"], /not a number/],
    ["non-ASCII digits", ["\u0665"], /not a number/],
    ["two different values", ["5", "6"], /conflicting Content-Length/],
    ["a list of different values", ["5, 6"], /conflicting Content-Length/],
  ];
  for (const [name, values, message] of bad) {
    await t.step(
      `refused: ${name}`,
      () => refused(() => contentLength(fields([["content-length", values]])), message),
    );
  }
});

Deno.test("isChunked", async (t) => {
  const head = (version: "1.0" | "1.1", values?: string[]) => ({
    version,
    status: 200,
    fields: values === undefined ? fields([]) : fields([["transfer-encoding", values]]),
  });
  await t.step("no Transfer-Encoding: not chunked", () => assert.equal(isChunked(head("1.1")), false));
  for (const values of [["chunked"], ["Chunked"], [" CHUNKED "], ["chunked, "], [",chunked"]]) {
    await t.step(
      `chunked: ${JSON.stringify(values)}`,
      () => assert.equal(isChunked(head("1.1", values)), true),
    );
  }
  const bad: [string, "1.0" | "1.1", string[], RegExp][] = [
    ["gzip", "1.1", ["gzip"], /transfer coding "gzip"; only chunked is read/],
    ["gzip then chunked", "1.1", ["gzip, chunked"], /only chunked is read/],
    ["chunked twice", "1.1", ["chunked", "chunked"], /only chunked is read/],
    ["chunked with a parameter", "1.1", ["chunked;q=1"], /only chunked is read/],
    ["identity", "1.1", ["identity"], /only chunked is read/],
    ["an empty value", "1.1", [""], /only chunked is read/],
    ["any coding on HTTP/1.0", "1.0", ["chunked"], /HTTP\/1\.0 answer has a Transfer-Encoding/],
  ];
  for (const [name, version, values, message] of bad) {
    await t.step(`refused: ${name}`, () => refused(() => isChunked(head(version, values)), message));
  }
});

Deno.test("chunkSize", async (t) => {
  const good: [string, string, number][] = [
    ["zero", "0", 0],
    ["hex, either case", "1aF", 0x1af],
    ["leading zeros", "0000a", 10],
    ["an extension", "a;name", 10],
    ["an extension with a token value", "a;name=value", 10],
    ["an extension with a quoted value", 'a;name="a \\" ; b"', 10],
    ["several extensions, with BWS", "a ; one = 1 ;\ttwo", 10],
    ["13 hex digits", "fffffffffffff", 0xfffffffffffff],
    ["14 hex digits is too large to be safe", "10000000000000", Infinity],
    ["leading zeros do not make a size large", "00000000000000001", 1],
  ];
  for (const [name, line, expected] of good) {
    await t.step(name, () => assert.equal(chunkSize(latin1Bytes(line)), expected));
  }
  const bad: [string, string][] = [
    ["empty", ""],
    ["not hex", "g"],
    ["a 0x prefix", "0x10"],
    ["a sign", "+a"],
    ["a leading space", " a"],
    ["a trailing space without an extension", "a "],
    ["a bare semicolon", "a;"],
    ["an extension without a name", "a;=1"],
    ["an unterminated quoted value", 'a;n="x'],
    ["a control character in a quoted value", 'a;n="\x00"'],
    ["a CR", "a\r"],
  ];
  for (const [name, line] of bad) {
    await t.step(
      `refused: ${name}`,
      () => refused(() => chunkSize(latin1Bytes(line)), /malformed chunk-size line/),
    );
  }
});
