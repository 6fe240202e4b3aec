// A relay tool call made for a resource (a read, a listing, a completion), read back: the relay's
// structured answer, or why there is none, sorted so each becomes the right JSON-RPC error: an id
// the relay does not know (-32602, with the nearest that do resolve, the caller's to find), the
// relay rate-limiting the key (when to retry: the number the facade carries beside the result, never
// read back from its words), a refusal or a failure on the way
// (the facade's marked words), or an answer that carries nothing tinyagent can read. Pure.

import { isObject, parseJson } from "../wire/json.ts";
import type { CallError, CallOutcome } from "../wire/mcp.ts";
import { echoedUri } from "./nearest.ts";
import { shown } from "./text.ts";

/** JSON-RPC's implementation-defined server error: the relay refused or failed, not the request. */
export const RELAY_FAILED = -32000;

/** Why a call gave no answer. */
export type FailureKind = "unknown-id" | "rate-limited" | "transport" | "refused" | "unreadable";

export interface ToolFailure {
  kind: FailureKind;
  /** The words as the caller met them (the facade's marks kept), on one line. */
  text: string;
  /** For `rate-limited`: seconds to wait. */
  retryAfter?: number;
}

export type ToolReading = { ok: true; answer: Record<string, unknown> } | { ok: false; failure: ToolFailure };

/**
 * The relay's words for an id it does not have (a room, an event, a repository, a file); its
 * read_attachment puts "attachment unavailable: " before the reason of every failure of a read.
 */
const NOT_FOUND = /^(?:relay: )?(?:attachment unavailable: )?(?:not found\b|file does not exist\b)/i;

/** The text of a result's first text block, on one line and bounded. */
function firstText(result: Record<string, unknown>): string {
  const block = Array.isArray(result.content)
    ? result.content.find((b) => isObject(b) && b.type === "text")
    : undefined;
  const text = isObject(block) && typeof block.text === "string" ? block.text : "";
  return text.replace(/\s+/g, " ").trim().slice(0, 2000);
}

/** A failure from its words, and the wait the relay asked for when it rate-limited the call. */
function failureOf(text: string, retryAfter: number | undefined): ToolFailure {
  if (retryAfter !== undefined) return { kind: "rate-limited", text, retryAfter };
  if (NOT_FOUND.test(text)) return { kind: "unknown-id", text };
  if (text.startsWith("transport:")) return { kind: "transport", text };
  return { kind: "refused", text };
}

/** What a call of `tool` answered: its structured answer (an object), or why there is none. */
export function readOutcome(tool: string, outcome: CallOutcome): ToolReading {
  if ("error" in outcome) return { ok: false, failure: { kind: "refused", text: outcome.error.message } };
  const result = outcome.result as Record<string, unknown>;
  if (result.isError === true) {
    const text = firstText(result) || `${tool} failed, saying nothing`;
    return { ok: false, failure: failureOf(text, outcome.retryAfter) };
  }
  if (isObject(result.structuredContent)) return { ok: true, answer: result.structuredContent };
  // The relay mirrors its structured answer in the text block; a result without it may still carry it there.
  if (result.structuredContent === undefined) {
    const block = Array.isArray(result.content) && result.content.length === 1
      ? result.content[0]
      : undefined;
    const parsed = isObject(block) && typeof block.text === "string" ? parseJson(block.text) : undefined;
    if (isObject(parsed)) return { ok: true, answer: parsed };
  }
  return {
    ok: false,
    failure: {
      kind: "unreadable",
      text: `the relay's answer to ${tool} carries no structured answer tinyagent can read`,
    },
  };
}

/**
 * The JSON-RPC error for a failure of a request about `uri` (every kind but `unknown-id`, which is
 * a refusal naming the nearest URIs): the words, and in `data` the URI, the reason and, when the
 * relay is rate-limiting the key, `retryAfter` in seconds.
 */
export function failureError(
  uri: string,
  failure: ToolFailure,
  doing: "read" | "list" | "complete" = "read",
): CallError {
  const data: Record<string, unknown> = { uri: echoedUri(uri), reason: failure.kind };
  if (failure.retryAfter !== undefined) data.retryAfter = failure.retryAfter;
  const what = uri === "" ? "" : ` ${shown(echoedUri(uri), 200)}`;
  const message = failure.kind === "rate-limited"
    ? `The relay is rate-limiting this key: retry after ${failure.retryAfter} s (${failure.text})`
    : `Cannot ${doing}${what}: ${failure.text}`;
  return { code: RELAY_FAILED, message, data };
}
