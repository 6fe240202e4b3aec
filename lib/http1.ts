// HTTP/1.1 on one kept connection to the relay: one exchange at a time, the
// answer read whole (Content-Length, chunked, or to the close), and a read
// left pending while idle so a close by the relay is seen before the next
// request is written.

import { concat, writeAll } from "./bytes.ts";
import { ConnReader } from "./conn_reader.ts";
import type { Duplex } from "./dial.ts";
import {
  type Attempt,
  type HttpAnswer,
  type HttpRequest,
  type RelayConnection,
  tooLarge,
} from "./http_exchange.ts";

const encoder = new TextEncoder();
const CRLF = encoder.encode("\r\n");
const HEAD_END = encoder.encode("\r\n\r\n");
const MAX_HEAD_BYTES = 64 * 1024;
/** Bodies up to this size go out in the same write as the head: one segment, one TLS record. */
const ONE_WRITE_BYTES = 256 * 1024;
const BODY_CHUNK = 64 * 1024;

export interface Http1Options {
  /** The Host header: host, and the port when it is not the scheme's default. */
  authority: string;
  /** Through an HTTP proxy (plain-http relay): the request line carries the absolute URL. */
  absoluteOrigin?: string;
}

/** Thrown inside an exchange when the answer breaks HTTP/1.1 framing. */
class FramingError extends Error {}

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
      const answer = await this.#readAnswer(maxAnswerBytes);
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
    let head = `POST ${target} HTTP/1.1\r\nHost: ${this.#options.authority}\r\n`;
    for (const [name, value] of Object.entries(request.headers)) head += `${name}: ${value}\r\n`;
    head += `Content-Length: ${request.body.length}\r\n\r\n`;
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
  async #readAnswer(limit: number): Promise<HttpAnswer | Extract<Attempt, { ok: false }>> {
    try {
      let head = await this.#readHead();
      while (head.status >= 100 && head.status < 200) head = await this.#readHead(); // 100 Continue and kin
      const { status, headers, version } = head;
      const connection = (headers.get("connection") ?? "").toLowerCase();
      this.#reusable = version === "1.1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
      const body = status === 204 || status === 304 ? "" : await this.#readBody(headers, limit);
      return body === undefined
        ? tooLarge(limit) as Extract<Attempt, { ok: false }>
        : { status, headers, body };
    } catch (error) {
      if (error instanceof FramingError) return { ok: false, unsent: false, detail: error.message };
      throw error;
    }
  }

  async #readHead(): Promise<{ status: number; version: string; headers: Map<string, string> }> {
    const raw = await this.#reader.takeUntil(HEAD_END, MAX_HEAD_BYTES);
    if (raw === "too long") throw new FramingError("the relay's answer head is over 64 KiB");
    if (raw === undefined) throw new FramingError(this.#closedWhy("before any answer"));
    const lines = new TextDecoder().decode(raw).split("\r\n");
    const match = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/.exec(lines[0]);
    if (!match) {
      throw new FramingError(`the relay's answer is not HTTP/1.1: ${JSON.stringify(lines[0].slice(0, 60))}`);
    }
    const headers = new Map<string, string>();
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      if (colon <= 0) throw new FramingError("the relay's answer has a malformed header line");
      const name = line.slice(0, colon).trim().toLowerCase();
      const value = line.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    return { status: Number(match[2]), version: `1.${match[1]}`, headers };
  }

  /** The body as text; undefined when it passes `limit` bytes. */
  async #readBody(headers: Map<string, string>, limit: number): Promise<string | undefined> {
    const decoder = new TextDecoder();
    const parts: string[] = [];
    let size = 0;
    const add = (bytes: Uint8Array): boolean => {
      size += bytes.length;
      if (size > limit) return false;
      parts.push(decoder.decode(bytes, { stream: true }));
      return true;
    };
    const encoding = (headers.get("transfer-encoding") ?? "").toLowerCase();
    if (/\bchunked\b/.test(encoding)) {
      if (!await this.#readChunked(add)) return undefined;
    } else if (headers.has("content-length")) {
      const length = Number(headers.get("content-length"));
      if (!Number.isSafeInteger(length) || length < 0) {
        throw new FramingError("the relay's Content-Length is invalid");
      }
      if (length > limit) return undefined;
      if (!await this.#readExactly(length, add)) return undefined;
    } else {
      this.#reusable = false; // delimited by the close
      while (await this.#reader.want(1)) if (!add(this.#reader.takeSome(BODY_CHUNK))) return undefined;
      if (this.#reader.error) throw new FramingError(this.#closedWhy("in the middle of the answer"));
    }
    parts.push(decoder.decode());
    return parts.join("");
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

  async #readChunked(add: (bytes: Uint8Array) => boolean): Promise<boolean> {
    for (;;) {
      const line = await this.#reader.takeUntil(CRLF, 4096);
      if (line === undefined) throw new FramingError(this.#closedWhy("in the middle of the answer"));
      if (line === "too long") throw new FramingError("the relay's chunked answer is malformed");
      const size = parseInt(new TextDecoder().decode(line).split(";")[0].trim(), 16);
      if (!Number.isSafeInteger(size) || size < 0) {
        throw new FramingError("the relay's chunked answer is malformed");
      }
      if (size === 0) {
        // Trailers, then the empty line that ends the message.
        for (;;) {
          const trailer = await this.#reader.takeUntil(CRLF, MAX_HEAD_BYTES);
          if (trailer === undefined || trailer === "too long") {
            throw new FramingError("the relay's chunked answer is malformed");
          }
          if (trailer.length === 0) return true;
        }
      }
      if (!await this.#readExactly(size, add)) return false;
      const end = await this.#reader.takeUntil(CRLF, 2);
      if (end === undefined || end === "too long" || end.length !== 0) {
        throw new FramingError("the relay's chunked answer is malformed");
      }
    }
  }

  #closedWhy(when: string): string {
    const cause = this.#reader.error?.message;
    return `the relay closed the connection ${when}${cause ? ` (${cause})` : ""}`;
  }
}
