// The agent key (`--key-env`): hex or nsec from one variable; every refusal
// names the variable and never echoes its value. The Signer holds the key, so
// a key is checked by what it signs, verified with nostr-tools.

import assert from "node:assert/strict";
import * as nip19 from "nostr-tools/nip19";
import { verifyEvent } from "nostr-tools/pure";
import { type Identity, Signer } from "../../lib/key/signer.ts";
import { sharedRun } from "../support/tinyagent.ts";

// Private keys 1, 2 and 3: their public keys are the x coordinates of G, 2G
// and 3G on secp256k1, known independently of any library.
const KNOWN: [string, string][] = [
  [
    "0000000000000000000000000000000000000000000000000000000000000001",
    "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798",
  ],
  [
    "0000000000000000000000000000000000000000000000000000000000000002",
    "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5",
  ],
  [
    "0000000000000000000000000000000000000000000000000000000000000003",
    "f9308a019258c31049344f85f89d5229b531c845836f99b08601f113bce036f9",
  ],
];

const MIXED_CASE = "7f3A9c1E5b2D8f4a6C0e1B3d5F7a9C2e4B6d8F0a1C3e5B7d9F2a4C6e8B0d1F3a";

function hexBytes(hex: string): Uint8Array {
  return Uint8Array.from(hex.match(/../g)!.map((pair) => parseInt(pair, 16)));
}

/** The key's identity, after checking that what it signs verifies as that public key. */
async function ok(value: string | undefined, variable = "TINY_PRIVATE_KEY"): Promise<Identity> {
  const result = await Signer.fromValue(value, variable);
  assert.ok(result.ok, `expected a key, got ${JSON.stringify(result)}`);
  const identity = await result.signer.identity();
  const event = await result.signer.sign({ kind: 1, created_at: 1_700_000_000, tags: [], content: "probe" });
  assert.ok(verifyEvent({ ...event }), "the signature verifies");
  assert.equal(event.pubkey, identity.pubkey, "signed by the key's own public key");
  return identity;
}

/** A refusal's error text. */
async function refused(value: string | undefined, variable: string): Promise<string> {
  const result = await Signer.fromValue(value, variable);
  assert.equal(result.ok, false, `${JSON.stringify(value)} must be refused`);
  return result.ok ? "" : result.error;
}

Deno.test("accepted keys", async (t) => {
  await t.step("64 lowercase hex characters give the known public key", async () => {
    for (const [secret, pubkey] of KNOWN) {
      const key = await ok(secret);
      assert.equal(key.pubkey, pubkey);
      assert.equal(key.npub, nip19.npubEncode(pubkey));
      assert.deepEqual(nip19.decode(key.npub), { type: "npub", data: pubkey });
    }
  });
  await t.step("uppercase and mixed-case hex give the same key as lowercase", async () => {
    const lower = await ok(MIXED_CASE.toLowerCase());
    for (const variant of [MIXED_CASE, MIXED_CASE.toUpperCase()]) {
      assert.equal((await ok(variant)).pubkey, lower.pubkey);
    }
    assert.equal((await ok(KNOWN[0][0].toUpperCase())).pubkey, KNOWN[0][1]);
  });
  await t.step("nsec yields the same public key as the hex form", async () => {
    for (const [secret, pubkey] of KNOWN) {
      const nsec = nip19.nsecEncode(hexBytes(secret));
      assert.equal((await ok(nsec)).pubkey, pubkey);
    }
    const lower = await ok(MIXED_CASE.toLowerCase());
    assert.equal((await ok(nip19.nsecEncode(hexBytes(MIXED_CASE.toLowerCase())))).pubkey, lower.pubkey);
  });
  await t.step("surrounding whitespace (a trailing newline from a .env file) is ignored", async () => {
    assert.equal((await ok(`  ${KNOWN[0][0]}\n`)).pubkey, KNOWN[0][1]);
    assert.equal((await ok(`\t${nip19.nsecEncode(hexBytes(KNOWN[1][0]))}\r\n`)).pubkey, KNOWN[1][1]);
  });
});

/** Values that are not a usable key, and why. */
const npubOfKey1 = nip19.npubEncode(KNOWN[0][1]);
const nsecOfKey1 = nip19.nsecEncode(hexBytes(KNOWN[0][0]));
const REFUSED: [string, string | undefined][] = [
  ["unset", undefined],
  ["empty", ""],
  ["spaces", "    "],
  ["whitespace", "\t\n \r\n"],
  ["Hermes placeholder for the default variable", "${TINY_PRIVATE_KEY}"],
  ["Hermes placeholder for another variable", "${OTHER_AGENT_KEY}"],
  ["placeholder with spaces around", "  ${TINY_PRIVATE_KEY}  "],
  ["unterminated placeholder", "${TINY_PRIVATE_KEY"],
  ["63 hex characters", "7c3e9b1d5f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3"],
  ["65 hex characters", "7c3e9b1d5f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e5"],
  ["0x-prefixed hex", "0x" + "7c3e9b1d5f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e"],
  ["hex with an inner space", "7c3e9b1d5f2a4c6e8b0d1f3a5c7e9b2d 4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3e"],
  ["64 characters, not all hex", "7c3e9b1d5f2a4c6e8b0d1f3a5c7e9b2d4f6a8c0e1b3d5f7a9c2e4b6d8f0a1c3g"],
  ["an npub (public, not private)", npubOfKey1],
  ["an nsec with a broken checksum", nsecOfKey1.slice(0, -1) + (nsecOfKey1.endsWith("q") ? "p" : "q")],
  ["a truncated nsec", nsecOfKey1.slice(0, 40)],
  ["garbage", "correct horse battery staple"],
  ["the zero key", "0".repeat(64)],
  ["the curve order", "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"],
  ["all ones bits", "f".repeat(64)],
];

