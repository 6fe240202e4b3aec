// A query over the relay's websocket (rpc-facts.md 3.3): its REQ's events,
// matched client-side, each once, until the relay's EOSE; bounded in count
// (the Go peer's 10,000 events whose signatures hold: a relay's garbage never
// ends a query early) and in size (an answer line the plugin can read; every
// event kept counts, bad ones too, so a flood of them ends in a clear error).
// Reads are safe to repeat: a query whose connection drops before EOSE is
// sent again on the next one, once. Its events' signatures are checked in
// batches: when more than the count bound are waiting, and the rest once the
// history has come (on two threads for a large batch); the answer holds only
// those that hold, in the order they came.

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
  /** Checked, and holding, in the order they came. */
  #held: SignedEvent[] = [];
  /** Kept, not yet checked. */
  #waiting: SignedEvent[] = [];
  #checking = false;
  #bad = 0;
  #seen = new Set<string>();
  #bytes = 0;
  #connection: RelayConnection | undefined;
  #connections = 0;
  /** EOSE came, or it failed: it takes nothing more. */
  #settled = false;
  #eose = false;
  /** Answered or failed. */
  #ended = false;

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

  /** Whether it takes nothing more from the relay: its history came (its checks may still run), or it failed. */
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
    this.#waiting.push(event);
    this.#bytes += size;
    if (this.#bytes > MAX_QUERY_BYTES) {
      const bad = this.#bad === 0 ? "" : ` (${this.#bad} of them failed their signature check)`;
      this.fail(
        `query exceeds ${
          MAX_QUERY_BYTES / (1024 * 1024)
        } MiB of events${bad}: narrow the filter (limit, since)`,
      );
    } else if (this.#held.length + this.#waiting.length > MAX_QUERY_EVENTS) this.#checkWaiting();
  }

  /** The history is whole: nothing more counts; the answer is the events whose signatures hold. */
  eose(): void {
    if (this.#settled) return;
    this.#settled = this.#eose = true;
    this.#checkWaiting();
  }

  /**
   * Checks the events waiting, one batch at a time: past the count bound with those that hold, the query
   * fails; once EOSE has come and none wait, it is answered.
   */
  #checkWaiting(): void {
    if (this.#checking || this.#ended) return;
    const batch = this.#waiting;
    this.#waiting = [];
    this.#checking = true;
    this.check(batch).then((ok) => {
      this.#checking = false;
      const held = batch.filter((_, i) => ok[i]);
      this.#bad += batch.length - held.length;
      this.#held.push(...held);
      if (this.#held.length > MAX_QUERY_EVENTS) {
        return this.fail(`query exceeds ${MAX_QUERY_EVENTS} events`, true);
      }
      if (
        this.#waiting.length > 0 &&
        (this.#eose || this.#held.length + this.#waiting.length > MAX_QUERY_EVENTS)
      ) {
        return this.#checkWaiting();
      }
      if (this.#eose && !this.#ended) {
        this.#ended = true;
        if (this.#bad > 0) this.dropped(this.#bad);
        this.#resolve(this.#held);
      }
    }, (error) => this.fail(error instanceof Error ? error.message : String(error), true));
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

  /** Ends it with `message`: before EOSE, or (`checks`) from its checks, which may end after. */
  fail(message: string, checks = false): void {
    if (this.#ended || (this.#settled && !checks)) return;
    this.#settled = this.#ended = true;
    this.#waiting = [];
    this.#reject(new Error(message));
  }
}
