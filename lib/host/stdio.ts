// The host's byte streams: a bounded line reader and a serialized line
// writer. Knows lines and JSON values, nothing of MCP.

import { IdScanner } from "./line_id.ts";

/** Input lines up to this size are accepted (facade.md, "Bounds"). */
export const LINE_LIMIT = 48 * 1024 * 1024;

/** A complete input line, or the fact that one was too long to accept. */
export type LineEvent =
  | { type: "line"; text: string }
  | { type: "overlong"; bytes: number; id: string | number | null; rawId: string | undefined };

const NEWLINE = 0x0a;

/**
 * Splits a byte stream into lines of at most `limit` bytes. A longer line is
 * not held: once it passes the limit its bytes are only scanned for a
 * top-level `"id"` (so the refusal can name the request) and dropped, and one
 * `overlong` event is produced when it ends. A last line without a newline
 * still counts.
 */
export async function* readLines(
  stream: AsyncIterable<Uint8Array>,
  limit = LINE_LIMIT,
): AsyncGenerator<LineEvent> {
  // The line being read, decoded piece by piece as it arrives: its bytes are not held, and the
  // pieces are joined once into one flat string (JSON.parse would otherwise flatten a rope).
  let texts: string[] = [];
  let decoder = new TextDecoder();
  let size = 0;
  let scanner: IdScanner | undefined;

  const finish = (): LineEvent => {
    let event: LineEvent;
    if (scanner) event = { type: "overlong", bytes: size, id: scanner.id(), rawId: scanner.raw() };
    else {
      texts.push(decoder.decode());
      event = { type: "line", text: texts.length === 1 ? texts[0] : texts.join("") };
    }
    texts = [];
    decoder = new TextDecoder();
    size = 0;
    scanner = undefined;
    return event;
  };

  for await (const chunk of stream) {
    let start = 0;
    while (start <= chunk.length) {
      const newline = chunk.indexOf(NEWLINE, start);
      const end = newline === -1 ? chunk.length : newline;
      const piece = chunk.subarray(start, end);
      if (scanner) scanner.feed(piece);
      else if (size + piece.length > limit) {
        // Over the limit: scan what was held for the request's id, then keep nothing.
        scanner = new IdScanner();
        scanner.feed(new TextEncoder().encode(texts.join("")));
        scanner.feed(piece);
        texts = [];
      } else if (piece.length > 0) {
        texts.push(decoder.decode(piece, { stream: true }));
      }
      size += piece.length;
      if (newline === -1) break;
      yield finish();
      start = newline + 1;
    }
  }
  if (size > 0 || scanner) yield finish();
}

/** Where answer lines go: a WritableStream, or anything that writes bytes whole. */
export type ByteSink = WritableStream<Uint8Array> | { write(bytes: Uint8Array): Promise<void> };

/**
 * The process's stdin and stdout without web streams: Deno loads its streams code on first use
 * (~2 ms), and the handshake does not need it. Each read is a fresh buffer.
 */
export const processStdio = {
  input: {
    async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
      for (;;) {
        const buffer = new Uint8Array(64 * 1024);
        const read = await Deno.stdin.read(buffer);
        if (read === null) return;
        yield buffer.subarray(0, read);
      }
    },
  } as AsyncIterable<Uint8Array>,
  output: {
    async write(bytes: Uint8Array): Promise<void> {
      for (let offset = 0; offset < bytes.length;) offset += await Deno.stdout.write(bytes.subarray(offset));
    },
  },
};

/**
 * Writes one JSON message per line. Writes are queued so lines never
 * interleave; a closed output (the host went away) stops all writing and is
 * reported once.
 */
export class LineWriter {
  #writer: { write(bytes: Uint8Array): Promise<void> };
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #encoder = new TextEncoder();
  /** Bytes written to the queue and not yet taken by the stream. */
  #pending = 0;
  #drainWaiters: { below: number; resolve: () => void }[] = [];

  constructor(stream: ByteSink, private onError: (error: unknown) => void = () => {}) {
    this.#writer = "getWriter" in stream ? stream.getWriter() : stream;
  }

  /** Whether the output has closed: the host can no longer receive anything. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Writes one message, serialized as JSON. */
  write(message: unknown): Promise<void> {
    return this.writeLine(JSON.stringify(message));
  }

  /** Bytes queued and not yet taken by the output: how far behind its reader is. */
  get pending(): number {
    return this.#pending;
  }

  /** Resolves once at most `below` bytes are queued (or the output has closed). */
  drained(below: number): Promise<void> {
    if (this.#pending <= below || this.#closed) return Promise.resolve();
    return new Promise((resolve) => this.#drainWaiters.push({ below, resolve }));
  }

  /** Writes one line already encoded as JSON text. */
  writeLine(text: string): Promise<void> {
    const line = this.#encoder.encode(`${text}\n`);
    this.#pending += line.length;
    this.#queue = this.#queue.then(async () => {
      try {
        if (!this.#closed) await this.#writer.write(line);
      } catch (error) {
        this.#closed = true;
        this.onError(error);
      } finally {
        this.#pending -= line.length;
        if (this.#drainWaiters.length > 0) this.#wake();
      }
    });
    return this.#queue;
  }

  #wake(): void {
    this.#drainWaiters = this.#drainWaiters.filter((waiter) => {
      const done = this.#pending <= waiter.below || this.#closed;
      if (done) waiter.resolve();
      return !done;
    });
  }

  /** Resolves once everything written so far has reached the stream. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
