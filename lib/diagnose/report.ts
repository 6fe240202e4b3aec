// diagnose's verdict and advice (facade.md, `tiny_diagnose`): from the
// classified browsegrant answer to the report a person or an agent reads.
// Failures and an old relay are read here, a browsegrant result in
// diagnose_grant.ts. Pure: every check is computed, never mutated afterwards.

import type { Classified } from "./classify.ts";
import type { Report, ReportContext } from "./report_shape.ts";
import { covering, giveKey, NONE, report, SIGNATURE_ACCEPTED } from "./report_shape.ts";
import { grantReport } from "./grant.ts";

export { exitCode } from "./report_shape.ts";
export type { Check, Checks, CheckStatus, Report, ReportContext, Verdict } from "./report_shape.ts";

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
      if (c.status === 403 && /members[- ]only/i.test(c.message)) return membersOnlyReport(ctx, c);
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

/** A members-only relay refused the key: it judged the signature good, then found no membership. */
function membersOnlyReport(ctx: ReportContext, c: Extract<Classified, { kind: "failure" }>): Report {
  return report(
    ctx,
    "not-a-member",
    `the relay is members-only and this key is not a member: ask the relay owner for ` +
      `membership or an agent grant${covering(ctx.asked)}; ${giveKey(ctx)}`,
    {
      reachability: { status: "pass", detail: "the relay answered", http_status: c.status },
      authentication: SIGNATURE_ACCEPTED,
      membership: { status: "fail", member: false, class: c.class, detail: c.message },
    },
  );
}

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
