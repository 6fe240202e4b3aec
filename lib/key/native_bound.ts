// Which events libsecp256k1 (nostr-wasm) can sign and check. It hashes an event's id inside its own
// WebAssembly memory, which nostr-wasm fixes at about 1 MiB and never grows: an event whose id
// serialization (NIP-01's `[0,pubkey,created_at,kind,tags,content]`, as UTF-8) does not fit makes
// it throw "Out of memory" when signing, and its check reads as a bad signature. Measured on
// nostr-wasm 0.1.0: 945,612 bytes fit, 945,613 do not, however much was signed before. Events past
// the bound are signed and checked by noble's JavaScript instead (curve.ts), which has no such bound.

/** The largest id serialization given to the native library, with room to spare below what fits. */
export const NATIVE_MAX_BYTES = 768 * 1024;

/** The fields an event's id covers (the pubkey is 64 hex characters, or yet to be filled). */
export interface Hashed {
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
}

/**
 * A bound on the serialization's UTF-8 length, read off string lengths alone: a UTF-16 unit is at
 * most 6 bytes once written as JSON (`\u001f`, a lone surrogate), each string adds its quotes and a
 * comma, each tag its brackets and a comma, and the rest is under 128 bytes (a 64-hex pubkey, two
 * numbers of at most 16 digits).
 */
export function serializedBound(event: Hashed): number {
  let bytes = 128 + 6 * event.content.length;
  for (const tag of event.tags) {
    bytes += 3;
    for (const item of tag) bytes += 3 + 6 * item.length;
  }
  return bytes;
}

/** The serialization's exact UTF-8 length, with a 64-character pubkey. */
export function serializedBytes(event: Hashed): number {
  const { created_at, kind, tags, content } = event;
  const text = JSON.stringify([0, "0".repeat(64), created_at, kind, tags, content]);
  return new TextEncoder().encode(text).length;
}

/** Whether the native library holds this event: its cheap bound says so, or else its exact size. */
export function fitsNative(event: Hashed): boolean {
  return serializedBound(event) <= NATIVE_MAX_BYTES || serializedBytes(event) <= NATIVE_MAX_BYTES;
}

/** Whether an error is the native library's own: its memory could not hold the event. */
export function isOutOfMemory(error: unknown): boolean {
  return error instanceof Error && /\bOut of memory\b/.test(error.message);
}
