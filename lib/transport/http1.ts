// HTTP/1.1 on one kept connection to the relay: one exchange at a time, the
// answer read whole and strictly (http1_head.ts: Content-Length, chunked, or
// to the close), every part of it bounded, and a read left pending while idle
// so a close by the relay is seen before the next request is written.

import { concat, writeAll } from "./bytes.ts";
import { ConnReader } from "./buffered_reader.ts";
import type { Duplex } from "./dial.ts";
import {
  chunkSize,
  contentLength,
  fieldValue,
  FramingError,
  type Head,
  isChunked,
  latin1,
  parseFields,
  parseHead,
} from "./http1_grammar.ts";
import {
  type Attempt,
  type HttpAnswer,
  type HttpRequest,
  type RelayConnection,
  tooLarge,
} from "./exchange.ts";

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");
const HEAD_END = encoder.encode("\r\n\r\n");
/** A head, and a trailer section, are at most this long. */
export const MAX_HEAD_BYTES = 64 * 1024;
/** Interim (1xx) answers before the final one; Go's client allows 5. */
export const MAX_INTERIM_ANSWERS = 8;
/** A chunk-size line with its extensions. */
const MAX_CHUNK_LINE_BYTES = 4096;
/** Bodies up to this size go out in the same write as the head: one segment, one TLS record. */
const ONE_WRITE_BYTES = 256 * 1024;
const BODY_CHUNK = 64 * 1024;

export interface Http1Options {
  /** The Host header: host, and the port when it is not the scheme's default. */
  authority: string;
  /** Through an HTTP proxy (plain-http relay): the request line carries the absolute URL. */
  absoluteOrigin?: string;
}

type Failure = Extract<Attempt, { ok: false }>;

export class Http1Connection implements RelayConnection {
  #conn: Duplex;
  #reader: ConnReader;
  #options: Http1Options;
  #reusable = true;
  #busy = false;
  #idleSince = Date.now();

  constructor(conn: Duplex, options: Http1Options) {
    this.#conn = conn;
    this.#reader = new ConnReader(conn);
    this.#options = options;
    void this.#reader.fill(); // watch the idle connection from the start
  }

  /** Free, still open, and nothing unexpected arrived while idle. */
  get usable(): boolean {
    return this.#reusable && !this.#busy && !this.#reader.closed && this.#reader.available === 0;
  }

  get idleSince(): number {
    return this.#idleSince;
  }

  close(): void {
    this.#reusable = false;
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }

