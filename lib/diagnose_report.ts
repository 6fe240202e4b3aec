// diagnose's checks, verdict and advice (facade.md, `tiny_diagnose`): from
// the classified browsegrant answer to the report a person or an agent reads.
// Pure: every check is computed from the answer, never mutated afterwards.

import type { Asked, Classified, FailureClassName, GrantAnswer } from "./diagnose_classify.ts";
import type { Identity } from "./signer.ts";

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

const NONE: Asked = { rooms: [], kinds: [] };
const NOT_CHECKED: Check = { status: "skip", detail: "not checked" };

function listText(asked: Asked): string {
  const parts: string[] = [];
  if (asked.rooms.length > 0) parts.push(`rooms ${asked.rooms.join(", ")}`);
  if (asked.kinds.length > 0) parts.push(`kinds ${asked.kinds.join(", ")}`);
  return parts.join(" and ");
}

function covering(asked: Asked): string {
  const text = listText(asked);
  return text ? ` covering ${text}` : "";
}

function isEmpty(asked: Asked): boolean {
  return asked.rooms.length + asked.kinds.length === 0;
}

function formatTime(seconds: number | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z") : "an unknown time";
}

function giveKey(ctx: ReportContext): string {
  return `give the relay owner this key's public key ${ctx.identity.npub}`;
}

/** Builds the report for one classified answer. */
export function buildReport(ctx: ReportContext, answer: Classified): Report {
  switch (answer.kind) {
    case "failure":
      return failureReport(ctx, answer);
    case "old-relay":
      return oldRelayReport(ctx, answer);
    case "result":
      return grantReport(ctx, answer.answer, answer.status);
  }
}

