// A complete signed Nostr event, as the relay requires one on /events, over the websocket and in
// AUTH: all seven members present with their types, the id the NIP-01 hash, the signature valid.

import { type NostrEvent, verifyEvent } from "nostr-tools/pure";
import { isRecord } from "./values.ts";

const MEMBERS = ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"] as const;
const HEX64 = /^[0-9a-f]{64}$/;
const HEX128 = /^[0-9a-f]{128}$/;

/** The Go type each member decodes into (tinyrelay's event.Event). */
const GO_TYPES: Record<string, string> = {
  id: "string",
  pubkey: "string",
  created_at: "int64",
  kind: "int",
  tags: "[][]string",
  content: "string",
  sig: "string",
};

/** JSON's name for a value's type, as Go's decoder says it. */
function jsonType(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  return typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v;
}

/** Why a member cannot decode into its Go type; null decodes as the zero value, as in Go. */
function decodeProblem(member: string, v: unknown): string | undefined {
  const where = `Go struct field Event.${member} of type`;
  const fail = (what: string, type = GO_TYPES[member]) =>
    `invalid event JSON: json: cannot unmarshal ${what} into ${where} ${type}`;
  if (v === null) return undefined;
  switch (GO_TYPES[member]) {
    case "string":
      return typeof v === "string" ? undefined : fail(jsonType(v));
    case "int64":
    case "int":
      if (typeof v !== "number") return fail(jsonType(v));
      return Number.isSafeInteger(v) ? undefined : fail(`number ${v}`);
  }
  if (!Array.isArray(v)) return fail(jsonType(v));
  for (const tag of v) {
    if (tag !== null && !Array.isArray(tag)) return fail(jsonType(tag), "[]string");
    for (const item of tag ?? []) {
      if (item !== null && typeof item !== "string") return fail(jsonType(item), "string");
    }
  }
  return undefined;
}

/**
 * Why `raw` is not a complete signed event, or undefined when it is one: tinyrelay's event.Parse, in
 * its order and words (every member present, each decoding into its type, then the wire shape, then
 * the canonical id and the Schnorr signature).
 */
export function eventProblem(raw: unknown): string | undefined {
  // Go decodes null into a map as no map at all, without an error: every member is then missing.
  if (raw === null) return "invalid: missing id";
  if (!isRecord(raw)) {
    return `invalid event JSON: json: cannot unmarshal ${
      jsonType(raw)
    } into Go value of type map[string]json.RawMessage`;
  }
  for (const member of MEMBERS) if (!Object.hasOwn(raw, member)) return `invalid: missing ${member}`;
  for (const member of MEMBERS) {
    const problem = decodeProblem(member, raw[member]);
    if (problem) return problem;
  }
  const ev = zeroFilled(raw);
  if (!HEX64.test(ev.id)) return "invalid: bad id";
  if (!HEX64.test(ev.pubkey)) return "invalid: bad pubkey";
  if (!HEX128.test(ev.sig)) return "invalid: bad sig";
  if (ev.kind < 0 || ev.kind > 65535) return "invalid: kind out of range";
  if (ev.created_at < 0) return "invalid: bad created_at";
  if (raw.tags === null) return "invalid: tags must be a list";
  if (ev.tags.some((tag) => tag.length === 0)) return "invalid: bad tag";
  // Verify a copy: nostr-tools caches the verdict on the object it is given.
  if (!verifyEvent(canonical(ev))) return "invalid: id or signature does not match content";
  return undefined;
}

/** The members as Go decodes them: null as the zero value. */
function zeroFilled(raw: Record<string, unknown>): NostrEvent {
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  return {
    id: text(raw.id),
    pubkey: text(raw.pubkey),
    created_at: typeof raw.created_at === "number" ? raw.created_at : 0,
    kind: typeof raw.kind === "number" ? raw.kind : 0,
    tags: Array.isArray(raw.tags) ? raw.tags.map((tag) => (tag ?? []).map(text)) : [],
    content: text(raw.content),
    sig: text(raw.sig),
  };
}

/** The event as the relay decodes it (null members as their zero values), for one that passed eventProblem. */
export function decoded(raw: Record<string, unknown>): NostrEvent {
  return zeroFilled(raw);
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
