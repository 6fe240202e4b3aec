// A live subscription over the relay's websocket (rpc-facts.md 3.4): its
// events, matched client-side and passed on once each however often the relay
// sends them again, with `connected` once per connection (after AUTH when the
// relay asks for it). A relay that closes it saying "subscribe again" gets
// its REQ again at once; any other closing, after a wait. A reader that cannot
// keep up pauses it: what was held back is fetched again when it resumes.

import type { SignedEvent } from "../key/signer.ts";
import { Backoff } from "./backoff.ts";
import { matchesFilter } from "./filter.ts";
import type { RelayConnection, Req } from "./relay_connection.ts";
import { SeenIds } from "./seen_ids.ts";

/** Where a subscription's stream goes (the rpc helper's stdout, the mcp listener's gate). */
export interface SubscriptionSink {
  /** Live on a new connection: its history follows, or has come. */
  connected(): void;
  /**
   * One event; false when it cannot be taken now: the subscription pauses until resumed. `stored`:
   * it is part of the history the relay sends before its EOSE (newest first), not a live one.
   */
  event(event: SignedEvent, stored?: boolean): boolean;
  /** The relay has sent the history of a REQ (its EOSE): what follows is live. */
  caughtUp?(): void;
  /** Something the reader should know: the connection ended, the relay closed it, AUTH was refused. */
  trouble(message: string): void;
}

/** What a subscription asks of the client it runs on. */
export interface SubscriptionControl {
  /** Sends the REQ again, now, on the current connection (or on the next one). */
  resend(req: SubscriptionReq): void;
  /** Ends the REQ at the relay. */
  cancel(id: string): void;
  /** Runs `task` after `ms`, unless the subscription is stopped first. */
  later(task: () => void, ms: number): void;
}

/** "subscribe again" closings answered at once at most this often; past it, the waits apply. */
const QUICK_RESENDS = 5;
const QUICK_WINDOW_MS = 10_000;

export class SubscriptionReq implements Req {
  readonly filters: readonly unknown[];
  #sink: SubscriptionSink;
  #control: SubscriptionControl;
  #seen = new SeenIds();
  #connection: RelayConnection | undefined;
  #connectedOn: RelayConnection | undefined;
  #paused = false;
  #held = 0;
  #closings = new Backoff();
  #quick: number[] = [];
  #stopped = false;
  /** A REQ is to go again after a wait: the relay's further closings change nothing till then. */
  #waiting = false;
  /** Between a REQ and its EOSE: the relay's history, not live events. */
  #replaying = true;

  constructor(
    readonly id: string,
    readonly filter: unknown,
    sink: SubscriptionSink,
    control: SubscriptionControl,
  ) {
    this.filters = [filter];
    this.#sink = sink;
    this.#control = control;
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Paused: its REQ goes again when it resumes, not on a new connection before that. */
  get paused(): boolean {
    return this.#paused;
  }

  sent(connection: RelayConnection): void {
    this.#connection = connection;
    this.#replaying = true;
  }

  event(event: SignedEvent): void {
    if (this.#stopped) return;
    if (this.#paused) {
      this.#held++;
      return;
    }
    if (this.#seen.has(event.id) || !matchesFilter(event, this.filter)) return;
    this.#markConnected();
    if (!this.#sink.event(event, this.#replaying)) {
      // Not taken: not marked as passed on, so the REQ sent on resuming brings it back.
      this.#paused = true;
      this.#held++;
      this.#control.cancel(this.id);
      return;
    }
    this.#seen.add(event.id);
  }

  eose(): void {
    if (this.#stopped) return;
    this.#markConnected();
    this.#replaying = false;
    this.#sink.caughtUp?.();
  }

  closed(reason: string): void {
    // Paused, it asks again when it resumes; waiting, it asks again when the wait ends: a relay that
    // floods CLOSED costs one wait, not a timer and a line each.
    if (this.#stopped || this.#paused || this.#waiting) return;
    const now = Date.now();
    this.#quick = this.#quick.filter((at) => now - at < QUICK_WINDOW_MS);
    if (/subscribe again/i.test(reason) && this.#quick.length < QUICK_RESENDS) {
      this.#quick.push(now);
      this.#control.resend(this);
      return;
    }
    const wait = this.#closings.next();
    this.#sink.trouble(`the relay closed the subscription: ${reason}; subscribing again in ${wait / 1000} s`);
    this.#waiting = true;
    this.#control.later(() => {
      this.#waiting = false;
      if (!this.#paused) this.#control.resend(this);
    }, wait);
  }

  refused(reason: string): void {
    if (!this.#stopped) {
      this.#sink.trouble(reason === "" ? "relay rejected AUTH" : `relay rejected AUTH: ${reason}`);
    }
  }

  lost(why: string): void {
    if (this.#stopped) return;
    this.#connection = undefined;
    this.#sink.trouble(why);
  }

  /** Takes events again after a pause: says how many were held back, and sends the REQ again to fetch them. */
  resume(): number {
    if (!this.#paused || this.#stopped) return 0;
    const held = this.#held;
    this.#paused = false;
    this.#held = 0;
    this.#control.resend(this);
    return held;
  }

  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#control.cancel(this.id);
  }

  /** `connected` once per connection, before its first event or at its end of history. */
  #markConnected(): void {
    if (this.#connection === undefined || this.#connectedOn === this.#connection) return;
    this.#connectedOn = this.#connection;
    this.#closings = new Backoff();
    this.#sink.connected();
  }
}
