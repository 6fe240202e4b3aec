// A signed GET of a file the relay serves (rpc's `download` of an attachment, and the resources'
// pieces of a big file): the request for a same-origin path under the tenant, with no body, kept as
// bytes, asking for one byte range when a piece is wanted; and what a ranged answer's
// Content-Range says (RFC 9110 14.4). Pure.

import type { RelayEndpoint } from "./endpoint.ts";
import { relayPath } from "./paths.ts";
import type { SignedRequest } from "./signed_http.ts";

/** Bytes `first` to `last` of a file, both included. */
export interface ByteRange {
  first: number;
  last: number;
}

/** The GET of `path` (bytes `range` of it, when given), or why the path is not the relay's. */
export function downloadRequest(
  endpoint: RelayEndpoint,
  path: string,
  range?: ByteRange,
): { ok: true; request: SignedRequest } | { ok: false; error: string } {
  const place = relayPath(endpoint, path);
  if (!place.ok) return place;
  const headers: Record<string, string> = range ? { Range: `bytes=${range.first}-${range.last}` } : {};
  return {
    ok: true,
    request: {
      method: "GET",
      url: place.url,
      target: place.target,
      headers,
      body: new Uint8Array(),
      binary: true,
    },
  };
}

/** What a Content-Range header says: the bytes sent of how many, or (for a 416) only how many. */
export type ContentRange = { first: number; last: number; size: number } | { size: number };

/** A Content-Range header read strictly; undefined when it is missing or not one. */
export function contentRange(header: string | null): ContentRange | undefined {
  if (header === null) return undefined;
  const sent = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15})$/.exec(header.trim());
  if (sent) {
    const [first, last, size] = sent.slice(1).map(Number);
    return first <= last && last < size ? { first, last, size } : undefined;
  }
  const unsatisfied = /^bytes \*\/(\d{1,15})$/.exec(header.trim());
  return unsatisfied ? { size: Number(unsatisfied[1]) } : undefined;
}
