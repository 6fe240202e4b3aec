// JSON-RPC 2.0 lines between the host and tinyagent: one input line read into
// a request, an answer already decided, a response to a request of ours or a
// notification; an answer written with its id exactly as the host wrote it.
// Pure.

import { isObject } from "../wire/json.ts";
import { INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, type RpcId } from "../wire/mcp.ts";
import { rawIdOf } from "./line_id.ts";
import type { HostResponse } from "./channel.ts";

/**
 * The JSON text of an id on its way back to the host: a numeric id as the
 * exact text the host wrote when that is at hand, so `9007199254740993` is
 * not echoed as `9007199254740992` (JSON.parse rounds it).
 */
export function idText(id: RpcId, raw?: string): string {
  if (typeof id === "number" && raw !== undefined && Number(raw) === id) return raw;
  return JSON.stringify(id);
}

/** A JSON-RPC message to write to the host. */
export type Answer =
  | { jsonrpc: "2.0"; id: RpcId; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId; error: { code: number; message: string; data?: unknown } };

/** A well-formed request, ready to dispatch. */
export interface Request {
  id: string | number;
  /** A numeric id's JSON text as the host wrote it, echoed as is on the wire. */
  rawId?: string;
  method: string;
  params: unknown;
}

/**
 * What one input line is: a request, an answer already decided (a protocol error), a response to
 * a request of ours (channel.ts), or nothing to answer.
 */
export type Parsed =
  | { request: Request }
  | { answer: Answer; rawId?: string }
  | { response: HostResponse }
  /** A notification: nothing is answered; its method and params are handed to whoever listens. */
  | { notification: { method: string; params: unknown } }
  | { ignore: true };

/**
 * One answer as its line, with the id exactly as the host wrote it. An answer
 * that cannot be encoded (a relay result nested too deep to write) becomes an
 * internal error for the same id, never a crash.
 */
export function encodeAnswer(answer: Answer, rawId?: string, log?: (line: string) => void): string {
  const head = `{"jsonrpc":"2.0","id":${idText(answer.id, rawId)},`;
  try {
    const body = "result" in answer
      ? JSON.stringify({ result: answer.result })
      : JSON.stringify({ error: answer.error });
    return head + body.slice(1);
  } catch (error) {
    log?.(`internal error: the answer could not be encoded (${(error as Error).message})`);
    return `${head}"error":${
      JSON.stringify({ code: INTERNAL_ERROR, message: "Internal error: the answer could not be encoded" })
    }}`;
  }
}

export function errorAnswer(id: RpcId, code: number, message: string): Answer {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/**
 * Reads one input line as JSON-RPC. Notifications and blank lines are ignored, a response is
 * handed on for matching (never answered: JSON-RPC forbids it); anything malformed is answered
 * with the matching error.
 */
export function parseLine(line: string): Parsed {
  if (line.trim() === "") return { ignore: true };
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { answer: errorAnswer(null, PARSE_ERROR, "Parse error: the line is not valid JSON") };
  }
  if (!isObject(message)) {
    return { answer: errorAnswer(null, PARSE_ERROR, "Parse error: the line is not one JSON object") };
  }
  const hasId = Object.hasOwn(message, "id");
  const rawId = message.id;
  const validId = typeof rawId === "string" || (typeof rawId === "number" && Number.isFinite(rawId));
  const id: RpcId = validId ? rawId as string | number : null;
  // A numeric id is echoed as written; the line is scanned for its text only then.
  const raw = validId && typeof rawId === "number" ? rawIdOf(line) : undefined;
  const invalid = (why: string): Parsed => ({
    answer: errorAnswer(id, INVALID_REQUEST, `Invalid Request: ${why}`),
    rawId: raw,
  });
  if (message.jsonrpc !== "2.0") return invalid('jsonrpc must be "2.0"');
  if (typeof message.method !== "string") {
    if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
      return { response: { id: message.id, result: message.result, error: message.error } };
    }
    return invalid("method must be a string");
  }
  // A notification is never answered, whatever its method; a session may act on some (session/mcp.ts).
  if (!hasId) return { notification: { method: message.method, params: message.params } };
  if (!validId) {
    return { answer: errorAnswer(null, INVALID_REQUEST, "Invalid Request: id must be a string or a number") };
  }
  const params = message.params;
  if (params !== undefined && !isObject(params) && !Array.isArray(params)) {
    return invalid("params must be an object or an array");
  }
  return { request: { id: id as string | number, rawId: raw, method: message.method, params } };
}
