// A rate-limiting front: a loopback port in front of a relay, where a test makes 429s appear. The real
// relay never answers 429; a proxy or gateway in front of it does, so that is where the tests put one.
// Every connection is piped, byte for byte, to the relay (its Host header untouched, so a NIP-98 token
// signed for the front's URL is the one the relay checks), except that a test can queue answers: each
// of the next requests, whichever connection it comes on, is read whole (head and Content-Length
// body) and answered `429` with the given `Retry-After` and body, never reaching the relay.
//
// It reads HTTP/1.x request framing only, and only on the way in: the relay's answers are piped as they
// come. A request it cannot frame (a chunked body, an upgrade) turns its connection into a plain pipe
// for good. Clients do not pipeline, so a 429 is never written over an answer still on its way.

import type { RecordedRequest } from "./strict_relay/mod.ts";
import { parseAuth } from "./strict_relay/nip98.ts";
import { closeQuietly, pump, writeAll } from "./pipe.ts";

/** The longest request head the front reads; a longer one closes the connection. */
const MAX_HEAD = 64 * 1024;
/** The largest body the front reads to answer a request itself; a larger one closes the connection. */
const MAX_BODY = 64 * 1024 * 1024;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A request the front answered itself, as tests read it back. */
export type FrontRequest = Pick<
  RecordedRequest,
  "method" | "path" | "url" | "headers" | "body" | "bodyText" | "json" | "auth"
>;

/** One queued answer: 429, with `Retry-After` when given, and a body when given. */
export interface LimitAnswer {
  /** Seconds, or any value (an HTTP-date, something malformed) sent as it is. */
  retryAfter?: number | string;
  /** The body, or a function of the request it answers (to carry its JSON-RPC id). */
  body?: string | ((request: FrontRequest) => string);
  /** Default application/json when there is a body. */
  contentType?: string;
}

export interface RateFront {
  port: number;
  /** "127.0.0.1:<port>" */
  host: string;
  /** "http://127.0.0.1:<port>" */
  origin: string;
  /** The relay's URL (its tenant prefix included) with the front's origin: what tinyagent is given. */
  url: string;
  /** Queues `count` answers of `answer`, for the next requests to come. */
  limit(count: number, answer: LimitAnswer): void;
  /** Queued answers not yet sent. */
  readonly pending: number;
  /** Every request the front answered itself, in order. */
  readonly answered: FrontRequest[];
  /** Client connections open now. */
  readonly openConnections: number;
  /** Stops listening, closes every connection and waits for every one to end. */
  close(): Promise<void>;
}

/** A JSON-RPC error body carrying the answered request's id (null when it has none). */
export function rpcLimitBody(message: string, code = -32000): (request: FrontRequest) => string {
  return (request) => {
    const json = request.json as { id?: unknown } | undefined;
    const id = typeof json?.id === "string" || typeof json?.id === "number" ? json.id : null;
    return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } });
  };
}

/** An `{"error": …}` body, as HTTP APIs in front of relays write one. */
export function errorBody(message: string): string {
  return JSON.stringify({ error: message });
}

/** A connection's bytes read ahead: what has come and not been taken yet. */
class Incoming {
  #buffered = new Uint8Array(0);
  constructor(readonly conn: Deno.Conn) {}

