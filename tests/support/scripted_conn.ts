// A connection whose peer is a script: reads hand out the chunks given (or pushed later) one at a
// time, then end or stall until closed; a read can be made to fail; writes are recorded. What the
// transport's unit tests put where a Deno.Conn would be.

/** Every char code as one byte, so a script can hold any byte. */
export function latin1Bytes(text: string): Uint8Array {
  return Uint8Array.from(text, (char) => char.charCodeAt(0));
}

type Step = Uint8Array | { error: unknown };

export class ScriptedConn {
  readonly written: Uint8Array[] = [];
  closed = false;
  /** How many reads were started. */
  reads = 0;
  #steps: Step[];
  #end: "eof" | "stall";
  #wake: (() => void) | undefined;

  /** `end`: what follows the last chunk, the end of the stream or a peer that says nothing more. */
  constructor(chunks: (string | Uint8Array)[], end: "eof" | "stall" = "eof") {
    this.#steps = chunks.map((chunk) => typeof chunk === "string" ? latin1Bytes(chunk) : chunk);
    this.#end = end;
  }

  /** More bytes from the peer, handed to the read waiting for them if one is. */
  push(chunk: string | Uint8Array): void {
    this.#steps.push(typeof chunk === "string" ? latin1Bytes(chunk) : chunk);
    this.#wake?.();
  }

  /** The next read (or the one waiting) fails with `error`. */
  fail(error: unknown): void {
    this.#steps.push({ error });
    this.#wake?.();
  }

  /** The peer ends the stream: the read waiting, and every later one, get null. */
  end(): void {
    this.#end = "eof";
    this.#wake?.();
  }

  async read(buffer: Uint8Array): Promise<number | null> {
    this.reads++;
    for (;;) {
      const next = this.#steps.shift();
      if (next && "error" in next) throw next.error;
      if (next) {
        const n = Math.min(next.length, buffer.length);
        buffer.set(next.subarray(0, n));
        if (n < next.length) this.#steps.unshift(next.subarray(n));
        return n;
      }
      if (this.#end === "eof" || this.closed) return null;
      await new Promise<void>((resolve) => this.#wake = resolve); // a stalled peer: nothing until told
      this.#wake = undefined;
    }
  }

  write(bytes: Uint8Array): Promise<number> {
    if (this.closed) return Promise.reject(new Deno.errors.BadResource("closed"));
    this.written.push(bytes.slice());
    return Promise.resolve(bytes.length);
  }

  close(): void {
    this.closed = true;
    this.#wake?.();
  }
}
