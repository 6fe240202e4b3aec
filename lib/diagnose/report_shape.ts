// The shape of diagnose's report (facade.md, `tiny_diagnose`): the checks,
// the verdict and its exit status, and the wording every part of the report
// shares. Pure.

import type { Asked, FailureClassName } from "./classify.ts";
import type { Identity } from "../key/signer.ts";

export type Verdict = "ok" | "needs-grant" | "not-a-member" | "unauthorized" | "unreachable" | "error";
export type CheckStatus = "pass" | "fail" | "skip";

export interface Check {
  status: CheckStatus;
  detail: string;
}

export interface GrantCheck extends Check {
  state?: string;
  enforced?: boolean;
  name?: string;
  operator?: string;
  expires?: number;
  paused?: boolean;
  revoked?: boolean;
}

export interface Checks {
  reachability: Check & { http_status?: number };
  authentication: Check & { class?: FailureClassName; http_status?: number };
  /** `class` only when a members-only relay refused the key (the signature itself passed). */
  membership: Check & { member?: boolean; role?: string; class?: FailureClassName };
  grant: GrantCheck;
  coverage: Check & { asked: Asked; missing: Asked };
}

/** Arguments for `request_grant` that would ask for what is missing. */
export interface GrantRequest {
  reason: string;
  changes: { rooms?: string[]; kinds?: number[] };
}

export interface Report {
  relay: string;
  pubkey: string;
  npub: string;
  verdict: Verdict;
  advice: string;
  checks: Checks;
  /** Present when asking for what is missing is the way forward. */
  request_grant?: GrantRequest;
  /** The relay's last refusal this session saw, when its words named a cause: the tool, the words, the cause. */
  last_refusal?: { tool: string; said: string; cause: string; advice: string };
}

/** What every report needs besides the answer. `npubOf` spells an operator's hex key. */
export interface ReportContext {
  relay: string;
  identity: Identity;
  asked: Asked;
  npubOf(hex: string): string;
}

/** The contract's exit statuses: 0 ok, 2 the relay refuses access, 3 unreachable or error. */
const EXIT: Readonly<Record<Verdict, number>> = {
  "ok": 0,
  "needs-grant": 2,
  "not-a-member": 2,
  "unauthorized": 2,
  "unreachable": 3,
  "error": 3,
};

export function exitCode(verdict: Verdict): number {
  return EXIT[verdict];
}

export const NONE: Asked = { rooms: [], kinds: [] };
export const NOT_CHECKED: Check = { status: "skip", detail: "not checked" };

export function listText(asked: Asked): string {
  const parts: string[] = [];
  if (asked.rooms.length > 0) parts.push(`rooms ${asked.rooms.join(", ")}`);
  if (asked.kinds.length > 0) parts.push(`kinds ${asked.kinds.join(", ")}`);
  return parts.join(" and ");
}

export function covering(asked: Asked): string {
  const text = listText(asked);
  return text ? ` covering ${text}` : "";
}

export function isEmpty(asked: Asked): boolean {
  return asked.rooms.length + asked.kinds.length === 0;
}

export function formatTime(seconds: number | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z") : "an unknown time";
}

export function giveKey(ctx: ReportContext): string {
  return `give the relay owner this key's public key ${ctx.identity.npub}`;
}

/** A report whose checks default to "not checked" but for those given. */
export function report(
  ctx: ReportContext,
  verdict: Verdict,
  advice: string,
  checks: Partial<Checks>,
): Report {
  return {
    relay: ctx.relay,
    pubkey: ctx.identity.pubkey,
    npub: ctx.identity.npub,
    verdict,
    advice,
    checks: {
      reachability: { status: "pass", detail: "the relay answered" },
      authentication: { ...NOT_CHECKED },
      membership: { ...NOT_CHECKED },
      grant: { ...NOT_CHECKED },
      coverage: { ...NOT_CHECKED, asked: ctx.asked, missing: NONE },
      ...checks,
    },
  };
}

export const SIGNATURE_ACCEPTED: Check = {
  status: "pass",
  detail: "the relay accepted this key's signature",
};
