// NIP-01 filters as the relay reads them: checked strictly when a REQ arrives (a bad one is a
// CLOSED `invalid: bad filter: …`), matched against events, and used to pick stored events newest
// first, each filter's `limit` applied to its own matches.

import type { NostrEvent } from "nostr-tools/pure";
import { isRecord } from "./values.ts";

export interface Filter {
  ids?: string[];
  authors?: string[];
  kinds?: number[];
  since?: number;
  until?: number;
  limit?: number;
  /** `#x` conditions: the tag name and the values one of which a tag of that name must carry. */
  tags: [string, string[]][];
  /** Present when the filter asks for a search, which this relay does not serve. */
  search?: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

function isHexList(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === "string" && HEX64.test(x));
}

function isCount(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
}

/** One known key's problem, or undefined; the value is stored on `out` when good. */
function keyProblem(key: string, value: unknown, out: Filter): string | undefined {
  switch (key) {
    case "ids":
    case "authors":
      if (!isHexList(value)) return `${key} must be 64-character lowercase hex strings`;
      out[key] = value;
      return undefined;
    case "kinds":
      if (!Array.isArray(value) || !value.every((k) => Number.isInteger(k) && k >= 0 && k <= 65535)) {
        return "kinds must be integers from 0 to 65535";
      }
      out.kinds = value;
      return undefined;
    case "since":
    case "until":
    case "limit":
      if (!isCount(value)) return `${key} must be a non-negative integer`;
      out[key] = value;
      return undefined;
    case "search":
      if (typeof value !== "string") return "search must be a string";
      out.search = value;
      return undefined;
  }
  if (!key.startsWith("#")) return undefined; // other keys are ignored, as NIP-01 relays do
  if (!/^#[A-Za-z]$/.test(key)) return `tag filter ${key} must name a single letter`;
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) {
    return `${key} must be a list of strings`;
  }
  out.tags.push([key.slice(1), value]);
  return undefined;
}

/** The filter, or what is wrong with it (the text after `invalid: bad filter: `). */
export function parseFilter(raw: unknown): Filter | { problem: string } {
  if (!isRecord(raw)) return { problem: "filter must be an object" };
  const filter: Filter = { tags: [] };
  for (const [key, value] of Object.entries(raw)) {
    const problem = keyProblem(key, value, filter);
    if (problem) return { problem };
  }
  return filter;
}

export function matches(filter: Filter, ev: NostrEvent): boolean {
  if (filter.ids && !filter.ids.includes(ev.id)) return false;
  if (filter.authors && !filter.authors.includes(ev.pubkey)) return false;
  if (filter.kinds && !filter.kinds.includes(ev.kind)) return false;
  if (filter.since !== undefined && ev.created_at < filter.since) return false;
  if (filter.until !== undefined && ev.created_at > filter.until) return false;
  return filter.tags.every(([name, values]) => ev.tags.some((t) => t[0] === name && values.includes(t[1])));
}

/** NIP-01 order: newest first, ties by the lower id. */
export function newestFirst(a: NostrEvent, b: NostrEvent): number {
  return b.created_at - a.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** The stored events the filters select, newest first, each filter's limit applied to its own matches. */
export function select(events: readonly NostrEvent[], filters: Filter[]): NostrEvent[] {
  const picked = new Map<string, NostrEvent>();
  for (const filter of filters) {
    const found = events.filter((ev) => matches(filter, ev)).sort(newestFirst);
    for (const ev of found.slice(0, filter.limit ?? found.length)) picked.set(ev.id, ev);
  }
  return [...picked.values()].sort(newestFirst);
}

/** Whether a filter with a limit matches more events than its limit lets through (EOSE's "more"). */
export function hasMore(events: readonly NostrEvent[], filters: Filter[]): boolean {
  return filters.some((filter) =>
    filter.limit !== undefined && events.filter((ev) => matches(filter, ev)).length > filter.limit
  );
}
