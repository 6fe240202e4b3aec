// Where an upload goes (rpc-facts.md 3.7): `<base>/rooms/<room>/attachments?
// filename=<name>`, the name being the last element of the file name given,
// query-escaped as the Go peer escapes it (a space is `+`). Pure; the URL
// built here is the one sent and the one signed.

import type { RelayEndpoint } from "./endpoint.ts";

/** The last element of a slash-separated path, as Go's path.Base has it: "." for "", "/" for slashes alone. */
export function baseName(path: string): string {
  if (path === "") return ".";
  const trimmed = path.replace(/\/+$/, "");
  if (trimmed === "") return "/";
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/** `text` percent-encoded as UTF-8, a lone surrogate as U+FFFD (as Go reads it from JSON), `!'()*` too. */
function percentEncoded(text: string): string {
  return encodeURIComponent(text.toWellFormed())
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** Go's url.QueryEscape: everything but letters, digits and `-_.~` escaped, a space as `+`. */
export function queryEscape(text: string): string {
  return percentEncoded(text).replaceAll("%20", "+");
}

/** Go's url.PathEscape: one path segment, `$&+:=@` left as they are. */
export function pathEscape(text: string): string {
  return percentEncoded(text).replace(
    /%(24|26|2B|3A|3D|40)/g,
    (_, hex) => String.fromCharCode(parseInt(hex, 16)),
  );
}

/** The upload's URL and its request target. */
export function uploadUrl(
  endpoint: RelayEndpoint,
  room: string,
  filename: string,
): { url: string; target: string } {
  const url = `${endpoint.base}/rooms/${pathEscape(room)}/attachments?filename=${
    queryEscape(baseName(filename))
  }`;
  return { url, target: url.slice(endpoint.origin.length) };
}
