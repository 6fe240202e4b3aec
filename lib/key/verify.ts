// Checking the signature of an event the relay passed on (NIP-01): its id is
// the hash of its content and its signature is its author's. Needs no key;
// it lives beside the Signer because it uses the same signing stack.

import type { SignedEvent } from "./signer.ts";
import { loadNostr } from "./stack.ts";

/** A check for events, once the signing stack has loaded: true when the id and signature hold. */
export async function eventVerifier(): Promise<(event: SignedEvent) => boolean> {
  const { pure } = await loadNostr();
  return (event) => {
    try {
      // A copy: nostr-tools marks the object it verified, and the caller's stays as it was.
      return pure.verifyEvent({ ...event });
    } catch {
      return false; // a malformed signature or key, such as a point that is not on the curve
    }
  };
}
