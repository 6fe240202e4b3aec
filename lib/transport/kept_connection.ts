// The relay transport: one kept HTTP/1.1 connection per session, opened ahead
// of the first request, and the rule that makes keeping it safe: a request
// the relay may have read is never sent again. Only a request it cannot have
// read (no connection opened, the kept one was found closed, a write failed)
// goes once more, on a new connection, with a new token.
//
// HTTP/1.1 only, by choice. Relay calls are serialized (facade.md), so there
// is never a second stream to multiplex; HPACK cannot compress the one header
// that is new on every request (the NIP-98 token); measured side by side, the
// per-call and first-call times were the same on both protocols; and every
// server a relay sits behind speaks HTTP/1.1 over TLS. An HTTP/2 client is a
// large attack surface (CONTINUATION and PING floods, flow control, stream
// states) bought for nothing here, so ALPN offers `http/1.1` alone.
//
// Every wait is bounded: each step of opening a connection by its own
// deadline (dial.ts), an exchange by the call's bound (relay.ts). A dial that
// stalls is given up and closed, and the next call dials afresh; a connection
// on which an exchange did not end whole is closed and never used again.

import {
  dial,
  type DialOptions,
  type DialStage,
  type DialTarget,
  type Duplex,
  stallMessage,
} from "./dial.ts";
import type { Attempt, RelayConnection } from "./exchange.ts";
import { Http1Connection } from "./http1.ts";
import type { Proxy } from "./tunnel.ts";

/**
 * A kept connection is given up after this long idle: under the real relay's
 * 60 s, so a call never races the relay closing it. A shorter
 * `Keep-Alive: timeout` from the relay wins.
 */
export const MAX_IDLE_MS = 50_000;
/** Margin under a relay's announced keep-alive timeout. */
const KEEP_ALIVE_MARGIN_MS = 1_000;
/** The bound on each step of opening a connection, as Go's and undici's clients have. */
export const CONNECT_BOUND_MS = 10_000;

/** The bound on each dial step for calls bounded by `callTimeoutMs`: never later than the call's own. */
export function stepBound(callTimeoutMs: number): number {
  return Math.min(CONNECT_BOUND_MS, callTimeoutMs);
}

export interface TransportOptions {
  /** The relay's origin: scheme, host and port. */
  origin: URL;
  proxy?: Proxy;
  maxIdleMs?: number;
  /** The bound on each step of opening a connection (default CONNECT_BOUND_MS). */
  stepMs?: number;
  /** When dial deadlines may be armed (dial.ts); default at once. */
  timersFrom?: Promise<void>;
  /** Opens a connection; the default dials TCP (and TLS). Tests may count, script or fail dials. */
  dial?: (target: DialTarget, options: DialOptions) => Promise<Duplex>;
}

/** A request before its token: the transport asks for a fresh one for each attempt. */
export interface UnsignedRequest {
  /** The method, upper case; POST when absent. */
  method?: string;
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** The Authorization header value, made fresh for each attempt. */
  authorize(): Promise<string>;
  /** Keep the answer's body as bytes. */
  binary?: boolean;
}

/** A connection being opened: the step it is in, and how to give it up. */
interface Opening {
  promise: Promise<RelayConnection>;
  stage?: DialStage;
  abandon: AbortController;
}

export class RelayTransport {
  #options: TransportOptions;
  #target: DialTarget;
  #authority: string;
  #connection: RelayConnection | undefined;
  /** The connection being opened, if one is. */
  #opening: Opening | undefined;
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

  /**
   * While a connection is being opened, which step did not finish within
   * `waitedMs`, in words (for a call whose own bound ends first); undefined
   * when no connection is being opened.
   */
  stalled(waitedMs: number): string | undefined {
    const stage = this.#opening?.stage;
    return stage && stallMessage(stage, this.#target, waitedMs);
  }

  /** Opens the connection now, ahead of the first request; a failure is met again by that request. */
  warm(): void {
    void this.#ready().catch(() => {});
  }

  close(): void {
    this.#closed = true;
    this.#abandonOpening();
    this.#connection?.close();
    this.#connection = undefined;
  }

  /** One exchange, on the kept connection when it is still good. */
  async send(request: UnsignedRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt> {
    // A call that stops waiting gives up the connection being opened for it: the next call, which
    // may find the relay healthy again, must not inherit a stalled attempt.
    const onAbort = () => this.#abandonOpening();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await this.#send(request, signal, maxAnswerBytes);
    } finally {
      signal.removeEventListener("abort", onAbort);
    }
  }

  async #send(request: UnsignedRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt> {
    for (let attempt = 0;; attempt++) {
      if (this.#closed) return { ok: false, unsent: true, detail: "the transport is closed" };
      // The token is signed while the connection opens; a token whose connection fails is never sent.
      const [connection, authorization] = await Promise.all([this.#ready(), request.authorize()]);
      const headers = { ...request.headers, Authorization: authorization };
      let result: Attempt;
      try {
        const { method, target, body, binary } = request;
        result = await connection.exchange(
          { method, target, headers, body, binary },
          signal,
          maxAnswerBytes,
        );
      } catch (error) {
        // An exchange reports its failures as attempts; anything thrown came once the request may be out.
        this.#drop(connection);
        return { ok: false, unsent: false, detail: (error as Error)?.message ?? String(error) };
      }
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
    if (this.#opening) return this.#opening.promise;
    const opening: Opening = { abandon: new AbortController(), promise: undefined! };
    opening.promise = this.#open(opening).finally(() => {
      if (this.#opening === opening) this.#opening = undefined;
    });
    this.#opening = opening;
    return opening.promise;
  }

  async #open(opening: Opening): Promise<RelayConnection> {
    const conn = await (this.#options.dial ?? dial)(this.#target, {
      stepMs: this.#options.stepMs ?? CONNECT_BOUND_MS,
      onStage: (stage) => opening.stage = stage,
      signal: opening.abandon.signal,
      timersFrom: this.#options.timersFrom,
    });
    this.#opened++;
    const connection = new Http1Connection(conn, {
      authority: this.#authority,
      absoluteOrigin: this.#target.proxy && !this.#target.tls ? this.#options.origin.origin : undefined,
    });
    if (this.#closed || opening.abandon.signal.aborted) connection.close();
    else this.#connection = connection;
    return connection;
  }

  /** Gives up the connection being opened, if any; it is closed, and the next request dials afresh. */
  #abandonOpening(): void {
    this.#opening?.abandon.abort();
    this.#opening = undefined;
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
