// `GET`/`HEAD <prefix>/media/<sha256>[.<ext>]`: what tinyagent's `download` hits (rpc-facts 6.4).
// The blob must be known; then, being a room attachment, it needs a NIP-98 signer (no payload) and,
// on a members-only relay, a member. Served with the real relay's download headers; one byte range
// is honoured, as Go's http.ServeContent does.

import type { IncomingRequest, Reply } from "./exchange.ts";
import type { NostrContext } from "./context.ts";
import { plainError, tokenSigner } from "./attachments_endpoint.ts";
import { servedInline } from "./media_types.ts";
import type { Attachment, RecordedRequest } from "./types.ts";

/** `<sha256>` with an optional extension of 1 to 8 letters and digits. */
const MEDIA_NAME_RE = /^([0-9a-f]{64})(?:\.[A-Za-z0-9]{1,8})?$/;

/** The one range asked for, "unsatisfiable", or undefined for the whole body (none, or several). */
function rangeOf(header: string | null, size: number): [number, number] | "unsatisfiable" | undefined {
  const m = header === null ? null : /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return undefined;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    return suffix === 0 ? "unsatisfiable" : [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  return start >= size || end < start ? "unsatisfiable" : [start, end];
}

/**
 * A blob's bytes with the real relay's download headers: one range honoured (Go's ServeContent,
 * the end clamped to the last byte), several ranges or none served whole; `lastModified` sets
 * Last-Modified as ServeContent does from the upload time.
 */
export function serve(
  req: IncomingRequest,
  blob: Pick<Attachment, "bytes" | "type">,
  lastModified?: number,
): Reply {
  const inline = servedInline(blob.type);
  const headers: Record<string, string> = {
    "Content-Type": inline ? blob.type : "application/octet-stream",
  };
  if (!inline) headers["Content-Disposition"] = "attachment";
  headers["Cache-Control"] = "private, no-store";
  headers["Content-Security-Policy"] = "sandbox";
  headers["Accept-Ranges"] = "bytes";
  if (lastModified) headers["Last-Modified"] = new Date(lastModified * 1000).toUTCString();
  const size = blob.bytes.length;
  const range = rangeOf(req.headers.get("range"), size);
  if (range === "unsatisfiable") {
    return plainError("invalid range", 416, { "Content-Range": `bytes */${size}` });
  }
  if (range === undefined) return { status: 200, body: blob.bytes, headers };
  headers["Content-Range"] = `bytes ${range[0]}-${range[1]}/${size}`;
  return { status: 206, body: blob.bytes.subarray(range[0], range[1] + 1), headers };
}

/** Answers a request under `<prefix>/media/`; `name` is what follows it. */
export function answerMedia(
  ctx: NostrContext,
  req: IncomingRequest,
  rec: RecordedRequest,
  name: string,
): Reply {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return plainError("method not allowed", 405, { Allow: "GET, HEAD" });
  }
  const m = MEDIA_NAME_RE.exec(name);
  const blob = m ? ctx.attachments.get(m[1]) : undefined;
  // The blob is looked up first: the refusals below are those of a room attachment.
  if (!blob) return plainError("not found", 404);
  const signer = tokenSigner(ctx, rec, "auth-required: room attachment");
  if ("refusal" in signer) return signer.refusal;
  if (ctx.membersOnly() && !ctx.isMember(signer.pubkey)) {
    return plainError("restricted: room attachment membership required");
  }
  return serve(req, blob);
}
