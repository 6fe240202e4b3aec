// One line of the audit log (`--audit-log FILE`): a JSON object per write,
// signed or held back, that anyone can check later. A signed event is kept
// whole, exactly as signed, so it verifies as it stands. Pure.

import type { JsonObject } from "../wire/mcp.ts";
import type { WriteOutcome } from "./receipt.ts";

/** Longer argument strings are not kept: the signed event carries the content whole. */
export const ARGUMENT_STRING_LIMIT = 4096;
/** Arguments nested deeper are kept only as a note: no write tool takes anything so deep. */
export const ARGUMENT_DEPTH_LIMIT = 32;
/** A relay answer whose JSON is longer is kept only as its size. */
export const ANSWER_LIMIT = 64 * 1024;

/** What a write led to, in the log: the relay's verdict, or `held` when tinyagent signed nothing. */
export type AuditOutcome = WriteOutcome["status"] | "held";

export interface AuditEntry {
  /** When the write ended, ISO 8601 in UTC. */
  time: string;
  /** Which tinyagent process wrote it: several sessions may share one log. */
  session: string;
  relay: string;
  tool: string;
  /** The call's arguments, long strings replaced by their length. */
  arguments: JsonObject;
  /** The event exactly as signed and sent. */
  event?: JsonObject;
  /** For a write approved in the room: the approver's signed answer (its id) and who signed it. */
  approved_by?: { event: string; author: string };
  /** For a write made by a program the agent wrote: the tool that ran it, its intent, the write's key. */
  via?: { tool: string; intent?: string; idempotency_key?: string };
  /** For a write held back: the unsigned event the relay returned, when there was one. */
  template?: JsonObject;
  /** The relay's answer to the write: its result, or the failure's words. */
  answer?: unknown;
  outcome: AuditOutcome;
  /** For a refused or held write, why; for an unknown one, what was lost. */
  why?: string;
}

/**
 * `args` with every string over the limit replaced by a note of its length, and anything nested
 * past the depth limit by a note (so a line can always be written).
 */
export function loggedArguments(args: JsonObject): JsonObject {
  const keep = (value: unknown, depth: number): unknown => {
    if (typeof value === "string") {
      return value.length > ARGUMENT_STRING_LIMIT
        ? `[not logged: ${value.length.toLocaleString("en-US")} characters]`
        : value;
    }
    if (value === null || typeof value !== "object") return value;
    if (depth >= ARGUMENT_DEPTH_LIMIT) return `[not logged: nested over ${ARGUMENT_DEPTH_LIMIT} deep]`;
    if (Array.isArray(value)) return value.map((inner) => keep(inner, depth + 1));
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, keep(inner, depth + 1)]));
  };
  return keep(args, 0) as JsonObject;
}

/** The relay's answer as logged: whole, unless its JSON is over the limit. */
export function loggedAnswer(answer: unknown): unknown {
  // A value parsed from JSON always serializes (V8's JSON.stringify is not limited by depth).
  const text = JSON.stringify(answer);
  if (text === undefined) return null;
  return text.length > ANSWER_LIMIT
    ? { truncated: true, bytes: new TextEncoder().encode(text).length }
    : answer;
}

/** The `why` of an entry: the refusal's message, the lost answer's detail, or the hold's reason. */
export function outcomeWhy(outcome: WriteOutcome): string | undefined {
  switch (outcome.status) {
    case "accepted":
      return undefined;
    case "refused":
      return outcome.message;
    case "not sent":
    case "unknown":
      return outcome.detail;
  }
}

/** One entry as its line (no newline). A value JSON cannot hold (a cycle) never gets this far. */
export function auditLine(entry: AuditEntry): string {
  return JSON.stringify(entry);
}