Deno.test("refused keys: every error names the variable and never the value", async (t) => {
  await t.step("the malformed hex values have the lengths their names say", () => {
    const length = (name: string) => REFUSED.find(([n]) => n === name)![1]!.length;
    assert.equal(length("63 hex characters"), 63);
    assert.equal(length("65 hex characters"), 65);
    assert.equal(length("64 characters, not all hex"), 64);
  });
  for (const variable of ["TINY_PRIVATE_KEY", "HERMES_AGENT_SECRET"]) {
    for (const [name, value] of REFUSED) {
      await t.step(`${name} (${variable})`, async () => {
        const error = await refused(value, variable);
        assert.ok(error.includes(variable), `names ${variable}: ${error}`);
        const trimmed = value?.trim() ?? "";
        if (trimmed !== "") {
          assert.ok(!error.includes(trimmed), `echoes the value: ${error}`);
        }
        // No run of 8 characters of a key-like value leaks either, in any letter case.
        if (/^[0-9a-zA-Z]{20,}$/.test(trimmed)) {
          const run = sharedRun(trimmed, error);
          assert.equal(run, undefined, `leaks ${run}: ${error}`);
        }
      });
    }
  }
  await t.step("a key in quotes says to remove the quotes, without echoing it", async () => {
    for (const quoted of [`"${KNOWN[0][0]}"`, `'${KNOWN[0][0]}'`, `"${KNOWN[1][0]}`, `\`${KNOWN[2][0]}\``]) {
      const error = await refused(quoted, "TINY_PRIVATE_KEY");
      assert.match(error, /^TINY_PRIVATE_KEY is in quotes: remove the quotes/);
      assert.ok(!error.includes(KNOWN[0][0].slice(-12)) && !error.includes(KNOWN[1][0].slice(-12)), error);
    }
  });
  await t.step("unset, empty and placeholder errors say what happened", async () => {
    assert.match(await refused(undefined, "K"), /not set/);
    assert.match(await refused("  ", "K"), /empty/);
    assert.match(await refused("${K}", "K"), /placeholder/);
  });
});

Deno.test("the key never leaves the Signer: printing, serializing or inspecting it shows no key", async () => {
  const [secret] = KNOWN[2];
  const result = await Signer.fromValue(secret, "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  const signer = result.signer;
  await signer.warm();
  const nsec = nip19.nsecEncode(hexBytes(secret));
  for (const shown of [JSON.stringify(signer), Deno.inspect(signer, { depth: 10 }), String(signer)]) {
    assert.ok(!shown.includes(secret.replace(/^0+/, "")) && !shown.includes(nsec), shown);
    assert.doesNotMatch(shown, /Uint8Array|\b3\b/, shown);
  }
  assert.deepEqual(Object.keys(signer), []);
});

Deno.test("a generated key signs as its own public key", async () => {
  const { signer, privateKeyHex } = await Signer.generate();
  assert.match(privateKeyHex, /^[0-9a-f]{64}$/);
  const again = await Signer.fromValue(privateKeyHex, "K");
  assert.ok(again.ok);
  assert.deepEqual(await again.signer.identity(), await signer.identity());
  const event = await signer.sign({
    kind: 9,
    created_at: 1_700_000_000,
    tags: [["h", "general"]],
    content: "hi",
  });
  assert.ok(verifyEvent({ ...event }));
});

Deno.test("mentionsKey: the key as hex in either case or as nsec, at any depth, keys included", async () => {
  const { signer, privateKeyHex } = await Signer.generate();
  const nsec = nip19.nsecEncode(Uint8Array.from(privateKeyHex.match(/../g)!, (pair) => parseInt(pair, 16)));
  for (
    const value of [
      privateKeyHex,
      privateKeyHex.toUpperCase(),
      `before ${privateKeyHex} after`,
      nsec,
      nsec.toUpperCase(),
      { a: [1, { b: `x${privateKeyHex}` }] },
      { [nsec]: true },
    ]
  ) {
    assert.equal(await signer.mentionsKey(value), true, JSON.stringify(value).slice(0, 40));
  }
  // Nested far deeper than a stack allows: found all the same, never a crash.
  let deep: unknown = `x${privateKeyHex}`;
  for (let i = 0; i < 200_000; i++) deep = [deep];
  assert.equal(await signer.mentionsKey({ deep }), true);
  // A very long array is walked without spreading it into a call.
  assert.equal(await signer.mentionsKey({ list: [...Array(1_000_000).fill(0), privateKeyHex] }), true);
  const other = (await Signer.generate()).privateKeyHex;
  for (
    const value of [other, privateKeyHex.slice(0, 63), { n: 1, s: "text", t: null, l: [true] }, 42, null]
  ) {
    assert.equal(await signer.mentionsKey(value), false, JSON.stringify(value));
  }
});
