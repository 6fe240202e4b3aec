// The NIP-42 answer to a relay's challenge (rpc-facts.md 4.5): a kind 22242
// event naming the relay's websocket URL and the challenge, signed by the
// Signer like every other event. Pure: the template only.

import type { EventTemplate } from "../key/signer.ts";

export const AUTH_EVENT_KIND = 22242;

/** The AUTH event to sign for `challenge` from the relay at `relayUrl` (its ws or wss URL). */
export function authTemplate(relayUrl: string, challenge: string, nowSeconds: number): EventTemplate {
  return {
    kind: AUTH_EVENT_KIND,
    created_at: nowSeconds,
    tags: [["relay", relayUrl], ["challenge", challenge]],
    content: "",
  };
}
