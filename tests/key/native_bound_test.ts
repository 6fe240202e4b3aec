// Which events the native library holds (lib/key/native_bound.ts): the cheap bound never under the
// exact size, the exact size NIP-01's own serialization, the bound's edge, and its margin below what
// nostr-wasm's fixed memory really takes.

import assert from "node:assert/strict";
import { serializeEvent } from "nostr-tools/pure";
import { generateSecretKey } from "nostr-tools/pure";
import { initNostrWasm } from "nostr-wasm/gzipped";
import {
  fitsNative,
  isOutOfMemory,
  NATIVE_MAX_BYTES,
  serializedBound,
  serializedBytes,
} from "../../lib/key/native_bound.ts";

const PUBKEY = "0".repeat(64);
const event = (content: string, tags: string[][] = []) => ({
  kind: 30023,
  created_at: Number.MAX_SAFE_INTEGER,
  tags,
  content,
});

Deno.test("the cheap bound is never under the exact size, whatever the text", () => {
  const cases: [string, string, string[][]][] = [
    ["empty", "", []],
    ["ascii", "hello", [["h", "general"]]],
    ["control characters, each six bytes as JSON", "\u0001\u001f".repeat(1000), [["x", "\u0000"]]],
    ["quotes and backslashes", '"\\'.repeat(500), [['"', "\\"]]],
    ["lone surrogates", "\ud800\udfff\udc00".repeat(300), []],
    ["three-byte characters", "€".repeat(2000), [["t", "日本語"]]],
    ["emoji, two units for four bytes", "😀".repeat(2000), []],
    ["many empty tags", "", Array.from({ length: 500 }, () => [])],
    ["many short tags", "", Array.from({ length: 500 }, () => ["a", ""])],
  ];
  for (const [name, content, tags] of cases) {
    const exact = serializedBytes(event(content, tags));
    assert.ok(serializedBound(event(content, tags)) >= exact, name);
    const nip01 = serializeEvent({ ...event(content, tags), pubkey: PUBKEY });
    assert.equal(exact, new TextEncoder().encode(nip01).length, `${name}: NIP-01's serialization`);
  }
});

Deno.test("the bound's edge: at it the native library, one byte past it JavaScript", () => {
  const overhead = serializedBytes(event(""));
  assert.equal(serializedBytes(event("a".repeat(NATIVE_MAX_BYTES - overhead))), NATIVE_MAX_BYTES);
  assert.equal(fitsNative(event("a".repeat(NATIVE_MAX_BYTES - overhead))), true, "at the bound");
  assert.equal(fitsNative(event("a".repeat(NATIVE_MAX_BYTES - overhead + 1))), false, "one byte past");
  assert.equal(fitsNative(event("\u0001".repeat(200_000))), false, "1.2 MB once escaped, from 200,000 units");
  assert.equal(fitsNative(event("a".repeat(100_000))), true, "in between: the bound alone says so");
  assert.equal(fitsNative(event("", [["a".repeat(NATIVE_MAX_BYTES)]])), false, "the tags count too");
});

Deno.test("the bound leaves a margin below what nostr-wasm's fixed memory takes", async () => {
  const library = await initNostrWasm();
  const secret = generateSecretKey();
  const overhead = serializedBytes(event(""));
  const at = { ...event("a".repeat(NATIVE_MAX_BYTES - overhead)), pubkey: "", id: "", sig: "" };
  library.finalizeEvent(at, secret);
  library.verifyEvent(at);
  // Measured: 945,612 bytes fit. 16 KiB past that must not, or the figure in native_bound.ts is stale.
  const past = { ...event("a".repeat(945_612 + 16_384 - overhead)), pubkey: "", id: "", sig: "" };
  const thrown = (() => {
    try {
      library.finalizeEvent(past, secret);
    } catch (error) {
      return error;
    }
  })();
  assert.ok(isOutOfMemory(thrown), `the library's words for it: ${thrown}`);
  assert.equal(isOutOfMemory(new Error("signature is invalid")), false);
  assert.equal(isOutOfMemory("Out of memory"), false, "only an Error");
});
