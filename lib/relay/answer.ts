// Reading the relay's answers (facade.md, "Errors"): an HTTP status and body
// become a tool result or a `permission:` / `transport:` / `relay:` failure,
// and a relay refusal inside a result gets its `permission: ` mark. A 429
// says when to retry, from its Retry-After, in words a caller can read back.
// Pure.

import { excerpt, isObject, parseJson } from "../wire/json.ts";
import { INVALID_PARAMS, type JsonObject } from "../wire/mcp.ts";

/** The three prefixes an agent can act on. */
export type FailureClass = "permission" | "transport" | "relay";

export interface RelayFailure {
  class: FailureClass;
  detail: string;
  /** The relay said the tool is unknown: its table has changed. */
  unknownTool?: boolean;
  /**
   * A transport failure where the relay cannot have read the request whole (no connection could be
   * opened, nothing went out): what it would have published, it did not. Otherwise a transport
   * failure may have come after the relay read it.
   */
  unsent?: boolean;
  /** The relay is rate-limiting this key (HTTP 429): seconds to wait, from its Retry-After. */
  retryAfter?: number;
  /** The request was larger than the relay (or a front) takes (HTTP 413): it was not read, nor acted on. */
  tooLarge?: boolean;
}

/** A raw HTTP answer from the relay, or why there was none. */
export type HttpOutcome =
  | {
    ok: true;
    status: number;
    contentType: string | null;
    bodyText: string;
    /** The Retry-After header, as sent, when there is one. */
    retryAfter?: string;
  }
  | { ok: false; failure: { class: FailureClass; detail: string; unsent?: boolean } };

/** A relay answer to one MCP request: its result object, or why there is none. */
export type RelayAnswer = { ok: true; result: JsonObject } | { ok: false; failure: RelayFailure };

export function failureText(failure: RelayFailure): string {
  return `${failure.class}: ${failure.detail}`;
}

/** The relay's own words: a JSON-RPC error message, or NIP-86's `{"error": "..."}`. */
export function relayMessage(body: unknown): string | undefined {
  if (!isObject(body)) return undefined;
  const error = body.error;
  if (typeof error === "string") return error;
  if (isObject(error) && typeof error.message === "string") return error.message;
  return undefined;
}

/** A Retry-After longer than this (a day) is read as this: a wait no caller should plan past. */
export const MAX_RETRY_AFTER = 86_400;

/**
 * The seconds a Retry-After header asks to wait (RFC 9110: delta-seconds, or an HTTP-date, counted
 * from `nowMs` and rounded up), at most a day; undefined when it is neither.
 */
export function retryAfterSeconds(header: string | undefined, nowMs: number): number | undefined {
  const value = header?.trim() ?? "";
  if (/^\d{1,12}$/.test(value)) return Math.min(Number(value), MAX_RETRY_AFTER);
  if (value.length > 64 || !/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(value)) {
    return undefined;
  }
  const at = Date.parse(value);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - nowMs) / 1000)), MAX_RETRY_AFTER);
}

/** The words of a 429: the relay's own (marked `rate-limited:` when it did not say so), then when to retry. */
export function rateLimitedDetail(message: string | undefined, retryAfter: number | undefined): string {
  const said = message?.trim() ? excerpt(message.trim(), 200) : "HTTP 429";
  const words = /^rate-limited\b/i.test(said) ? said : `rate-limited: ${said}`;
  return `${words}; ${retryAfter === undefined ? "retry later" : `retry after ${retryAfter} s`}`;
}

/**
 * Interprets one HTTP answer from `<relay>/mcp` to the JSON-RPC request `id`.
 * 401/403 are permission failures, 429 the relay's rate limit (with when to
 * retry), 5xx and unusable answers are transport failures, any other JSON-RPC
 * error is the relay's. A success must be JSON with a result object for our id.
 */
