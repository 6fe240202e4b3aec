// The relay's websocket messages (NIP-01, NIP-42) as the helper reads and
// writes them: each relay message read into one shape or ignored, as the Go
// peer ignores what it does not know (rpc-facts.md 4.4); the client's REQ,
// CLOSE and AUTH frames; and the shape of a signed event. Pure.

import type { SignedEvent } from "../key/signer.ts";

export type RelayMessage =
  /** `event` is as the relay sent it: its shape and signature are checked before anyone sees it. */
  | { type: "EVENT"; subscription: string; event: unknown }
  | { type: "EOSE"; subscription: string }
  | { type: "CLOSED"; subscription: string; reason: string }
  | { type: "OK"; id: string; accepted: boolean; reason: string }
  /** `challenge` is as sent: a challenge that is not a string is an error for the one who asked. */
  | { type: "AUTH"; challenge: unknown }
  | { type: "NOTICE"; message: string }
  /** Not a message the helper acts on (COUNT, NEG-*, a malformed frame): dropped. */
  | { type: "ignored"; why: string };

const ignored = (why: string): RelayMessage => ({ type: "ignored", why });

/** One websocket text message from the relay. */
export function parseRelayMessage(text: string): RelayMessage {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return ignored("not JSON");
  }
  if (!Array.isArray(frame) || frame.length < 2 || typeof frame[0] !== "string") {
    return ignored("not a JSON array of a message type and at least one value");
  }
  const [type, first, second, third] = frame;
  switch (type) {
    case "EVENT":
      return frame.length === 3 && typeof first === "string"
        ? { type, subscription: first, event: second }
        : ignored("an EVENT that is not [EVENT, subscription, event]");
    case "EOSE":
      return typeof first === "string"
        ? { type, subscription: first }
        : ignored("an EOSE without a subscription");
    case "CLOSED":
      return typeof first === "string"
        ? { type, subscription: first, reason: typeof second === "string" ? second : "" }
        : ignored("a CLOSED without a subscription");
    case "OK":
      return typeof first === "string" && typeof second === "boolean"
        ? { type, id: first, accepted: second, reason: typeof third === "string" ? third : "" }
        : ignored("an OK without an event id and a verdict");
    case "AUTH":
      return { type, challenge: first };
    case "NOTICE":
      return { type, message: typeof first === "string" ? first : JSON.stringify(first) ?? "" };
    default:
      return ignored(`a message of type ${JSON.stringify(type.slice(0, 20))}`);
  }
}

/** `["REQ", id, filter…]`: every filter its own element. */
export function reqFrame(subscription: string, filters: readonly unknown[]): string {
  return JSON.stringify(["REQ", subscription, ...filters]);
}

export function closeFrame(subscription: string): string {
  return JSON.stringify(["CLOSE", subscription]);
}

export function authFrame(event: SignedEvent): string {
  return JSON.stringify(["AUTH", event]);
}

// The shape check lives with the signature check, which never runs without it.
export { isSignedEventShape } from "../key/verify.ts";

/** The seven members alone, in the NIP-01 order: what the helper passes on, nothing the relay added. */
export function signedEventOf(event: SignedEvent): SignedEvent {
  const { id, pubkey, created_at, kind, tags, content, sig } = event;
  return { id, pubkey, created_at, kind, tags, content, sig };
}
