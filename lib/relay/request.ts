// What one request to the relay carries (facade.md, "Relay protocol"; the
// relay's headers and `_meta`). Pure: a method and params in, the body and
// headers out. The Authorization header is added by the client, per request.

import type { JsonObject } from "../wire/mcp.ts";
import { NAME, VERSION } from "../wire/identity.ts";

/** The relay's MCP revision: stateless, no handshake, `_meta` on every request. */
export const RELAY_PROTOCOL_VERSION = "2026-07-28";

/** The `_meta` keys of the relay's stateless revision. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

/** The two MCP methods the facade forwards. */
export type RelayMethod = "tools/list" | "tools/call";

/** A request ready to sign and send. */
export interface PreparedRequest {
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/** `Mcp-Name` as the relay expects it: plain ASCII as is, anything else as `=?base64?…?=`. */
export function encodeHeaderValue(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value;
  return `=?base64?${new TextEncoder().encode(value).toBase64()}?=`;
}

/** A JSON-RPC request to `<relay>/mcp` with the stateless revision's headers and `_meta`. */
export function mcpRequest(id: number, method: RelayMethod, params: JsonObject): PreparedRequest {
  const message = {
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        [META_PROTOCOL_VERSION]: RELAY_PROTOCOL_VERSION,
        [META_CLIENT_CAPABILITIES]: {},
        [META_CLIENT_INFO]: { name: NAME, version: VERSION },
      },
    },
  };
  const headers: Record<string, string> = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": RELAY_PROTOCOL_VERSION,
    "Mcp-Method": method,
  };
  if (method === "tools/call") headers["Mcp-Name"] = encodeHeaderValue(String(params.name));
  return { body: new TextEncoder().encode(JSON.stringify(message)), headers };
}

/** A NIP-86 management request to `<relay>/manage/rpc`. */
export function manageRequest(method: string, params: unknown[]): PreparedRequest {
  return {
    body: new TextEncoder().encode(JSON.stringify({ method, params })),
    headers: {
      "Accept": "application/nostr+json+rpc, application/json",
      "Content-Type": "application/nostr+json+rpc",
    },
  };
}

/**
 * The largest request body the relay takes when its operator sets no other (tinyrelay's MCP server
 * default, 1 MiB; `--max-message-bytes` replaces it).
 */
export const RELAY_BODY_BOUND = 1024 * 1024;

/** The bytes a tools/call of `name` with `args` takes on the wire, its id at its longest. */
export function callBodyBytes(name: string, args: JsonObject): number {
  return mcpRequest(Number.MAX_SAFE_INTEGER, "tools/call", { name, arguments: args }).body.length;
}
