// A few values kept by their key, the least recently used going first: a host reads the same resource
// again and again (on each @-mention, each time an editor shows it), and parsing its URI or rendering an
// unchanged answer again gives what it gave before; the list calls' cache (call_cache.ts) keeps its
// answers here too, with their age.

export class Memo<V> {
  #kept = new Map<string, V>();

  constructor(readonly size: number) {}

  /** The value kept for `key`, now the most recently used; undefined when none is. */
  get(key: string): V | undefined {
    const value = this.#kept.get(key);
    if (value === undefined) return undefined;
    this.#kept.delete(key);
    this.#kept.set(key, value);
    return value;
  }

  /** Forgets what is kept for `key`. */
  delete(key: string): void {
    this.#kept.delete(key);
  }

  /** Keeps `value` for `key`; past `size`, the least recently used goes. */
  set(key: string, value: V): V {
    this.#kept.delete(key);
    this.#kept.set(key, value);
    for (const oldest of this.#kept.keys()) {
      if (this.#kept.size <= this.size) break;
      this.#kept.delete(oldest);
    }
    return value;
  }
}
