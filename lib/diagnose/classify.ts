// The contract's browsegrant table (facade.md, `tiny_diagnose`): how the one
// signed NIP-86 answer is classified by its HTTP status. Pure.

import { excerpt, isObject, parseJson } from "../wire/json.ts";
import { type HttpOutcome, relayMessage } from "../relay/answer.ts";

/** Why the signed call failed; the `class` of the contract's table. */
export type FailureClassName = "authorization" | "rate-limited" | "protocol" | "transport";

/** Rooms and kinds asked about, or missing from the grant. */
export interface Asked {
  rooms: string[];
  kinds: number[];
}

/** The relay's browsegrant result, as far as the verdict reads it. */
export interface GrantAnswer {
  member: boolean;
  role: string;
  state: string;
  enforced: boolean;
  expires?: number;
  grant: null | {
    name?: string;
    owner?: string;
    expires?: number;
    paused?: boolean;
    revoked?: boolean;
  };
  missing?: Asked;
}

/** How the one signed call ended. */
export type Classified =
  | { kind: "result"; answer: GrantAnswer; status: number }
  | { kind: "old-relay"; message: string; status: number }
  | { kind: "failure"; class: FailureClassName; message: string; status?: number };

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined;
}

function kindList(value: unknown): number[] | undefined {
  return Array.isArray(value) && value.every((item) => Number.isInteger(item) && item >= 0 && item <= 65535)
    ? value
    : undefined;
}

/** Reads a browsegrant result; undefined when it is not one. */
export function parseGrantAnswer(value: unknown): GrantAnswer | undefined {
  if (!isObject(value) || typeof value.member !== "boolean") return undefined;
  const role = value.role ?? "";
  const state = value.state ?? "none";
  if (typeof role !== "string" || typeof state !== "string") return undefined;
  // The relay enforces grants on agents and on keys without a role.
  const enforced = typeof value.enforced === "boolean" ? value.enforced : role === "" || role === "agent";
  const grant = value.grant ?? null;
  if (grant !== null && !isObject(grant)) return undefined;
  const answer: GrantAnswer = { member: value.member, role, state, enforced, grant };
  if (typeof value.expires === "number") answer.expires = value.expires;
  if (value.missing !== undefined && value.missing !== null) {
    if (!isObject(value.missing)) return undefined;
    const rooms = stringList(value.missing.rooms ?? []);
    const kinds = kindList(value.missing.kinds ?? []);
    if (!rooms || !kinds) return undefined;
    answer.missing = { rooms, kinds };
  }
  return answer;
}

/**
 * Classifies the signed browsegrant answer by HTTP status: 200 with a result;
 * 401/403 authorization; 400 `unsupported:` an old relay whose signature
 * check passed; 429 rate-limited; any other 4xx protocol; 5xx, no answer or
 * an invalid result transport. No other 4xx is read as a working signature.
 */
export function classify(outcome: HttpOutcome): Classified {
  if (!outcome.ok) return { kind: "failure", class: "transport", message: outcome.failure.detail };
  const { status, bodyText } = outcome;
  const body = parseJson(bodyText);
  const error = relayMessage(body);
  const message = error ?? (bodyText.trim() ? excerpt(bodyText, 300) : `HTTP ${status}`);
  if (status === 401 || status === 403) return { kind: "failure", class: "authorization", message, status };
  if (status === 429) return { kind: "failure", class: "rate-limited", message, status };
  if (status >= 500) {
    return { kind: "failure", class: "transport", message: `HTTP ${status}: ${message}`, status };
  }
  if (status === 400 && error?.startsWith("unsupported:")) {
    return { kind: "old-relay", message: error, status };
  }
  if (status !== 200) {
    return { kind: "failure", class: "protocol", message: `HTTP ${status}: ${message}`, status };
  }
  const answer = isObject(body) ? parseGrantAnswer(body.result) : undefined;
  if (!answer) {
    return {
      kind: "failure",
      class: "transport",
      message: "the relay's browsegrant answer is not a valid result",
      status,
    };
  }
  return { kind: "result", answer, status };
}
