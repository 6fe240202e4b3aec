// Checking an event the relay passed on (NIP-01): its shape first, strictly, then that its id is the
// hash of its content and its signature is its author's. Needs no key; it lives beside the Signer
// because it uses the same curve. The shape check is what keeps the native curve as strict as the
// JavaScript one: libsecp256k1's path accepts an id or pubkey in uppercase hex and a pubkey with
// extra hex digits, which the shape check refuses before either is asked.

import { isObject } from "../wire/json.ts";
import type { SignedEvent } from "./signer.ts";
import { loadNostr } from "./stack.ts";

const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

/**
 * Whether `value` has a signed event's seven members with their types (lower-case hex ids and keys
 * of their exact lengths, a 128-hex signature, whole-number kind and time, tags of strings).
 */
export function isSignedEventShape(value: unknown): value is SignedEvent {
  if (!isObject(value)) return false;
  const { id, pubkey, created_at, kind, tags, content, sig } = value;
  return typeof id === "string" && HEX64.test(id) &&
    typeof pubkey === "string" && HEX64.test(pubkey) &&
    typeof sig === "string" && HEX128.test(sig) &&
    Number.isSafeInteger(created_at) && (created_at as number) >= 0 &&
    Number.isInteger(kind) && (kind as number) >= 0 && (kind as number) <= 65535 &&
    typeof content === "string" &&
    Array.isArray(tags) &&
    tags.every((tag) => Array.isArray(tag) && tag.every((item) => typeof item === "string"));
}

/**
 * A check for events, once the curve has loaded: true when the shape, the id and the signature hold.
 * Its answer is sync but for an event too large for the native curve while the JavaScript one loads
 * (curve.ts); that promise rejects only when it cannot load.
 */
export type EventCheck = (event: unknown) => boolean | Promise<boolean>;

export async function eventVerifier(): Promise<EventCheck> {
  const { curve } = await loadNostr();
  return (event) => {
    if (!isSignedEventShape(event)) return false;
    const { id, pubkey, created_at, kind, tags, content, sig } = event;
    return curve.verify({ id, pubkey, created_at, kind, tags, content, sig });
  };
}
