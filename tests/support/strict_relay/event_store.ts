// The relay's one event store: every event accepted over /events, the websocket or a publishing MCP
// tool, and every injected one, kept in arrival order (duplicates once) and announced to whoever
// listens (the websocket subscriptions).

import type { NostrEvent } from "nostr-tools/pure";
import { type Filter, hasMore, select } from "./filters.ts";

const isEphemeral = (kind: number) => kind >= 20000 && kind < 30000;

/** The key a replaceable (0, 3, 10000–19999) or addressable (30000–39999) event is replaced by. */
function replaceKey(ev: NostrEvent): string | undefined {
  if (ev.kind === 0 || ev.kind === 3 || (ev.kind >= 10000 && ev.kind < 20000)) {
    return `${ev.pubkey}:${ev.kind}`;
  }
  if (ev.kind >= 30000 && ev.kind < 40000) {
    return `${ev.pubkey}:${ev.kind}:${ev.tags.find((t) => t[0] === "d")?.[1] ?? ""}`;
  }
  return undefined;
}

/** The later of two versions: newer created_at, ties by the lower id (NIP-01). */
function later(a: NostrEvent, b: NostrEvent): NostrEvent {
  if (a.created_at !== b.created_at) return a.created_at > b.created_at ? a : b;
  return a.id < b.id ? a : b;
}

export class EventStore {
  /** Arrival order, every accepted event (ephemeral and replaced ones too: tests read them back). */
  readonly events: NostrEvent[] = [];
  #ids = new Set<string>();
  #listeners = new Set<(ev: NostrEvent) => void>();

  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /**
   * Stores and announces the event; false (and nothing announced) for one already held. An ephemeral
   * kind is never held, as the relay stores none, so the same one again is no duplicate: it is
   * announced again (and kept here again for tests to read).
   */
  add(ev: NostrEvent): boolean {
    if (this.#ids.has(ev.id)) return false;
    if (!isEphemeral(ev.kind)) this.#ids.add(ev.id);
    this.events.push(ev);
    for (const listener of this.#listeners) listener(ev);
    return true;
  }

  /** Calls `listener` with every event stored from now on. */
  onStored(listener: (ev: NostrEvent) => void): void {
    this.#listeners.add(listener);
  }

  /**
   * What a REQ's history holds, newest first. As NIP-01 relays do, ephemeral kinds are only ever
   * delivered live, and of a replaceable or addressable event only its latest version is served.
   */
  query(filters: Filter[], visible: (ev: NostrEvent) => boolean = () => true): NostrEvent[] {
    return select(this.#served().filter(visible), filters);
  }

  /** Whether a REQ's history was cut short by a filter's limit. */
  more(filters: Filter[], visible: (ev: NostrEvent) => boolean = () => true): boolean {
    return hasMore(this.#served().filter(visible), filters);
  }

  /** The events a REQ's history is taken from: no ephemeral ones, the latest of each replaceable. */
  #served(): NostrEvent[] {
    const latest = new Map<string, NostrEvent>();
    const kept: NostrEvent[] = [];
    for (const ev of this.events) {
      if (isEphemeral(ev.kind)) continue;
      const key = replaceKey(ev);
      if (key === undefined) kept.push(ev);
      else latest.set(key, latest.has(key) ? later(latest.get(key)!, ev) : ev);
    }
    return [...kept, ...latest.values()];
  }
}
