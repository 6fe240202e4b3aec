// The relay's websocket as the helper and the mcp listener use it: one
// connection, opened when something is wanted and shared by every query and
// subscription, each a REQ of its own. A query opens it at once; when it
// ends, subscriptions wait (1 s doubling to 30 s, reset after a healthy
// connection) and are sent again on the next one; queries in flight are sent
// again once. With nothing wanted for a while, the connection is closed.

import type { SignedEvent, Signer } from "../key/signer.ts";
import { verifyBatch } from "../key/verify_batch.ts";
import { describeError } from "../relay/client.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { Backoff } from "./backoff.ts";
import { type ConnectionHost, RelayConnection, type Req } from "./relay_connection.ts";
import { QueryReq } from "./stream_query.ts";
import { SubscriptionReq, type SubscriptionSink } from "./stream_subscription.ts";
import type { WebSocketOptions } from "./websocket.ts";

/** A connection with nothing on it is closed after this long. */
export const IDLE_CLOSE_MS = 30_000;
/** The websocket pings after this long without a whole frame, and gives the relay this long to answer: a
 * relay that stalls, or trickles a frame, is found within 15 s, well inside a caller's 30 s; a message in
 * fragments has the same 15 s from its first to its last (ws_liveness.ts). */
export const SILENCE_MS = 10_000;
export const PONG_MS = 5_000;

export interface RelayStreamOptions {
  /** The relay's websocket URL (endpoint.ts: webSocketUrl). */
  url: string;
  signer: Signer;
  proxy?: Proxy;
  log(line: string): void;
  /** Bounds and a dial for the websocket, for tests. */
  socket?: Partial<Omit<WebSocketOptions, "url">>;
}

/** A subscription as its owner holds it. */
export interface StreamSubscription {
  /** Takes events again after the sink refused one; returns how many were held back meanwhile. */
  resume(): number;
  stop(): void;
}

export class RelayStream implements ConnectionHost {
  #options: RelayStreamOptions;
  #reqs = new Map<string, QueryReq | SubscriptionReq>();
  #connection: RelayConnection | undefined;
  #opening: Promise<RelayConnection> | undefined;
  #backoff = new Backoff();
  #retry: ReturnType<typeof setTimeout> | undefined;
  #idle: ReturnType<typeof setTimeout> | undefined;
  #timers = new Set<ReturnType<typeof setTimeout>>();
  #next = 1;
  #closed = false;

  constructor(options: RelayStreamOptions) {
    this.#options = options;
  }

