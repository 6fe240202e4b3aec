// What the listener and the approvals drop, counted by reason and said on
// stderr at most once a period, then once more when they close: a flood of
// events the model never sees costs one line, not one each.

/** Counts by reason; `say` gets the total and "<n> <reason>, …" once a period, and at `close`. */
export class Tally<Reason extends string> {
  #counts = new Map<Reason, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly say: (total: number, parts: string) => void,
    private readonly everyMs: number,
  ) {}

  count(reason: Reason): void {
    this.#counts.set(reason, (this.#counts.get(reason) ?? 0) + 1);
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined;
      this.#flush();
    }, this.everyMs);
  }

  /** Says what is counted and not yet said; no timer is left running. */
  close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flush();
  }

  #flush(): void {
    if (this.#counts.size === 0) return;
    const total = [...this.#counts.values()].reduce((sum, n) => sum + n, 0);
    this.say(total, [...this.#counts].map(([reason, n]) => `${n} ${reason}`).join(", "));
    this.#counts.clear();
  }
}
