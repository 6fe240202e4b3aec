// resources/subscribe and resources/unsubscribe: a room, a thread or a long task watched on the
// relay's websocket (the session's one stream, opened only while something is wanted), each new
// event for it told to the host as notifications/resources/updated {uri} (no content: the host
// reads again). The relay's history is never news: the filter starts at the subscription, and
// what a first connection replays before its end of history is not told; after the relay drops
// the socket, the replay brings only what was missed (the stream passes each event on once).
// Notifications for one resource are at most one a second, the last one never lost. At most 100
// subscriptions; unsubscribing and the session's end release them.

import { type CallError, INVALID_PARAMS } from "../wire/mcp.ts";
import type { SubscriptionSink } from "../stream/stream_subscription.ts";
import { kindSpec } from "./kinds.ts";
import { echoedUri, refusal } from "./nearest.ts";
import { RELAY_FAILED } from "./outcome.ts";
import { offeredUri, uriParam } from "./reader.ts";
import { parseUri, type ResourceBase } from "./uri.ts";
import { WATCHABLE, watchFilter } from "./watch.ts";

/** What a subscription needs of the relay's websocket (stream/relay_stream.ts). */
export interface StreamPort {
  subscribe(filter: unknown, sink: SubscriptionSink): { stop(): void };
}

/** At most this many resources are watched at once. */
export const MAX_SUBSCRIPTIONS = 100;
/** Notifications for one resource are at least this far apart. */
export const NOTIFY_GAP_MS = 1000;
/** A subscribe is answered once the relay sends what is new, or after this long all the same. */
export const LIVE_WAIT_MS = 5000;

export interface SubscriptionsOptions {
  base: ResourceBase;
  exposed: ReadonlySet<string>;
  /** The session's stream, made on first need. */
  stream(): Promise<StreamPort>;
  /** Tells the host that `uri` changed. */
  notify(uri: string): void;
  log(line: string): void;
  max?: number;
  /** The clock and the timers (tests bring their own). */
  now?: () => number;
  later?: (task: () => void, ms: number) => () => void;
}

type Answer = { result: Record<string, never> } | { error: CallError };

/** One watched resource. */
interface Held {
  uri: string;
  stop?: () => void;
  /** Connections that sent it something: the first one's replay is history. */
  connections: number;
  lastSent: number;
  cancelTimer?: () => void;
  live: PromiseWithResolvers<void>;
}

const later = (task: () => void, ms: number) => {
  const timer = setTimeout(task, ms);
  return () => clearTimeout(timer);
};

export class Subscriptions {
  #options: SubscriptionsOptions;
  #held = new Map<string, Held>();
  #lastTrouble = "";
  #closed = false;
  /** The stream, asked for once (again only after it could not be made). */
  #stream: Promise<StreamPort> | undefined;

  constructor(options: SubscriptionsOptions) {
    this.#options = options;
  }

  /** How many resources are watched. */
  get size(): number {
    return this.#held.size;
  }

  async subscribe(params: unknown): Promise<Answer> {
    const asked = uriParam(params);
    if ("error" in asked) return asked;
    const { uri } = asked;
    const offered = offeredUri(this.#options.base, this.#options.exposed, uri);
    if ("error" in offered) return offered;
    const { address, canonical } = offered.parsed;
    const since = Math.floor(this.#now() / 1000);
    const filter = watchFilter(address, since);
    if (!filter) {
      const why = `a ${kindSpec(address.kind).kind} resource is not watched; ${
        WATCHABLE.join(", ")
      } resources are`;
      return { error: refusal(uri, "not-watchable", why, []) };
    }
    const existing = this.#held.get(canonical);
    if (existing) return await this.#answered(existing);
    const max = this.#options.max ?? MAX_SUBSCRIPTIONS;
    if (this.#closed) return { error: { code: RELAY_FAILED, message: "The session is ending" } };
    if (this.#held.size >= max) return tooMany(uri, max);
    const held: Held = { uri, connections: 0, lastSent: -Infinity, live: Promise.withResolvers() };
    this.#held.set(canonical, held);
    let stream: StreamPort;
    try {
      stream = await (this.#stream ??= this.#options.stream());
    } catch (error) {
      this.#stream = undefined;
      this.#release(canonical);
      const why = `the relay's websocket cannot be opened: ${(error as Error)?.message ?? error}`;
      return {
        error: { code: RELAY_FAILED, message: `Cannot watch ${uri}: ${why}`, data: { uri: echoedUri(uri) } },
      };
    }
    // Unsubscribed, or the session ended, while the stream was made: nothing to start.
    if (this.#held.get(canonical) !== held) return { result: {} };
    held.stop = stream.subscribe(filter, this.#sink(held)).stop;
    return await this.#answered(held);
  }

  unsubscribe(params: unknown): Answer {
    const asked = uriParam(params);
    if ("error" in asked) return asked;
    const parsed = parseUri(this.#options.base, asked.uri);
    if (!parsed.ok) {
      const { reason, message, nearest } = parsed.refusal;
      return { error: refusal(asked.uri, reason, message, nearest) };
    }
    this.#release(parsed.value.canonical);
    return { result: {} };
  }

  /** The session ends: every subscription stops. */
  close(): void {
    this.#closed = true;
    for (const key of [...this.#held.keys()]) this.#release(key);
  }

  #now(): number {
    return (this.#options.now ?? Date.now)();
  }

  /** Answered once live, or after LIVE_WAIT_MS: the relay being slow is no reason to keep the host waiting. */
  async #answered(held: Held): Promise<Answer> {
    let cancel: () => void = () => {};
    const waited = new Promise<void>((resolve) =>
      cancel = (this.#options.later ?? later)(resolve, LIVE_WAIT_MS)
    );
    await Promise.race([held.live.promise, waited]);
    cancel();
    return { result: {} };
  }

  #release(key: string): void {
    const held = this.#held.get(key);
    if (!held) return;
    this.#held.delete(key);
    held.stop?.();
    held.cancelTimer?.();
    held.live.resolve();
  }

  #sink(held: Held): SubscriptionSink {
    return {
      connected: () => void held.connections++,
      event: (_event, stored) => {
        if (!(stored && held.connections <= 1)) this.#tell(held);
        return true;
      },
      caughtUp: () => held.live.resolve(),
      trouble: (message) => {
        held.live.resolve();
        if (message === this.#lastTrouble) return;
        this.#lastTrouble = message;
        this.#options.log(`resources: watching: ${message}`);
      },
    };
  }

  /** The host is told now, or, when it was told less than a second ago, once at the second's end. */
  #tell(held: Held): void {
    if (held.cancelTimer || this.#closed) return;
    const send = () => {
      held.cancelTimer = undefined;
      held.lastSent = this.#now();
      this.#options.notify(held.uri);
    };
    const wait = held.lastSent + NOTIFY_GAP_MS - this.#now();
    if (wait <= 0) send();
    else held.cancelTimer = (this.#options.later ?? later)(send, wait);
  }
}

function tooMany(uri: string, max: number): Answer {
  return {
    error: {
      code: INVALID_PARAMS,
      message: `At most ${max} resources can be subscribed to at once; unsubscribe from one first`,
      data: { uri: echoedUri(uri), reason: "too-many", max },
    },
  };
}
