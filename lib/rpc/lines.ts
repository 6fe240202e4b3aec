// The helper's line protocol (rpc-facts.md section 2): a request line read
// into its id (as written), method and params, and every line the helper
// writes, field for field as the Go peer writes them: `id`, `result`,
// `error`, `event`, `subscription`, `data`, absent ones left out, `<`, `>`,
// `&`, U+2028 and U+2029 escaped. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { rawMember } from "../wire/json_raw.ts";

/** A request, ready to dispatch. */
export interface RpcRequest {
  /** The id's JSON text exactly as written; undefined when the line has none. */
  id?: string;
  method: string;
  /** `{}` when absent or null. */
  params: JsonObject;
  /** The whole line, for a member wanted exactly as written (`request`'s body). */
  line: string;
}

export type ParsedLine =
  | { request: RpcRequest }
  /** Answered at once: the id when one could be read, and what is wrong. */
  | { refused: { id?: string; message: string } };

/** Reads one input line; anything that is not a request is refused with the reason. */
export function parseRequestLine(line: string): ParsedLine {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch (error) {
    // Where the parser stopped, never what it read: the line may hold anything, a key included.
    const at = /at position (\d+)/.exec((error as Error).message)?.[1];
    const why = line.trim() === ""
      ? "the line is empty"
      : `the line is not JSON${at ? ` (at position ${at})` : ""}`;
    return { refused: { message: `invalid request: ${why}` } };
  }
  if (!isObject(message)) return { refused: { message: "invalid request: the line is not one JSON object" } };
  const id = Object.hasOwn(message, "id") ? rawMember(line, ["id"]) : undefined;
  const refused = (why: string): ParsedLine => ({ refused: { id, message: `invalid request: ${why}` } });
  const method = message.method ?? "";
  if (typeof method !== "string") return refused("method must be a string");
  const params = message.params ?? {};
  if (!isObject(params)) return refused("params must be a JSON object");
  return { request: { ...(id === undefined ? {} : { id }), method, params, line } };
}

/** What the Go encoder escapes that JSON.stringify does not: safe in any reader, the same value. */
const GO_ESCAPED = /[<>&\u2028\u2029]/g;

function goJson(text: string): string {
  return text.replace(GO_ESCAPED, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** A value as JSON text (`null` for undefined), escaped as the Go peer escapes it. */
function encode(value: unknown): string {
  return goJson(JSON.stringify(value) ?? "null");
}

function withId(id: string | undefined, rest: string): string {
  return id === undefined ? `{${rest}}` : `{"id":${id},${rest}}`;
}

/** A call's success. */
export function resultLine(id: string | undefined, result: unknown): string {
  return withId(id, `"result":${encode(result)}`);
}

/** A call's failure, or a line that is no request (then without id). */
export function errorLine(id: string | undefined, message: string): string {
  return withId(id, `"error":${encode({ message })}`);
}

/** A subscription is live on a new connection: its history is being sent, or has been. */
export function connectedLine(subscription: string): string {
  return `{"event":"connected","subscription":${encode(subscription)}}`;
}

/** An event for a subscription; `data` holds the seven members in the NIP-01 order. */
export function eventLine(
  subscription: string,
  event: {
    id: string;
    pubkey: string;
    created_at: number;
    kind: number;
    tags: string[][];
    content: string;
    sig: string;
  },
): string {
  const { id, pubkey, created_at, kind, tags, content, sig } = event;
  return `{"event":"event","subscription":${encode(subscription)},"data":${
    encode({ id, pubkey, created_at, kind, tags, content, sig })
  }}`;
}

/** A subscription's stream ended while the helper goes on, or could not keep up: in words. */
export function streamErrorLine(subscription: string, message: string): string {
  return `{"event":"error","subscription":${encode(subscription)},"data":${encode({ message })}}`;
}
