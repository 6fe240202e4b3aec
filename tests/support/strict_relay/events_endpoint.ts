// `POST <prefix>/events`: what tinyagent's `publish` hits (rpc-facts 6.3). The body's size first
// (only when the operator set --max-message-bytes), then NIP-98 with a `payload` tag, then a complete
// signed event in event.Parse's words, then the gates; every answer is the bridge's JSON, and a
// gate's refusal is a 400 receipt.

import { type IncomingRequest, json, type Reply } from "./exchange.ts";
import type { NostrContext } from "./context.ts";
import { goSyntaxError } from "./go_json_syntax.ts";
import { canonical, eventProblem } from "./signed_event.ts";
import { type NostrEvent, type RecordedRequest, WWW_AUTHENTICATE } from "./types.ts";

/** The bridge's answers are written by its writeJSON, which names the charset. */
function bridgeJson(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { ...json(status, value, headers), contentType: "application/json; charset=utf-8" };
}

/** Answers a request to `<prefix>/events`. */
export function answerEvents(ctx: NostrContext, req: IncomingRequest, rec: RecordedRequest): Reply {
  if (req.method !== "POST") {
    // The spec gives only the status; the text is the one the relay's other 405s use.
    return bridgeJson(405, { error: "method not allowed" }, { Allow: "POST" });
  }
  if (req.bodySize > ctx.maxMessageBytes) return bridgeJson(400, { error: "http: request body too large" });
  const auth = ctx.authenticate(rec, "when-body");
  if ("reason" in auth) {
    return bridgeJson(401, { error: `auth-required: ${auth.reason}` }, {
      "WWW-Authenticate": WWW_AUTHENTICATE,
    });
  }
  // Go's decoder reads the raw bytes, so its syntax error is the one the relay passes on.
  const syntax = goSyntaxError(rec.body);
  if (syntax) return bridgeJson(400, { error: `invalid event JSON: ${syntax}` });
  const problem = eventProblem(rec.json);
  if (problem) return bridgeJson(400, { error: problem });
  const receipt = ctx.publish(canonical(rec.json as NostrEvent), new Set([auth.pubkey]));
  return bridgeJson(receipt.accepted ? 200 : 400, receipt);
}
