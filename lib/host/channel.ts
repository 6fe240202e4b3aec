// Requests tinyagent sends the host (an elicitation: "may I publish this?"),
// and the host's responses matched to them. Our ids are strings of our own
// ("tinyagent-1", …): JSON-RPC ids belong to the side that sends the request,
// and a response is told from a request by having no method, so they never
// mix with the host's. Waits are bounded: each request has its timeout (the
// host is then told it is cancelled), and only so many may be pending. A
// response nobody waits for (unknown, or late after a timeout) is ignored.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";

/** Our ids' shape, ASCII only and short. */
const OUR_ID = /^tinyagent-[0-9]{1,15}$/;

/** The most requests waiting for the host at once; one more is refused without being sent. */
export const MAX_PENDING = 8;

/** What came back for one request. */
export type HostReply =
  | { ok: true; result: unknown }
  | { ok: false; error: { code: number; message: string } }
  | { ok: false; timedOut: true }
  /** The host can no longer answer: it went away, or its input ended. */
  | { ok: false; gone: string }
  | { ok: false; busy: number }
  /** The call that asked was cancelled before the host answered. */
  | { ok: false; cancelled: true };

/** A response line as the host sent it: an id and a result or an error. */
export interface HostResponse {
  id: unknown;
  result?: unknown;
  error?: unknown;
}

interface Pending {
  resolve(reply: HostReply): void;
  timer: ReturnType<typeof setTimeout>;
}

export class HostChannel {
  #pending = new Map<string, Pending>();
  #next = 1;
  #write: ((line: string) => void) | undefined;
  #gone: string | undefined;
  /** What the host declared in its last `initialize`; undefined before it. */
  capabilities: JsonObject | undefined;

  constructor(private log: (line: string) => void = () => {}, readonly limit = MAX_PENDING) {}

  /** Where request lines go: the host protocol's writer, once it runs. */
  bind(write: (line: string) => void): void {
    this.#write = write;
  }

  /** How many requests wait for the host now. */
  get pending(): number {
    return this.#pending.size;
  }

  /**
   * Sends `method` with `params` and resolves with the host's reply; never rejects. At `timeoutMs`, or
   * when `signal` aborts (the call that asked was cancelled), the host is told the request is cancelled.
   */
  request(method: string, params: JsonObject, timeoutMs: number, signal?: AbortSignal): Promise<HostReply> {
    if (this.#gone !== undefined || !this.#write) {
      return Promise.resolve({ ok: false, gone: this.#gone ?? "no host is connected" });
    }
    if (signal?.aborted) return Promise.resolve({ ok: false, cancelled: true });
    if (this.#pending.size >= this.limit) return Promise.resolve({ ok: false, busy: this.#pending.size });
    const id = `tinyagent-${this.#next++}`;
    const write = this.#write;
    return new Promise((resolve) => {
      // The host may close what it shows the person; a late answer is ignored.
      const withdraw = (reason: string, reply: HostReply) => {
        if (!this.#pending.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        write(
          JSON.stringify({
            jsonrpc: "2.0",
            method: "notifications/cancelled",
            params: { requestId: id, reason },
          }),
        );
        resolve(reply);
      };
      const onAbort = () => withdraw("the call that asked was cancelled", { ok: false, cancelled: true });
      const timer = setTimeout(
        () => withdraw(`no answer within ${timeoutMs / 1000} s`, { ok: false, timedOut: true }),
        timeoutMs,
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#pending.set(id, {
        resolve: (reply) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(reply);
        },
        timer,
      });
      write(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /**
   * Matches a response to its request; false when none waits for it. A late or unknown answer to
   * an id of our shape is said (a person's answer that came too late); any other stray response is
   * ignored quietly, as before tinyagent sent requests.
   */
  settle(response: HostResponse): boolean {
    const key = typeof response.id === "string" ? response.id : undefined;
    const waiting = key === undefined ? undefined : this.#pending.get(key);
    if (!waiting) {
      if (key !== undefined && OUR_ID.test(key)) {
        this.log(
          `ignored a response from the host to ${JSON.stringify(key)}: no request of ours waits for it`,
        );
      }
      return false;
    }
    this.#pending.delete(key!);
    clearTimeout(waiting.timer);
    waiting.resolve(replyOf(response));
    return true;
  }

  /** The host can no longer answer: every request waiting resolves `gone`, and none is sent after. */
  close(why: string): void {
    this.#gone ??= why;
    for (const [id, waiting] of this.#pending) {
      this.#pending.delete(id);
      clearTimeout(waiting.timer);
      waiting.resolve({ ok: false, gone: why });
    }
  }
}

/** A response's result, or its error in JSON-RPC's shape (a malformed error named as such). */
function replyOf(response: HostResponse): HostReply {
  if (response.error === undefined) return { ok: true, result: response.result };
  const error = response.error;
  if (isObject(error) && Number.isInteger(error.code) && typeof error.message === "string") {
    return { ok: false, error: { code: error.code as number, message: error.message } };
  }
  return { ok: false, error: { code: 0, message: "a malformed error" } };
}