  /**
   * One request and its answer. A connection whose exchange did not end with
   * a whole, well-framed answer (aborted, cut, malformed, too large) is closed
   * and never used again.
   */
  async exchange(request: HttpRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt> {
    if (!this.usable) return { ok: false, unsent: true, detail: "the connection was closed" };
    this.#busy = true;
    const onAbort = () => this.close();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (!await this.#write(request)) {
        this.close();
        return { ok: false, unsent: true, detail: "the connection closed while the request was written" };
      }
      const answer = await this.#readAnswer(maxAnswerBytes, request);
      if (!("status" in answer)) {
        this.close();
        return answer;
      }
      this.#idleSince = Date.now();
      if (this.#reusable) void this.#reader.fill();
      else this.close();
      return { ok: true, answer };
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#busy = false;
    }
  }

  /** Writes the request; false when the connection failed before it was all written. */
  async #write(request: HttpRequest): Promise<boolean> {
    const target = this.#options.absoluteOrigin
      ? this.#options.absoluteOrigin + request.target
      : request.target;
    const method = request.method ?? "POST";
    let head = `${method} ${target} HTTP/1.1\r\nHost: ${this.#options.authority}\r\n`;
    for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
    // A method that defines no body (GET, HEAD, DELETE) says nothing of one when it has none.
    const bodiless = request.body.length === 0 && ["GET", "HEAD", "DELETE"].includes(method);
    head += bodiless ? "\r\n" : `Content-Length: ${request.body.length}\r\n\r\n`;
    const headBytes = encoder.encode(head);
    try {
      if (request.body.length <= ONE_WRITE_BYTES) {
        await writeAll(this.#conn, concat(headBytes, request.body));
      } else {
        await writeAll(this.#conn, headBytes);
        for (let at = 0; at < request.body.length; at += BODY_CHUNK) {
          await writeAll(this.#conn, request.body.subarray(at, at + BODY_CHUNK));
        }
      }
      return true;
    } catch {
      return false; // Not all written: the relay cannot have read the whole request.
    }
  }

  /** Reads one answer whole, or says why there is none. */
  async #readAnswer(limit: number, request: HttpRequest): Promise<HttpAnswer | Failure> {
    try {
      const head = await this.#finalHead();
      const connection = (fieldValue(head.fields, "connection") ?? "").toLowerCase();
      this.#reusable = head.version === "1.1"
        ? !/\bclose\b/.test(connection)
        : /\bkeep-alive\b/.test(connection);
      // An answer to HEAD, a 204 and a 304 have no body, whatever their fields say (RFC 9112, 6.3).
      const none = head.status === 204 || head.status === 304 || request.method === "HEAD";
      const collected = none
        ? new Collected(limit, request.binary)
        : await this.#readBody(head, limit, request);
      if (collected === undefined) return tooLarge(limit) as Failure;
      const headers = new Map([...head.fields.keys()].map((name) => [name, fieldValue(head.fields, name)!]));
      const { body, bytes } = collected.result();
      return { status: head.status, reason: head.reason ?? "", headers, body, ...(bytes ? { bytes } : {}) };
    } catch (error) {
      if (error instanceof FramingError) return { ok: false, unsent: false, detail: error.message };
      throw error;
    }
  }

  /** The final answer's head, after at most MAX_INTERIM_ANSWERS 1xx ones. */
  async #finalHead(): Promise<Head> {
    for (let interim = 0;; interim++) {
      const head = parseHead(await this.#readSection("before any answer"));
      if (head.status >= 200) return head;
      if (head.status === 101) {
        throw new FramingError("the relay switched protocols (101), which tinyagent never asks for");
      }
      if (interim === MAX_INTERIM_ANSWERS) {
        throw new FramingError(`the relay sent more than ${MAX_INTERIM_ANSWERS} interim (1xx) answers`);
      }
    }
  }

  /** A head or a trailer section up to its empty line, bounded. */
  async #readSection(when: string): Promise<Uint8Array> {
    const raw = await this.#reader.takeUntil(HEAD_END, MAX_HEAD_BYTES);
    if (raw === "too long") throw new FramingError("the relay's answer head is over 64 KiB");
    if (raw === undefined) throw new FramingError(this.#closedWhy(when));
    return raw;
  }

  /** The body; undefined when it passes `limit` bytes. */
  async #readBody(head: Head, limit: number, request: HttpRequest): Promise<Collected | undefined> {
    const collected = new Collected(limit, request.binary);
    const add = (bytes: Uint8Array) => collected.add(bytes);
    const length = contentLength(head.fields);
    if (isChunked(head)) {
      // Both framings given: chunked wins (RFC 9112, 6.3), and the connection is not trusted again.
      if (length !== undefined) this.#reusable = false;
      if (!await this.#readChunked(add, limit)) return undefined;
    } else if (length !== undefined) {
      if (length > limit) return undefined;
      if (!await this.#readExactly(length, add)) return undefined;
    } else {
      this.#reusable = false; // delimited by the close
      while (await this.#reader.want(1)) if (!add(this.#reader.takeSome(BODY_CHUNK))) return undefined;
      if (this.#reader.error) throw new FramingError(this.#closedWhy("in the middle of the answer"));
    }
    return collected;
  }

  async #readExactly(length: number, add: (bytes: Uint8Array) => boolean): Promise<boolean> {
    let left = length;
    while (left > 0) {
      if (!await this.#reader.want(1)) throw new FramingError(this.#closedWhy("in the middle of the answer"));
      const bytes = this.#reader.takeSome(Math.min(left, BODY_CHUNK));
      left -= bytes.length;
      if (!add(bytes)) return false;
    }
    return true;
  }

  /** chunked-body (RFC 9112, 7.1): chunks, the last chunk, trailers; false when over `limit`. */
  async #readChunked(add: (bytes: Uint8Array) => boolean, limit: number): Promise<boolean> {
    for (;;) {
      const size = chunkSize(await this.#line(MAX_CHUNK_LINE_BYTES, "an over-long chunk-size line"));
      if (size === 0) {
        await this.#skipTrailers();
        return true;
      }
      if (size > limit) return false;
      if (!await this.#readExactly(size, add)) return false;
      if (!await this.#reader.want(2)) throw new FramingError(this.#closedWhy("in the middle of the answer"));
      const end = this.#reader.take(2);
      if (end[0] !== 0x0d || end[1] !== 0x0a) {
        throw new FramingError("the relay's chunked answer has no CRLF after a chunk's data");
      }
    }
  }

  /** The trailer section: field lines (checked, not used) up to an empty line, at most a head's size. */
  async #skipTrailers(): Promise<void> {
    const lines: string[] = [];
    for (let bytes = 0;;) {
      const line = await this.#line(MAX_HEAD_BYTES - bytes, "trailers over 64 KiB");
      if (line.length === 0) break;
      bytes += line.length + 2;
      lines.push(latin1(line));
    }
    parseFields(lines);
  }

  /** One CRLF-ended line of at most `limit` bytes. */
  async #line(limit: number, tooLong: string): Promise<Uint8Array> {
    const line = await this.#reader.takeUntil(CRLF, limit);
    if (line === undefined) throw new FramingError(this.#closedWhy("in the middle of the answer"));
    if (line === "too long") throw new FramingError(`the relay's chunked answer has ${tooLong}`);
    return line;
  }

  #closedWhy(when: string): string {
    const cause = this.#reader.error?.message;
    return `the relay closed the connection ${when}${cause ? ` (${cause})` : ""}`;
  }
}

/** An answer's body as it arrives: decoded piece by piece as text, or kept as bytes; bounded. */
class Collected {
  #decoder: TextDecoder | undefined;
  #parts: (string | Uint8Array)[] = [];
  #size = 0;

  constructor(private limit: number, binary = false) {
    if (!binary) this.#decoder = new TextDecoder();
  }

  /** Takes one piece; false once the body passes the limit. */
  add(bytes: Uint8Array): boolean {
    this.#size += bytes.length;
    if (this.#size > this.limit) return false;
    this.#parts.push(this.#decoder ? this.#decoder.decode(bytes, { stream: true }) : bytes);
    return true;
  }

  result(): { body: string; bytes?: Uint8Array } {
    if (!this.#decoder) return { body: "", bytes: concat(...this.#parts as Uint8Array[]) };
    this.#parts.push(this.#decoder.decode());
    return { body: (this.#parts as string[]).join("") };
  }
}
