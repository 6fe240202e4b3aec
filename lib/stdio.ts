// The host's byte streams: a bounded line reader and a serialized line
// writer. Knows lines and JSON values, nothing of MCP.

import { LINE_LIMIT } from "./bounds.ts";

/** A complete input line, or the fact that one was too long to accept. */
export type LineEvent =
  | { type: "line"; text: string }
  | { type: "overlong"; bytes: number; id: string | number | null };

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
    if (scanner) event = { type: "overlong", bytes: size, id: scanner.id() };
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

/**
 * Finds the value of a top-level `"id"` member in a stream of JSON bytes
 * without holding them: tracks nesting and strings, and captures only the
 * key at depth 1 and the id's own bytes.
 */
class IdScanner {
  #depth = 0;
  #inString = false;
  #escaped = false;
  #started = false;
  #invalid = false;
  /** Bytes of the current depth-1 key, while reading it (only short keys matter). */
  #key: number[] | undefined;
  #lastKey = "";
  #expectKey = false;
  /** Bytes of the id value, while capturing it. */
  #value: number[] | undefined;
  #found: string | number | null = null;
  #done = false;

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.#done && !this.#invalid; i++) this.#step(bytes[i]);
  }

  id(): string | number | null {
    return this.#found;
  }

  #step(byte: number): void {
    if (!this.#started) {
      if (byte === 0x20 || byte === 0x09 || byte === 0x0d) return;
      if (byte !== 0x7b) { // '{'
        this.#invalid = true;
        return;
      }
      this.#started = true;
      this.#depth = 1;
      this.#expectKey = true;
      return;
    }
    if (this.#value) {
      this.#captureValue(byte);
      return;
    }
    if (this.#inString) {
      const closing = byte === 0x22 && !this.#escaped;
      // Raw bytes, escapes included: JSON.parse reads "i\u0064" as "id" too, so the key is
      // compared once unescaped. No spelling of "id" is longer than 12 bytes.
      if (this.#key && !closing && this.#key.length <= 12) this.#key.push(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === 0x5c) this.#escaped = true;
      else if (closing) {
        this.#inString = false;
        if (this.#key) {
          this.#lastKey = unescapeKey(this.#key);
          this.#key = undefined;
        }
      }
      return;
    }
    switch (byte) {
      case 0x22: // '"'
        this.#inString = true;
        if (this.#depth === 1 && this.#expectKey) {
          this.#key = [];
          this.#expectKey = false;
        }
        return;
      case 0x7b: // '{'
      case 0x5b: // '['
        this.#depth++;
        return;
      case 0x7d: // '}'
      case 0x5d: // ']'
        this.#depth--;
        if (this.#depth === 0) this.#done = true;
        return;
      case 0x2c: // ','
        if (this.#depth === 1) this.#expectKey = true;
        return;
      case 0x3a: // ':'
        if (this.#depth === 1 && this.#lastKey === "id") this.#value = [];
        this.#lastKey = "";
        return;
    }
  }

  /** Collects the id's bytes until the value ends, then parses them as JSON. */
  #captureValue(byte: number): void {
    const value = this.#value!;
    const isString = value.length > 0 && value[0] === 0x22;
    if (value.length === 0 && (byte === 0x20 || byte === 0x09 || byte === 0x0d)) return;
    let ended = false;
    if (isString) {
      value.push(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === 0x5c) this.#escaped = true;
      else if (byte === 0x22 && value.length > 1) ended = true;
    } else if (byte === 0x2c || byte === 0x7d || byte === 0x20 || byte === 0x09 || byte === 0x0d) {
      ended = true;
    } else value.push(byte);
    if (value.length > 1024) {
      this.#done = true; // An id this long is not worth naming.
      return;
    }
    if (!ended) return;
    this.#done = true;
    try {
      const parsed = JSON.parse(new TextDecoder().decode(new Uint8Array(value)));
      if (typeof parsed === "string" || (typeof parsed === "number" && Number.isFinite(parsed))) {
        this.#found = parsed;
      }
    } catch {
      // Not a usable id: the refusal carries id null.
    }
  }
}

/** A captured key's raw bytes as JSON reads them; "" when too long to be "id" or not valid. */
function unescapeKey(raw: number[]): string {
  if (raw.length > 12) return "";
  try {
    return JSON.parse(`"${String.fromCharCode(...raw)}"`);
  } catch {
    return "";
  }
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
 * interleave, and a closed output (the host went away) stops writing quietly.
 */
export class LineWriter {
  #writer: { write(bytes: Uint8Array): Promise<void> };
  #queue: Promise<void> = Promise.resolve();
  #closed = false;
  #encoder = new TextEncoder();

  constructor(stream: ByteSink, private onError: (error: unknown) => void = () => {}) {
    this.#writer = "getWriter" in stream ? stream.getWriter() : stream;
  }

  write(message: unknown): Promise<void> {
    const line = this.#encoder.encode(`${JSON.stringify(message)}\n`);
    this.#queue = this.#queue.then(async () => {
      if (this.#closed) return;
      try {
        await this.#writer.write(line);
      } catch (error) {
        this.#closed = true;
        this.onError(error);
      }
    });
    return this.#queue;
  }

  /** Resolves once everything written so far has reached the stream. */
  flush(): Promise<void> {
    return this.#queue;
  }
}
