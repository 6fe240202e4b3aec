// The person's write budget (`--max-writes N`): at most N events signed in
// this process, an upload counting as one. A write holds a place from the
// moment it is cleared to go ahead (before the person is asked, so an
// approval is never refused afterwards for want of budget) until it is
// signed, which spends it, or held back, which gives it back. Pure state.

export interface Reservation {
  /** The event was signed (or the upload forwarded): the place is spent. */
  spend(): void;
  /** Nothing was signed: the place is free again. */
  release(): void;
}

export class WriteBudget {
  #spent = 0;
  #held = 0;

  /** `limit`: the most writes this process may make; undefined for no budget. */
  constructor(readonly limit?: number) {}

  /** Writes signed (or uploads forwarded) so far. */
  get spent(): number {
    return this.#spent;
  }

  /** A place for one more write, or the refusal text when the budget is spent. */
  reserve(): Reservation | { refused: string } {
    if (this.limit !== undefined && this.#spent + this.#held >= this.limit) {
      return { refused: this.#refusal() };
    }
    this.#held++;
    let settled = false;
    const settle = (spend: boolean) => {
      if (settled) return;
      settled = true;
      this.#held--;
      if (spend) this.#spent++;
    };
    return { spend: () => settle(true), release: () => settle(false) };
  }

  /** Whether a write would be refused now: checked before the relay is contacted. */
  refusal(): string | undefined {
    return this.limit !== undefined && this.#spent + this.#held >= this.limit ? this.#refusal() : undefined;
  }

  #refusal(): string {
    const waiting = this.#held > 0 ? ` and ${this.#held} more waiting to be signed` : "";
    return `permission: write budget spent: ${this.#spent} event${
      this.#spent === 1 ? "" : "s"
    } signed by this ` +
      `session${waiting} (--max-writes ${this.limit}); nothing was signed`;
  }
}
