// The helper's methods (rpc-facts.md section 3), each given its params and
// the call's signal: identity, publish, query, subscribe, unsubscribe,
// request, upload, download and diagnose. The stream methods answer at once;
// the others are bounded by the loop (serve.ts). A name that is none of
// these is `unknown method "<name>"`, as the Go peer says it.

import { diagnose } from "../diagnose/probe.ts";
import type { Signer } from "../key/signer.ts";
import { RelayClient } from "../relay/client.ts";
import type { RelayEndpoint } from "../relay/endpoint.ts";
import type { SignedHttp } from "../relay/signed_http.ts";
import type { RelayStream } from "../stream/relay_stream.ts";
import type { Proxy } from "../transport/tunnel.ts";
import type { JsonObject } from "../wire/mcp.ts";
import type { WriteGate } from "../oversight/write_gate.ts";
import { download, request } from "./fetches.ts";
import type { RpcRequest } from "./lines.ts";
import { diagnoseParams, queryParams, subscribeParams, unsubscribeParams } from "./params.ts";
import { type Dispatch, RpcError } from "./serve.ts";
import type { HelperStreams } from "./streams.ts";
import { publish, upload } from "./writes.ts";

export interface HelperParts {
  endpoint: RelayEndpoint;
  signer: Signer;
  http: SignedHttp;
  stream: RelayStream;
  /** The subscriptions, under `rpc`; `call` has none (subscribe streams, which one call cannot). */
  streams?: HelperStreams;
  gate: WriteGate;
  kinds?: readonly number[];
  timeoutMs: number;
  proxy?: Proxy;
}

type Method = (params: JsonObject, signal: AbortSignal, request: RpcRequest) => Promise<unknown>;

function checked<T>(result: { ok: true; value: T } | { ok: false; error: string }): T {
  if (!result.ok) throw new RpcError(result.error);
  return result.value;
}

export class HelperMethods implements Dispatch {
  #parts: HelperParts;
  #methods: Record<string, Method>;

  constructor(parts: HelperParts) {
    this.#parts = parts;
    this.#methods = {
      identity: async () => ({ pubkey: (await parts.signer.identity()).pubkey }),
      publish: (params, signal) => publish(parts, params, signal),
      query: (params, signal) => this.#query(params, signal),
      subscribe: (params) =>
        this.#streams("subscribe", (streams) => {
          const { name, filter } = checked(subscribeParams(params));
          return streams.subscribe(name, filter);
        }),
      unsubscribe: (params) => {
        const name = checked(unsubscribeParams(params));
        return Promise.resolve(parts.streams?.unsubscribe(name) ?? { stopped: false });
      },
      request: (params, signal, { line }) => request(parts, params, line, signal),
      upload: (params, signal) => upload(parts, params, signal),
      download: (params, signal) => download(parts, params, signal),
      diagnose: (params, signal) => this.#diagnose(params, signal),
    };
  }

  immediate(method: string): boolean {
    return method === "subscribe" || method === "unsubscribe";
  }

  call(request: RpcRequest, signal: AbortSignal): Promise<unknown> {
    const method = Object.hasOwn(this.#methods, request.method) ? this.#methods[request.method] : undefined;
    if (!method) return Promise.reject(new RpcError(`unknown method ${JSON.stringify(request.method)}`));
    try {
      return method(request.params, signal, request);
    } catch (error) {
      return Promise.reject(error); // a method that throws at once still fails as a rejection
    }
  }

  holdsKey(text: string): Promise<boolean> {
    return this.#parts.signer.mentionsKey(text);
  }

  close(): Promise<void> {
    this.#parts.streams?.close();
    this.#parts.stream.close();
    this.#parts.http.close();
    return Promise.resolve();
  }

  #streams<T>(method: string, work: (streams: HelperStreams) => T): Promise<T> {
    const streams = this.#parts.streams;
    if (!streams) throw new RpcError(`unknown method ${JSON.stringify(method)}`);
    return Promise.resolve(work(streams));
  }

  async #query(params: JsonObject, signal: AbortSignal): Promise<unknown> {
    const filters = checked(queryParams(params));
    try {
      return await this.#parts.stream.query(filters, signal);
    } catch (error) {
      throw new RpcError((error as Error)?.message ?? String(error));
    }
  }

  /** The report of `tinyagent diagnose`, whatever the verdict: a result, never an error. */
  async #diagnose(params: JsonObject, signal: AbortSignal): Promise<unknown> {
    const asked = checked(diagnoseParams(params));
    const { endpoint, signer, timeoutMs, proxy } = this.#parts;
    const relay = new RelayClient({ endpoint, signer, timeoutMs, proxy });
    const onAbort = () => relay.close();
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      return await diagnose(relay, signer, asked);
    } finally {
      signal.removeEventListener("abort", onAbort);
      relay.close();
    }
  }
}
