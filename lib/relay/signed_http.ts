// The helper's HTTP requests to the relay (rpc-facts.md 4): any method, to a
// path under the relay's base, each carrying a fresh NIP-98 proof bound to
// the URL exactly as sent, the method and the body's bytes; over a few kept
// connections (transport_pool.ts), each exchange bounded by the caller's
// signal and in size. Knows nothing of the methods that use it.

import type { Signer } from "../key/signer.ts";
import { PackageLoadError } from "../key/stack.ts";
import type { HttpAnswer } from "../transport/exchange.ts";
import { RelayTransport, stepBound, type TransportOptions } from "../transport/kept_connection.ts";
import { TransportPool } from "../transport/transport_pool.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { describeError } from "./client.ts";
import type { RelayEndpoint } from "./endpoint.ts";

/** One request: where it goes (relay_path.ts made both), and what it carries besides its proof. */
export interface SignedRequest {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE" | "HEAD";
  /** The full URL: signed in the `u` tag exactly as it is sent. */
  url: string;
  /** Its path and query, for the request line. */
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Keep the answer's body as bytes (a download). */
  binary?: boolean;
}

export type SignedOutcome =
  | { ok: true; answer: HttpAnswer }
  /**
   * `unsent`: the relay cannot have read the request, so nothing it asked for happened. `tooLarge`:
   * the answer passed the bound and was not read.
   */
  | { ok: false; unsent: boolean; detail: string; tooLarge?: true };

export interface SignedHttpOptions {
  endpoint: RelayEndpoint;
  signer: Signer;
  /** The call bound, which caps each step of opening a connection. */
  timeoutMs: number;
  proxy?: Proxy;
  /** At most this many connections at once. */
  poolSize?: number;
  /** Settings for each connection, for tests. */
  transport?: Partial<TransportOptions>;
}

export class SignedHttp {
  #options: SignedHttpOptions;
  #pool: TransportPool;

  constructor(options: SignedHttpOptions) {
    this.#options = options;
    this.#pool = new TransportPool(() =>
      new RelayTransport({
        origin: new URL(options.endpoint.origin),
        proxy: options.proxy,
        stepMs: stepBound(options.timeoutMs),
        ...options.transport,
      }), options.poolSize);
  }

  /** How many connections were opened to the relay. */
  get connectionsOpened(): number {
    return this.#pool.opened;
  }

  /** Opens a connection ahead of the first request. */
  warm(): void {
    this.#pool.warm();
  }

  close(): void {
    this.#pool.close();
  }

  /** Sends `request` with a fresh proof; the answer whole (at most `maxAnswerBytes`), or why there is none. */
  async send(request: SignedRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<SignedOutcome> {
    const { url, method, body } = request;
    try {
      const attempt = await this.#pool.use(signal, (transport) =>
        transport.send(
          {
            method,
            target: request.target,
            headers: request.headers,
            body,
            binary: request.binary,
            authorize: () => this.#options.signer.authorization(url, body, Date.now(), method),
          },
          signal,
          maxAnswerBytes,
        ));
      if (attempt.ok) return attempt;
      if (attempt.tooLarge) return { ok: false, unsent: false, detail: attempt.detail, tooLarge: true };
      return attempt.unsent
        ? { ok: false, unsent: true, detail: `cannot reach ${url}: ${attempt.detail}` }
        : { ok: false, unsent: false, detail: `no answer from ${url}: ${attempt.detail}` };
    } catch (error) {
      // tinyagent's own code failed to load: never a relay failure (key/stack.ts).
      if (error instanceof PackageLoadError) throw error;
      // What throws is waiting for a connection, opening one, or signing: nothing was sent.
      if (error instanceof Deno.errors.NotCapable) {
        const hosts = [this.#options.endpoint.netHost, this.#options.proxy?.netHost].filter(Boolean).join(
          ",",
        );
        return {
          ok: false,
          unsent: true,
          detail: `no network permission for ${hosts}; run with --allow-net=${hosts}`,
        };
      }
      return { ok: false, unsent: true, detail: `cannot reach ${url}: ${describeError(error)}` };
    }
  }
}
