// The relay side: signed POSTs to `<relay>/mcp` and `<relay>/manage/rpc`,
// one at a time, each bounded in time and size, over the session's one kept
// connection (transport.ts). Knows nothing of the host.

import type { RelayEndpoint } from "./endpoint.ts";
import type { JsonObject } from "../wire/mcp.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { type HttpOutcome, interpretAnswer, type RelayAnswer } from "./answer.ts";
import { manageRequest, mcpRequest, type PreparedRequest, type RelayMethod } from "./request.ts";
import type { Signer } from "../key/signer.ts";
import { PackageLoadError } from "../key/stack.ts";
import { RelayTransport, stepBound, type TransportOptions } from "../transport/kept_connection.ts";

/** Answers larger than this are not read: no relay result is legitimately this big. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface RelayClientOptions {
  endpoint: RelayEndpoint;
  signer: Signer;
  timeoutMs: number;
  maxAnswerBytes?: number;
  proxy?: Proxy;
  /** The session's transport, made (and warmed) ahead of the client; or settings for one, for tests. */
  transport?: RelayTransport | Partial<TransportOptions>;
}

export class RelayClient {
  #options: RelayClientOptions;
  #transport: RelayTransport;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  /** Aborts the request in flight when the client is closed. */
  #inFlight: AbortController | undefined;
  #closed = false;

  constructor(options: RelayClientOptions) {
    this.#options = options;
    this.#transport = options.transport instanceof RelayTransport ? options.transport : new RelayTransport({
      origin: new URL(options.endpoint.origin),
      proxy: options.proxy,
      stepMs: stepBound(options.timeoutMs),
      ...options.transport,
    });
  }

  get endpoint(): RelayEndpoint {
    return this.#options.endpoint;
  }

  /** The relay's base URL, tenant prefix included. */
  get base(): string {
    return this.#options.endpoint.base;
  }

  /** How many connections were opened to the relay. */
  get connectionsOpened(): number {
    return this.#transport.opened;
  }

  /** Opens the connection ahead of the first call. No request is sent. */
  warm(): void {
    if (!this.#closed) this.#transport.warm();
  }

  /** Nothing more is sent: the request in flight is abandoned and queued ones fail without being sent. */
  close(): void {
    this.#closed = true;
    this.#inFlight?.abort(new DOMException("closed", "AbortError"));
    this.#transport.close();
  }

  /** The relay's tool table. */
  listTools(): Promise<RelayAnswer> {
    return this.#mcp("tools/list", {});
  }

  /** One relay tool call. */
  callTool(name: string, args: JsonObject): Promise<RelayAnswer> {
    return this.#mcp("tools/call", { name, arguments: args });
  }

  /** One NIP-86 management request to `<relay>/manage/rpc`; the caller reads the answer. */
  manage(method: string, params: unknown[]): Promise<HttpOutcome> {
    return this.#serialize(() => this.#post(this.endpoint.manageUrl, manageRequest(method, params)));
  }

  /** Runs `task` after every earlier relay call has finished: calls never overlap. */
  #serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** One MCP request to `<relay>/mcp`, interpreted per the contract's error table. */
  #mcp(method: RelayMethod, params: JsonObject): Promise<RelayAnswer> {
    return this.#serialize(async () => {
      const id = this.#nextId++;
      const outcome = await this.#post(this.endpoint.mcpUrl, mcpRequest(id, method, params));
      if (!outcome.ok) return outcome;
      return interpretAnswer(outcome.status, outcome.contentType, outcome.bodyText, id, outcome.retryAfter);
    });
  }

  /**
   * Sends one POST with a fresh token (a new one for a second attempt), bounded in time and size.
   * A failure says whether the relay can have read the request (`unsent` when it cannot).
   */
  async #post(url: string, request: PreparedRequest): Promise<HttpOutcome> {
    const { signer, timeoutMs } = this.#options;
    if (this.#closed) return transport("the client is closed: the host is gone", true);
    // A timer cleared when the call ends: AbortSignal.timeout() would keep its timer alive for the
    // whole timeout after every call.
    const controller = new AbortController();
    this.#inFlight = controller;
    const signal = controller.signal;
    // A call whose bound ends while its connection is still opening says which step was slow (read
    // before the abort, which gives that attempt up); nothing of it reached the relay.
    let stalled: string | undefined;
    const timer = setTimeout(() => {
      stalled = this.#transport.stalled(timeoutMs);
      controller.abort(new DOMException("timed out", "TimeoutError"));
    }, timeoutMs);
    const timedOut = () =>
      stalled
        ? transport(`cannot reach ${url}: ${stalled}`, true)
        : transport(`no answer from ${url} within ${timeoutMs / 1000} s`);
    try {
      const result = await abortable(
        this.#transport.send(
          {
            target: new URL(url).pathname,
            headers: request.headers,
            body: request.body,
            authorize: () => signer.authorization(url, request.body),
          },
          signal,
          this.#options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
        ),
        signal,
      );
      if (this.#closed) return transport("the client is closed: the host is gone");
      if (signal.aborted) return timedOut();
      if (result.ok) {
        const { status, headers, body } = result.answer;
        const retryAfter = headers.get("retry-after");
        return {
          ok: true,
          status,
          contentType: headers.get("content-type") ?? null,
          bodyText: body,
          ...(retryAfter === undefined ? {} : { retryAfter }),
        };
      }
      if (result.tooLarge) return transport(result.detail);
      return result.unsent
        ? transport(`cannot reach ${url}: ${result.detail}`, true)
        : transport(`no answer from ${url}: ${result.detail}`);
    } catch (error) {
      // tinyagent's own code failed to load: never a relay failure (key/stack.ts).
      if (error instanceof PackageLoadError) throw error;
      if (this.#closed) return transport("the client is closed: the host is gone");
      if (signal.aborted) return timedOut();
      // What throws is opening the connection or signing the token: nothing was sent.
      if (error instanceof Deno.errors.NotCapable) {
        const hosts = [this.endpoint.netHost, this.#options.proxy?.netHost].filter(Boolean).join(",");
        return transport(`no network permission for ${hosts}; run with --allow-net=${hosts}`, true);
      }
      return transport(`cannot reach ${url}: ${describeError(error)}`, true);
    } finally {
      clearTimeout(timer);
      if (this.#inFlight === controller) this.#inFlight = undefined;
    }
  }
}

/** `promise`, or a rejection as soon as `signal` aborts (a dial that hangs still ends at the bound). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

function transport(detail: string, unsent = false): HttpOutcome {
  return {
    ok: false,
    failure: unsent ? { class: "transport", detail, unsent } : { class: "transport", detail },
  };
}

/** One readable line from an error and its causes. */
export function describeError(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 4; depth++) {
    if (!parts.some((part) => part.includes(current instanceof Error ? current.message : ""))) {
      parts.push(current.message);
    }
    current = current.cause;
  }
  return (parts.join(": ") || String(error)).replace(/\s+/g, " ");
}
