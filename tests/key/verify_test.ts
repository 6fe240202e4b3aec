// Checking an event the relay passed on (lib/key/verify.ts): a nostr-tools-signed event verifies;
// any change to what the id covers, a signature of another key, or a malformed signature or key is
// false and never throws; the caller's object is left as it was.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey } from "nostr-tools/pure";
import { schnorr } from "@noble/curves/secp256k1.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { eventVerifier } from "../../lib/key/verify.ts";
import { loadNostr } from "../../lib/key/stack.ts";
import type { SignedEvent } from "../../lib/key/signer.ts";

const verify = await eventVerifier();

function signed(content = "hello", secret = generateSecretKey()): SignedEvent {
  const { id, pubkey, created_at, kind, tags, content: text, sig } = finalizeEvent(
    { kind: 9, created_at: 1_700_000_000, tags: [["h", "general"], ["p", "ab".repeat(32)]], content },
    secret,
  );
  return { id, pubkey, created_at, kind, tags, content: text, sig };
}

Deno.test("a nostr-tools-signed event verifies", () => {
  const event = signed();
  assert.equal(verify(event), true);
  assert.equal(verify(JSON.parse(JSON.stringify(event))), true, "as it arrives in JSON");
  assert.equal(verify(event), true, "again");
});

Deno.test("what the id covers, changed: false", async (t) => {
  const event = signed();
  const changes: [string, Partial<SignedEvent>][] = [
    ["content", { content: "hellO" }],
    ["a tag value", { tags: [["h", "generaL"], ["p", "ab".repeat(32)]] }],
    ["a tag added", { tags: [...event.tags, ["t", "x"]] }],
    ["a tag removed", { tags: event.tags.slice(1) }],
    ["the tags reordered", { tags: [...event.tags].reverse() }],
    ["kind", { kind: 10 }],
    ["created_at", { created_at: event.created_at + 1 }],
    ["the id (another valid hex)", { id: `${event.id.slice(0, 63)}${event.id[63] === "0" ? "1" : "0"}` }],
    ["one bit of the signature", { sig: `${event.sig.slice(0, 127)}${event.sig[127] === "0" ? "1" : "0"}` }],
  ];
  for (const [name, change] of changes) {
    await t.step(name, () => assert.equal(verify({ ...event, ...change }), false));
  }
});

Deno.test("a signature from another key: false", async (t) => {
  const mine = signed();
  const theirs = signed("hello");
  await t.step(
    "their signature on my event",
    () => assert.equal(verify({ ...mine, sig: theirs.sig }), false),
  );
  await t.step(
    "my event claimed by their key",
    () => assert.equal(verify({ ...mine, pubkey: theirs.pubkey }), false),
  );
  await t.step("their event claimed by my key", () => {
    assert.equal(verify({ ...theirs, pubkey: mine.pubkey }), false);
  });
});

Deno.test("malformed signatures and keys: false, never a throw", async (t) => {
  const event = signed();
  const cases: [string, Record<string, unknown>][] = [
    ["a pubkey not on the curve (all f)", { pubkey: "f".repeat(64) }],
    ["a pubkey of zeros", { pubkey: "0".repeat(64) }],
    ["a pubkey not hex", { pubkey: "zz".repeat(32) }],
    ["a short pubkey", { pubkey: event.pubkey.slice(2) }],
    ["an empty pubkey", { pubkey: "" }],
    ["a sig not hex", { sig: "zz".repeat(64) }],
    ["a short sig", { sig: event.sig.slice(2) }],
    ["an empty sig", { sig: "" }],
    ["a sig of all f", { sig: "f".repeat(128) }],
    ["a sig of zeros", { sig: "0".repeat(128) }],
    ["an id not hex", { id: "zz".repeat(32) }],
    ["a sig not a string", { sig: 5 }],
    ["tags not an array", { tags: "h" }],
  ];
  for (const [name, change] of cases) {
    await t.step(name, () => {
      let result: boolean | Promise<boolean> | undefined;
      assert.doesNotThrow(() => {
        result = verify({ ...event, ...change } as SignedEvent);
      });
      assert.equal(result, false);
    });
  }
});

Deno.test("the caller's object is not changed", async (t) => {
  await t.step("no property or symbol added", () => {
    const event = signed();
    const before = structuredClone(event);
    assert.equal(verify(event), true);
    assert.deepEqual(Object.getOwnPropertySymbols(event), []);
    assert.deepEqual(Object.getOwnPropertyNames(event), Object.getOwnPropertyNames(before));
    assert.deepEqual(event, before);
  });
  await t.step("nor for one that fails", () => {
    const event = { ...signed(), content: "changed" };
    assert.equal(verify(event), false);
    assert.deepEqual(Object.getOwnPropertySymbols(event), []);
  });
  await t.step("a frozen event verifies too", () => {
    const event = Object.freeze(signed());
    assert.equal(verify(event), true);
  });
});

/**
 * An event by `secret` whose id is the hash of what it says and whose signature is the key's over that
 * id, with the public key spelled as `spell` says and the id as `spellId` says: fields the shape check
 * refuses, and that only the shape check keeps from "valid" on the native curve (libsecp256k1's path
 * reads hex in any case, and reads the first 32 bytes of a longer pubkey).
 */
function forged(
  secret: Uint8Array,
  spell: (pubkey: string) => string,
  spellId: (id: string) => string = (id) => id,
): SignedEvent {
  const pubkey = spell(bytesToHex(schnorr.getPublicKey(secret)));
  const template = { created_at: 1_700_000_000, kind: 9, tags: [["h", "general"]], content: "hi" };
  const serial = JSON.stringify([0, pubkey, template.created_at, template.kind, template.tags, "hi"]);
  const hash = sha256(new TextEncoder().encode(serial));
  return { ...template, pubkey, id: spellId(bytesToHex(hash)), sig: bytesToHex(schnorr.sign(hash, secret)) };
}

Deno.test("as strict as the JavaScript path: the three spellings the native curve accepts are refused", async (t) => {
  const { curve } = await loadNostr();
  assert.equal(curve.native, true, "the native curve loads here");
  const secret = generateSecretKey();
  const cases: [string, SignedEvent][] = [
    ["a pubkey with extra hex digits", forged(secret, (pubkey) => `${pubkey}00`)],
    ["a pubkey in uppercase hex", forged(secret, (pubkey) => pubkey.toUpperCase())],
    ["an id in uppercase hex", forged(secret, (pubkey) => pubkey, (id) => id.toUpperCase())],
  ];
  for (const [name, event] of cases) {
    await t.step(name, async () => {
      assert.equal(verify(event), false);
      // The shape check is what refuses it: the curve alone, given the same event, would not.
      assert.equal(await curve.verify(event), true);
    });
  }
  await t.step("the same forging, spelled right, verifies", () => {
    assert.equal(verify(forged(secret, (pubkey) => pubkey)), true);
  });
});
