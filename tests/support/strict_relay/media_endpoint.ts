// `GET`/`HEAD <prefix>/media/<sha256>[.<ext>]`: what tinyagent's `download` hits (rpc-facts 6.4), and
// the download behind it and `/files/raw` alike (tinyrelay's fileDownload): a NIP-98 signer or nobody,
// the read gate, the blob, its rooms; served with the relay's download headers, one byte range
// honoured as Go's http.ServeContent does.

import type { IncomingRequest, Reply } from "./exchange.ts";
import type { NostrContext } from "./context.ts";
import { plainError, tokenSigner } from "./attachments_endpoint.ts";
import { servedInline } from "./media_types.ts";
import type { Attachment, RecordedRequest } from "./types.ts";

/** `<sha256>` with an optional extension of 1 to 8 letters and digits. */
const MEDIA_NAME_RE = /^([0-9a-f]{64})(?:\.[a-z0-9]{1,8})?$/;

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
 * Last-Modified as ServeContent does from the upload time. Types shown inline keep theirs; any other
 * is sent as application/octet-stream, to be saved, under the file's hash.
 */
export function serve(
  req: IncomingRequest,
  blob: Pick<Attachment, "bytes" | "type">,
  hash: string,
  lastModified?: number,
): Reply {
  const inline = servedInline(blob.type);
  const headers: Record<string, string> = {
    "Content-Type": inline ? blob.type : "application/octet-stream",
    "Content-Disposition": `${inline ? "inline" : "attachment"}; filename=${hash}`,
    "Cache-Control": "private, no-store",
    "Content-Security-Policy": "sandbox",
    "X-Content-Type-Options": "nosniff",
    "Accept-Ranges": "bytes",
  };
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

/**
 * The relay's download (fileDownload), behind both /media and /files/raw: the caller (a NIP-98 signer,
 * or nobody), the read gate, the blob, then a room attachment's rooms, one of which the caller must see.
 */
export function download(ctx: NostrContext, req: IncomingRequest, rec: RecordedRequest, hash: string): Reply {
  // resolveUIActor: no token is an anonymous caller; a token is checked whole, its payload against
  // the empty body of a GET or HEAD.
  const signer = tokenSigner(ctx, rec, "when-body", true);
  if ("refusal" in signer) return signer.refusal;
  const refused = ctx.readRefusal(signer.pubkey);
  if (refused) return plainError(refused);
  const file = ctx.file(hash);
  // Go's own words for a row not found, which the relay passes on as they are.
  if (!file) return plainError("sql: no rows in result set", 400);
  const rooms = ctx.attachments.get(hash)?.rooms ?? new Set<string>();
  const seen = rooms.size === 0 || [...rooms].some((id) => {
    const room = ctx.uploads.room(id);
    return room !== undefined && (room.access === "open" || room.roleOf(signer.pubkey) !== undefined);
  });
  if (!seen) {
    return plainError(
      signer.pubkey === ""
        ? "auth-required: room attachment"
        : "restricted: room attachment membership required",
    );
  }
  return serve(ctx.seekable() ? req : withoutRange(req), file, hash, file.uploaded);
}

/** The request as a store that cannot seek reads it: its Range ignored. */
function withoutRange(req: IncomingRequest): IncomingRequest {
  const headers = new Headers(req.headers);
  headers.delete("range");
  return { ...req, headers };
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
  if (!m) return plainError("404 page not found", 404);
  return download(ctx, req, rec, m[1]);
}
