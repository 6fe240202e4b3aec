// What one HTTP exchange with the relay gives back. The distinction that
// matters is whether the relay can have read the whole request: only a
// request it cannot have read may be sent again, and then only with a fresh
// token.

/** A request as a framing writes it; the Authorization header is already in `headers`. */
export interface HttpRequest {
  /** The method, upper case; POST when absent. */
  method?: string;
  /** Path and query, as in the request line. */
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
  /** Keep the answer's body as bytes (`HttpAnswer.bytes`) rather than decode it as text. */
  binary?: boolean;
}

/** An answer read whole. Header names are lowercase. */
export interface HttpAnswer {
  status: number;
  /** The reason phrase as the relay wrote it. */
  reason: string;
  headers: Map<string, string>;
  /** The body as UTF-8 text; empty when the request asked for bytes. */
  body: string;
  /** The body's bytes, when the request asked for them (`HttpRequest.binary`). */
  bytes?: Uint8Array;
}

export type Attempt =
  | { ok: true; answer: HttpAnswer }
  /**
   * No answer. `unsent`: the relay cannot have read the whole request (no
   * connection could be opened, the kept one was found closed, or a write
   * failed), so it may go again on a new connection with a new token.
   * Otherwise the relay may have run it, and it never goes again.
   */
  | { ok: false; unsent: boolean; detail: string; tooLarge?: true };

/** One framed connection to the relay. */
export interface RelayConnection {
  /** Whether a new request may go on this connection now. */
  readonly usable: boolean;
  /** When the last exchange ended (or the connection opened), in ms since the epoch. */
  readonly idleSince: number;
  exchange(request: HttpRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt>;
  close(): void;
}

/** An answer over the size bound: read no further, and never sent again. */
export function tooLarge(limit: number): Attempt {
  return {
    ok: false,
    unsent: false,
    detail: `the relay's answer exceeds ${limit / (1024 * 1024)} MiB`,
    tooLarge: true,
  };
}
