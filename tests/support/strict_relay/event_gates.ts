// The write gates an accepted event passes, in the order rpc-facts 6.3 lists them, with the real
// relay's reasons; and the receipt /events answers with (its keys sorted, as the relay's are).

import type { NostrEvent } from "nostr-tools/pure";
import { tagValue } from "./signed_event.ts";

/** The relay's state the gates read. */
export interface GatePolicy {
  rooms: ReadonlySet<string>;
  membersOnly: boolean;
  isMember(pubkey: string): boolean;
  /** Unix seconds. */
  now(): number;
  /** A test's own gate (setEventGate): its reason refuses the event. */
  hook?: (event: NostrEvent) => string | undefined;
}

export interface Receipt {
  accepted: boolean;
  event_id: string;
  message: string;
}

/**
 * Why the event is refused, or undefined. `authRefusal` (the websocket's own: an EVENT before AUTH)
 * comes right after the AUTH-kind check.
 */
export function gateRefusal(ev: NostrEvent, policy: GatePolicy, authRefusal?: string): string | undefined {
  if (ev.kind === 22242) return "blocked: AUTH events use AUTH";
  if (authRefusal) return authRefusal;
  const rooms = ev.tags.filter((t) => t[0] === "h").map((t) => t[1] ?? "");
  const unknown = rooms.find((room) => !policy.rooms.has(room));
  if (unknown !== undefined) return `invalid: unknown room ${unknown}`;
  if (policy.membersOnly && !policy.isMember(ev.pubkey)) {
    // The spec names the room refusal; for an event outside any room a members-only relay refuses
    // a non-member with the relay-wide text /mcp uses.
    return rooms.length
      ? `restricted: not a member of room ${rooms[0]}`
      : "restricted: this relay is members-only";
  }
  // NIP-40: expired at its expiration second. A value that is not a number is no expiration.
  const expiration = tagValue(ev, "expiration");
  if (expiration !== undefined && /^\d+$/.test(expiration) && Number(expiration) <= policy.now()) {
    return "invalid: event has already expired";
  }
  return policy.hook?.(ev);
}

export function receipt(ev: NostrEvent, accepted: boolean, message: string): Receipt {
  return { accepted, event_id: ev.id, message };
}
