// `POST <prefix>/events`: what tinyagent's `publish` hits (rpc-facts 6.3). The body's size first,
// then NIP-98 with a `payload` tag, then a complete signed event, then the gates; every refusal is
// JSON, and a gate's is a receipt.

import { type IncomingRequest, json, type Reply } from "./exchange.ts";
import type { NostrContext } from "./context.ts";
import { canonical, eventProblem } from "./signed_event.ts";
import { type NostrEvent, type RecordedRequest, WWW_AUTHENTICATE } from "./types.ts";

/** Answers a request to `<prefix>/events`. */
export function answerEvents(ctx: NostrContext, req: IncomingRequest, rec: RecordedRequest): Reply {
  if (req.method !== "POST") {
    // The spec gives only the status; the text is the one the relay's other 405s use.
    return json(405, { error: "method not allowed" }, { Allow: "POST" });
  }
  if (req.bodySize > ctx.maxMessageBytes) return json(400, { error: "http: request body too large" });
  const auth = ctx.authenticate(rec, "when-body");
  if ("reason" in auth) {
    return json(401, { error: `auth-required: ${auth.reason}` }, {
      "WWW-Authenticate": WWW_AUTHENTICATE,
    });
  }
  if (rec.json === undefined) return json(400, { error: "invalid: body must be a JSON event" });
  const problem = eventProblem(rec.json);
  if (problem) return json(400, { error: problem });
  const receipt = ctx.publish(canonical(rec.json as NostrEvent), new Set([auth.pubkey]));
  return json(receipt.accepted ? 200 : 400, receipt);
}
