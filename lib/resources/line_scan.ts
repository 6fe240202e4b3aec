// A file read through once, a chunk at a time: its SHA-256, whether it is text (valid UTF-8 with no
// NUL byte), how many lines it has, and the bytes of the lines asked for, kept up to a bound; no
// other byte is held past the chunk it came in. Pure (the hash is given).

import type { Span } from "./query.ts";

/** The text of one lines piece is at most this many bytes. */
export const MAX_LINES_BYTES = 256 * 1024;

/** The incremental SHA-256 the scan feeds (noble's, from the signing stack). */
export interface Hasher {
  update(bytes: Uint8Array): unknown;
  digest(): Uint8Array;
}

export interface ScanEnd {
  digest: Uint8Array;
  size: number;
  lines: number;
  text: boolean;
  kept: Uint8Array;
  /** When the lines asked were over the bound: the last line that fit (or first - 1). */
  over?: number;
}

/** A file read through once: its hash, whether it is text, its lines, and the lines asked for. */
export class LineScan {
  #span: Span;
  #hash: Hasher;
  #utf8 = new TextDecoder("utf-8", { fatal: true });
  #text = true;
  #size = 0;
  /** The line the next byte belongs to, and whether the file ended on a line break. */
  #line = 1;
  #lastByte = 0x0a;
  #kept: Uint8Array[] = [];
  #keptBytes = 0;
  /** How many kept bytes came before the current line: what is kept when a line does not fit. */
  #lineStart = 0;
  #over?: number;

  constructor(span: Span, hash: Hasher) {
    this.#span = span;
    this.#hash = hash;
  }

  feed(bytes: Uint8Array): void {
    this.#hash.update(bytes);
    this.#size += bytes.length;
    if (bytes.length === 0) return;
    this.#lastByte = bytes[bytes.length - 1];
    if (this.#text) {
      try {
        this.#utf8.decode(bytes, { stream: true });
        if (bytes.includes(0)) this.#text = false;
      } catch {
        this.#text = false;
      }
    }
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(0x0a, start);
      const end = newline === -1 ? bytes.length : newline + 1;
      this.#keep(bytes.subarray(start, end));
      if (newline === -1) break;
      this.#line++;
      this.#lineStart = this.#keptBytes;
      start = end;
    }
  }

  /** Keeps a part of the current line when it is in the span and within the bound. */
  #keep(part: Uint8Array): void {
    const { first, last } = this.#span;
    if (this.#line < first || this.#line > last || this.#over !== undefined) return;
    if (this.#keptBytes + part.length > MAX_LINES_BYTES) {
      // Whole lines only: what was kept of this one goes.
      this.#over = this.#line - 1;
      this.#kept = [this.#joined().subarray(0, this.#lineStart)];
      this.#keptBytes = this.#lineStart;
      return;
    }
    this.#kept.push(part.slice());
    this.#keptBytes += part.length;
  }

  #joined(): Uint8Array {
    const joined = new Uint8Array(this.#keptBytes);
    let at = 0;
    for (const part of this.#kept) {
      joined.set(part, at);
      at += part.length;
    }
    return joined;
  }

  end(): ScanEnd {
    try {
      this.#utf8.decode();
    } catch {
      this.#text = false;
    }
    const lines = this.#size === 0 ? 0 : this.#lastByte === 0x0a ? this.#line - 1 : this.#line;
    const kept = this.#joined();
    return {
      digest: this.#hash.digest(),
      size: this.#size,
      lines,
      text: this.#text,
      kept,
      ...(this.#over === undefined ? {} : { over: this.#over }),
    };
  }
}
