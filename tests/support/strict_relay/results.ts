// The shapes tool handlers answer with: results as the relay writes them, NIP-86 errors, and the test
// for a scripted Fault. (The relay has no 429: a test wanting one puts a front before it, rate_front.ts.)

import { goJson, isRecord } from "./values.ts";
import type { Fault, ToolResult } from "./types.ts";

/**
 * A tool's answer as tinyrelay's mcp.Value makes it: the value as structuredContent, mirrored as one
 * text block of its JSON (Go's escaping).
 */
export function relayValue(value: unknown): ToolResult {
  return { content: [{ type: "text", text: goJson(value) }], structuredContent: value, isError: false };
}

/**
 * A tool failure as tinyrelay's mcp.Failure makes it: the message as the text, and the structured data
 * that helps correct the call, or null when there is none (the relay always sends the member).
 */
export function relayFailure(message: string, structured: unknown = null): ToolResult {
  return { content: [{ type: "text", text: message }], structuredContent: structured, isError: true };
}

/** A tool failure written by a test: an isError result whose text the agent can act on. */
export function toolError(message: string, structured: Record<string, unknown> = { message }): ToolResult {
  return { content: [{ type: "text", text: message }], structuredContent: structured, isError: true };
}

/** A successful tool result with its structured content mirrored as a JSON text block. */
export function toolOk(structured: Record<string, unknown>): ToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: false,
  };
}

/** True for the Fault shapes; a plain result object with only a numeric `status` is not one. */
export function isFault(v: unknown): v is Fault {
  if (!isRecord(v)) return false;
  if (v.drop === true || v.resetMidBody === true || v.hang === true || v.cutAfterRun === true) return true;
  if (isRecord(v.jsonrpcError) || typeof v.hugeBodyBytes === "number") return true;
  const rawKeys = ["status", "body", "headers", "contentType"];
  return typeof v.status === "number" && Object.keys(v).every((k) => rawKeys.includes(k));
}

/** A NIP-86 error answer; the status follows the relay's prefixes unless given. */
export function nip86Error(message: string, status?: number): Fault {
  const code = status ??
    (message.startsWith("auth-required:") ? 401 : /^(restricted|blocked):/.test(message) ? 403 : 400);
  return { status: code, body: JSON.stringify({ error: message }) };
}
