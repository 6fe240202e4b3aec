// The time to a first signature with tinyagent's native curve (lib/key/curve.ts: libsecp256k1 in
// WebAssembly): load it, sign one event with the key from TINY_PRIVATE_KEY, print one line with the
// moments (ms since the process began) it had loaded and had signed. bench/first_sign_pure.ts is the
// same with nostr-tools' `pure` entry; each imports only its own curve, so Deno reads only its graph.

import { loadCurve } from "../lib/key/curve.ts";

const hex = Deno.env.get("TINY_PRIVATE_KEY") ?? "";
const secretKey = Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
const curve = await loadCurve();
const loaded = performance.now();
const event = await curve.sign(
  { kind: 1, created_at: Math.floor(Date.now() / 1000), tags: [], content: "first" },
  secretKey,
);
const signed = performance.now();
console.log(JSON.stringify({ curve: curve.native ? "native" : "fallback", loaded, signed, id: event.id }));
