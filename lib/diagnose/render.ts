// diagnose's report for a person at a terminal: one line per check, the
// verdict and the advice last. Pure. The colour codes are written out here:
// node:util's styleText reads the environment, which the sandbox withholds.

import type { Checks, CheckStatus, Report } from "./report.ts";

const MARKS: Readonly<Record<CheckStatus, string>> = { pass: "✓", fail: "✗", skip: "-" };
const COLOURS: Readonly<Record<CheckStatus, string>> = {
  pass: "\x1b[32m",
  fail: "\x1b[31m",
  skip: "\x1b[90m",
};
const RESET = "\x1b[0m";

const LABELS: readonly [keyof Checks, string][] = [
  ["reachability", "reachability"],
  ["authentication", "authentication"],
  ["membership", "membership"],
  ["grant", "grant"],
  ["coverage", "rooms and kinds"],
];

/** The report as text; marks and the verdict are coloured only when `colour` is set. */
export function renderReport(report: Report, colour: boolean): string {
  const paint = (status: CheckStatus, text: string) => colour ? `${COLOURS[status]}${text}${RESET}` : text;
  const lines = [`relay   ${report.relay}`, `key     ${report.npub} (${report.pubkey})`, ""];
  for (const [name, label] of LABELS) {
    const check = report.checks[name];
    const extra = "class" in check && check.class ? ` [${check.class}]` : "";
    lines.push(`${paint(check.status, MARKS[check.status])} ${label.padEnd(16)} ${check.detail}${extra}`);
  }
  const good = report.verdict === "ok";
  lines.push("", `verdict: ${paint(good ? "pass" : "fail", report.verdict)}`, `advice:  ${report.advice}`);
  return lines.join("\n");
}
