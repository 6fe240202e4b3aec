// The admitted events not yet taken (the listen issue, point 3): oldest first
// (by when they were made), bounded; past the bound the oldest go, and the next taker is told how many.
// A taker may wait, bounded, for one to come. State only: no I/O.

import type { ListenedEvent } from "./channel_message.ts";

/** Enough for a long absence from a busy room; the rest is the relay's to keep. */
export const INBOX_LIMIT = 1000;

export class Inbox {
  #events: ListenedEvent[] = [];
  #dropped = 0;
  #waiters = new Set<() => void>();

  constructor(readonly limit = INBOX_LIMIT) {}

  get size(): number {
    return this.#events.length;
  }

  /** Keeps the events in the order they were made: a relay replays its history newest first. */
  push(event: ListenedEvent): void {
    const at = Number(event.meta.created_at);
    let index = this.#events.length;
    while (index > 0 && Number(this.#events[index - 1].meta.created_at) > at) index--;
    this.#events.splice(index, 0, event);
    if (this.#events.length > this.limit) {
      this.#events.shift();
      this.#dropped++;
    }
    for (const wake of this.#waiters) wake();
  }

  /** Up to `max` events, oldest first, and how many were dropped since the last take. */
  take(max: number): { events: ListenedEvent[]; dropped: number } {
    const events = this.#events.splice(0, max);
    const dropped = this.#dropped;
    this.#dropped = 0;
    return { events, dropped };
  }

  /** Resolves once an event is waiting, after `ms` at the latest, or when `signal` aborts. */
  waitForOne(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#events.length > 0 || ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.#waiters.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /** Wakes every waiter (the session ends). */
  close(): void {
    for (const wake of [...this.#waiters]) wake();
  }
}
