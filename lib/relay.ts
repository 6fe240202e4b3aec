// The relay side: signed POSTs to `<relay>/mcp` and `<relay>/manage/rpc`,
// one at a time, each bounded. Knows nothing of the host.

import type { RelayEndpoint } from "./endpoint.ts";
import { authorization, base64 } from "./nip98.ts";
import { loadNostr } from "./nostr.ts";
import { type FailureClass, interpretAnswer, type RelayAnswer } from "./errors.ts";
import { NAME, VERSION } from "./version.ts";

/** The relay's MCP revision: stateless, no handshake, `_meta` on every request. */
export const RELAY_PROTOCOL_VERSION = "2026-07-28";
/** Answers larger than this are not read: no relay result is legitimately this big. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export interface RelayClientOptions {
  endpoint: RelayEndpoint;
  secretKey: Uint8Array;
  timeoutMs: number;
  maxAnswerBytes?: number;
}

/** A raw HTTP answer, or why there was none. */
export type HttpOutcome =
  | { ok: true; status: number; contentType: string | null; bodyText: string }
  | { ok: false; failure: { class: FailureClass; detail: string } };

/** `Mcp-Name` as the relay expects it: plain ASCII as is, anything else as `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  return `=?base64?${base64(new TextEncoder().encode(value))}?=`;
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

  constructor(options: RelayClientOptions) {
    this.#options = options;
  }

  get endpoint(): RelayEndpoint {
    return this.#options.endpoint;
  }

  /** Runs `task` after every earlier relay call has finished: calls never overlap. */
  #serialize<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(task, task);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** One MCP request to `<relay>/mcp`, interpreted per the contract's error table. */
  mcp(method: "tools/list" | "tools/call", params: Record<string, unknown>): Promise<RelayAnswer> {
    return this.#serialize(async () => {
      const id = this.#nextId++;
      const body = {
        jsonrpc: "2.0",
        id,
        method,
        params: {
          ...params,
          _meta: {
            "io.modelcontextprotocol/protocolVersion": RELAY_PROTOCOL_VERSION,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": { name: NAME, version: VERSION },
          },
        },
      };
      const headers: Record<string, string> = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "MCP-Protocol-Version": RELAY_PROTOCOL_VERSION,
        "Mcp-Method": method,
      };
      if (method === "tools/call") headers["Mcp-Name"] = encodeHeaderValue(String(params.name));
      const outcome = await this.#post(this.endpoint.mcpUrl, headers, body);
      if (!outcome.ok) return outcome;
      return interpretAnswer(outcome.status, outcome.contentType, outcome.bodyText, id);
    });
  }

  /** One NIP-86 management request to `<relay>/manage/rpc`; the caller reads the answer. */
  manage(method: string, params: unknown[]): Promise<HttpOutcome> {
    return this.#serialize(() =>
      this.#post(this.endpoint.manageUrl, {
        "Accept": "application/nostr+json+rpc, application/json",
        "Content-Type": "application/nostr+json+rpc",
      }, { method, params })
    );
  }

  /** Signs and sends one POST with a fresh token, bounded in time and size. */
  async #post(url: string, headers: Record<string, string>, message: unknown): Promise<HttpOutcome> {
    await loadNostr();
    const { secretKey, timeoutMs } = this.#options;
    const limit = this.#options.maxAnswerBytes ?? MAX_ANSWER_BYTES;
    const body = new TextEncoder().encode(JSON.stringify(message));
    // A timer cleared when the call ends: AbortSignal.timeout() would keep its timer, the signal
    // and what fetch hung on it alive for the whole timeout after every call.
    const controller = new AbortController();
    const signal = controller.signal;
    const timer = setTimeout(
      () => controller.abort(new DOMException("timed out", "TimeoutError")),
      timeoutMs,
    );
    try {
      const response = await fetch(url, {
        method: "POST",
        headers: { ...headers, "Authorization": authorization(secretKey, url, body) },
        body: bodyInit(body),
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
