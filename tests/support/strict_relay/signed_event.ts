// A complete signed Nostr event, as the relay requires one on /events, over the websocket and in
// AUTH: all seven members present with their types, the id the NIP-01 hash, the signature valid.

import { type NostrEvent, verifyEvent } from "nostr-tools/pure";
import { isRecord } from "./values.ts";

const MEMBERS = ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"] as const;
const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

function isTags(v: unknown): boolean {
  return Array.isArray(v) && v.every((t) => Array.isArray(t) && t.every((x) => typeof x === "string"));
}

/** Why `raw` is not a complete signed event (an `invalid: …` reason), or undefined when it is one. */
export function eventProblem(raw: unknown): string | undefined {
  // Where the real relay's texts are known (missing sig, bad id, the mismatch) they are used; the
  // other members' texts follow the same pattern.
  if (!isRecord(raw)) return "invalid: event must be a JSON object";
  for (const member of MEMBERS) if (!(member in raw)) return `invalid: missing ${member}`;
  if (typeof raw.id !== "string" || !HEX64.test(raw.id)) return "invalid: bad id";
  if (typeof raw.pubkey !== "string" || !HEX64.test(raw.pubkey)) return "invalid: bad pubkey";
  if (!Number.isSafeInteger(raw.created_at) || (raw.created_at as number) < 0) {
    return "invalid: bad created_at";
  }
  if (!Number.isInteger(raw.kind) || (raw.kind as number) < 0 || (raw.kind as number) > 65535) {
    return "invalid: bad kind";
  }
  if (!isTags(raw.tags)) return "invalid: bad tags";
  if (typeof raw.content !== "string") return "invalid: bad content";
  if (typeof raw.sig !== "string" || !HEX128.test(raw.sig)) return "invalid: bad sig";
  // Verify a copy: nostr-tools caches the verdict on the object it is given.
  if (!verifyEvent(canonical(raw as unknown as NostrEvent))) {
    return "invalid: id or signature does not match content";
  }
  return undefined;
}

/** The event with exactly its seven members, in NIP-01 order: what the relay stores and serves. */
export function canonical(ev: NostrEvent): NostrEvent {
  return {
    id: ev.id,
    pubkey: ev.pubkey,
    created_at: ev.created_at,
    kind: ev.kind,
    tags: ev.tags.map((t) => [...t]),
    content: ev.content,
    sig: ev.sig,
  };
}

/** The first value of the event's first tag named `name`. */
export function tagValue(ev: NostrEvent, name: string): string | undefined {
  return ev.tags.find((t) => t[0] === name)?.[1];
}
