// Public keys as people give them (lib/wire/bech32.ts): npubs decoded without the signing stack
// agree with nostr-tools' own encoder for many keys, in lower and upper case; 64 hex in either
// case; and everything else refused: a bad checksum, mixed case, a wrong prefix, bad padding, a
// wrong length, characters outside the alphabet.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
const { npubEncode } = nip19;
import { bytesToHex } from "@noble/hashes/utils.js";
import { bech32Bytes, npubOf, publicKeyHex, shortNpub } from "../../lib/wire/bech32.ts";

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/** An independent bech32 encoder (BIP-173), for strings nostr-tools will not make: bad padding. */
function encode(prefix: string, words: number[]): string {
  const polymod = (values: number[]) => {
    let check = 1;
    for (const value of values) {
      const top = check >>> 25;
      check = ((check & 0x1ffffff) << 5) ^ value;
      for (let i = 0; i < 5; i++) if ((top >>> i) & 1) check ^= GENERATORS[i];
    }
    return check;
  };
  const expanded = [...prefix].map((c) => c.charCodeAt(0) >> 5).concat(
    0,
    [...prefix].map((c) => c.charCodeAt(0) & 31),
  );
  const mod = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${prefix}1${[...words, ...checksum].map((w) => CHARSET[w]).join("")}`;
}

/** 8-bit bytes as 5-bit words, padded with `pad` bits (zero in a valid string). */
function words(bytes: Uint8Array, pad = 0): number[] {
  const out: number[] = [];
  let accumulator = 0, bits = 0;
  for (const byte of bytes) {
    accumulator = (accumulator << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out.push((accumulator >>> bits) & 31);
    }
  }
  if (bits > 0) out.push(((accumulator << (5 - bits)) & 31) | pad);
  return out;
}

const keys = Array.from({ length: 200 }, () => getPublicKey(generateSecretKey()));
// The edges of the byte range too.
keys.push("00".repeat(32), "ff".repeat(32), "0f".repeat(32));

Deno.test("npubs: round trips against nostr-tools' npubEncode, lower and upper case", () => {
  for (const hex of keys) {
    const npub = nip19.npubEncode(hex);
    assert.equal(publicKeyHex(npub), hex, npub);
    assert.equal(publicKeyHex(npub.toUpperCase()), hex, npub.toUpperCase());
    assert.equal(publicKeyHex(`  ${npub}\n`), hex, "trimmed");
    assert.equal(bytesToHex(bech32Bytes(npub, "npub")!), hex);
  }
});

Deno.test("our encoder agrees with nostr-tools, so the strings made with it below are valid but for the fault", () => {
  for (const hex of keys.slice(0, 20)) {
    const bytes = Uint8Array.from(hex.match(/../g)!.map((b) => parseInt(b, 16)));
    assert.equal(encode("npub", words(bytes)), nip19.npubEncode(hex));
  }
});

Deno.test("hex: 64 characters in either case, as lower case", () => {
  for (const hex of keys.slice(0, 20)) {
    assert.equal(publicKeyHex(hex), hex);
    assert.equal(publicKeyHex(hex.toUpperCase()), hex);
  }
  for (const bad of ["ab".repeat(31), "ab".repeat(33), `${"ab".repeat(31)}zz`, `0x${"ab".repeat(31)}`]) {
    assert.equal(publicKeyHex(bad), undefined, bad);
  }
});

Deno.test("refused: a bad checksum, in any place", () => {
  const npub = nip19.npubEncode(keys[0]);
  for (let at = 5; at < npub.length; at++) {
    const swapped = CHARSET[(CHARSET.indexOf(npub[at]) + 1) % 32];
    const bad = npub.slice(0, at) + swapped + npub.slice(at + 1);
    assert.equal(publicKeyHex(bad), undefined, `character ${at}`);
  }
});

Deno.test("refused: mixed case", () => {
  const npub = nip19.npubEncode(keys[1]);
  assert.equal(publicKeyHex(`N${npub.slice(1)}`), undefined);
  // One letter of the data upper case, the rest lower: the same string in one case is valid.
  const at = [...npub].findIndex((c, i) => i > 5 && /[a-z]/.test(c));
  assert.equal(publicKeyHex(npub.slice(0, at) + npub[at].toUpperCase() + npub.slice(at + 1)), undefined);
  const upper = npub.toUpperCase();
  assert.equal(publicKeyHex(upper.slice(0, 10) + upper.slice(10).toLowerCase()), undefined);
});

Deno.test("refused: a wrong prefix, even with a valid checksum", () => {
  const secret = generateSecretKey();
  assert.equal(publicKeyHex(nip19.nsecEncode(secret)), undefined, "an nsec is no public key");
  assert.equal(publicKeyHex(nip19.noteEncode(keys[2])), undefined, "a note id");
  const bytes = Uint8Array.from(keys[2].match(/../g)!.map((b) => parseInt(b, 16)));
  assert.equal(publicKeyHex(encode("npubx", words(bytes))), undefined);
  assert.equal(publicKeyHex(encode("npu", words(bytes))), undefined);
  assert.equal(bech32Bytes(nip19.npubEncode(keys[2]), "nsec"), undefined);
  // An npub's data and checksum under another prefix of the same length: the prefix alone is wrong.
  const npub = nip19.npubEncode(keys[2]);
  for (const prefix of ["nsec", "note", "npuc"]) {
    assert.equal(publicKeyHex(`${prefix}${npub.slice(4)}`), undefined);
  }
});

Deno.test("refused: padding bits that are not zero, and a wrong length", () => {
  const bytes = Uint8Array.from(keys[3].match(/../g)!.map((b) => parseInt(b, 16)));
  // 32 bytes are 256 bits: 52 words, the last holding 1 bit of data and 4 of padding.
  for (const pad of [1, 2, 4, 8]) {
    const bad = encode("npub", words(bytes, pad));
    assert.equal(bech32Bytes(bad, "npub"), undefined, `pad ${pad}`);
    assert.equal(publicKeyHex(bad), undefined, `pad ${pad}`);
  }
  // A whole extra word of padding (5 bits or more left over) is refused too: one byte is two words
  // (2 bits of padding); a third word leaves 7.
  assert.equal(bytesToHex(bech32Bytes(encode("npub", words(Uint8Array.of(1))), "npub")!), "01");
  assert.equal(bech32Bytes(encode("npub", [...words(Uint8Array.of(1)), 0]), "npub"), undefined);
  // Valid bech32 of 31 or 33 bytes is not a public key.
  assert.equal(publicKeyHex(encode("npub", words(bytes.slice(0, 31)))), undefined);
  assert.equal(publicKeyHex(encode("npub", words(Uint8Array.from([...bytes, 1])))), undefined);
  assert.equal(bech32Bytes(encode("npub", words(bytes.slice(0, 31))), "npub")?.length, 31);
});

Deno.test("refused: characters outside the alphabet, too short, too long, empty", () => {
  const npub = nip19.npubEncode(keys[4]);
  for (const c of ["b", "i", "o", "1", "!", " "]) {
    assert.equal(publicKeyHex(`${npub.slice(0, 20)}${c}${npub.slice(21)}`), undefined, c);
  }
  assert.equal(publicKeyHex("npub1"), undefined);
  assert.equal(publicKeyHex("npub1qqqqq"), undefined);
  assert.equal(bech32Bytes(encode("npub", new Array(90).fill(0)), "npub"), undefined, "over 90 characters");
  assert.equal(publicKeyHex(""), undefined);
  assert.equal(publicKeyHex("npub"), undefined);
});

Deno.test("npubOf is NIP-19's npub for every key, and nothing for what is not a key", () => {
  const keys = [
    "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d",
    "0".repeat(64),
    "f".repeat(64),
    ...Array.from({ length: 50 }, (_, i) => (i * 2654435761 >>> 0).toString(16).padStart(8, "0").repeat(8)),
  ];
  for (const key of keys) assert.equal(npubOf(key), npubEncode(key), key);
  assert.equal(
    npubOf("3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"),
    "npub180cvv07tjdrrgpa0j7j7tmnyl2yr6yr7l8j4s3evf6u64th6gkwsyjh6w6",
  );
  for (const bad of ["", "abc", "A".repeat(64), "g".repeat(64), `${"a".repeat(64)} `]) {
    assert.equal(npubOf(bad), undefined);
  }
});

Deno.test("the short form: npub1, 8 characters, an ellipsis, the last 4", () => {
  assert.equal(
    shortNpub("3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d"),
    "npub180cvv07t…h6w6",
  );
  assert.equal(shortNpub("not a key"), undefined);
});