export function interpretAnswer(
  status: number,
  contentType: string | null,
  bodyText: string,
  id: number,
  retryAfter?: string,
  nowMs: number = Date.now(),
): RelayAnswer {
  const body = parseJson(bodyText);
  const message = relayMessage(body);
  const statusLine = `HTTP ${status}`;
  if (status === 429) {
    return rateLimited(message ?? (bodyText.trim() ? excerpt(bodyText, 200) : undefined), retryAfter, nowMs);
  }
  if (status === 401 || status === 403) {
    return fail(
      "permission",
      message ?? (bodyText.trim() ? `${statusLine}: ${excerpt(bodyText, 200)}` : statusLine),
    );
  }
  if (status >= 500) {
    return fail(
      "transport",
      message
        ? `${statusLine}: ${message}`
        : `${statusLine}${bodyText.trim() ? `: ${excerpt(bodyText, 200)}` : ""}`,
    );
  }
  if (isObject(body) && isObject(body.error)) {
    const code = body.error.code;
    const text = message ?? `error ${String(code)}`;
    return {
      ok: false,
      failure: {
        class: "relay",
        detail: text,
        unknownTool: code === INVALID_PARAMS && /^unknown tool/i.test(text),
        ...(status === 413 ? { tooLarge: true } : {}),
      },
    };
  }
  if (status < 200 || status >= 300) {
    const refused = fail(
      "relay",
      message ?? (bodyText.trim() ? `${statusLine}: ${excerpt(bodyText, 200)}` : statusLine),
    );
    if (status === 413 && !refused.ok) refused.failure.tooLarge = true;
    return refused;
  }
  if (!contentType || !/^application\/json\b/i.test(contentType.trim())) {
    return fail(
      "transport",
      `the relay answered with ${contentType ?? "no content type"}, not application/json`,
    );
  }
  if (body === undefined) return fail("transport", "the relay's answer is not valid JSON");
  if (!isObject(body) || body.jsonrpc !== "2.0" || !isObject(body.result)) {
    return fail("transport", "the relay's answer is not a JSON-RPC result");
  }
  if (body.id !== id) {
    return fail("transport", `the relay answered request ${JSON.stringify(body.id)}, not ${id}`);
  }
  return { ok: true, result: body.result };
}

/** The relay's rate limit: its words and, from Retry-After, when to retry. */
function rateLimited(
  message: string | undefined,
  retryAfter: string | undefined,
  nowMs: number,
): RelayAnswer {
  const seconds = retryAfterSeconds(retryAfter, nowMs);
  const detail = rateLimitedDetail(message, seconds);
  return {
    ok: false,
    failure: seconds === undefined
      ? { class: "relay", detail }
      : { class: "relay", detail, retryAfter: seconds },
  };
}

function fail(cls: FailureClass, detail: string): RelayAnswer {
  return { ok: false, failure: { class: cls, detail } };
}

const PERMISSION_PREFIXES = ["restricted:", "auth-required:"];

function needsPermissionPrefix(text: unknown): text is string {
  return typeof text === "string" && PERMISSION_PREFIXES.some((prefix) => text.startsWith(prefix));
}

/**
 * Marks a relay refusal inside an `isError` result with `permission: ` so an
 * agent can answer it with `request_grant`: in every text block and in
 * `structuredContent.message` that start with `restricted:` or
 * `auth-required:`. Anything else is returned as it is.
 */
export function markPermission(result: JsonObject): JsonObject {
  if (result.isError !== true) return result;
  const marked: JsonObject = { ...result };
  if (Array.isArray(result.content)) {
    marked.content = result.content.map((block) =>
      isObject(block) && block.type === "text" && needsPermissionPrefix(block.text)
        ? { ...block, text: `permission: ${block.text}` }
        : block
    );
  }
  const structured = result.structuredContent;
  if (isObject(structured) && needsPermissionPrefix(structured.message)) {
    marked.structuredContent = { ...structured, message: `permission: ${structured.message}` };
  }
  return marked;
}
