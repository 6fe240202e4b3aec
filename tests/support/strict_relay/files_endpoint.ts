// `GET`/`HEAD <prefix>/files/raw?hash=<sha256>`: the relay's file download, the route of read_file's
// `download_url` (tinyrelay's fileDownload), which tinyagent reads big files' pieces from. Signed
// with NIP-98 (no payload); on a members-only relay, members only. A stored file (seeded, a room
// attachment or an upload) is served with the download headers and Last-Modified; its store can
// seek, so one byte range is honoured (ServeContent), unless a test turns that off: then, as the
// real relay does for a store it cannot seek in, the file is sent whole whatever Range asks.

import { serve } from "./media_endpoint.ts";
import { plainError } from "./attachments_endpoint.ts";
import type { IncomingRequest, Reply } from "./exchange.ts";
import { type Authentication, relayReason } from "./nip98.ts";
import type { FileSeed } from "./content_types.ts";
import type { RecordedRequest } from "./types.ts";

export interface FilesDeps {
  authenticate(rec: RecordedRequest): Authentication;
  refusesNonMember(pubkey: string): boolean;
  file(sha256: string): FileSeed | undefined;
  /** Whether the store can seek (Range honoured). */
  seekable(): boolean;
}

/** Answers a request for `<prefix>/files/raw`. */
export function answerFileDownload(deps: FilesDeps, req: IncomingRequest, rec: RecordedRequest): Reply {
  if (req.method !== "GET" && req.method !== "HEAD") {
    return plainError("method not allowed", 405, { Allow: "GET, HEAD" });
  }
  const auth = deps.authenticate(rec);
  if (!("pubkey" in auth)) return plainError(`auth-required: ${relayReason(auth.reason)}`, 401);
  if (deps.refusesNonMember(auth.pubkey)) return plainError("restricted: members only", 403);
  const hash = new URL(rec.url).searchParams.get("hash") ?? "";
  const file = /^[0-9a-f]{64}$/.test(hash) ? deps.file(hash) : undefined;
  if (!file) return plainError("file does not exist", 404);
  return serve(deps.seekable() ? req : withoutRange(req), file, file.uploaded);
}

/** The request as a store that cannot seek reads it: its Range ignored. */
function withoutRange(req: IncomingRequest): IncomingRequest {
  const headers = new Headers(req.headers);
  headers.delete("range");
  return { ...req, headers };
}
