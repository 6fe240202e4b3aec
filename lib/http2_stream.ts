// One HTTP/2 stream as this client sees it: its send window, and the answer
// read into it (status, headers, body within the size bound) until the
// stream ends one way or the other. Pure but for the callback that settles it.

import { isValidFieldName } from "./hpack.ts";
import { type Attempt, tooLarge } from "./http_exchange.ts";

/** What the connection must do after a stream took in a header block or data. */
export type StreamVerdict =
  | "ok"
  /** The answer broke the protocol for this stream only: reset it. */
  | "malformed"
  /** No `:status` in the first block: a connection error (RFC 9113, 8.3.2). */
  | "no-status"
  /** Over the size bound: reset it; the attempt has already failed. */
  | "too-large";

export class Http2Stream {
  readonly id: number;
  sendWindow: number;
  /** DATA bytes taken in since the last WINDOW_UPDATE for this stream. */
  receivedSinceUpdate = 0;
  #status: number | undefined;
  #headers = new Map<string, string>();
  #parts: string[] = [];
  #decoder = new TextDecoder();
  #size = 0;
  #limit: number;
  #settle: (attempt: Attempt) => void;
  #finished = false;

  constructor(id: number, sendWindow: number, limit: number, settle: (attempt: Attempt) => void) {
    this.id = id;
    this.sendWindow = sendWindow;
    this.#limit = limit;
    this.#settle = settle;
  }

  get finished(): boolean {
    return this.#finished;
  }

  /** Whether the answer's headers have come (data before them breaks the protocol). */
  get answered(): boolean {
    return this.#status !== undefined;
  }

  /** Settles the stream once; later calls do nothing. */
  end(attempt: Attempt): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#settle(attempt);
  }

  /** A decoded header block: the answer's headers, an interim answer to skip, or trailers. */
  onFields(fields: [string, string][], endStream: boolean): StreamVerdict {
    if (!fields.every(([name]) => isValidFieldName(name))) {
      this.end({ ok: false, unsent: false, detail: "the relay's answer has a malformed header name" });
      return "malformed";
    }
    if (this.#status === undefined) {
      const status = Number(fields.find(([name]) => name === ":status")?.[1]);
      if (!Number.isInteger(status)) return "no-status";
      if (status >= 100 && status < 200) return "ok"; // an interim answer; the real one follows
      this.#status = status;
      for (const [name, value] of fields) if (!name.startsWith(":")) this.#headers.set(name, value);
    }
    // A second block is trailers: nothing in them matters here.
    if (endStream) this.#complete();
    return "ok";
  }

  /** Body bytes; `endStream` completes the answer. */
  onData(data: Uint8Array, endStream: boolean): StreamVerdict {
    this.#size += data.length;
    if (this.#size > this.#limit) {
      this.end(tooLarge(this.#limit));
      return "too-large";
    }
    this.#parts.push(this.#decoder.decode(data, { stream: true }));
    if (endStream) this.#complete();
    return "ok";
  }

  #complete(): void {
    this.#parts.push(this.#decoder.decode());
    this.end({
      ok: true,
      answer: { status: this.#status!, headers: this.#headers, body: this.#parts.join("") },
    });
  }
}
