// The session's key check itself (assertNoSecret): what it catches, and the hex it must let pass.

import assert from "node:assert/strict";
import { assertNoSecret, newKey, sharedRun } from "./tinyagent.ts";

const key = newKey();
const leaks = (text: string) =>
  assert.throws(() => assertNoSecret(key, text, "the text"), /private key/, text);
const passes = (text: string) => assertNoSecret(key, text, "the text");

Deno.test("assertNoSecret: any 8 characters in a row of the key's hex, in either case", () => {
  for (let at = 0; at + 8 <= key.hex.length; at += 7) {
    const run = key.hex.slice(at, at + 8);
    leaks(`error: ${run}`);
    leaks(`error: ${run.toUpperCase()}…`);
    leaks(`"x":"zz${run}zz"`);
  }
  leaks(`a prefix ${key.hex.slice(0, 9)}, an excerpt ${key.hex.slice(20, 44)}`);
  leaks(`the whole key ${key.hex} and ${key.hex.toUpperCase()}`);
  leaks(`the key inside a signature-long value ${key.hex}${"0".repeat(64)}`);
  leaks(`the nsec ${key.nsec} or ${key.nsec.toUpperCase()}`);
});

Deno.test("assertNoSecret: seven characters, other hex values and the public key pass", () => {
  passes(`${key.hex.slice(0, 7)} ${key.hex.slice(30, 37)}`);
  passes(`pubkey ${key.pubkey}, npub ${key.npub}`);
  for (let i = 0; i < 200; i++) {
    const other = newKey();
    // An id, a signature and a nonce: values of the lengths compared whole.
    passes(`${other.pubkey} ${other.hex}${other.pubkey} ${other.hex.slice(0, 24)}`);
  }
});

Deno.test("sharedRun: the first shared run, or undefined", () => {
  assert.equal(sharedRun("0123456789abcdef", "x 456789AB y"), "456789AB");
  assert.equal(sharedRun("0123456789abcdef", "x 456789A y"), undefined);
  assert.equal(sharedRun("nsec1qqqqqqqqpz", "…QQQQQQPZ…"), "QQQQQQPZ");
  assert.equal(sharedRun("short", "short"), undefined, "a secret shorter than the run has no run");
});
