// An independent MCP client for the strict relay's own tests of /mcp and /manage/rpc: NIP-98 tokens
// signed by hand (any of their parts left out or broken), JSON-RPC requests with every header the
// relay checks (each one removable), the answer read back whole, and the shapes the relay answers
// with asserted exactly. It shares no code with the relay, and runs it on a clock the test holds.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes } from "@noble/hashes/utils.js";
import { PROTOCOL_VERSION, startStrictRelay, type StrictRelay, type StrictRelayOptions } from "./mod.ts";

export const enc = new TextEncoder();

export interface Key {
  sk: Uint8Array;
  pk: string;
}

export function newKey(): Key {
  const sk = generateSecretKey();
  return { sk, pk: getPublicKey(sk) };
}

/** The key the tests sign with unless told otherwise. */
export const ME = newKey();

/** The relay's clock in Unix seconds, which a test may move: every relay the kit starts reads it. */
export const clock = { now: Math.floor(Date.now() / 1000) };

export function b64(text: string | Uint8Array, { urlSafe = false, pad = true } = {}): string {
  const bytes = typeof text === "string" ? enc.encode(text) : text;
  let out = btoa(String.fromCharCode(...bytes));
  if (urlSafe) out = out.replaceAll("+", "-").replaceAll("/", "_");
  return pad ? out : out.replace(/=+$/, "");
}

/** The event as plain JSON (nostr-tools marks what it signed with a symbol that deepEqual sees). */
export function plain<T>(value: T): T {
  return JSON.parse(JSON.stringify(value));
}

/** A signed event by `key` (kind 9 in room general unless told), created at the relay's clock. */
export function signed(
  key: Key,
  o: Partial<Pick<NostrEvent, "kind" | "tags" | "content" | "created_at">> = {},
): NostrEvent {
  return plain(finalizeEvent({
    kind: o.kind ?? 9,
    created_at: o.created_at ?? clock.now,
    tags: o.tags ?? [["h", "general"]],
    content: o.content ?? "hello",
  }, key.sk));
}

export interface TokenOptions {
  key?: Key;
  kind?: number;
  createdAt?: number;
  /** null leaves the tag out */
  u?: string | null;
  method?: string | null;
  /** a hex digest, or null to leave the tag out; default: SHA-256 of the body */
  payload?: string | null;
  urlSafe?: boolean;
  pad?: boolean;
  /** edits the signed event (so its id or signature no longer holds), or removes members */
  tamper?: (ev: Record<string, unknown>) => void;
}

