// A program's wall clock: it runs from the program's start, stops while a person is asked (the bridge's
// pause(), which may overlap), and starts again when the last pause ends. Time the guest spends running
// while the clock is stopped still counts, so a pause never buys a program unbounded computation.

/** The program's clock; `now` is injectable for tests. */
export class ProgramClock {
  #used = 0;
  #since: number;
  #pauses = 0;
  #listeners = new Set<() => void>();

  constructor(readonly limitMs: number, private readonly now: () => number = () => performance.now()) {
    this.#since = now();
  }

  /** Whether the clock is stopped (a pause is held). */
  get paused(): boolean {
    return this.#pauses > 0;
  }

  /** Time counted so far, ms. */
  used(): number {
    return this.#used + (this.paused ? 0 : this.now() - this.#since);
  }

  /** Time left before the deadline, ms (0 once past it). */
  remaining(): number {
    return Math.max(0, this.limitMs - this.used());
  }

  expired(): boolean {
    return this.remaining() <= 0;
  }

  /** Stops the clock until the returned function is called (once; later calls do nothing). */
  pause(): () => void {
    if (this.#pauses++ === 0) this.#used += this.now() - this.#since;
    this.#changed();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      if (--this.#pauses === 0) this.#since = this.now();
      this.#changed();
    };
  }

  /** Counts `ms` of guest running time spent while the clock was stopped. */
  charge(ms: number): void {
    if (this.paused) this.#used += ms;
  }

  /** Calls `listener` whenever the clock stops or starts; returns what removes it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}
