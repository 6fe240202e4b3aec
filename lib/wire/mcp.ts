// The wire vocabulary, named once: JSON-RPC codes, the MCP versions on each
// side, and the tool and result shapes the host and the relay exchange.
// Types and constants only, plus the one constructor every layer uses for a
// tool error.

/** A JSON object as parsed from the host or the relay. */
export type JsonObject = Record<string, unknown>;

/** A JSON-RPC request id as the host sent it. */
export type RpcId = string | number | null;

/**
 * The JSON text of an id on its way back to the host: a numeric id as the
 * exact text the host wrote when that is at hand, so `9007199254740993` is
 * not echoed as `9007199254740992` (JSON.parse rounds it).
 */
export function idText(id: RpcId, raw?: string): string {
  if (typeof id === "number" && raw !== undefined && Number(raw) === id) return raw;
  return JSON.stringify(id);
}

/** JSON-RPC 2.0 error codes tinyagent answers with. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** Handshake versions answered as asked (facade.md, `initialize`); any other gets the fallback. */
export const HANDSHAKE_VERSIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
export const FALLBACK_VERSION = "2025-06-18";

/** The relay's MCP revision: stateless, no handshake, `_meta` on every request. */
export const RELAY_PROTOCOL_VERSION = "2026-07-28";

/** The `_meta` keys of the relay's stateless revision. */
export const META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
export const META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
export const META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

/** One entry of a `tools/list` answer. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: JsonObject;
}

/** One block of a tool result's `content`: text, image, audio, resource and others. */
export interface ContentBlock {
  type: string;
  text?: string;
  [field: string]: unknown;
}

/** What a `tools/call` answers with when the host should show the model a result. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: unknown;
  isError?: boolean;
  [field: string]: unknown;
}

/** A JSON-RPC error the host receives instead of a tool result. */
export interface CallError {
  code: number;
  message: string;
}

/** The answer to one `tools/call`: a result, or a protocol error such as `-32602 Unknown tool`. */
export type CallOutcome = { result: CallToolResult } | { error: CallError };

/** A tool result the model reads as a failure; `structuredContent` is carried when given. */
export function toolError(text: string, structuredContent?: unknown): CallToolResult {
  const result: CallToolResult = { content: [{ type: "text", text }], isError: true };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  return result;
}
