// The close frame's payload (lib/stream/ws_close.ts): which codes may be sent and read, our payload
// with its reason cut at a character boundary, the relay's payload read strictly, and the words a
// close is told in.

import assert from "node:assert/strict";
import {
  closePayload,
  codeWords,
  isValidCloseCode,
  MAX_CLOSE_REASON_BYTES,
  parseClosePayload,
  peerCloseWords,
} from "../../lib/stream/ws_close.ts";
import { closeBody } from "./ws_peers.ts";

const decoder = new TextDecoder();

Deno.test("isValidCloseCode: RFC 6455 7.4, with 1012-1014 as browsers accept them", () => {
  const valid = [
    1000,
    1001,
    1002,
    1003,
    1007,
    1008,
    1009,
    1010,
    1011,
    1012,
    1013,
    1014,
    3000,
    3999,
    4000,
    4999,
  ];
  const invalid = [-1, 0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2999, 5000, 65535, 1000.5, 3000.5];
  for (const code of valid) assert.ok(isValidCloseCode(code), `${code} is valid`);
  for (const code of invalid) assert.ok(!isValidCloseCode(code), `${code} is not`);
});

Deno.test("closePayload: nothing for no code, else the code big-endian and the reason", () => {
  assert.deepEqual(closePayload(), new Uint8Array(0));
  assert.deepEqual(closePayload(1000), Uint8Array.of(0x03, 0xe8));
  assert.deepEqual(closePayload(4001, "bye"), Uint8Array.of(0x0f, 0xa1, 0x62, 0x79, 0x65));
  assert.throws(() => closePayload(1005), /1005 is not a close code that may be sent/);
  assert.throws(() => closePayload(2000, "x"), RangeError);
});

Deno.test("closePayload: a long reason is cut to 123 bytes, never inside a character", () => {
  const ascii = closePayload(1000, "a".repeat(300));
  assert.equal(ascii.length, 2 + MAX_CLOSE_REASON_BYTES);
  // 41 snowmen are 123 bytes; a 42nd would not fit, nor may a part of it.
  const snowmen = closePayload(1000, "☃".repeat(60));
  assert.equal(decoder.decode(snowmen.subarray(2)), "☃".repeat(41));
  const offset = closePayload(1000, "ab" + "☃".repeat(60)); // 2 + 40*3 = 122: the 41st would pass 123
  assert.equal(offset.length, 2 + 122);
  assert.equal(decoder.decode(offset.subarray(2)), "ab" + "☃".repeat(40));
  const exact = "x".repeat(123);
  assert.equal(decoder.decode(closePayload(1000, exact).subarray(2)), exact);
});

Deno.test("parseClosePayload: empty, a code and a reason; or the rule broken and the answer", () => {
  assert.deepEqual(parseClosePayload(new Uint8Array(0)), { ok: true, reason: "" });
  assert.deepEqual(parseClosePayload(closeBody(1001, "going ☃")), {
    ok: true,
    code: 1001,
    reason: "going ☃",
  });
  assert.deepEqual(parseClosePayload(Uint8Array.of(0x03)), {
    ok: false,
    problem: "the relay sent a close frame of 1 byte, too short for a status code",
    answer: 1002,
  });
  assert.deepEqual(parseClosePayload(closeBody(1006)), {
    ok: false,
    problem: "the relay sent a close frame with the invalid status code 1006",
    answer: 1002,
  });
  assert.deepEqual(parseClosePayload(closeBody(1000, Uint8Array.of(0xe2, 0x98))), {
    ok: false,
    problem: "the relay sent a close frame whose reason is not valid UTF-8",
    answer: 1007,
  });
  // A subarray at an offset is read from its own start.
  const framed = new Uint8Array(10);
  framed.set(closeBody(4000, "ok"), 5);
  assert.deepEqual(parseClosePayload(framed.subarray(5, 9)), { ok: true, code: 4000, reason: "ok" });
});

Deno.test("codeWords and peerCloseWords: a close in words", () => {
  assert.equal(codeWords(1001), "1001 (going away)");
  assert.equal(codeWords(4000), "4000");
  assert.equal(
    peerCloseWords(1008, "auth-required: sign in"),
    'the relay closed the connection with code 1008 (policy violation): "auth-required: sign in"',
  );
  assert.equal(peerCloseWords(1000, ""), "the relay closed the connection with code 1000 (normal closure)");
  assert.equal(peerCloseWords(undefined, ""), "the relay closed the connection without a status code");
});
