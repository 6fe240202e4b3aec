// NIP-98 proofs for relay requests: one fresh kind 27235 event per request,
// bound to the exact URL, the method and the SHA-256 of the exact body bytes.

import { nostr } from "./nostr.ts";

export const HTTP_AUTH_KIND = 27235;

/** Standard Base64 of bytes, chunked so large inputs do not overflow the stack. */
export function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * The `Authorization` header value for a POST of `body` to `url`. The random
 * nonce tag keeps two identical requests in the same second from producing
 * the same event id, which the relay would refuse as a replay.
 */
export function authorization(
  secretKey: Uint8Array,
  url: string,
  body: Uint8Array,
  now = Date.now(),
): string {
  const { pure, sha2, utils } = nostr();
  const { bytesToHex, randomBytes } = utils;
  const event = pure.finalizeEvent({
    kind: HTTP_AUTH_KIND,
    created_at: Math.floor(now / 1000),
    tags: [
      ["u", url],
      ["method", "POST"],
      ["payload", bytesToHex(sha2.sha256(body))],
      ["nonce", bytesToHex(randomBytes(12))],
    ],
    content: "",
  }, secretKey);
  return `Nostr ${base64(new TextEncoder().encode(JSON.stringify(event)))}`;
}
