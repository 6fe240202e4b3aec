// Client-side filter matching (rpc-facts.md 4.6, NIP-01): a relay may send
// more than was asked, and the helper passes on only what a filter names.
// Pure.

import type { SignedEvent } from "../key/signer.ts";
import { isObject } from "../wire/json.ts";

function strings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * Whether `event` matches `filter`: every condition present holds (`ids`, `authors`, `kinds`,
 * `since` ≤ created_at ≤ `until`, and each `#x` naming a value of some `x` tag). A condition of the
 * wrong JSON type never matches; `limit`, `search` and other keys are not conditions here.
 */
export function matchesFilter(event: SignedEvent, filter: unknown): boolean {
  if (!isObject(filter)) return false;
  for (const [key, value] of Object.entries(filter)) {
    switch (key) {
      case "ids":
        if (!strings(value) || !value.includes(event.id)) return false;
        break;
      case "authors":
        if (!strings(value) || !value.includes(event.pubkey)) return false;
        break;
      case "kinds":
        if (!Array.isArray(value) || !value.includes(event.kind)) return false;
        break;
      case "since":
        if (typeof value !== "number" || event.created_at < value) return false;
        break;
      case "until":
        if (typeof value !== "number" || event.created_at > value) return false;
        break;
      default:
        if (key.startsWith("#") && !matchesTag(event, key.slice(1), value)) return false;
    }
  }
  return true;
}

function matchesTag(event: SignedEvent, name: string, value: unknown): boolean {
  if (!strings(value)) return false;
  return event.tags.some((tag) => tag[0] === name && tag.length > 1 && value.includes(tag[1]));
}

/** Whether `event` matches at least one of `filters`. */
export function matchesAny(event: SignedEvent, filters: readonly unknown[]): boolean {
  return filters.some((filter) => matchesFilter(event, filter));
}
