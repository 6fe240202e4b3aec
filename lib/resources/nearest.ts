// The nearest resource URIs for a wrong one (compared on the part that names the resource, not the
// relay), and the -32602 refusal that names them. The distance itself is wire/nearest.ts's. Pure.

import { INVALID_PARAMS } from "../wire/mcp.ts";
import { MAX_NEAREST, nearestBy } from "../wire/nearest.ts";
import { MAX_URI } from "./kinds.ts";

export { MAX_NEAREST, nearest } from "../wire/nearest.ts";

/** The part of a URI that names the resource: after the scheme, the authority and a tenant prefix. */
export function resourcePart(uri: string): string {
  return uri.slice(0, MAX_URI).replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, "").replace(/^\/r\/[^/?#]*/, "")
    .replace(/^\//, "");
}

/** The valid URIs nearest to a wrong one, compared on what names the resource (not the relay). */
export function nearestUris(wrong: string, candidates: readonly string[], max = MAX_NEAREST): string[] {
  return nearestBy(resourcePart(wrong), candidates, resourcePart, max);
}

/** A refusal of a resource URI, as a JSON-RPC error. */
export interface ResourceRefusal {
  code: number;
  message: string;
  data: { uri: string; nearest: string[]; reason: string };
}

/** A URI as an error may echo it: whole unless it is over the length bound. */
export function echoedUri(uri: string): string {
  return uri.length > MAX_URI ? `${uri.slice(0, 64)}…` : uri;
}

/**
 * The `-32602` refusal of `uri`: the words, then up to three nearest URIs that do resolve; `data`
 * carries the URI (cut when over-long), the nearest and the reason code a client can switch on.
 */
export function refusal(
  uri: string,
  reason: string,
  message: string,
  near: readonly string[],
): ResourceRefusal {
  const named = near.slice(0, MAX_NEAREST);
  const choices = named.length === 0
    ? ""
    : ` Nearest that resolve${named.length === 1 ? "s" : ""}: ${named.join(", ")}.`;
  return {
    code: INVALID_PARAMS,
    message: `${message.replace(/\.$/, "")}.${choices}`,
    data: { uri: echoedUri(uri), nearest: named, reason },
  };
}
