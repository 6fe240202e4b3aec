// NIP-42 as the real relay checks an AUTH event (rpc-facts 6.2), in its order: an event at all, one
// that parses (the complete signed event of signed_event.ts), kind 22242, created_at within 600 s,
// the connection's challenge, and a `relay` tag naming the connection's own URL.

import type { NostrEvent } from "nostr-tools/pure";
import { eventProblem, tagValue } from "./signed_event.ts";

const AUTH_KIND = 22242;
const AUTH_WINDOW_S = 600;

/**
 * A websocket URL in the form the relay compares: scheme and host lower-cased, port kept, the path
 * without trailing `/` (empty is `/`), query and fragment dropped. Undefined when it is not a URL.
 */
export function relayKey(url: string): string | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]+)([^?#]*)/.exec(url);
  if (!m) return undefined;
  return `${m[1].toLowerCase()}://${m[2].toLowerCase()}${m[3].replace(/\/+$/, "") || "/"}`;
}

export interface AuthContext {
  /** The connection's challenge; undefined when none was sent (an open relay). */
  challenge?: string;
  /** The connection's own URL: ws or wss, its Host header and the tenant prefix. */
  relayUrl: string;
  /** Unix seconds. */
  now: number;
}

/** The AUTH message's event when it passes, or the `OK` false reason. */
export function checkAuth(message: unknown[], ctx: AuthContext): { event: NostrEvent } | { reason: string } {
  // A null event is an event, whose members are all missing: only no argument at all is "needs".
  if (message.length < 2) return { reason: "invalid: AUTH needs an event" };
  const problem = eventProblem(message[1]);
  if (problem) return { reason: problem };
  const event = message[1] as NostrEvent;
  if (event.kind !== AUTH_KIND) return { reason: "invalid: auth event must be kind 22242" };
  if (Math.abs(event.created_at - ctx.now) > AUTH_WINDOW_S) {
    return { reason: "invalid: auth event created_at is too far from the current time" };
  }
  const challenge = tagValue(event, "challenge");
  if (ctx.challenge === undefined || challenge !== ctx.challenge) {
    return { reason: "invalid: auth challenge does not match" };
  }
  const tag = tagValue(event, "relay");
  if (tag === undefined || relayKey(tag) === undefined || relayKey(tag) !== relayKey(ctx.relayUrl)) {
    return { reason: "invalid: auth relay tag does not name this relay" };
  }
  return { event };
}
