// NIP-98 proofs for relay requests (facade.md, "Relay protocol"): what a kind
// 27235 event carries and how it travels in the `Authorization` header. Pure;
// the Signer signs the event.

/** The NIP-98 HTTP authorization kind. */
export const AUTH_KIND = 27235;

/**
 * The proof's tags: the exact URL, the method, the SHA-256 hex of the exact
 * body bytes, and a random nonce so two identical requests in the same second
 * never share an event id (the relay would refuse the second as a replay).
 */
export function proofTags(url: string, method: string, payloadHex: string, nonceHex: string): string[][] {
  return [["u", url], ["method", method], ["payload", payloadHex], ["nonce", nonceHex]];
}

/** `Nostr <standard Base64 of the event's JSON>`. */
export function authorizationHeader(event: unknown): string {
  return `Nostr ${new TextEncoder().encode(JSON.stringify(event)).toBase64()}`;
}
