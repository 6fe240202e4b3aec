// diagnose reading a browsegrant result (facade.md, `tiny_diagnose`):
// membership, whether grants apply to the key's role, the grant's state, then
// whether it covers the rooms and kinds asked. Pure.

import type { Asked, GrantAnswer } from "./classify.ts";
import {
  type Check,
  type Checks,
  covering,
  formatTime,
  giveKey,
  type GrantCheck,
  type GrantRequest,
  isEmpty,
  listText,
  NONE,
  type Report,
  report,
  type ReportContext,
  SIGNATURE_ACCEPTED,
} from "./report_shape.ts";

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
/** Who can change the grant: its operator when the relay names one, else the relay owner. */
function operatorOf(ctx: ReportContext, answer: GrantAnswer): string {
  const owner = answer.grant?.owner;
  return owner && /^[0-9a-f]{64}$/.test(owner)
    ? `the grant's operator ${ctx.npubOf(owner)}`
    : "the relay owner";
}

/** Every check but the grant's, which depends on the verdict. */
function checksOf(ctx: ReportContext, answer: GrantAnswer, status: number, missing: Asked): Partial<Checks> {
  return {
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
}

export function grantReport(ctx: ReportContext, answer: GrantAnswer, status: number): Report {
  const operator = operatorOf(ctx, answer);
  const missing = answer.enforced ? answer.missing ?? NONE : NONE;
  const fields = grantFields(answer);
  const checks = checksOf(ctx, answer, status, missing);
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
