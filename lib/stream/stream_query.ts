// A query over the relay's websocket (rpc-facts.md 3.3): its REQ's events,
// matched client-side, each once, until the relay's EOSE; bounded in count
// (the Go peer's 10,000) and in size (an answer line the plugin can read).
// Reads are safe to repeat: a query whose connection drops before EOSE is
// sent again on the next one, once. Its events' signatures are checked all at
// once when the history has come (on two threads for a large answer): the
// answer holds only those that hold.

import type { SignedEvent } from "../key/signer.ts";
import { matchesAny } from "./filter.ts";
import type { RelayConnection, Req } from "./relay_connection.ts";

export const MAX_QUERY_EVENTS = 10_000;
/** The plugin reads lines of up to 64 MiB: an answer stays well under. */
export const MAX_QUERY_BYTES = 48 * 1024 * 1024;
/** Connections a query may be sent on: the first, and one more if that one drops. */
const MAX_CONNECTIONS = 2;

/** Checks events' signatures, in order (key/verify_batch.ts); rejects only when the checks cannot load. */
export type BatchCheck = (events: readonly SignedEvent[]) => Promise<boolean[]>;

export class QueryReq implements Req {
  readonly checksAtEnd = true;
  readonly done: Promise<SignedEvent[]>;
  #resolve!: (events: SignedEvent[]) => void;
  #reject!: (error: Error) => void;
  #events: SignedEvent[] = [];
  #seen = new Set<string>();
  #bytes = 0;
  #connection: RelayConnection | undefined;
  #connections = 0;
  #settled = false;

  constructor(
    readonly id: string,
    readonly filters: readonly unknown[],
    private readonly check: BatchCheck,
    /** Told how many events failed their check, when any did. */
    private readonly dropped: (count: number) => void = () => {},
  ) {
    this.done = new Promise((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
  }

  /** Whether it has its answer (or its error). */
  get settled(): boolean {
    return this.#settled;
  }

  /** Whether it may be sent on one more connection after losing this one. */
  get retries(): boolean {
    return this.#connections < MAX_CONNECTIONS;
  }

  sent(connection: RelayConnection): void {
    if (connection === this.#connection) return;
    this.#connection = connection;
    this.#connections++;
  }

  event(event: SignedEvent, size: number): void {
    if (this.#settled || this.#seen.has(event.id) || !matchesAny(event, this.filters)) return;
    this.#seen.add(event.id);
    this.#events.push(event);
    this.#bytes += size;
    if (this.#events.length > MAX_QUERY_EVENTS) this.fail(`query exceeds ${MAX_QUERY_EVENTS} events`);
    else if (this.#bytes > MAX_QUERY_BYTES) {
      this.fail(
        `query exceeds ${MAX_QUERY_BYTES / (1024 * 1024)} MiB of events: narrow the filter (limit, since)`,
      );
    }
  }

  /** The history is whole: nothing more counts; the answer is the events whose signatures hold. */
  eose(): void {
    if (this.#settled) return;
    this.#settled = true;
    const events = this.#events;
    this.check(events).then((ok) => {
      const held = events.filter((_, i) => ok[i]);
      if (held.length < events.length) this.dropped(events.length - held.length);
      this.#resolve(held);
    }, (error) => this.#reject(error instanceof Error ? error : new Error(String(error))));
  }

  closed(reason: string): void {
    this.fail(`query closed by the relay: ${reason}`);
  }

  refused(reason: string): void {
    this.fail(reason === "" ? "relay rejected AUTH" : `relay rejected AUTH: ${reason}`);
  }

  lost(why: string): void {
    if (!this.retries) this.fail(why);
  }

  fail(message: string): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#reject(new Error(message));
  }
}