function report(ctx: ReportContext, verdict: Verdict, advice: string, checks: Partial<Checks>): Report {
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

/** The signed call failed: the class decides the verdict, and the relay's words go in the advice. */
function failureReport(ctx: ReportContext, c: Extract<Classified, { kind: "failure" }>): Report {
  const authentication = {
    status: "fail" as const,
    class: c.class,
    detail: c.message,
    http_status: c.status,
  };
  const reachability = { status: "pass" as const, detail: "the relay answered", http_status: c.status };
  switch (c.class) {
    case "transport":
      // The failure is the reachability's, said once there; no signature was judged.
      return report(
        ctx,
        "unreachable",
        `the relay at ${ctx.relay} gave no usable answer: check --relay, the network ` +
          `and that the relay is running, then try again`,
        {
          reachability: { status: "fail", detail: c.message, http_status: c.status },
          authentication: { status: "skip", class: c.class, detail: "not checked: no usable answer" },
        },
      );
    case "authorization":
      if (c.status === 403 && /members[- ]only/i.test(c.message)) {
        // The relay judged the signature good, then refused the key as not a member.
        return report(
          ctx,
          "not-a-member",
          `the relay is members-only and this key is not a member: ask the relay owner for ` +
            `membership or an agent grant${covering(ctx.asked)}; ${giveKey(ctx)}`,
          {
            reachability,
            authentication: SIGNATURE_ACCEPTED,
            membership: { status: "fail", member: false, class: c.class, detail: c.message },
          },
        );
      }
      return report(
        ctx,
        "unauthorized",
        `the relay refused the signed request (HTTP ${c.status}: ${c.message}): check that the key ` +
          `is the agent key the relay expects, that --relay is the exact URL it serves (with any tenant prefix), ` +
          `and that this machine's clock is right (tokens are valid for 60 s)`,
        { reachability, authentication },
      );
    case "rate-limited":
      return report(
        ctx,
        "unreachable",
        `the relay is rate-limiting this key (HTTP 429: ${c.message}): retry in a minute or two`,
        { reachability, authentication },
      );
    case "protocol":
      return report(
        ctx,
        "error",
        `the relay answered the signed browsegrant call with ${c.message} instead of a result: check ` +
          `that --relay is the exact URL the relay serves, with its tenant prefix, and that the relay is current`,
        { reachability, authentication },
      );
  }
}

const SIGNATURE_ACCEPTED: Check = { status: "pass", detail: "the relay accepted this key's signature" };

/** A relay that predates browsegrant: the signature works, the rest cannot be read. */
function oldRelayReport(ctx: ReportContext, c: Extract<Classified, { kind: "old-relay" }>): Report {
  const detail = `not readable: the relay predates browsegrant (${c.message})`;
  return report(
    ctx,
    "ok",
    "the relay accepts this key's signature but predates browsegrant, so membership and the grant " +
      "cannot be read here; if a tool is refused, ask the relay owner to upgrade the relay",
    {
      reachability: { status: "pass", detail: "the relay answered", http_status: c.status },
      authentication: SIGNATURE_ACCEPTED,
      membership: { status: "skip", detail },
      grant: { status: "skip", detail },
      coverage: { status: "skip", detail, asked: ctx.asked, missing: NONE },
    },
  );
}

/** The grant check's fields as the relay reported them, before its status and detail are judged. */
function grantFields(answer: GrantAnswer): Omit<GrantCheck, "status" | "detail"> {
  const fields: Omit<GrantCheck, "status" | "detail"> = { state: answer.state, enforced: answer.enforced };
  const grant = answer.grant;
  if (!grant) return fields;
  if (grant.name !== undefined) fields.name = grant.name;
  if (grant.owner !== undefined) fields.operator = grant.owner;
  const expires = grant.expires ?? answer.expires;
  if (expires !== undefined) fields.expires = expires;
  if (grant.paused !== undefined) fields.paused = grant.paused;
  if (grant.revoked !== undefined) fields.revoked = grant.revoked;
  return fields;
}

function coverageCheck(asked: Asked, missing: Asked): Checks["coverage"] {
  if (isEmpty(asked)) return { status: "skip", asked, missing, detail: "no rooms or kinds asked about" };
  return isEmpty(missing)
    ? { status: "pass", asked, missing, detail: `the grant covers ${listText(asked)}` }
    : { status: "fail", asked, missing, detail: `the grant lacks ${listText(missing)}` };
}

/** The advice for a grant that is not active, by state; any state the relay may add reads as not active. */
function inactiveGrantAdvice(ctx: ReportContext, state: string, operator: string, expires?: number): string {
  switch (state) {
    case "none":
      return `this key holds no agent grant: ask the relay owner for one${covering(ctx.asked)}; ${
        giveKey(ctx)
      }`;
    case "paused":
      return `the agent grant is paused: ask ${operator} to resume it`;
    case "revoked":
      return `the agent grant was revoked: ask ${operator} for a new grant${covering(ctx.asked)}; ${
        giveKey(ctx)
      }`;
    case "expired":
      return `the agent grant expired at ${formatTime(expires)}: ask ${operator} to renew it${
        covering(ctx.asked)
      }`;
    default:
      return `the agent grant is ${state}, not active: ask ${operator} to make it active${
        covering(ctx.asked)
      }`;
  }
}

/** A browsegrant result: membership, then whether grants apply, then the grant's state, then coverage. */
function grantReport(ctx: ReportContext, answer: GrantAnswer, status: number): Report {
  const owner = answer.grant?.owner;
  const operator = owner && /^[0-9a-f]{64}$/.test(owner)
    ? `the grant's operator ${ctx.npubOf(owner)}`
    : "the relay owner";
  const missing = answer.enforced ? answer.missing ?? NONE : NONE;
  const fields = grantFields(answer);
  const checks: Partial<Checks> = {
    reachability: { status: "pass", detail: "the relay answered", http_status: status },
    authentication: SIGNATURE_ACCEPTED,
    membership: {
      status: answer.member ? "pass" : "fail",
      member: answer.member,
      role: answer.role,
      detail: answer.member ? `member with the ${answer.role || "agent"} role` : "not a member of the relay",
    },
    coverage: coverageCheck(ctx.asked, missing),
  };
  const withGrant = (grant: Check) => ({ ...checks, grant: { ...fields, ...grant } });
  // A revoked grant leaves the key outside the relay; the grant's state is the more useful answer.
  if (!answer.member && answer.state !== "revoked") {
    return report(
      ctx,
      "not-a-member",
      `this key is not a member of the relay: ask the relay owner for membership or an agent ` +
        `grant${covering(ctx.asked)}; ${giveKey(ctx)}`,
      withGrant({ status: "skip", detail: "not a member, so no grant applies" }),
    );
  }
  if (!answer.enforced) {
    return report(
      ctx,
      "ok",
      `this key holds the ${answer.role} role, so agent grants do not limit it`,
      withGrant({ status: "pass", detail: `grants do not apply to the ${answer.role} role` }),
    );
  }
  if (answer.state !== "active") {
    return report(
      ctx,
      "needs-grant",
      inactiveGrantAdvice(ctx, answer.state, operator, fields.expires),
      withGrant({
        status: "fail",
        detail: answer.state === "none" ? "no agent grant" : `the agent grant is ${answer.state}`,
      }),
    );
  }
  const name = answer.grant?.name ? ` "${answer.grant.name}"` : "";
  const until = fields.expires ? `, until ${formatTime(fields.expires)}` : "";
  const active = withGrant({ status: "pass", detail: `the agent grant${name} is active${until}` });
  if (!isEmpty(missing)) return needsCoverage(ctx, missing, operator, active);
  return report(
    ctx,
    "ok",
    isEmpty(ctx.asked)
      ? "the relay accepts this key and its grant is active"
      : `the grant covers ${listText(ctx.asked)}`,
    active,
  );
}

/** An active grant that lacks what was asked: the request_grant arguments that would ask for it. */
function needsCoverage(
  ctx: ReportContext,
  missing: Asked,
  operator: string,
  checks: Partial<Checks>,
): Report {
  const changes: GrantRequest["changes"] = {};
  if (missing.rooms.length > 0) changes.rooms = missing.rooms;
  if (missing.kinds.length > 0) changes.kinds = missing.kinds;
  const request: GrantRequest = { reason: `I need ${listText(missing)} for my current task.`, changes };
  return {
    ...report(
      ctx,
      "needs-grant",
      `the grant lacks ${listText(missing)}: call request_grant with ${JSON.stringify(request)} ` +
        `(the reason is yours to word) so ${operator} can approve it`,
      checks,
    ),
    request_grant: request,
  };
}
