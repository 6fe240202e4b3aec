// The relay's answers read defensively: a field that is missing or of the wrong type reads as
// absent, never as an exception; unknown fields are never looked at. Nostr events as the browse
// answers carry them, normalized the same way. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";

/** At most this many tags of an event are read. */
export const MAX_TAGS = 2000;
/** At most this many entries of any list are read: a hostile answer costs what a large one does. */
export const MAX_ENTRIES = 10_000;

/** `value[key]` when it is a string. */
export function str(value: unknown, key: string): string | undefined {
  const field = isObject(value) ? value[key] : undefined;
  return typeof field === "string" ? field : undefined;
}

/** `value[key]` when it is a finite number. */
export function num(value: unknown, key: string): number | undefined {
  const field = isObject(value) ? value[key] : undefined;
  return typeof field === "number" && Number.isFinite(field) ? field : undefined;
}

/** `value[key]` when it is true or false. */
export function bool(value: unknown, key: string): boolean | undefined {
  const field = isObject(value) ? value[key] : undefined;
  return typeof field === "boolean" ? field : undefined;
}

/** `value[key]` when it is an array (its first MAX_ENTRIES entries); otherwise an empty one. */
export function arr(value: unknown, key: string): unknown[] {
  const field = isObject(value) ? value[key] : undefined;
  return Array.isArray(field) ? field.slice(0, MAX_ENTRIES) : [];
}

/** `value[key]` when it is an object. */
export function obj(value: unknown, key: string): JsonObject | undefined {
  const field = isObject(value) ? value[key] : undefined;
  return isObject(field) ? field : undefined;
}

/** The strings of `value[key]`, when it is an array (other entries left out). */
export function strings(value: unknown, key: string): string[] {
  return arr(value, key).filter((entry): entry is string => typeof entry === "string");
}

/** A Nostr event as rendering reads it. */
export interface EventView {
  id?: string;
  pubkey?: string;
  createdAt?: number;
  kind?: number;
  tags: string[][];
  content: string;
  /** The object it came from, for fields beyond the event's own (file, line, side…). */
  raw: JsonObject;
}

/** An event read from anything: its fields when they have the right type. */
export function eventOf(value: unknown): EventView | undefined {
  if (!isObject(value)) return undefined;
  const tags = arr(value, "tags").slice(0, MAX_TAGS).filter((tag): tag is string[] =>
    Array.isArray(tag) && tag.every((part) => typeof part === "string")
  );
  return {
    id: str(value, "id"),
    pubkey: str(value, "pubkey"),
    createdAt: num(value, "created_at"),
    kind: num(value, "kind"),
    tags,
    content: str(value, "content") ?? "",
    raw: value,
  };
}

/** The events of `value[key]` (entries that are not objects left out). */
export function eventsOf(value: unknown, key: string): EventView[] {
  return arr(value, key).map(eventOf).filter((event): event is EventView => event !== undefined);
}

/** The first value of the first tag named `name`. */
export function tagValue(tags: readonly string[][], name: string): string | undefined {
  return tags.find((tag) => tag[0] === name && tag.length > 1)?.[1];
}

/** Every first value of the tags named `name`. */
export function tagValues(tags: readonly string[][], name: string): string[] {
  return tags.filter((tag) => tag[0] === name && tag.length > 1).map((tag) => tag[1]);
}

/** Events oldest first, whatever order they came in: by time, then id; an unknown time sorts first. */
export function oldestFirst<T extends { createdAt?: number; id?: string }>(events: readonly T[]): T[] {
  const time = (event: T) => event.createdAt ?? Number.MIN_SAFE_INTEGER;
  return [...events].sort((a, b) => time(a) - time(b) || compareText(a.id ?? "", b.id ?? ""));
}

/** Plain code-unit order, the same everywhere (no locale). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
