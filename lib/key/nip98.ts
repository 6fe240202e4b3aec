// NIP-98 proofs for relay requests (facade.md, "Relay protocol"): what a kind
// 27235 event carries and how it travels in the `Authorization` header. Pure;
// the Signer signs the event.

/** The NIP-98 HTTP authorization kind. */
export const AUTH_KIND = 27235;

/**
 * The proof's tags: the exact URL, the method, the SHA-256 hex of the exact
 * body bytes (none for a request without a body, as NIP-98 and the Go peer
 * have it), and a random nonce so two identical requests in the same second
 * never share an event id (the relay would refuse the second as a replay).
 * Relays read the tags by name; their order is tinyagent's own.
 */
export function proofTags(
  url: string,
  method: string,
  payloadHex: string | undefined,
  nonceHex: string,
): string[][] {
  const payload = payloadHex === undefined ? [] : [["payload", payloadHex]];
  return [["u", url], ["method", method], ...payload, ["nonce", nonceHex]];
}

/** `Nostr <standard Base64 of the event's JSON>`. */
export function authorizationHeader(event: unknown): string {
  return `Nostr ${new TextEncoder().encode(JSON.stringify(event)).toBase64()}`;
}
