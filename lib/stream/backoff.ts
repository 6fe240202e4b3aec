// How long a subscription waits before its connection is opened again
// (rpc-facts.md 3.4, 8.2): 1 s, doubling to 30 s; unlike the Go peer, back
// to 1 s after a connection that stayed healthy, so a relay that restarts
// once a day is not waited on for 30 s ever after. Pure state.

export const FIRST_WAIT_MS = 1_000;
export const LONGEST_WAIT_MS = 30_000;
/** A connection up this long (authenticated when asked) was healthy: the next wait starts again at 1 s. */
export const HEALTHY_MS = 30_000;

export class Backoff {
  #next = FIRST_WAIT_MS;

  /** The wait before the next attempt; each call doubles the one after, up to the longest. */
  next(): number {
    const wait = this.#next;
    this.#next = Math.min(this.#next * 2, LONGEST_WAIT_MS);
    return wait;
  }

  /** A connection that lived `upMs` ended: a healthy one resets the waits. */
  ended(upMs: number): void {
    if (upMs >= HEALTHY_MS) this.#next = FIRST_WAIT_MS;
  }
}
