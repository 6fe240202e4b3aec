// Buffered reading of one relay connection, for the HTTP/1.1 framing and
// the proxy's CONNECT answer. At most one read is outstanding at a time, and it can be
// left running while the connection is idle: that is how a close by the relay
// is seen before the next request is written, not after.

/** The part of a connection the reader needs. */
export interface Readable {
  read(buffer: Uint8Array): Promise<number | null>;
}

const CHUNK = 64 * 1024;

export class ConnReader {
  #conn: Readable;
  #buffer = new Uint8Array(CHUNK);
  #start = 0;
  #end = 0;
  #pending: Promise<void> | undefined;
  #closed = false;
  #error: Error | undefined;

  constructor(conn: Readable) {
    this.#conn = conn;
  }

  /** Bytes read and not yet consumed. */
  get available(): number {
    return this.#end - this.#start;
  }

  /** The peer closed the connection (or reading failed): no more bytes will come. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Why reading stopped, when it stopped on an error rather than a clean end. */
  get error(): Error | undefined {
    return this.#error;
  }

  /**
   * Starts one read unless one is running, and resolves when it settles. Call it
   * without awaiting to watch an idle connection.
   */
  fill(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    return this.#pending ??= this.#readOnce().finally(() => this.#pending = undefined);
  }

  async #readOnce(): Promise<void> {
    if (this.#end === this.#buffer.length) this.#makeRoom();
    try {
      const read = await this.#conn.read(this.#buffer.subarray(this.#end));
      if (read === null) this.#closed = true;
      else this.#end += read;
    } catch (error) {
      this.#closed = true;
      this.#error = error instanceof Error ? error : new Error(String(error));
    }
  }

  /** Moves what is unread to the front, growing the buffer when it is more than half full. */
  #makeRoom(): void {
    const unread = this.#end - this.#start;
    if (unread * 2 > this.#buffer.length) {
      const next = new Uint8Array(this.#buffer.length * 2);
      next.set(this.#buffer.subarray(this.#start, this.#end));
      this.#buffer = next;
    } else this.#buffer.copyWithin(0, this.#start, this.#end);
    this.#start = 0;
    this.#end = unread;
  }

  /** Waits until at least `count` bytes are buffered; false when the connection ends first. */
  async want(count: number): Promise<boolean> {
    while (this.available < count) {
      if (this.#closed) return false;
      await this.fill();
    }
    return true;
  }

  /** Consumes exactly `count` buffered bytes (a copy); call after `want(count)`. */
  take(count: number): Uint8Array {
    const bytes = this.#buffer.slice(this.#start, this.#start + count);
    this.#start += count;
    if (this.#start === this.#end) this.#start = this.#end = 0;
    return bytes;
  }

  /** Consumes what is buffered, at most `max` bytes (a copy); call after `want(1)`. */
  takeSome(max: number): Uint8Array {
    return this.take(Math.min(max, this.available));
  }

  /**
   * Consumes up to and including the first `delimiter` found within `limit`
   * bytes, returning what came before it; undefined when the connection ends
   * first, "too long" when no delimiter comes within the limit.
   */
  async takeUntil(delimiter: Uint8Array, limit: number): Promise<Uint8Array | undefined | "too long"> {
    let searched = 0;
    for (;;) {
      const at = indexOf(this.#buffer.subarray(this.#start, this.#end), delimiter, searched);
      if (at > limit) return "too long"; // found, but past the bound: the bound holds however bytes arrive
      if (at !== -1) {
        const before = this.take(at);
        this.take(delimiter.length);
        return before;
      }
      searched = Math.max(0, this.available - delimiter.length + 1);
      if (this.available > limit) return "too long";
      if (this.#closed) return undefined;
      await this.fill();
    }
  }
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0];
  for (let i = haystack.indexOf(first, from); i !== -1; i = haystack.indexOf(first, i + 1)) {
    if (i + needle.length > haystack.length) return -1;
    let match = true;
    for (let j = 1; j < needle.length && match; j++) match = haystack[i + j] === needle[j];
    if (match) return i;
  }
  return -1;
}
