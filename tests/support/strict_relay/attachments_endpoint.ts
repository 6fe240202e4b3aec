// `PUT <prefix>/rooms/<id>/attachments?filename=<name>`: what tinyagent's `upload` hits (rpc-facts
// 6.4), in the real relay's order: NIP-98 without the body (URL with its query, method), the
// uploader's rights, then the body (1 byte to 32 MiB), then the token's `payload` against the blob's
// SHA-256, then the type and file name. Refusals are plain text, as Go's http.Error writes them.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type IncomingRequest, json, type Reply } from "./exchange.ts";
import type { NostrContext } from "./context.ts";
import { cleanFilename, extensionOf, parseMediaType, sniffMediaType } from "./media_types.ts";
import { NO_TOKEN_REASONS, relayReason } from "./nip98.ts";
import { tagValue } from "./signed_event.ts";
import type { RecordedRequest } from "./types.ts";

export const ATTACHMENT_MAX_BYTES = 32 * 1024 * 1024;

/** A plain-text refusal as Go's http.Error writes it, the status following the reason's prefix. */
export function plainError(message: string, status?: number, headers: Record<string, string> = {}): Reply {
  const code = status ??
    (message.startsWith("auth-required:")
      ? 401
      : /^(restricted|blocked):/.test(message)
      ? 403
      : message.startsWith("conflict:")
      ? 409
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
 * The NIP-98 signer, or the refusal: `noKey` when there is no Nostr token at all, the real relay's
 * reason for a token that fails.
 */
export function tokenSigner(
  ctx: NostrContext,
  rec: RecordedRequest,
  noKey: string,
): { pubkey: string } | { refusal: Reply } {
  const auth = ctx.authenticate(rec, "unchecked");
  if ("pubkey" in auth) return auth;
  if (NO_TOKEN_REASONS.includes(auth.reason)) return { refusal: plainError(noKey) };
  return { refusal: plainError(`auth-required: ${relayReason(auth.reason)}`) };
}

/** Uploader rights: the room must be the relay's, and on a members-only relay the uploader a member. */
function rightsRefusal(ctx: NostrContext, pubkey: string, room: string): Reply | undefined {
  // The spec does not say how an unknown room is refused; the relay's /events wording is used.
  if (!ctx.rooms().has(room)) return plainError(`invalid: unknown room ${room}`);
  if (ctx.membersOnly() && !ctx.isMember(pubkey)) {
    return plainError("restricted: join the room before uploading attachments");
  }
  return undefined;
}

/** Answers a request to `<prefix>/rooms/<room>/attachments`. */
export function answerUpload(
  ctx: NostrContext,
  req: IncomingRequest,
  rec: RecordedRequest,
  room: string,
): Reply {
  if (req.method !== "PUT") return plainError("method not allowed", 405, { Allow: "PUT" });
  const signer = tokenSigner(ctx, rec, "auth-required: attachment uploader");
  if ("refusal" in signer) return signer.refusal;
  const refused = rightsRefusal(ctx, signer.pubkey, room);
  if (refused) return refused;
  if (req.bodySize > ATTACHMENT_MAX_BYTES) return plainError("attachment exceeds 32 MiB", 413);
  if (req.bodySize === 0) return plainError("invalid: attachment must be between 1 byte and 32 MiB");
  const hash = bytesToHex(sha256(req.body));
  // A token without a payload tag names no blob, so it cannot name this one.
  if (rec.auth === undefined || tagValue(rec.auth, "payload") !== hash) {
    return plainError("auth-required: token payload hash does not match the blob hash");
  }
  const header = req.headers.get("content-type");
  const type = header === null ? sniffMediaType(req.body) : parseMediaType(header);
  if (type === undefined) return plainError("invalid: attachment media type");
  const query = rec.url.indexOf("?");
  const filename = cleanFilename(
    new URLSearchParams(query < 0 ? "" : rec.url.slice(query + 1)).get("filename"),
  );
  const stored = ctx.attachments.get(hash);
  // The same bytes again: one blob, one more room; the first upload's type and time stay.
  const blob = stored ??
    { bytes: req.body.slice(), type, rooms: new Set<string>(), filename, uploaded: Math.floor(ctx.now()) };
  blob.rooms.add(room);
  blob.filename = filename;
  ctx.attachments.set(hash, blob);
  const ext = extensionOf(blob.type);
  const url = `${ctx.scheme}://${req.headers.get("host") ?? ctx.host}${ctx.prefix}/media/${hash}${
    ext && `.${ext}`
  }`;
  const size = String(blob.bytes.length);
  return json(200, {
    url,
    sha256: hash,
    size: blob.bytes.length,
    type: blob.type,
    uploaded: blob.uploaded,
    nip94: [["url", url], ["m", blob.type], ["x", hash], ["ox", hash], ["size", size], [
      "filename",
      filename,
    ]],
    filename,
    room,
  });
}
