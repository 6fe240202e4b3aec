// Reading HTTP/1.1 requests off a connection, strictly: request line, headers, Content-Length or
// chunked bodies, 100-continue; anything malformed is an HttpError the server answers and closes on.

import { concatBytes } from "@noble/hashes/utils.js";
import type { IncomingRequest } from "./exchange.ts";
import { latin1 } from "./values.ts";

export const MAX_HEAD_BYTES = 64 * 1024;
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A request that cannot be framed: answered with this status and the connection closed. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** Buffered reads over a connection. */
export class ByteReader {
  #conn: Deno.Conn;
  #onRead: () => void;
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  /** `onRead` is told of every read that brought bytes (the idle timer listens). */
  constructor(conn: Deno.Conn, onRead: () => void = () => {}) {
    this.#conn = conn;
    this.#onRead = onRead;
  }

  get buffered(): number {
    return this.#end - this.#start;
  }

  /** Reads more bytes; false at EOF. */
  async fill(): Promise<boolean> {
    if (this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buf.length) {
      if (this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
      } else {
        const bigger = new Uint8Array(this.#buf.length * 2);
        bigger.set(this.#buf);
        this.#buf = bigger;
      }
      this.#end -= this.#start;
      this.#start = 0;
    }
    const n = await this.#conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    this.#onRead();
    return true;
  }

  /** The bytes before the next CRLFCRLF (consumed), or null at a clean EOF between requests. */
  async readHead(max: number): Promise<Uint8Array | null> {
    let scanned = 0;
    for (;;) {
      // Clients may send stray CRLFs between requests; skip them before the request line.
      while (this.buffered >= 2 && this.#buf[this.#start] === 13 && this.#buf[this.#start + 1] === 10) {
        this.#start += 2;
        scanned = 0;
      }
      const view = this.#buf.subarray(this.#start, this.#end);
      // A request line starts with a method token: anything else (a TLS ClientHello sent to this
      // plain port, say) is refused at once, as nginx, hyper and Node's parser do.
      if (view.length > 0 && !TOKEN_RE.test(String.fromCharCode(view[0]))) {
        throw new HttpError(400, "not an HTTP request");
      }
      for (let i = Math.max(0, scanned - 3); i + 3 < view.length; i++) {
        if (view[i] === 13 && view[i + 1] === 10 && view[i + 2] === 13 && view[i + 3] === 10) {
          const head = view.slice(0, i);
          this.#start += i + 4;
          return head;
        }
      }
      scanned = view.length;
      if (scanned > max) throw new HttpError(431, "request head too large");
      if (!(await this.fill())) {
        if (this.buffered === 0) return null;
        throw new HttpError(400, "connection closed inside the request head");
      }
    }
  }

  /** One CRLF-terminated line (for chunk sizes and trailers). */
  async readLine(max: number): Promise<string> {
    let scanned = 0;
    for (;;) {
      const view = this.#buf.subarray(this.#start, this.#end);
      for (let i = Math.max(0, scanned - 1); i + 1 < view.length; i++) {
        if (view[i] === 13 && view[i + 1] === 10) {
          const line = latin1(view.subarray(0, i));
          this.#start += i + 2;
          return line;
        }
      }
      scanned = view.length;
      if (scanned > max) throw new HttpError(400, "line too long");
      if (!(await this.fill())) throw new HttpError(400, "connection closed inside the body");
    }
  }

  /** Passes exactly n bytes to sink, in views that are only valid during the call. */
  async readExact(n: number, sink: (chunk: Uint8Array) => void): Promise<void> {
    while (n > 0) {
      if (this.buffered === 0 && !(await this.fill())) {
        throw new HttpError(400, "connection closed inside the body");
      }
      const take = Math.min(n, this.buffered);
      sink(this.#buf.subarray(this.#start, this.#start + take));
      this.#start += take;
      n -= take;
    }
  }

  /** Hands over what is buffered and not yet consumed (to a splice taking the connection over). */
  take(): Uint8Array {
    const rest = this.#buf.slice(this.#start, this.#end);
    this.#start = this.#end = 0;
    return rest;
  }

  /** Discards input until the peer closes (or the socket is closed under us). */
  async drain(): Promise<void> {
    try {
      while (await this.fill()) this.#start = this.#end;
    } catch {
      // closed by relay.close()
    }
  }
}

/** A request as HTTP/1.1 framed it: what the core needs, and whether the client keeps the connection. */
export interface ParsedRequest extends IncomingRequest {
  keepAlive: boolean;
}

interface Head {
  method: string;
  target: string;
  version: string;
  headers: Headers;
}

function parseHead(headBytes: Uint8Array): Head {
  const lines = latin1(headBytes).split("\r\n");
  const m = /^(\S+) (\S+) HTTP\/(1\.[01])$/.exec(lines[0]);
  if (!m || !TOKEN_RE.test(m[1])) throw new HttpError(400, "malformed request line");
  const [, method, target, version] = m;
  if (!target.startsWith("/")) throw new HttpError(400, "request target must be a path");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const h = /^([^:\s]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!h || !TOKEN_RE.test(h[1])) throw new HttpError(400, "malformed header line");
    try {
      headers.append(h[1], h[2]);
    } catch {
      throw new HttpError(400, "invalid header value");
    }
  }
  if (version === "1.1" && !headers.has("host")) throw new HttpError(400, "missing Host header");
  return { method, target, version, headers };
}

/** How the body is framed: chunked, or a Content-Length (0 when absent). */
function bodyFraming(headers: Headers): { chunked: boolean; length: number } {
  const te = headers.get("transfer-encoding");
  const cl = headers.get("content-length");
  if (te !== null && cl !== null) throw new HttpError(400, "both Transfer-Encoding and Content-Length");
  if (te !== null && te.toLowerCase() !== "chunked") {
    throw new HttpError(501, "unsupported Transfer-Encoding");
  }
  let length = 0;
  if (cl !== null) {
    const values = cl.split(",").map((v) => v.trim());
    if (!values.every((v) => /^\d+$/.test(v) && v === values[0])) {
      throw new HttpError(400, "invalid Content-Length");
    }
    length = Number(values[0]);
    if (!Number.isSafeInteger(length)) throw new HttpError(400, "invalid Content-Length");
  }
  return { chunked: te !== null, length };
}

type Body = { body: Uint8Array; bodySize: number; tooLarge: boolean };

// Bodies over maxBody are read to the end but not kept, so the connection stays in sync.
async function readSizedBody(reader: ByteReader, length: number, maxBody: number): Promise<Body> {
  const tooLarge = length > maxBody;
  const body = new Uint8Array(tooLarge ? 0 : length);
  let kept = 0;
  await reader.readExact(length, (chunk) => {
    if (!tooLarge) body.set(chunk, kept);
    kept += chunk.length;
  });
  return { body, bodySize: length, tooLarge };
}

async function readChunkedBody(reader: ByteReader, maxBody: number): Promise<Body> {
  const parts: Uint8Array[] = [];
  let bodySize = 0;
  let tooLarge = false;
  for (;;) {
    const sizeLine = await reader.readLine(4096);
    const size = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(sizeLine);
    if (!size) throw new HttpError(400, "invalid chunk size");
    const n = parseInt(size[1], 16);
    if (n === 0) break;
    await reader.readExact(n, (chunk) => {
      bodySize += chunk.length;
      if (bodySize > maxBody) tooLarge = true;
      else parts.push(chunk.slice());
    });
    if ((await reader.readLine(2)) !== "") throw new HttpError(400, "missing CRLF after chunk");
  }
  while ((await reader.readLine(MAX_HEAD_BYTES)) !== "") {
    // trailers are ignored
  }
  return { body: concatBytes(...parts), bodySize, tooLarge };
}

/** Reads one request; null when the client closed the connection between requests. */
export async function readRequest(
  reader: ByteReader,
  maxBody: number,
  sendContinue: () => Promise<void>,
): Promise<ParsedRequest | null> {
  const headBytes = await reader.readHead(MAX_HEAD_BYTES);
  if (headBytes === null) return null;
  const { method, target, version, headers } = parseHead(headBytes);
  const connection = (headers.get("connection") ?? "").toLowerCase();
  const keepAlive = version === "1.1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);
  const { chunked, length } = bodyFraming(headers);
  if ((chunked || length > 0) && /100-continue/i.test(headers.get("expect") ?? "") && version === "1.1") {
    await sendContinue();
  }
  const body = chunked
    ? await readChunkedBody(reader, maxBody)
    : await readSizedBody(reader, length, maxBody);
  return { method, target, headers, ...body, keepAlive, httpVersion: version };
}
