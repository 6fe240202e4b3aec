// The helper's signed reads of the relay's HTTP side (rpc-facts.md 3.6,
// 3.8): `request`, any method to a path of the relay with a JSON answer, and
// `download`, an attachment's bytes. Paths stay on the relay's origin and
// under its tenant (relay/paths.ts).

import { downloadRequest } from "../relay/download.ts";
import type { RelayEndpoint } from "../relay/endpoint.ts";
import { httpRefusal, succeeded } from "../relay/helper_answer.ts";
import { relayPath } from "../relay/paths.ts";
import type { SignedHttp, SignedOutcome } from "../relay/signed_http.ts";
import type { HttpAnswer } from "../transport/exchange.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { rawMember } from "../wire/json_raw.ts";
import { downloadParams, MAX_ATTACHMENT_BYTES, requestParams } from "./params.ts";
import { RpcError } from "./serve.ts";

/** The bound on any answer the helper reads whole: an attachment, base64 and all, fits on a plugin's line. */
export const MAX_RESPONSE_BYTES = MAX_ATTACHMENT_BYTES;

/** The paths with a method of their own, which the person's --max-writes and --audit-log hold. */
const WRITE_PATHS: [RegExp, string][] = [
  [/^\/events\/?$/, "publish"],
  [/^\/rooms\/[^/]*\/attachments\/?$/, "upload"],
];

export interface FetchDeps {
  endpoint: RelayEndpoint;
  http: SignedHttp;
}

/** An answer that did not come, in words: the call's own bound when that ended it, the Go text for a big one. */
function missing(outcome: Extract<SignedOutcome, { ok: false }>, signal: AbortSignal): RpcError {
  if (signal.aborted && signal.reason instanceof Error) return new RpcError(signal.reason.message);
  return new RpcError(outcome.tooLarge ? "response exceeds 32 MiB" : outcome.detail);
}

function textOf(answer: HttpAnswer): string {
  return answer.bytes ? new TextDecoder().decode(answer.bytes) : answer.body;
}

/** `request`: the relay's JSON answer to a signed request of the caller's; null for a 2xx without a body. */
export async function request(
  deps: FetchDeps,
  params: JsonObject,
  line: string,
  signal: AbortSignal,
): Promise<unknown> {
  const input = requestParams(params);
  if (!input.ok) throw new RpcError(input.error);
  const { path, method, hasBody } = input.value;
  const place = relayPath(deps.endpoint, path);
  if (!place.ok) throw new RpcError(place.error);
  // Matched as the relay will read it: `/%65vents` is /events too.
  const bare = decodeURIComponent(path.split("?")[0]);
  const owner = WRITE_PATHS.find(([pattern]) => pattern.test(bare))?.[1];
  if (owner !== undefined) {
    throw new RpcError(
      `request: ${bare} is written through the method ${owner}, which the person's --max-writes and ` +
        `--audit-log hold; call ${owner} instead`,
    );
  }
  // The body exactly as it stands on the line: its bytes are what the proof's payload covers.
  const body = hasBody
    ? new TextEncoder().encode(rawMember(line, ["params", "body"]) ?? "")
    : new Uint8Array();
  const management = method === "POST" && bare === "/manage/rpc";
  const sent = await deps.http.send(
    {
      method,
      url: place.url,
      target: place.target,
      headers: { "Content-Type": management ? "application/nostr+json+rpc" : "application/json" },
      body,
    },
    signal,
    MAX_RESPONSE_BYTES,
  );
  if (!sent.ok) throw missing(sent, signal);
  const text = textOf(sent.answer);
  if (!succeeded(sent.answer)) throw new RpcError(httpRefusal({ ...sent.answer, body: text }));
  if (text.trim() === "") return null;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new RpcError(`decode response: ${(error as Error).message}`);
  }
}

/** `download`: an attachment's bytes as base64, and its type as the relay served it. */
export async function download(deps: FetchDeps, params: JsonObject, signal: AbortSignal): Promise<unknown> {
  const input = downloadParams(params);
  if (!input.ok) throw new RpcError(input.error);
  // The one signed GET of a relay file, which the resources' pieces of a big file use too.
  const get = downloadRequest(deps.endpoint, input.value);
  if (!get.ok) throw new RpcError(get.error);
  const sent = await deps.http.send(get.request, signal, MAX_RESPONSE_BYTES);
  if (!sent.ok) throw missing(sent, signal);
  const { answer } = sent;
  if (!succeeded(answer)) throw new RpcError(httpRefusal({ ...answer, body: textOf(answer) }));
  return {
    data: (answer.bytes ?? new Uint8Array()).toBase64(),
    type: answer.headers.get("content-type") ?? "",
  };
}
