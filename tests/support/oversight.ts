// The fixed words of the person's hold on an agent's writes (issue 21: receipts, --audit-log,
// --max-writes, --confirm-writes), written out once from the issue rather than imported from
// lib/, so a change to lib/ that breaks them fails the tests.

/** The tool error for the call after the last one the budget allows (--max-writes N). */
export function budgetSpentText(signed: number, limit: number): string {
  return `permission: write budget spent: ${signed} event${
    signed === 1 ? "" : "s"
  } signed by this session (--max-writes ${limit}); nothing was signed`;
}

/** The tool error when the person declines or cancels at the host. */
export const DECLINED_AT_HOST = "permission: declined at the host: nothing was signed";

/** The tool error when the person does not answer within --confirm-timeout. */
export function timedOutAtHost(seconds: number): string {
  return `permission: declined at the host: no answer within ${seconds} s (--confirm-timeout); nothing was signed`;
}

/** What the refusal says when the host declared no elicitation capability: who cannot ask, and what to do. */
export const NO_ELICITATION_PATTERN =
  /^permission: --confirm-writes is set, and this host cannot ask its person: its initialize declared no elicitation capability.*use a host that supports MCP elicitation.*or start tinyagent without --confirm-writes; nothing was signed$/;

/** The receipt line's shape: tool, kind, event id, place, a quoted excerpt, the outcome. */
export function receiptPattern(tool: string, kind: number, id: string, outcome: string): RegExp {
  return new RegExp(`receipt: ${tool} signed kind ${kind} event ${id}( in [^:]+)?: ".*": ${outcome}`);
}

/** The ids tinyagent's requests to the host carry. */
export const HOST_REQUEST_ID = /^tinyagent-[1-9][0-9]*$/;

/** The default --confirm-timeout, in seconds. */
export const DEFAULT_CONFIRM_TIMEOUT_SECONDS = 300;

/** How much content a receipt shows, in characters (issue 21: "the first ~60 characters"). */
export const RECEIPT_CONTENT_CHARS = 60;
