// The fast base64 start of the native signer: the same bytes as the library's own decoding, atob
// restored whatever happens, and nostr-wasm still decoding through atob (so the swap still helps).

import assert from "node:assert/strict";
import { decodedText, withFastAtob } from "../../lib/key/fast_atob.ts";

const fromBase64 = (Uint8Array as unknown as { fromBase64: (text: string) => Uint8Array }).fromBase64;

/** The library's own way, with the real atob. */
const slowly = (text: string) => new Uint8Array(atob(text).split("").map((c) => c.charCodeAt(0)));

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let at = 0; at < length; at += 65536) crypto.getRandomValues(bytes.subarray(at, at + 65536));
  return bytes;
}

Deno.test("decodedText: split then map yields the bytes the library's own decoding makes", () => {
  for (const length of [0, 1, 2, 3, 4, 255, 256, 1000, 200_000]) {
    const bytes = randomBytes(length);
    const text = btoa(Array.from(bytes, (byte) => String.fromCharCode(byte)).join(""));
    const read = new Uint8Array(decodedText(text, fromBase64).split("").map((c: string) => c.charCodeAt(0)));
    assert.deepEqual(read, slowly(text), `${length} bytes`);
    assert.deepEqual(read, bytes);
  }
});

Deno.test("decodedText: text that is not base64 throws, as atob does", () => {
  for (const text of ["a", "!!!!", "ab=c", "abc\u0100"]) {
    assert.throws(() => atob(text), text);
    assert.throws(() => decodedText(text, fromBase64), text);
  }
});

Deno.test("withFastAtob: atob is swapped only while start runs, and restored when it throws", async () => {
  const original = globalThis.atob;
  let uses = 0;
  const value = withFastAtob(() => {
    assert.notEqual(globalThis.atob, original);
    return atob("AAEC").split("").map(() => 0);
  }, () => uses++);
  assert.deepEqual(value, new Uint8Array([0, 1, 2]));
  assert.equal(uses, 1);
  assert.equal(globalThis.atob, original);
  assert.throws(() => withFastAtob(() => atob("!")), "a bad text still throws");
  assert.equal(globalThis.atob, original);
  // An async start: only its synchronous part sees the swap; after its first await, atob is itself.
  const later = withFastAtob(async () => {
    await Promise.resolve();
    return globalThis.atob;
  });
  assert.equal(await later, original);
});

Deno.test("nostr-wasm decodes through atob at start, so the swap reaches it, and its signatures verify", async () => {
  const [{ initNostrWasm }, tools, pure] = await Promise.all([
    import("nostr-wasm/gzipped"),
    import("nostr-tools/wasm"),
    import("nostr-tools/pure"),
  ]);
  let uses = 0;
  tools.setNostrWasm(await withFastAtob(initNostrWasm, () => uses++));
  assert.equal(uses, 1, "the library decodes its WASM with atob, once");
  const key = pure.generateSecretKey();
  const signed = tools.finalizeEvent({ kind: 1, created_at: 1, tags: [], content: "fast start" }, key);
  assert.equal(signed.pubkey, pure.getPublicKey(key));
  assert.ok(pure.verifyEvent({ ...signed }), "noble verifies what the fast-started library signed");
});
