// A signed event published under the person's hold (write_gate.ts): cleared
// (the budget, the person's approval when asked for), signed only then,
// POSTed to the relay's `/events` under a NIP-98 proof, and its receipt and
// audit entry written whatever became of it. A write whose answer was lost is
// never sent again. The rpc helper's `publish` and the approval cards posted
// to a room (listen/) go this way.

import type { EventTemplate, SignedEvent, Signer } from "../key/signer.ts";
import { redacted } from "../key/curve.ts";
import { PackageLoadError } from "../key/stack.ts";
import type { RelayEndpoint } from "../relay/endpoint.ts";
import { publishReceipt } from "../relay/helper_answer.ts";
import type { SignedHttp, SignedOutcome } from "../relay/signed_http.ts";
import { parseJson } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { unsignedText, type WriteOutcome } from "./receipt.ts";
import type { WriteGate } from "./write_gate.ts";
import type { EventFields } from "./write_summary.ts";

/** No receipt is anywhere near this long. */
const MAX_RECEIPT_BYTES = 1024 * 1024;

export interface PublishDeps {
  endpoint: RelayEndpoint;
  signer: Pick<Signer, "sign">;
  http: Pick<SignedHttp, "send">;
  gate: WriteGate;
}

export type Published =
  | { ok: true; event: SignedEvent }
  /** `held`: the person's hold kept it back, nothing signed; otherwise it was signed, and `error` says its fate. */
  | { ok: false; held: boolean; error: string; event?: SignedEvent };

/** A send's failure in words: the transport's, or the call's own bound when that is what ended it. */
export function failureDetail(outcome: Extract<SignedOutcome, { ok: false }>, signal: AbortSignal): string {
  return signal.aborted && signal.reason instanceof Error ? signal.reason.message : outcome.detail;
}

/**
 * Signing a cleared write failed (this module's and the facade's sign-and-resubmit alike): said and held
 * in the log, in the signer's words with anything shaped like a key taken out; the text to answer with.
 * tinyagent's own code missing is no such failure: rethrown, for the session's clear stop.
 */
export async function unsigned(
  gate: WriteGate,
  tool: string,
  args: JsonObject,
  template: EventFields,
  error: unknown,
): Promise<string> {
  if (error instanceof PackageLoadError) throw error;
  const text = unsignedText(tool, redacted(String((error as Error)?.message ?? error)));
  await gate.refused(tool, args, template, text);
  return text;
}

/**
 * Publishes `template` as the write `tool` asked with `args` (as the receipt and the log name it):
 * cleared, signed, sent, recorded.
 */
export async function gatedPublish(
  deps: PublishDeps,
  tool: string,
  args: JsonObject,
  template: EventTemplate,
  signal: AbortSignal,
): Promise<Published> {
  const clearance = await deps.gate.clear(tool, args, template);
  if (!clearance.ok) return { ok: false, held: true, error: clearance.text };
  let event: SignedEvent;
  try {
    event = await deps.signer.sign(template);
  } catch (error) {
    clearance.reservation.release(); // nothing was signed: its place is free again
    return { ok: false, held: true, error: await unsigned(deps.gate, tool, args, template, error) };
  }
  clearance.reservation.spend();
  const url = `${deps.endpoint.base}/events`;
  const sent = await deps.http.send(
    {
      method: "POST",
      url,
      target: url.slice(deps.endpoint.origin.length),
      headers: { "Content-Type": "application/json" },
      body: new TextEncoder().encode(JSON.stringify(event)),
    },
    signal,
    MAX_RECEIPT_BYTES,
  );
  const { outcome, error, logged } = publishOutcome(sent, signal, event);
  await deps.gate.signedWith(tool, args, event, outcome, logged);
  return error === undefined ? { ok: true, event } : { ok: false, held: false, error, event };
}

/** What became of a published event: its outcome, the error the caller gets (none: published), the log's answer. */
function publishOutcome(
  sent: SignedOutcome,
  signal: AbortSignal,
  event: SignedEvent,
): { outcome: WriteOutcome; error?: string; logged: unknown } {
  if (!sent.ok) {
    const detail = failureDetail(sent, signal);
    if (sent.unsent) {
      return {
        outcome: { status: "not sent", detail },
        error: `${detail}. The signed event ${event.id} did not reach the relay, so nothing was published; ` +
          `publishing it again is safe.`,
        logged: { error: detail },
      };
    }
    return {
      outcome: { status: "unknown", detail },
      error: lostAnswer(detail, event),
      logged: { error: detail },
    };
  }
  const answer = { status: sent.answer.status, reason: sent.answer.reason, body: sent.answer.body };
  const receipt = publishReceipt(answer);
  const logged = parseJson(answer.body) ?? { status: answer.status, body: answer.body.slice(0, 4096) };
  if (receipt.accepted) return { outcome: { status: "accepted" }, logged };
  if (receipt.refused) {
    return { outcome: { status: "refused", message: receipt.error }, error: receipt.error, logged };
  }
  return {
    outcome: { status: "unknown", detail: receipt.error },
    error: lostAnswer(receipt.error, event),
    logged,
  };
}

/** The error for an event whose fate nobody here knows: never sent again, and how to look. */
function lostAnswer(detail: string, event: SignedEvent): string {
  return `${detail}. The signed event ${event.id} (kind ${event.kind}) was sent, but the relay's answer was ` +
    `lost, so whether it was published is unknown; tinyagent did not send it again. Query ` +
    `{"ids":["${event.id}"]} to see whether it is there before publishing the same thing again.`;
}
