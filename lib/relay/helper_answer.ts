// What the relay's HTTP answers to the helper's requests mean (rpc-facts.md
// 3.2, 3.6-3.8, 4.3): a refusal in the Go peer's words, and the receipt of a
// published event. Pure.

import { isObject, parseJson } from "../wire/json.ts";

/** An answer as the helper reads it. */
export interface PlainAnswer {
  status: number;
  reason: string;
  body: string;
}

/** The most of a refusal's body an error carries: enough for any relay's reason. */
export const REFUSAL_BODY_CHARS = 4096;

/** Whether the status is a success. */
export function succeeded(answer: { status: number }): boolean {
  return answer.status >= 200 && answer.status <= 299;
}

/** A non-2xx answer in the Go peer's words: `relay HTTP 400 Bad Request: <body, trimmed>`. */
export function httpRefusal(answer: PlainAnswer): string {
  const status = answer.reason === "" ? `${answer.status}` : `${answer.status} ${answer.reason}`;
  const body = answer.body.trim();
  const shown = body.length > REFUSAL_BODY_CHARS
    ? `${body.slice(0, REFUSAL_BODY_CHARS)}… [${body.length} characters]`
    : body;
  return `relay HTTP ${status}: ${shown}`;
}

export type PublishReceipt =
  | { accepted: true; message: string }
  /** `error`: what the caller is told; `refused`: whether the relay refused it (else its answer was unreadable). */
  | { accepted: false; error: string; refused: boolean };

/**
 * The relay's answer to `POST /events`: a 2xx with `accepted: true` publishes (its message, such as
 * a `duplicate:` note, is kept for the receipt); `accepted: false` is refused with the relay's
 * message; any other 2xx is not a receipt; a non-2xx is the refusal in the Go peer's words.
 */
export function publishReceipt(answer: PlainAnswer): PublishReceipt {
  if (!succeeded(answer)) return { accepted: false, error: httpRefusal(answer), refused: true };
  const receipt = parseJson(answer.body);
  if (!isObject(receipt) || typeof receipt.accepted !== "boolean") {
    return { accepted: false, error: "relay returned an invalid publish receipt", refused: false };
  }
  const message = typeof receipt.message === "string" ? receipt.message : "";
  if (receipt.accepted) return { accepted: true, message };
  return { accepted: false, error: message || "relay rejected event", refused: true };
}
