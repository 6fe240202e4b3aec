// The wire vocabulary every layer shares, named once: JSON-RPC codes and the
// tool and result shapes the host and the relay exchange. Types and
// constants only, plus the one constructor every layer uses for a tool
// error. What only one side speaks lives with that side: the handshake's
// versions in host/protocol.ts, the relay's revision and `_meta` keys in
// relay/request.ts.

/** A JSON object as parsed from the host or the relay. */
export type JsonObject = Record<string, unknown>;

/** A JSON-RPC request id as the host sent it. */
export type RpcId = string | number | null;

/** JSON-RPC 2.0 error codes tinyagent answers with. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

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

/** A JSON-RPC error the host receives instead of a result; `data` says more to a client that reads it. */
export interface CallError {
  code: number;
  message: string;
  data?: unknown;
}

/** What a request's handler is told besides its params: the host cancelled it (`notifications/cancelled`). */
export interface RequestContext {
  signal: AbortSignal;
}

/**
 * The answer to one `tools/call`: a result, or a protocol error such as `-32602 Unknown tool`. When the
 * relay rate-limited the call (HTTP 429) and said how long to wait, `retryAfter` carries those seconds
 * as a number beside the result, for tinyagent's own readers (resources); the host is sent the result.
 */
export type CallOutcome = { result: CallToolResult; retryAfter?: number } | { error: CallError };

/** A tool result the model reads as a failure; `structuredContent` is carried when given. */
export function toolError(text: string, structuredContent?: unknown): CallToolResult {
  const result: CallToolResult = { content: [{ type: "text", text }], isError: true };
  if (structuredContent !== undefined) result.structuredContent = structuredContent;
  return result;
}

/** A tool answered in this process (`tiny_diagnose`): its table entry and how to call it. */
export interface LocalTool {
  entry: Tool;
  call(args: JsonObject, context?: RequestContext): Promise<CallToolResult>;
}
