// `PUT <prefix>/rooms/<id>/attachments?filename=<name>`: what tinyagent's `upload` hits (rpc-facts
// 6.4), in the real relay's order (room_attachments.go uploadRoomAttachment): NIP-98 without the body
// (URL with its query, method), the uploader's rights, then the body (at most 32 MiB), then the
// token's `payload` against the blob's SHA-256, then the store (room_uploads.ts: 1 byte at least, the
// type, the seeded file's conflict). Refusals are plain text, as Go's http.Error writes them.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { IncomingRequest, Reply } from "./exchange.ts";
import type { NostrContext } from "./context.ts";
import { ATTACHMENT_MAX_BYTES, storeAttachment, uploaderRefusal } from "./room_uploads.ts";
import { tagValue } from "./signed_event.ts";
import type { PayloadRule } from "./nip98.ts";
import type { RecordedRequest } from "./types.ts";
import { goJson } from "./values.ts";

export { ATTACHMENT_MAX_BYTES };

/**
 * A plain-text refusal as Go's http.Error writes it, the status following the reason's prefix as the
 * relay's browseHTTPError has it: everything but auth-required, restricted, blocked and not found is 400.
 */
export function plainError(message: string, status?: number, headers: Record<string, string> = {}): Reply {
  const code = status ??
    (message.startsWith("auth-required:")
      ? 401
      : /^(restricted|blocked):/.test(message)
      ? 403
      : message.startsWith("not found")
      ? 404
      : 400);
  return {
    status: code,
    body: `${message}\n`,
    contentType: "text/plain; charset=utf-8",
    headers: { "X-Content-Type-Options": "nosniff", ...headers },
  };
}

/**
 * The NIP-98 signer, "" when there is no Nostr token at all and the door takes anonymous callers (a
 * download), or the refusal in the relay's words. `payload` says whether the token's payload tag is
 * checked against the body here (a download's empty one) or later, against the blob (an upload).
 */
export function tokenSigner(
  ctx: NostrContext,
  rec: RecordedRequest,
  payload: PayloadRule,
  anonymous = false,
): { pubkey: string } | { refusal: Reply } {
  const auth = ctx.authenticate(rec, payload);
  if ("pubkey" in auth) return auth;
  if (auth.missing && anonymous) return { pubkey: "" };
  return { refusal: plainError(`auth-required: ${auth.reason}`) };
}

/** Answers a request to `<prefix>/rooms/<room>/attachments`. */
export function answerUpload(
  ctx: NostrContext,
  req: IncomingRequest,
  rec: RecordedRequest,
  room: string,
): Reply {
  if (req.method !== "PUT") return plainError("method not allowed", 405, { Allow: "PUT" });
  // VerifyNIP98 itself, as the relay calls it: no token is its "missing" refusal, like any other.
  const signer = tokenSigner(ctx, rec, "unchecked");
  if ("refusal" in signer) return signer.refusal;
  const refused = uploaderRefusal(ctx.uploads, signer.pubkey, room);
  if (refused) return plainError(refused);
  if (req.bodySize > ATTACHMENT_MAX_BYTES) return plainError("attachment exceeds 32 MiB", 413);
  // A token without a payload tag names no blob, so it cannot name this one, an empty one included.
  if (rec.auth === undefined || tagValue(rec.auth, "payload") !== bytesToHex(sha256(req.body))) {
    return plainError("auth-required: token payload hash does not match the blob hash");
  }
  const query = rec.url.indexOf("?");
  const stored = storeAttachment(ctx.uploads, {
    bytes: req.body,
    type: req.headers.get("content-type"),
    filename: new URLSearchParams(query < 0 ? "" : rec.url.slice(query + 1)).get("filename"),
    room,
  });
  if ("error" in stored) return plainError(stored.error as string);
  // As Go's json.Encoder writes it: the JSON, then a newline.
  return { status: 200, body: `${goJson(stored)}\n`, contentType: "application/json" };
}
