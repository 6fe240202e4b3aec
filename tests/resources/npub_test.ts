// Keys as short npubs (lib/resources/npub.ts), checked against nostr-tools' NIP-19 encoder.

import assert from "node:assert/strict";
import { npubEncode } from "nostr-tools/nip19";
import { npubOf, shortNpub } from "../../lib/resources/npub.ts";

Deno.test("npubOf is NIP-19's npub for every key, and nothing for what is not a key", () => {
  const keys = [
    "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d",
    "0".repeat(64),
    "f".repeat(64),
    ...Array.from({ length: 50 }, (_, i) => (i * 2654435761 >>> 0).toString(16).padStart(8, "0").repeat(8)),
  ];
  for (const key of keys) assert.equal(npubOf(key), npubEncode(key), key);
  // Again, from the encodings kept; and past the bound on what is kept, still right.
  for (const key of keys) assert.equal(npubOf(key), npubEncode(key), key);
  const many = Array.from({ length: 1500 }, (_, i) => i.toString(16).padStart(64, "0"));
  for (const key of many) assert.equal(npubOf(key), npubEncode(key), key);
  assert.equal(npubOf(keys[0]), npubEncode(keys[0]));
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
