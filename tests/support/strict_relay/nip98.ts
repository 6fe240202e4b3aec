// NIP-98 as the real relay checks it (tinyrelay's auth.VerifyNIP98), in its order and words: the
// header, the token's encoding, the event (parsed as every event is), kind, ±60 s window, URL,
// method, the payload hash of the raw body bytes, and each accepted event id refused for 60 s.

import type { NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { RecordedRequest } from "./types.ts";
import { goSyntaxError } from "./go_json_syntax.ts";
import { decoded, eventProblem } from "./signed_event.ts";
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
  const fields = (headers.get("authorization") ?? "").trim().split(/\s+/);
  if (fields.length !== 2 || fields[0].toLowerCase() !== "nostr") return undefined;
  const json = decodeToken(fields[1]);
  if (json === undefined) return undefined;
  try {
    const ev = JSON.parse(json);
    return isRecord(ev) ? ev as unknown as NostrEvent : undefined;
  } catch {
    return undefined;
  }
}

/** The signer, or why the token is refused in the relay's words (each door prefixes `auth-required: `). */
export type Authentication = { pubkey: string } | { reason: string; missing?: true };

/**
 * When the `payload` tag is checked: "when-body" (whenever there is a body, or a payload tag to
 * match an empty one: every door that reads the body first), "unchecked" (attachment uploads check
 * it later, against the blob, with their own words).
 */
export type PayloadRule = "when-body" | "unchecked";

/** The text a request without a NIP-98 header is refused with (a door may allow it, as /media does). */
export const MISSING_TOKEN = "missing Nostr Authorization header";

/** Checks tokens against a clock, remembering accepted ones to refuse replays (tinyrelay's VerifyNIP98). */
export class TokenVerifier {
  #now: () => number;
  #seen = new Map<string, number>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** The signer's pubkey, or the reason the request's token is refused, in the relay's order. */
  verify(rec: RecordedRequest, payloadRule: PayloadRule): Authentication {
    const fields = (rec.headers.get("authorization") ?? "").trim().split(/\s+/);
    if (fields.length !== 2 || fields[0].toLowerCase() !== "nostr") {
      return { reason: MISSING_TOKEN, missing: true };
    }
    const json = decodeToken(fields[1]);
    let raw: unknown;
    try {
      raw = json === undefined ? undefined : JSON.parse(json);
    } catch {
      return { reason: `invalid event JSON: ${goSyntaxError(new TextEncoder().encode(json))}` };
    }
    if (json === undefined) return { reason: "malformed NIP-98 token" };
    const problem = eventProblem(raw);
    if (problem) return { reason: problem };
    const event = decoded(raw as Record<string, unknown>);
    if (event.kind !== NIP98_KIND) return { reason: "token must be kind 27235" };
    const now = this.#now();
    if (Math.abs(now - event.created_at) > TOKEN_WINDOW_S) return { reason: "token expired" };
    const u = tagValue(event, "u");
    if (u === undefined || !sameUrl(u, rec.url)) return { reason: "token was signed for another URL" };
    const method = tagValue(event, "method");
    if (method === undefined || method.toUpperCase() !== rec.method.toUpperCase()) {
      return { reason: "token was signed for another method" };
    }
    const payload = tagValue(event, "payload");
    if (payloadRule === "when-body" && (rec.body.length > 0 || payload !== undefined)) {
      if (payload !== bytesToHex(sha256(rec.body))) {
        return { reason: "token payload hash does not match the body" };
      }
    }
    return this.#admit(event.id, now) ? { pubkey: event.pubkey } : { reason: "token replay detected" };
  }

  /** Records an event id unless it was accepted within the window. */
  #admit(id: string, now: number): boolean {
    for (const [seen, at] of this.#seen) if (at < now - TOKEN_WINDOW_S) this.#seen.delete(seen);
    if (this.#seen.has(id)) return false;
    this.#seen.set(id, now);
    return true;
  }
}
