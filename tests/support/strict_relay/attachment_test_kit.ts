// Clients for the attachment tests: an upload and a download with Deno's fetch and a NIP-98 token
// signed by hand (nostr_test_kit.ts), as tinyagent's `upload` and `download` send them.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { StrictRelay } from "./mod.ts";
import { type Key, newKey, nip98, type TokenOptions } from "./nostr_test_kit.ts";

/** The key uploads and downloads are signed with unless told. */
export const MEMBER = newKey();
export const MiB = 1024 * 1024;
/** A 1x1 PNG. */
export const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="),
  (c) => c.charCodeAt(0),
);
export const hex = (bytes: Uint8Array) => bytesToHex(sha256(bytes));

export interface UploadOptions extends TokenOptions {
  room?: string;
  /** The raw query after `?` (default filename=<filename>). */
  query?: string;
  filename?: string;
  type?: string;
  authorization?: string | null;
  method?: string;
  key?: Key;
  /** For a TLS relay: a client trusting its CA. */
  client?: Deno.HttpClient;
}

/** PUT <relay>/rooms/<room>/attachments?<query>, signed for that URL and the bytes. */
export async function upload(relay: StrictRelay, bytes: Uint8Array<ArrayBuffer>, o: UploadOptions = {}) {
  const query = o.query ?? `filename=${encodeURIComponent(o.filename ?? "pixel.png")}`;
  const url = `${relay.url}/rooms/${o.room ?? "general"}/attachments?${query}`;
  const method = o.method ?? "PUT";
  const headers: Record<string, string> = {};
  const token = nip98(url, bytes, o.key ?? MEMBER, { ...o, method: o.method ?? method });
  if (o.authorization !== null) headers.Authorization = o.authorization ?? token;
  if (o.type !== undefined) headers["Content-Type"] = o.type;
  const body = method === "GET" ? undefined : bytes;
  const res = await fetch(url, { method, headers, body, client: o.client });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, json: res.ok ? JSON.parse(text) : undefined };
}

/** GET (or HEAD …) <relay><path>, signed without a payload. */
export async function download(
  relay: StrictRelay,
  path: string,
  o: {
    key?: Key;
    method?: string;
    token?: TokenOptions;
    headers?: Record<string, string>;
    authorization?: string | null;
    client?: Deno.HttpClient;
  } = {},
) {
  const url = `${relay.url}${path}`;
  const method = o.method ?? "GET";
  const headers: Record<string, string> = { ...o.headers };
  const token = nip98(url, undefined, o.key ?? MEMBER, { ...o.token, method });
  if (o.authorization !== null) headers.Authorization = o.authorization ?? token;
  const res = await fetch(url, { method, headers, client: o.client });
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}
