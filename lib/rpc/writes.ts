// The helper's two writes, `publish` and `upload` (rpc-facts.md 3.2, 3.7),
// under the person's hold (oversight/write_gate.ts): the budget and the audit
// log, a receipt on stderr for each, and `--kinds`. The key signs the event
// only once the write is cleared; a write whose answer was lost is never sent
// again, and the caller is told how to find out what happened.

import type { SignedEvent, Signer } from "../key/signer.ts";
import type { WriteGate } from "../oversight/write_gate.ts";
import type { WriteOutcome } from "../oversight/receipt.ts";
import type { RelayEndpoint } from "../relay/endpoint.ts";
import { failureDetail, gatedPublish } from "../oversight/gated_publish.ts";
import { httpRefusal, succeeded } from "../relay/helper_answer.ts";
import { uploadUrl } from "../relay/attachment_url.ts";
import type { SignedHttp, SignedOutcome } from "../relay/signed_http.ts";
import { latin1 } from "../transport/http1_grammar.ts";
import { parseJson } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { publishParams, uploadParams } from "./params.ts";
import { eventToPublish, publishRefusal } from "./publish_rules.ts";
import { RpcError } from "./serve.ts";

/** No receipt is anywhere near this long; an attachment's descriptor neither. */
const MAX_RECEIPT_BYTES = 1024 * 1024;

export interface WriteDeps {
  endpoint: RelayEndpoint;
  signer: Signer;
  http: SignedHttp;
  gate: WriteGate;
  /** `--kinds`: the only kinds publish may sign. */
  kinds?: readonly number[];
}

export async function publish(
  deps: WriteDeps,
  params: JsonObject,
  signal: AbortSignal,
): Promise<SignedEvent> {
  const input = publishParams(params);
  if (!input.ok) throw new RpcError(input.error);
  const template = eventToPublish(input.value, Math.floor(Date.now() / 1000));
  const refusal = publishRefusal(template.kind, deps.kinds);
  if (refusal !== undefined) {
    await deps.gate.refused("publish", params, template, refusal);
    throw new RpcError(refusal);
  }
  const published = await gatedPublish(deps, "publish", params, template, signal);
  if (!published.ok) throw new RpcError(published.held ? `publish: ${published.error}` : published.error);
  return published.event;
}

export async function upload(deps: WriteDeps, params: JsonObject, signal: AbortSignal): Promise<unknown> {
  const input = uploadParams(params);
  if (!input.ok) throw new RpcError(input.error);
  const { room, bytes, filename, type } = input.value;
  // The params were checked for the key as a whole (serve.ts); the file's own bytes are checked here.
  if (await deps.signer.mentionsKey(latin1(bytes))) {
    throw new RpcError("upload: the file holds this agent's private key; refused, nothing was sent");
  }
  const clearance = await deps.gate.clear("upload", params, undefined);
  if (!clearance.ok) throw new RpcError(`upload: ${clearance.text}`);
  clearance.reservation.spend();
  const { url, target } = uploadUrl(deps.endpoint, room, filename);
  // X-Filename is left out: the relay ignores it, and a name outside Latin-1 cannot be a header.
  const sent = await deps.http.send(
    {
      method: "PUT",
      url,
      target,
      headers: type === "" ? {} : { "Content-Type": type },
      body: bytes,
    },
    signal,
    MAX_RECEIPT_BYTES,
  );
  const { outcome, error, logged, result } = uploadOutcome(sent, signal);
  await deps.gate.uploadedWith("upload", params, outcome, logged);
  if (error !== undefined) throw new RpcError(error);
  return result;
}

/** What became of an upload: its outcome, the error the caller gets (none: stored), the log's answer, the result. */
function uploadOutcome(
  sent: SignedOutcome,
  signal: AbortSignal,
): { outcome: WriteOutcome; error?: string; logged: unknown; result?: unknown } {
  if (!sent.ok) {
    const detail = failureDetail(sent, signal);
    const outcome: WriteOutcome = sent.unsent
      ? { status: "not sent", detail }
      : { status: "unknown", detail };
    return { outcome, error: detail, logged: { error: detail } };
  }
  const answer = { status: sent.answer.status, reason: sent.answer.reason, body: sent.answer.body };
  if (!succeeded(answer)) {
    const message = httpRefusal(answer);
    return { outcome: { status: "refused", message }, error: message, logged: { status: answer.status } };
  }
  const result = parseJson(answer.body);
  if (result === undefined) {
    const detail = "decode upload: the relay's answer is not JSON";
    return { outcome: { status: "unknown", detail }, error: detail, logged: { status: answer.status } };
  }
  return { outcome: { status: "accepted" }, logged: result, result };
}
