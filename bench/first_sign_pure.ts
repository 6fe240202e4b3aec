// The time to a first signature with nostr-tools' `pure` entry (noble's JavaScript), the reference of
// bench/first_sign_native.ts: load it, sign one event with the key from TINY_PRIVATE_KEY, print one
// line with the moments (ms since the process began) it had loaded and had signed.

import { finalizeEvent } from "nostr-tools/pure";

const hex = Deno.env.get("TINY_PRIVATE_KEY") ?? "";
const secretKey = Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
const loaded = performance.now();
const event = finalizeEvent(
  { kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: "first" },
  secretKey,
);
const signed = performance.now();
console.log(JSON.stringify({ curve: "pure", loaded, signed, id: event.id }));
