// What the write tools' builders and checks share (tinyrelay's mcp_tools.go helpers): reading an
// argument as the relay's mcp.Call does, the unsigned template, tag lookups, hex and room-id tests.
// Pure.

import type { NostrEvent } from "nostr-tools/pure";
import type { Args } from "./values.ts";

export type Tags = string[][];

/** An unsigned event as the relay returns it to be signed. */
export interface Unsigned {
  kind: number;
  created_at: number;
  tags: Tags;
  content: string;
}

/** What a builder reads besides the arguments: who calls, the clock, the events the relay holds. */
export interface BuildContext {
  actor: string;
  /** Unix seconds. */
  now: number;
  /** A stored event the caller may see, by id. */
  event(id: string): NostrEvent | undefined;
  /** The caller's active agent grant: its event id and operator, for request_grant. */
  activeGrant(): { eventId: string; owner: string } | undefined;
}

/** A builder's template, or its refusal (the relay's words, without the shape that follows them). */
export type Built = { unsigned: Unsigned } | { error: string };

/** One write tool's parts: its builder (none for publish_event), its check of a signed event, its shape. */
export interface WriteSpec {
  build?: (args: Args, ctx: BuildContext) => Built;
  check?: (event: NostrEvent, now: number) => string | undefined;
  shape: string;
}

/** A string argument, or "" (mcp.Call.String). */
export const str = (args: Args, key: string): string =>
  typeof args[key] === "string" ? args[key] as string : "";
/** An integer argument truncated, or 0 (mcp.Call.Int). */
export const int = (args: Args, key: string): number =>
  typeof args[key] === "number" ? Math.trunc(args[key] as number) : 0;

export const hex64 = (v: string): boolean => /^[0-9a-f]{64}$/.test(v);
export const hex40 = (v: string): boolean => /^[0-9a-f]{40}$/.test(v);
export const validRoomId = (v: string): boolean => /^[a-z0-9_-]{1,64}$/.test(v);
/** Go's strings.TrimSpace (Unicode white space). */
export const trim = (v: string): string => v.replace(/^[\s\u0085]+|[\s\u0085]+$/gu, "");

/** The first value of the first tag named `name`, or "" (event.Tag). */
export function tag(tags: Tags, name: string): string {
  for (const t of tags) if (t.length > 1 && t[0] === name) return t[1];
  return "";
}

/** Every first value of the tags named `name` (event.TagValues). */
export function tagValues(tags: Tags, name: string): string[] {
  return tags.filter((t) => t.length > 1 && t[0] === name).map((t) => t[1]);
}

export const template = (kind: number, now: number, tags: Tags, content: string): Built => ({
  unsigned: { kind, created_at: now, tags, content },
});

/** An expiration argument's tag, or the refusal of one that is not in the future. */
export function expirationTag(args: Args, now: number): { tags: Tags } | { error: string } {
  const at = int(args, "expiration");
  if (at <= 0) return { tags: [] };
  return at <= now ? { error: "expiration must be in the future" } : { tags: [["expiration", String(at)]] };
}

/** An expiration tag, when present, as a Unix time in the future (the checks of signed events). */
export function expirationProblem(tags: Tags, now: number): string | undefined {
  const value = tag(tags, "expiration");
  if (value === "") return undefined;
  return /^[+-]?\d+$/.test(value) && Number(value) > now
    ? undefined
    : "the expiration tag must be a Unix time in the future";
}

/**
 * NIP-25 content: +, - or one emoji (up to ten code points, none ASCII, space, letter or digit), the
 * spaces Go's unicode.IsSpace knows: Unicode's White_Space, which JavaScript's \s is not quite.
 */
export function isReaction(content: string): boolean {
  if (content === "+" || content === "-") return true;
  const points = [...content];
  if (points.length === 0 || points.length > 10) return false;
  return points.every((p) => p.codePointAt(0)! >= 0x80 && !/[\p{White_Space}\p{L}\p{Nd}]/u.test(p));
}
