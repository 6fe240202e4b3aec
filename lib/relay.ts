// The relay side: signed POSTs to `<relay>/mcp` and `<relay>/manage/rpc`,
// one at a time, each bounded in time and size. Knows nothing of the host.

import type { RelayEndpoint } from "./endpoint.ts";
import { type HttpOutcome, interpretAnswer, type RelayAnswer } from "./relay_answer.ts";
import type { JsonObject } from "./mcp.ts";
import { manageRequest, mcpRequest, type PreparedRequest, type RelayMethod } from "./relay_request.ts";
import type { Signer } from "./signer.ts";

/** Answers larger than this are not read: no relay result is legitimately this big. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface RelayClientOptions {
  endpoint: RelayEndpoint;
  signer: Signer;
  timeoutMs: number;
  maxAnswerBytes?: number;
}

export class RelayClient {
  #options: RelayClientOptions;
  #queue: Promise<unknown> = Promise.resolve();
  #nextId = 1;
  /**
   * Connections are never kept for reuse: when a reused connection closes before any answer
   * byte, fetch silently sends the request again with the same token, which a relay that
   * already read it refuses as a replay (a transport failure shown as `permission:`), and
   * every request must carry a fresh token, retries included.
   */
  #http: Deno.HttpClient | undefined; // created on first use: ~1 ms of start-up
  /** Aborts the request in flight when the client is closed. */
  #inFlight: AbortController | undefined;
  #closed = false;

  constructor(options: RelayClientOptions) {
    this.#options = options;
  }

  get endpoint(): RelayEndpoint {
    return this.#options.endpoint;
  }

  /** The relay's base URL, tenant prefix included. */
  get base(): string {
    return this.#options.endpoint.base;
  }

  /** Nothing more is sent: the request in flight is abandoned and queued ones fail without being sent. */
  close(): void {
    this.#closed = true;
    this.#inFlight?.abort(new DOMException("closed", "AbortError"));
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
      return interpretAnswer(outcome.status, outcome.contentType, outcome.bodyText, id);
    });
  }

  /** Signs and sends one POST with a fresh token, bounded in time and size. */
  async #post(url: string, request: PreparedRequest): Promise<HttpOutcome> {
    const { signer, timeoutMs } = this.#options;
    const limit = this.#options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    if (this.#closed) return transport("the client is closed: the host is gone");
    const authorization = await signer.authorization(url, request.body);
    if (this.#closed) return transport("the client is closed: the host is gone");
    // A timer cleared when the call ends: AbortSignal.timeout() would keep its timer, the signal
    // and what fetch hung on it alive for the whole timeout after every call.
    const controller = new AbortController();
    this.#inFlight = controller;
    const signal = controller.signal;
    const timer = setTimeout(
      () => controller.abort(new DOMException("timed out", "TimeoutError")),
      timeoutMs,
    );
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...request.headers, "Authorization": authorization },
        body: bodyInit(request.body),
        signal,
        client: this.#http ??= Deno.createHttpClient({ poolMaxIdlePerHost: 0 }),
        // A redirect would move the request away from the URL the token is bound to.
        redirect: "manual",
      });
      const bodyText = await readBounded(response, limit);
      if (bodyText === undefined) {
        return transport(`the relay's answer exceeds ${limit / (1024 * 1024)} MiB`);
      }
      return {
        ok: true,
        status: response.status,
        contentType: response.headers.get("content-type"),
        bodyText,
      };
    } catch (error) {
      if (this.#closed) return transport("the client is closed: the host is gone");
      if (signal.aborted) return transport(`no answer from ${url} within ${timeoutMs / 1000} s`);
      if (error instanceof Deno.errors.NotCapable) {
        return transport(
          `no network permission for ${this.endpoint.netHost}; run with --allow-net=${this.endpoint.netHost}`,
        );
      }
      return transport(`cannot reach ${url}: ${describeFetchError(error)}`);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Bodies above this go out as a stream: Deno's fetch holds about three more copies of a byte body. */
const STREAM_BODY_BYTES = 1024 * 1024;
const STREAM_CHUNK_BYTES = 64 * 1024;

/** A large body as a stream of small copies (sent chunked); a small one as it is (with Content-Length). */
function bodyInit(bytes: Uint8Array<ArrayBuffer>): BodyInit {
  if (bytes.length <= STREAM_BODY_BYTES) return bytes;
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      // A copy: an enqueued view would detach the whole buffer.
      controller.enqueue(bytes.slice(offset, offset + STREAM_CHUNK_BYTES));
      offset += STREAM_CHUNK_BYTES;
    },
  });
}

function transport(detail: string): HttpOutcome {
  return { ok: false, failure: { class: "transport", detail } };
}

/** Deno's fetch errors nest the useful cause; keep one readable line. */
function describeFetchError(error: unknown): string {
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

/** Reads a body as UTF-8 text, or returns undefined once it passes `limit` bytes. */
async function readBounded(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return "";
  const declared = Number(response.headers.get("content-length"));
  if (declared > limit) {
    await response.body.cancel();
    return undefined;
  }
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.length;
    if (size > limit) {
      // Leaving the loop early cancels the stream and frees the connection.
      return undefined;
    }
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}
