// NIP-98 as the real relay checks it: the token's encoding, the event's signature (verified with
// nostr-tools), kind, ±60 s window, URL, method and payload hash of the raw body bytes, and each
// accepted event id refused for 60 s afterwards.

import { type NostrEvent, validateEvent, verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { RecordedRequest } from "./types.ts";
import { isRecord } from "./values.ts";

const NIP98_KIND = 27235;
const TOKEN_WINDOW_S = 60;

/** Decodes a token in standard or URL-safe Base64, padded or not, without mixing alphabets. */
export function decodeToken(token: string): string | undefined {
  const std = /^[A-Za-z0-9+/]+={0,2}$/.test(token);
  const url = /^[A-Za-z0-9_-]+={0,2}$/.test(token);
  if (!std && !url) return undefined;
  const bare = token.replace(/=+$/, "");
  if (bare.length !== token.length && token.length % 4 !== 0) return undefined; // wrong padding
  if (bare.length % 4 === 1) return undefined;
  try {
    const binary = atob(bare.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** Splits an absolute URL into its compared parts; undefined when it is not one. */
function urlParts(u: string): { scheme: string; host: string; path: string; query: string } | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]+)([^?#]*)(?:\?([^#]*))?$/.exec(u);
  if (!m) return undefined;
  return { scheme: m[1].toLowerCase(), host: m[2].toLowerCase(), path: m[3] || "/", query: m[4] ?? "" };
}

function sameUrl(tag: string, requestUrl: string): boolean {
  const a = urlParts(tag);
  const b = urlParts(requestUrl);
  return !!a && !!b && a.scheme === b.scheme && a.host === b.host && a.path === b.path && a.query === b.query;
}

function tagValue(ev: NostrEvent, name: string): string | undefined {
  return ev.tags.find((t) => t[0] === name)?.[1];
}

/** The event in an `Authorization: Nostr <token>` header, when it decodes (valid or not). */
export function parseAuth(headers: Headers): NostrEvent | undefined {
  const header = headers.get("authorization");
  if (!header?.startsWith("Nostr ")) return undefined;
  const json = decodeToken(header.slice(6).trim());
  if (json === undefined) return undefined;
  try {
    const ev = JSON.parse(json);
    return isRecord(ev) ? ev as unknown as NostrEvent : undefined;
  } catch {
    return undefined;
  }
}

export type Authentication = { pubkey: string } | { reason: string };

/**
 * When the `payload` tag is checked: "when-body" (the MCP and management endpoints: whenever there is
 * a body), "required" (/events: always), "unchecked" (attachment uploads check it later, against the
 * blob, with their own reason).
 */
export type PayloadRule = "when-body" | "required" | "unchecked";

/** The verifier's reasons for "no key at all": routes that name their own refusal for it. */
export const NO_TOKEN_REASONS: readonly string[] = ["missing token", "authorization scheme must be Nostr"];

/**
 * The real relay's wording (rpc-facts 6.3) for a verifier reason, on the routes that answer with it
 * (/events, attachments, media); /mcp and /manage/rpc keep the verifier's own. Reasons the real relay's
 * list does not name map onto the nearest it does: a signature that does not verify is a malformed
 * token, a token from the future is outside the window as an old one is, and a missing payload tag
 * cannot match the body.
 */
export function relayReason(reason: string): string {
  if (NO_TOKEN_REASONS.includes(reason)) return "missing Nostr Authorization header";
  if (reason.startsWith("wrong kind")) return "token must be kind 27235";
  const known: Record<string, string> = {
    "invalid token encoding": "malformed NIP-98 token",
    "malformed token event": "malformed NIP-98 token",
    "invalid signature": "malformed NIP-98 token",
    "token expired": "token expired",
    "token from the future": "token expired",
    "url mismatch": "token was signed for another URL",
    "method mismatch": "token was signed for another method",
    "missing payload": "token payload hash does not match the body",
    "payload mismatch": "token payload hash does not match the body",
    "replayed token": "token replay detected",
  };
  return known[reason] ?? reason;
}

/** Checks tokens against a clock, remembering accepted ones to refuse replays. */
export class TokenVerifier {
  #now: () => number;
  #seen = new Map<string, number>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** The signer's pubkey, or the reason the request's token is refused. */
  verify(rec: RecordedRequest, payloadRule: PayloadRule): Authentication {
    const header = rec.headers.get("authorization");
    if (!header) return { reason: "missing token" };
    if (!header.startsWith("Nostr ")) return { reason: "authorization scheme must be Nostr" };
    const ev = rec.auth as unknown;
    if (ev === undefined) return { reason: "invalid token encoding" };
    if (
      !isRecord(ev) || !validateEvent(ev) || !Number.isInteger(ev.kind) || !Number.isInteger(ev.created_at) ||
      typeof ev.id !== "string" || typeof ev.sig !== "string"
    ) {
      return { reason: "malformed token event" };
    }
    // Verify a copy: nostr-tools caches the verdict on the object it is given.
    const event = structuredClone(ev) as unknown as NostrEvent;
    if (!verifyEvent(event)) return { reason: "invalid signature" };
    if (event.kind !== NIP98_KIND) return { reason: `wrong kind ${event.kind}` };
    const now = this.#now();
    if (event.created_at < now - TOKEN_WINDOW_S) return { reason: "token expired" };
    if (event.created_at > now + TOKEN_WINDOW_S) return { reason: "token from the future" };
    const u = tagValue(event, "u");
    if (u === undefined || !sameUrl(u, rec.url)) return { reason: "url mismatch" };
    const method = tagValue(event, "method");
    if (method === undefined || method.toUpperCase() !== rec.method.toUpperCase()) {
      return { reason: "method mismatch" };
    }
    const payload = tagValue(event, "payload");
    const checked = payloadRule === "required" || (payloadRule === "when-body" && rec.body.length > 0);
    if (checked) {
      if (payload === undefined) return { reason: "missing payload" };
      if (payload !== bytesToHex(sha256(rec.body))) return { reason: "payload mismatch" };
    }
    return this.#admit(event.id, now) ? { pubkey: event.pubkey } : { reason: "replayed token" };
  }

  /** Records an event id unless it was accepted within the window. */
  #admit(id: string, now: number): boolean {
    for (const [seen, at] of this.#seen) if (at < now - TOKEN_WINDOW_S) this.#seen.delete(seen);
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}
