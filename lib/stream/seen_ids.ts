// The event ids a subscription has passed on, so an event the relay sends
// again (its history replayed after a reconnect, a REQ sent again after AUTH)
// is passed on once. Bounded: past the limit the oldest ids are forgotten,
// and the count of what was forgotten is kept. Pure state.

/** Enough for hours of a busy room's replayed history; about 10 MiB at most. */
export const SEEN_LIMIT = 50_000;

export class SeenIds {
  #ids = new Set<string>();
  #forgotten = 0;

  constructor(readonly limit = SEEN_LIMIT) {}

  /** Whether `id` was passed on (and not forgotten since). */
  has(id: string): boolean {
    return this.#ids.has(id);
  }

  /** Remembers `id` as passed on, forgetting the oldest past the limit. */
  add(id: string): void {
    if (this.#ids.has(id)) return;
    this.#ids.add(id);
    if (this.#ids.size > this.limit) {
      // A Set iterates in insertion order: its first id is the oldest.
      this.#ids.delete(this.#ids.values().next().value!);
      this.#forgotten++;
    }
  }

  /** How many ids were forgotten to stay within the limit. */
  get forgotten(): number {
    return this.#forgotten;
  }
}