/** A signed NIP-98 event for `url` and `body`, as an Authorization header value. */
export function nip98(url: string, body: Uint8Array | string, o: TokenOptions = {}): string {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  const tags: string[][] = [["nonce", bytesToHex(randomBytes(12))]];
  if (o.u !== null) tags.push(["u", o.u ?? url]);
  if (o.method !== null) tags.push(["method", o.method ?? "POST"]);
  if (o.payload !== null) tags.push(["payload", o.payload ?? bytesToHex(sha256(bytes))]);
  const ev = plain(finalizeEvent({
    kind: o.kind ?? 27235,
    created_at: o.createdAt ?? clock.now,
    tags,
    content: "",
  }, (o.key ?? ME).sk)) as unknown as Record<string, unknown>;
  o.tamper?.(ev);
  return `Nostr ${b64(JSON.stringify(ev), { urlSafe: o.urlSafe, pad: o.pad })}`;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

let nextId = 1;

export const META = {
  "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

export interface RpcOptions {
  /** header overrides, matched without case; null removes a header */
  headers?: Record<string, string | null>;
  /** a whole raw body instead of the JSON-RPC message */
  body?: string;
  /** no id: a notification */
  notification?: boolean;
  /** this id instead of the next number */
  id?: unknown;
  /** replaces params._meta; undefined leaves it out */
  meta?: unknown;
  token?: TokenOptions;
  /** URL to POST to (default relay.mcpUrl); the token is still signed for tokenUrl ?? url */
  url?: string;
  tokenUrl?: string;
  method?: string;
  signal?: AbortSignal;
}

/** The URL and RequestInit of one JSON-RPC request as a careful client sends it. */
export function rpcRequest(
  relay: StrictRelay,
  method: string,
  params: Record<string, unknown> = {},
  o: RpcOptions = {},
) {
  const url = o.url ?? relay.mcpUrl;
  const meta = Object.hasOwn(o, "meta") ? o.meta : META;
  const message: Record<string, unknown> = {
    jsonrpc: "2.0",
    method,
    params: meta === undefined ? params : { ...params, _meta: meta },
  };
  if (!o.notification) message.id = Object.hasOwn(o, "id") ? o.id : nextId++;
  const body = o.body ?? JSON.stringify(message);
  const headers: Record<string, string> = {
    "Authorization": nip98(o.tokenUrl ?? url, body, o.token),
    "Content-Type": "application/json",
    "Accept": "application/json, text/event-stream",
    "MCP-Protocol-Version": PROTOCOL_VERSION,
    "Mcp-Method": method,
  };
  if (method === "tools/call" && typeof params.name === "string") headers["Mcp-Name"] = params.name;
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    const existing = Object.keys(headers).find((h) => h.toLowerCase() === k.toLowerCase());
    if (existing) delete headers[existing];
    if (v !== null) headers[k] = v;
  }
  return { url, init: { method: o.method ?? "POST", headers, body, signal: o.signal } };
}

export async function rpc(
  relay: StrictRelay,
  method: string,
  params: Record<string, unknown> = {},
  o: RpcOptions = {},
): Promise<Answer> {
  const { url, init } = rpcRequest(relay, method, params, o);
  return await answer(await fetch(url, init));
}

export function call(
  relay: StrictRelay,
  name: string,
  args: Record<string, unknown> = {},
  o: RpcOptions = {},
): Promise<Answer> {
  return rpc(relay, "tools/call", { name, arguments: args }, o);
}

/** Runs fn against a fresh relay on the kit's clock and always closes it. */
export async function withRelay(
  options: StrictRelayOptions,
  fn: (relay: StrictRelay) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay({ now: () => clock.now, ...options });
  try {
    await fn(relay);
  } finally {
    await relay.close();
  }
}

/**
 * A JSON-RPC error answer, exactly: its status, `Cache-Control: no-store`, JSON, and a body of
 * jsonrpc, the id when one is expected (an early refusal has none at all), and the error.
 */
export function assertRpcError(
  a: Answer,
  status: number,
  error: { code: number; message: string; data?: unknown },
  id?: unknown,
) {
  assert.equal(a.status, status, a.text);
  assert.equal(a.headers.get("cache-control"), "no-store");
  assert.equal(a.headers.get("content-type"), "application/json");
  const body = id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
  assert.deepEqual(a.json, body);
}

/** A NIP-98 refusal of /mcp: 401, the challenge, no id, and the reason in the relay's words. */
export function assertAuthRefused(a: Answer, reason: string) {
  assert.equal(a.headers.get("www-authenticate"), 'Nostr realm="tiny"');
  assertRpcError(a, 401, { code: -32600, message: `auth-required: ${reason}` });
}

/** A tools/call result, exactly as the relay writes one: the three members, resultType and _meta. */
export function assertToolResult(
  a: Answer,
  expected: { isError: boolean; text: string; structured: unknown },
) {
  assert.equal(a.status, 200, a.text);
  assert.deepEqual(a.json.result, {
    content: [{ type: "text", text: expected.text }],
    structuredContent: expected.structured,
    isError: expected.isError,
    resultType: "complete",
    _meta: { "io.modelcontextprotocol/serverInfo": { name: "tinyrelay", version: "0.1.0-dev" } },
  });
}

/** A successful value: its text block is the value's JSON. */
export function assertValue(a: Answer, value: unknown) {
  assertToolResult(a, { isError: false, text: JSON.stringify(value), structured: value });
}

/** A handler's failure: the words, and no structured content. */
export function assertFailure(a: Answer, text: string, structured: unknown = null) {
  assertToolResult(a, { isError: true, text, structured });
}
