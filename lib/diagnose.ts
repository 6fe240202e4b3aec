// Diagnose: one signed `browsegrant` call over NIP-86, classified into one
// verdict with specific advice (facade.md, `tiny_diagnose` and its table).
// The classification and the report are pure; `diagnose` does the one call.

import { loadNostr, nostr } from "./nostr.ts";
import type { AgentKey } from "./keys.ts";
import type { HttpOutcome, RelayClient } from "./relay.ts";
import { relayMessage, toolError } from "./errors.ts";
import { DIAGNOSE_TOOL, type ToolEntry } from "./tools.ts";
import { excerpt, isObject, parseJson } from "./json.ts";

export type Verdict = "ok" | "needs-grant" | "not-a-member" | "unauthorized" | "unreachable" | "error";
/** Why the signed call failed; set on the authentication check only on failure. */
export type FailureClassName = "authorization" | "rate-limited" | "protocol" | "transport";
export type CheckStatus = "pass" | "fail" | "skip";

export interface Asked {
  rooms: string[];
  kinds: number[];
}

export interface Check {
  status: CheckStatus;
  detail: string;
}

export interface Report {
  relay: string;
  pubkey: string;
  npub: string;
  verdict: Verdict;
  advice: string;
  checks: {
    reachability: Check & { http_status?: number };
    authentication: Check & { class?: FailureClassName; http_status?: number };
    membership: Check & { member?: boolean; role?: string };
    grant: Check & {
      state?: string;
      enforced?: boolean;
      name?: string;
      operator?: string;
      expires?: number;
      paused?: boolean;
      revoked?: boolean;
    };
    coverage: Check & { asked: Asked; missing: Asked };
  };
  /** Arguments for `request_grant` that would ask for what is missing, when that is the way forward. */
  request_grant?: { reason: string; changes: { rooms?: string[]; kinds?: number[] } };
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

/** How the one signed call ended, by HTTP status (the contract's table). */
export type Classified =
  | { kind: "result"; answer: GrantAnswer; status: number }
  | { kind: "old-relay"; message: string; status: number }
  | { kind: "failure"; class: FailureClassName; message: string; status?: number };

const EXIT: Record<Verdict, number> = {
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

function npubOf(hex: string | undefined): string | undefined {
  if (!hex || !/^[0-9a-f]{64}$/.test(hex)) return undefined;
  return nostr().nip19.npubEncode(hex);
}

function formatTime(seconds: number | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString().replace(".000Z", "Z") : "an unknown time";
}

const SKIPPED: Check = { status: "skip", detail: "not checked" };

/** Builds the report from the classified answer. Pure. */
export function buildReport(
  relayBase: string,
  key: Pick<AgentKey, "pubkey" | "npub">,
  asked: Asked,
  c: Classified,
): Report {
  const none: Asked = { rooms: [], kinds: [] };
  const report: Report = {
    relay: relayBase,
    pubkey: key.pubkey,
    npub: key.npub,
    verdict: "error",
    advice: "",
    checks: {
      reachability: { status: "pass", detail: "the relay answered" },
      authentication: { ...SKIPPED },
      membership: { ...SKIPPED },
      grant: { ...SKIPPED },
      coverage: { ...SKIPPED, asked, missing: none },
    },
  };
  const checks = report.checks;
  const who = `give the relay owner this key's public key ${key.npub}`;
  if (c.kind === "failure") {
    if (c.status !== undefined) checks.reachability.http_status = c.status;
    const failed = { status: "fail" as const, class: c.class, detail: c.message, http_status: c.status };
    if (c.class === "transport") {
      checks.reachability = { status: "fail", detail: c.message, http_status: c.status };
      checks.authentication = failed;
      report.verdict = "unreachable";
      report.advice =
        `the relay at ${relayBase} gave no usable answer (${c.message}): check --relay, the network ` +
        `and that the relay is running, then try again`;
      return report;
    }
    checks.authentication = failed;
    if (c.class === "authorization") {
      if (c.status === 403 && /members[- ]only/i.test(c.message)) {
        report.verdict = "not-a-member";
        checks.membership = { status: "fail", member: false, detail: c.message };
        report.advice = `the relay is members-only and this key is not a member: ask the relay owner for ` +
          `membership or an agent grant${covering(asked)}; ${who}`;
      } else {
        report.verdict = "unauthorized";
        report.advice =
          `the relay refused the signed request (HTTP ${c.status}: ${c.message}): check that the key ` +
          `is the agent key the relay expects, that --relay is the exact URL it serves (with any tenant prefix), ` +
          `and that this machine's clock is right (tokens are valid for 60 s)`;
      }
    } else if (c.class === "rate-limited") {
      report.verdict = "unreachable";
      report.advice =
        `the relay is rate-limiting this key (HTTP 429: ${c.message}): retry in a minute or two`;
    } else {
      report.verdict = "error";
      report.advice =
        `the relay answered the signed browsegrant call with ${c.message} instead of a result: check ` +
        `that --relay is the exact URL the relay serves, with its tenant prefix, and that the relay is current`;
    }
    return report;
  }
  checks.reachability.http_status = c.status;
  checks.authentication = { status: "pass", detail: "the relay accepted this key's signature" };
  if (c.kind === "old-relay") {
    const detail = `not readable: the relay predates browsegrant (${c.message})`;
    checks.membership = { status: "skip", detail };
    checks.grant = { status: "skip", detail };
    checks.coverage.detail = detail;
    report.verdict = "ok";
    report.advice =
      "the relay accepts this key's signature but predates browsegrant, so membership and the grant " +
      "cannot be read here; if a tool is refused, ask the relay owner to upgrade the relay";
    return report;
  }

  const answer = c.answer;
  const grant = answer.grant;
  const operator = grant?.owner;
  const operatorText = npubOf(operator) ? `the grant's operator ${npubOf(operator)}` : "the relay owner";
  checks.membership = {
    status: answer.member ? "pass" : "fail",
    member: answer.member,
    role: answer.role,
    detail: answer.member ? `member with the ${answer.role || "agent"} role` : "not a member of the relay",
  };
  checks.grant = {
    status: "pass",
    state: answer.state,
    enforced: answer.enforced,
    detail: "",
  };
  if (grant) {
    if (grant.name !== undefined) checks.grant.name = grant.name;
    if (operator !== undefined) checks.grant.operator = operator;
    const expires = grant.expires ?? answer.expires;
    if (expires !== undefined) checks.grant.expires = expires;
    if (grant.paused !== undefined) checks.grant.paused = grant.paused;
    if (grant.revoked !== undefined) checks.grant.revoked = grant.revoked;
  }
  const missing = answer.enforced ? answer.missing ?? none : none;
  const askedAny = asked.rooms.length > 0 || asked.kinds.length > 0;
  checks.coverage = askedAny
    ? {
      status: missing.rooms.length + missing.kinds.length > 0 ? "fail" : "pass",
      asked,
      missing,
      detail: missing.rooms.length + missing.kinds.length > 0
        ? `the grant lacks ${listText(missing)}`
        : `the grant covers ${listText(asked)}`,
    }
    : { status: "skip", asked, missing, detail: "no rooms or kinds asked about" };

  // A revoked grant leaves the key outside the relay; the grant's state is the more useful answer.
  if (!answer.member && answer.state !== "revoked") {
    report.verdict = "not-a-member";
    checks.grant = { ...checks.grant, status: "skip", detail: "not a member, so no grant applies" };
    report.advice = `this key is not a member of the relay: ask the relay owner for membership or an agent ` +
      `grant${covering(asked)}; ${who}`;
    return report;
  }
  if (!answer.enforced) {
    checks.grant.detail = `grants do not apply to the ${answer.role} role`;
    report.verdict = "ok";
    report.advice = `this key holds the ${answer.role} role, so agent grants do not limit it`;
    return report;
  }
  const grantProblem: Record<string, string> = {
    none: `this key holds no agent grant: ask the relay owner for one${covering(asked)}; ${who}`,
    paused: `the agent grant is paused: ask ${operatorText} to resume it`,
    revoked: `the agent grant was revoked: ask ${operatorText} for a new grant${covering(asked)}; ${who}`,
    expired:
      `the agent grant expired at ${formatTime(checks.grant.expires)}: ask ${operatorText} to renew it` +
      `${covering(asked)}`,
  };
  if (answer.state in grantProblem || (answer.state !== "active" && !grant)) {
    checks.grant.status = "fail";
    checks.grant.detail = answer.state === "none" ? "no agent grant" : `the agent grant is ${answer.state}`;
    report.verdict = "needs-grant";
    report.advice = grantProblem[answer.state] ?? grantProblem.none;
    return report;
  }
  checks.grant.detail = `the agent grant${grant?.name ? ` "${grant.name}"` : ""} is ${answer.state}` +
    (checks.grant.expires ? `, until ${formatTime(checks.grant.expires)}` : "");
  if (missing.rooms.length + missing.kinds.length > 0) {
    const changes: { rooms?: string[]; kinds?: number[] } = {};
    if (missing.rooms.length > 0) changes.rooms = missing.rooms;
    if (missing.kinds.length > 0) changes.kinds = missing.kinds;
    report.request_grant = { reason: `I need ${listText(missing)} for my current task.`, changes };
    report.verdict = "needs-grant";
    report.advice = `the grant lacks ${listText(missing)}: call request_grant with ` +
      `${
        JSON.stringify(report.request_grant)
      } (the reason is yours to word) so ${operatorText} can approve it`;
    return report;
  }
  report.verdict = "ok";
  report.advice = askedAny
    ? `the grant covers ${listText(asked)}`
    : "the relay accepts this key and its grant is active";
  return report;
}

/** The one signed call, then the report. Never throws for a relay failure. */
export async function diagnose(relay: RelayClient, key: AgentKey, asked: Asked): Promise<Report> {
  await loadNostr();
  const ask: Record<string, unknown> = {};
  if (asked.rooms.length > 0) ask.rooms = asked.rooms;
  if (asked.kinds.length > 0) ask.kinds = asked.kinds;
  const outcome = await relay.manage("browsegrant", Object.keys(ask).length > 0 ? [ask] : []);
  return buildReport(relay.endpoint.base, key, asked, classify(outcome));
}

/** Reads `tiny_diagnose` arguments; an error names the bad field. */
export function parseAsked(
  args: Record<string, unknown>,
): { ok: true; asked: Asked } | { ok: false; error: string } {
  const rooms = args.rooms ?? [];
  const kinds = args.kinds ?? [];
  if (!Array.isArray(rooms) || !rooms.every((room) => typeof room === "string" && room.trim() !== "")) {
    return { ok: false, error: "invalid arguments: rooms must be an array of room ids (non-empty strings)" };
  }
  if (!Array.isArray(kinds) || !kinds.every((kind) => Number.isInteger(kind) && kind >= 0 && kind <= 65535)) {
    return { ok: false, error: "invalid arguments: kinds must be an array of integers from 0 to 65535" };
  }
  if (rooms.length > 256 || kinds.length > 256) {
    return {
      ok: false,
      error: `invalid arguments: ${rooms.length > 256 ? "rooms" : "kinds"} may list 256 entries at most`,
    };
  }
  const unknown = Object.keys(args).filter((name) => name !== "rooms" && name !== "kinds");
  if (unknown.length > 0) return { ok: false, error: `invalid arguments: unknown field ${unknown[0]}` };
  return { ok: true, asked: { rooms: [...new Set(rooms)], kinds: [...new Set(kinds)] } };
}

/** The `tiny_diagnose` tool: the report as a result, never `isError`, whatever the verdict. */
export async function diagnoseTool(
  relay: RelayClient,
  key: AgentKey,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const parsed = parseAsked(args);
  if (!parsed.ok) return toolError(parsed.error);
  const report = await diagnose(relay, key, parsed.asked);
  return {
    content: [{ type: "text", text: `${report.verdict}: ${report.advice}` }],
    structuredContent: report,
    isError: false,
  };
}

export const DIAGNOSE_ENTRY: ToolEntry = {
  name: DIAGNOSE_TOOL,
  title: "Diagnose relay access",
  description: "Check this agent's access to the relay: whether it answers, whether it accepts the agent's " +
    "signature, membership and role, the agent grant and its state, and which of the given rooms and kinds the " +
    "grant lacks. The verdict is ok, needs-grant, not-a-member, unauthorized, unreachable or error; the advice " +
    "says what to do next, such as calling request_grant with the arguments it gives.",
  inputSchema: {
    type: "object",
    properties: {
      rooms: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: "Room ids the agent needs.",
      },
      kinds: {
        type: "array",
        items: { type: "integer", minimum: 0, maximum: 65535 },
        description: "Event kinds the agent needs to publish.",
      },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
};

const MARKS: Record<CheckStatus, string> = { pass: "✓", fail: "✗", skip: "-" };
const COLOURS: Record<CheckStatus, string> = { pass: "\x1b[32m", fail: "\x1b[31m", skip: "\x1b[90m" };

/** The report for a person: one line per check, verdict and advice last. */
export function renderReport(report: Report, colour: boolean): string {
  const paint = (status: CheckStatus, text: string) => colour ? `${COLOURS[status]}${text}\x1b[0m` : text;
  const lines = [`relay   ${report.relay}`, `key     ${report.npub} (${report.pubkey})`, ""];
  const names: [keyof Report["checks"], string][] = [
    ["reachability", "reachability"],
    ["authentication", "authentication"],
    ["membership", "membership"],
    ["grant", "grant"],
    ["coverage", "rooms and kinds"],
  ];
  for (const [name, label] of names) {
    const check = report.checks[name];
    const extra = name === "authentication" && "class" in check && check.class ? ` [${check.class}]` : "";
    lines.push(`${paint(check.status, MARKS[check.status])} ${label.padEnd(16)} ${check.detail}${extra}`);
  }
  const good = report.verdict === "ok";
  lines.push("", `verdict: ${paint(good ? "pass" : "fail", report.verdict)}`, `advice:  ${report.advice}`);
  return lines.join("\n");
}