  /** Reads more onto the buffer; false at the end of the stream. */
  async #more(): Promise<boolean> {
    const chunk = new Uint8Array(64 * 1024);
    const n = await this.conn.read(chunk);
    if (n === null) return false;
    const joined = new Uint8Array(this.#buffered.length + n);
    joined.set(this.#buffered);
    joined.set(chunk.subarray(0, n), this.#buffered.length);
    this.#buffered = joined;
    return true;
  }

  /** The next head through its blank line; null at a clean end; throws past MAX_HEAD or mid-head. */
  async head(): Promise<Uint8Array | null> {
    for (;;) {
      const end = indexOfBlankLine(this.#buffered);
      if (end >= 0) return this.take(end + 4);
      if (this.#buffered.length > MAX_HEAD) throw new Error("request head too long");
      if (!(await this.#more())) {
        if (this.#buffered.length === 0) return null;
        throw new Error("connection ended mid-head");
      }
    }
  }

  /** Exactly `n` bytes; throws if the stream ends first. */
  async exactly(n: number): Promise<Uint8Array> {
    while (this.#buffered.length < n) {
      if (!(await this.#more())) throw new Error("connection ended mid-body");
    }
    return this.take(n);
  }

  /** Passes `n` bytes on to `to` as they come, holding none of them longer than a read. */
  async forward(n: number, to: Deno.Conn): Promise<void> {
    for (let left = n; left > 0;) {
      if (this.#buffered.length === 0 && !(await this.#more())) throw new Error("connection ended mid-body");
      const part = this.take(Math.min(left, this.#buffered.length));
      await writeAll(to, part);
      left -= part.length;
    }
  }

  take(n: number): Uint8Array {
    const part = this.#buffered.slice(0, n);
    this.#buffered = this.#buffered.slice(n);
    return part;
  }

  /** Whatever is buffered, taken. */
  rest(): Uint8Array {
    return this.take(this.#buffered.length);
  }
}

function indexOfBlankLine(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

interface Head {
  method: string;
  target: string;
  headers: Headers;
  /** The body's length, or undefined when the request cannot be framed here (chunked, an upgrade). */
  length?: number;
}

/** The request line and headers; throws on a head that is not HTTP/1.x. */
function parseHead(bytes: Uint8Array): Head {
  const [line, ...fields] = decoder.decode(bytes).slice(0, -4).split("\r\n");
  const m = /^([A-Z]+) (\S+) HTTP\/1\.[01]$/.exec(line);
  if (!m) throw new Error(`not an HTTP/1.x request line: ${line}`);
  const headers = new Headers();
  for (const field of fields) {
    const colon = field.indexOf(":");
    if (colon > 0) headers.append(field.slice(0, colon).trim(), field.slice(colon + 1).trim());
  }
  const chunked = /chunked/i.test(headers.get("transfer-encoding") ?? "");
  const length = headers.get("content-length") ?? "0";
  const framed = !chunked && !headers.has("upgrade") && /^\d+$/.test(length);
  return { method: m[1], target: m[2], headers, length: framed ? Number(length) : undefined };
}

function recordOf(head: Head, body: Uint8Array): FrontRequest {
  const q = head.target.indexOf("?");
  const bodyText = decoder.decode(body);
  const request: FrontRequest = {
    method: head.method,
    path: q < 0 ? head.target : head.target.slice(0, q),
    url: `http://${head.headers.get("host") ?? ""}${head.target}`,
    headers: head.headers,
    body,
    bodyText,
  };
  try {
    request.json = JSON.parse(bodyText);
  } catch {
    // not JSON: left undefined
  }
  const auth = parseAuth(head.headers);
  if (auth) request.auth = auth;
  return request;
}

/** The 429's bytes; it closes the connection, so the client's next request comes on a fresh one. */
function limitAnswer(answer: LimitAnswer, request: FrontRequest): Uint8Array {
  const body = typeof answer.body === "function" ? answer.body(request) : answer.body;
  const bytes = encoder.encode(body ?? "");
  let head = "HTTP/1.1 429 Too Many Requests\r\n";
  if (answer.retryAfter !== undefined) head += `Retry-After: ${answer.retryAfter}\r\n`;
  if (body !== undefined) head += `Content-Type: ${answer.contentType ?? "application/json"}\r\n`;
  head += `Content-Length: ${bytes.length}\r\nConnection: close\r\n\r\n`;
  const headBytes = encoder.encode(head);
  const out = new Uint8Array(headBytes.length + bytes.length);
  out.set(headBytes);
  out.set(bytes, headBytes.length);
  return out;
}

/** Starts the front on 127.0.0.1 for `relay` (its port, and its URL to derive the front's). */
export function startRateFront(relay: { port: number; url: string }): RateFront {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const origin = `http://127.0.0.1:${port}`;
  const queue: LimitAnswer[] = [];
  const answered: FrontRequest[] = [];
  /** Every open connection, both sides; `clients` the ones accepted. */
  const conns = new Set<Deno.Conn>();
  const clients = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let closed = false;

  const serve = async (client: Deno.Conn) => {
    const incoming = new Incoming(client);
    let upstream: Deno.Conn | undefined;
    let back: Promise<void> | undefined;
    try {
      for (;;) {
        const bytes = await incoming.head();
        if (bytes === null) {
          // The client is done sending: the relay is told so, and its answer still comes back.
          await upstream?.closeWrite();
          await back;
          break;
        }
        const head = parseHead(bytes);
        const length = head.length;
        // Taken now, so a request on another connection cannot take it too; put back if unsent.
        const answer = length === undefined ? undefined : queue.shift();
        if (answer && length !== undefined) {
          let body: Uint8Array;
          try {
            if (length > MAX_BODY) throw new Error("request body too large to read");
            body = await incoming.exactly(length);
          } catch (error) {
            queue.unshift(answer);
            throw error;
          }
          const request = recordOf(head, body);
          answered.push(request);
          await writeAll(client, limitAnswer(answer, request));
          break;
        }
        if (!upstream) {
          upstream = await Deno.connect({ hostname: "127.0.0.1", port: relay.port });
          conns.add(upstream);
          back = pump(upstream, client);
        }
        await writeAll(upstream, bytes);
        if (length === undefined) {
          // Framing it cannot follow: the rest of the connection is a plain pipe.
          await writeAll(upstream, incoming.rest());
          await Promise.all([pump(client, upstream), back]);
          break;
        }
        await incoming.forward(length, upstream);
      }
    } catch {
      // either side went away, or a request the front will not read
    } finally {
      for (const conn of [client, upstream]) {
        if (!conn) continue;
        closeQuietly(conn);
        conns.delete(conn);
      }
      clients.delete(client);
      await back;
    }
  };

  const accepting = (async () => {
    while (!closed) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      conns.add(conn);
      clients.add(conn);
      const task = serve(conn);
      tasks.add(task);
      task.finally(() => tasks.delete(task));
    }
  })();

  const path = new URL(relay.url).pathname.replace(/\/$/, "");
  return {
    port,
    host: `127.0.0.1:${port}`,
    origin,
    url: origin + path,
    limit(count: number, answer: LimitAnswer): void {
      if (!Number.isSafeInteger(count) || count < 1) throw new Error(`rate front: ${count} answers`);
      for (let i = 0; i < count; i++) queue.push(answer);
    },
    get pending() {
      return queue.length;
    },
    answered,
    get openConnections() {
      return clients.size;
    },
    async close(): Promise<void> {
      closed = true;
      closeQuietly(listener);
      for (const conn of conns) closeQuietly(conn);
      await accepting;
      await Promise.all([...tasks]);
    },
  };
}
