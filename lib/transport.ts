// The relay transport: one kept connection per session, opened ahead of the
// first request, HTTP/1.1 or HTTP/2 as the relay chooses by ALPN, and the rule
// that makes keeping it safe: a request the relay may have read is never sent
// again. Only a request it cannot have read (the connection was found
// closed, a write failed, HTTP/2 said the stream was not processed) goes once
// more, on a new connection, with a new token.

import { dial, type Dialed, type DialTarget } from "./dial.ts";
import type { Attempt, RelayConnection } from "./http_exchange.ts";
import { Http1Connection } from "./http1.ts";
import type { Proxy } from "./proxy.ts";

/**
 * A kept connection is given up after this long idle: under the real relay's
 * 60 s, so a call never races the relay closing it. A shorter
 * `Keep-Alive: timeout` from the relay wins.
 */
export const MAX_IDLE_MS = 50_000;
/** Margin under a relay's announced keep-alive timeout. */
const KEEP_ALIVE_MARGIN_MS = 1_000;

export interface TransportOptions {
  /** The relay's origin: scheme, host and port. */
  origin: URL;
  proxy?: Proxy;
  maxIdleMs?: number;
  /** Opens a connection; the default dials TCP (and TLS). Tests may count or fail dials. */
  dial?: (target: DialTarget) => Promise<Dialed>;
}

/** A request before its token: the transport asks for a fresh one for each attempt. */
export interface UnsignedRequest {
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The Authorization header value, made fresh for each attempt. */
  authorize(): Promise<string>;
}

export class RelayTransport {
  #options: TransportOptions;
  #target: DialTarget;
  #authority: string;
  #connection: RelayConnection | undefined;
  #opening: Promise<RelayConnection> | undefined;
  #maxIdleMs: number;
  #opened = 0;
  #closed = false;

  constructor(options: TransportOptions) {
    this.#options = options;
    const { origin } = options;
    const tls = origin.protocol === "https:";
    this.#target = {
      hostname: origin.hostname.replace(/^\[|\]$/g, ""),
      port: Number(origin.port || (tls ? 443 : 80)),
      tls,
      proxy: options.proxy,
    };
    this.#authority = origin.host;
    this.#maxIdleMs = options.maxIdleMs ?? MAX_IDLE_MS;
  }

  /** How many connections this transport has opened. */
  get opened(): number {
    return this.#opened;
  }

  /** Opens the connection now, ahead of the first request; a failure is met again by that request. */
  warm(): void {
    void this.#ready().catch(() => {});
  }

  close(): void {
    this.#closed = true;
    this.#connection?.close();
    this.#connection = undefined;
  }

  /** One exchange, on the kept connection when it is still good. */
  async send(request: UnsignedRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt> {
    for (let attempt = 0;; attempt++) {
      if (this.#closed) return { ok: false, unsent: true, detail: "the transport is closed" };
      // The token is signed while the connection opens; a token whose connection fails is never sent.
      const [connection, authorization] = await Promise.all([this.#ready(), request.authorize()]);
      const headers = { ...request.headers, Authorization: authorization };
      const result = await connection.exchange(
        { target: request.target, headers, body: request.body },
        signal,
        maxAnswerBytes,
      );
      if (result.ok) this.#noteKeepAlive(result.answer.headers.get("keep-alive"));
      if (result.ok || !result.unsent || attempt > 0 || signal.aborted) return result;
      this.#drop(connection); // Nothing reached the relay whole: once more, on a new connection.
    }
  }

  /** The kept connection if it is still good, or a new one. Throws when none can be opened. */
  #ready(): Promise<RelayConnection> {
    const current = this.#connection;
    if (current?.usable && Date.now() - current.idleSince < this.#maxIdleMs) return Promise.resolve(current);
    if (current && !this.#opening) this.#drop(current);
    return this.#opening ??= this.#open().finally(() => this.#opening = undefined);
  }

  async #open(): Promise<RelayConnection> {
    const dialed = await (this.#options.dial ?? dial)(this.#target);
    this.#opened++;
    // HTTP/2 and HPACK load only for a relay that chose them.
    const connection = dialed.protocol === "h2"
      ? new (await import("./http2.ts")).Http2Connection(dialed.conn, { authority: this.#authority })
      : new Http1Connection(dialed.conn, {
        authority: this.#authority,
        absoluteOrigin: this.#target.proxy && !this.#target.tls ? this.#options.origin.origin : undefined,
      });
    if (this.#closed) connection.close();
    else this.#connection = connection;
    return connection;
  }

  #drop(connection: RelayConnection): void {
    connection.close();
    if (this.#connection === connection) this.#connection = undefined;
  }

  /** A relay that announces its keep-alive timeout gets its connection back before that. */
  #noteKeepAlive(header: string | undefined): void {
    const seconds = Number(/\btimeout=(\d+)/i.exec(header ?? "")?.[1]);
    if (seconds > 0) {
      this.#maxIdleMs = Math.min(
        this.#options.maxIdleMs ?? MAX_IDLE_MS,
        seconds * 1000 - KEEP_ALIVE_MARGIN_MS,
      );
    }
  }
}
