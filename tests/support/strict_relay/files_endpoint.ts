// `GET`/`HEAD <prefix>/files/raw?hash=<sha256>`: the relay's file download, the route of read_file's
// `download_url`, which tinyagent reads big files' pieces from: the same download as /media
// (media_endpoint.ts). A test may make the store one that cannot seek: then, as the real relay does
// for such a store, the file is sent whole whatever Range asks.

import { download } from "./media_endpoint.ts";
import { plainError } from "./attachments_endpoint.ts";
import type { NostrContext } from "./context.ts";
import type { IncomingRequest, Reply } from "./exchange.ts";
import type { RecordedRequest } from "./types.ts";

/** Answers a request for `<prefix>/files/raw`. */
export function answerFileDownload(ctx: NostrContext, req: IncomingRequest, rec: RecordedRequest): Reply {
  if (req.method !== "GET" && req.method !== "HEAD") return plainError("method not allowed", 405);
  const hash = new URL(rec.url).searchParams.get("hash") ?? "";
  if (!/^[0-9a-f]{64}$/.test(hash)) return plainError("invalid: bad blob sha256");
  return download(ctx, req, rec, hash);
}