  /** The stored events matching `filters`, each once, in the order the relay sent them. */
  async query(filters: readonly unknown[], signal: AbortSignal): Promise<SignedEvent[]> {
    const query = new QueryReq(
      `q${this.#next++}`,
      filters,
      verifyBatch,
      (count) => this.log(`dropped ${count} events with a bad signature from a query's answer`),
    );
    // Settled maybe before anyone awaits it (given up while its connection opens): never an unhandled rejection.
    query.done.catch(() => {});
    this.#want(query);
    if (this.#closed) return query.done;
    const askedAt = Date.now();
    const onAbort = () => {
      query.fail((signal.reason as Error)?.message ?? "the query was given up");
      // A relay answers every REQ; one that said nothing at all since is not there: open afresh next time.
      const connection = this.#connection;
      if (connection && connection.heardAt < askedAt) {
        connection.abort(`the relay sent nothing for ${(Date.now() - askedAt) / 1000} s after a REQ`);
      }
    };
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      if (this.#connection) this.#connection.request(query);
      else await this.#open().catch((error) => query.fail(this.#unreachable(error)));
      return await query.done;
    } finally {
      signal.removeEventListener("abort", onAbort);
      this.#reqs.delete(query.id);
      if (this.#connection && query.settled) this.#connection.cancel(query.id);
      this.#idleCheck();
    }
  }

  /** A live subscription to `filter`, told to `sink`, until stopped. */
  subscribe(filter: unknown, sink: SubscriptionSink): StreamSubscription {
    const subscription = new SubscriptionReq(`s${this.#next++}`, filter, sink, {
      resend: (req) => {
        if (!req.stopped && !req.paused && this.#reqs.has(req.id)) this.#connection?.request(req);
      },
      cancel: (id) => this.#connection?.cancel(id),
      later: (task, ms) => this.#later(task, ms),
    });
    this.#want(subscription);
    if (this.#closed) return { resume: () => 0, stop: () => {} };
    if (this.#connection) this.#connection.request(subscription);
    else if (!this.#retry) void this.#open().catch((error) => this.#retryLater(this.#unreachable(error)));
    return {
      resume: () => subscription.resume(),
      stop: () => {
        subscription.stop();
        this.#reqs.delete(subscription.id);
        this.#idleCheck();
      },
    };
  }

  /** Stops everything: the connection closes, timers end, queries fail. */
  close(): void {
    this.#closed = true;
    for (const timer of [this.#retry, this.#idle, ...this.#timers]) clearTimeout(timer);
    for (const req of this.#reqs.values()) if (req instanceof QueryReq) req.fail("the helper is stopping");
    this.#reqs.clear();
    this.#connection?.close();
  }

  // ConnectionHost: what the connection asks of the client.

  req(id: string): Req | undefined {
    return this.#reqs.get(id);
  }

  reqs(): Iterable<Req> {
    // A paused subscription's REQ goes when it resumes: a new connection does not replay into it.
    return [...this.#reqs.values()].filter((req) => !(req instanceof SubscriptionReq && req.paused));
  }

  log(line: string): void {
    this.#options.log(line);
  }

  ended(connection: RelayConnection, why: string, upMs: number): void {
    if (this.#connection === connection) this.#connection = undefined;
    if (this.#closed) return;
    this.#backoff.ended(upMs);
    const lost = `the connection to ${this.#options.url} ended: ${why}`;
    const queries = [...this.#reqs.values()].filter((req) => req instanceof QueryReq);
    for (const query of queries) query.lost(lost);
    if (queries.some((query) => !query.settled)) {
      // Someone is waiting: open again now, and let the subscriptions ride along.
      void this.#open().catch((error) => {
        for (const query of queries) query.fail(this.#unreachable(error));
        this.#retryLater(this.#unreachable(error));
      });
      return;
    }
    this.#retryLater(lost);
  }

  #want(req: QueryReq | SubscriptionReq): void {
    if (this.#closed) {
      if (req instanceof QueryReq) req.fail("the helper is stopping");
      return;
    }
    clearTimeout(this.#idle);
    this.#reqs.set(req.id, req);
  }

  /**
   * The connection, opened once however many wait for it. A wait of the subscriptions ends only when a
   * connection is had: a query that fails to open one must not cancel their next attempt.
   */
  #open(): Promise<RelayConnection> {
    this.#opening ??= RelayConnection.open(
      this.#options.url,
      {
        proxy: this.#options.proxy,
        idleMs: SILENCE_MS,
        pongMs: PONG_MS,
        ...this.#options.socket,
      },
      this.#options.signer,
      this,
    ).then((connection) => {
      clearTimeout(this.#retry);
      this.#retry = undefined;
      if (this.#closed) connection.close();
      else this.#connection = connection;
      return connection;
    }).finally(() => this.#opening = undefined);
    return this.#opening;
  }

  /** Subscriptions wait, then the connection is opened again; each is told why and for how long. */
  #retryLater(why: string): void {
    const subscriptions = [...this.#reqs.values()].filter((req) => req instanceof SubscriptionReq);
    if (this.#closed || subscriptions.length === 0 || this.#retry) return;
    const wait = this.#backoff.next();
    for (const subscription of subscriptions) {
      subscription.lost(`${why}; subscribing again in ${wait / 1000} s`);
    }
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.#open().catch((error) => this.#retryLater(this.#unreachable(error)));
    }, wait);
  }

  #later(task: () => void, ms: number): void {
    if (this.#closed) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      task();
    }, ms);
    this.#timers.add(timer);
  }

  /** With nothing wanted, the connection closes after a while. */
  #idleCheck(): void {
    if (this.#reqs.size > 0 || !this.#connection || this.#closed) return;
    clearTimeout(this.#idle);
    this.#idle = setTimeout(() => {
      if (this.#reqs.size === 0) this.#connection?.close();
    }, IDLE_CLOSE_MS);
  }

  #unreachable(error: unknown): string {
    if (error instanceof Deno.errors.NotCapable) {
      return `no network permission for the relay's websocket ${this.#options.url}`;
    }
    return `cannot reach ${this.#options.url}: ${describeError(error)}`;
  }
}
