// The paths the helper's `request` and `download` may reach (rpc-facts.md
// 4.1): absolute, on the relay's own origin, never climbing out of the tenant,
// joined under the tenant prefix. Pure; the URL built here is the one sent and
// the one signed in the NIP-98 `u` tag.

import type { RelayEndpoint } from "./endpoint.ts";

export type RelayPath = { ok: true; url: string; target: string } | { ok: false; error: string };

/** The Go peer's two refusals, kept word for word: a caller may match on them. */
export const NOT_SAME_ORIGIN = "path must be same-origin and absolute";
export const UNSAFE_PATH = "unsafe path";

/** Anything but printable ASCII: a request line cannot carry it unescaped. */
const NOT_URL_TEXT = /[^\x21-\x7e]/;

/**
 * `path` (with its query, if any) under the relay's base: the full URL, and the request target (the
 * URL's path and query) as the request line carries it. A path that is empty, relative, `//…` or a
 * whole URL is not the relay's; one with `..` (raw or decoded), a `.` or empty segment, a backslash,
 * a fragment, a broken escape or a character a request line cannot carry is refused as unsafe.
 */
export function relayPath(endpoint: RelayEndpoint, path: string): RelayPath {
  if (!path.startsWith("/") || path.startsWith("//")) return { ok: false, error: NOT_SAME_ORIGIN };
  if (NOT_URL_TEXT.test(path) || path.includes("#") || path.includes("\\")) {
    return { ok: false, error: UNSAFE_PATH };
  }
  const query = path.indexOf("?");
  const bare = query === -1 ? path : path.slice(0, query);
  let decoded: string;
  try {
    decoded = decodeURIComponent(bare);
  } catch {
    return { ok: false, error: UNSAFE_PATH };
  }
  // Nothing a server would clean into another path: `..`, `.` or empty segments, backslashes.
  if (path.includes("..") || decoded.includes("..") || decoded.includes("\\") || decoded.includes("//")) {
    return { ok: false, error: UNSAFE_PATH };
  }
  if (/\/\.(?:\/|$)/.test(decoded)) return { ok: false, error: UNSAFE_PATH };
  const url = `${endpoint.base}${path}`;
  return { ok: true, url, target: url.slice(endpoint.origin.length) };
}
