// The list calls behind resources/list and completion/complete, kept briefly: a person typing in a
// picker, or a host paging a listing, asks for the same page again and again, and the relay is
// asked once per page in a short while. Calls asked for while the same one is on its way share it.
// Only answers are kept, never failures; at most a few dozen, the least recently used going first
// (memo.ts), so what is held stays bounded (each answer is already bounded by the facade's 256 KiB).

import type { CallOutcome, JsonObject } from "../wire/mcp.ts";
import { Memo } from "./memo.ts";
import { readOutcome, type ToolReading } from "./outcome.ts";

/** One relay tool call, as a resource call through the facade. */
export type ToolCall = (tool: string, args: JsonObject) => Promise<CallOutcome>;

/** How long an answer is kept. */
export const CACHE_TTL_MS = 10_000;
/** At most this many answers are kept. */
export const CACHE_ENTRIES = 64;

export interface CallCacheOptions {
  ttlMs?: number;
  entries?: number;
  /** The clock, in ms (tests bring their own). */
  now?: () => number;
}

export class CallCache {
  #call: ToolCall;
  #ttl: number;
  #now: () => number;
  #kept: Memo<{ at: number; reading: ToolReading }>;
  #flying = new Map<string, Promise<ToolReading>>();

  constructor(call: ToolCall, options: CallCacheOptions = {}) {
    this.#call = call;
    this.#ttl = options.ttlMs ?? CACHE_TTL_MS;
    this.#kept = new Memo(options.entries ?? CACHE_ENTRIES);
    this.#now = options.now ?? Date.now;
  }

  /** The reading of `tool` called with `args`: kept, on its way, or asked for now. */
  get(tool: string, args: JsonObject): Promise<ToolReading> {
    const key = JSON.stringify([tool, args]);
    const kept = this.#kept.get(key);
    if (kept && this.#now() - kept.at < this.#ttl) return Promise.resolve(kept.reading);
    if (kept) this.#kept.delete(key);
    const flying = this.#flying.get(key);
    if (flying) return flying;
    const call = this.#call(tool, args).then((outcome) => readOutcome(tool, outcome)).then((reading) => {
      if (reading.ok) this.#kept.set(key, { at: this.#now(), reading });
      return reading;
    }).finally(() => this.#flying.delete(key));
    this.#flying.set(key, call);
    return call;
  }
}
