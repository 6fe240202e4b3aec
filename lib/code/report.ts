// What tiny_execute answers, success or failure: what the program returned, its logs, every relay call it
// made and how each ended, and in plain words whether any write was sent, so an agent never retries a
// write that happened or reruns a loop whose progress it cannot see. The structured answer keeps the
// calls and writes whole and gives way on the value and the logs to stay under the facade's 256 KiB; the
// text leads with the writes and stays under 64 KiB. Pure.

import type { AuditOutcome } from "../oversight/audit_record.ts";
import type { CallToolResult } from "../wire/mcp.ts";
import { cutToBytes } from "./output.ts";
import type { ProgramOutcome } from "./program.ts";

/** One relay call as the answer reports it, in the order the program made them. */
export interface CallReport {
  tool: string;
  /** ok: answered; error: refused or failed (its message); not sent: never left; unknown: cut off in flight. */
  state: "ok" | "error" | "not sent" | "unknown";
  error?: string;
  /** For a write: its fate (held: nothing signed; else the relay's verdict), and the signed event's id. */
  write?: { outcome: AuditOutcome; event?: string; why?: string };
}

/** Everything the answer reports: how the program ended, with each call as the answer reports it. */
export interface RunReport extends Omit<ProgramOutcome, "calls"> {
  calls: CallReport[];
}

/** The structured answer's bound (the facade's), with room for the envelope. */
const STRUCTURED_BYTES = 250 * 1024;
/** The text block's bound (the facade's), with room for the marker. */
const TEXT_BYTES = 60 * 1024;
const ERROR_CHARS = 500;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** Whether the relay may have published the write: it left, whatever came back. */
function sent(call: CallReport): boolean {
  return call.write !== undefined && call.write.outcome !== "held" && call.write.outcome !== "not sent";
}

/** The writes, in words: none sent, or each one sent, held or of unknown fate. */
export function writesText(calls: readonly CallReport[]): string {
  const writes = calls.filter((call) => call.write);
  const out = writes.filter(sent);
  if (out.length === 0) {
    const held = writes.length === 0 ? "" : ` (${writes.length} held back: ${heldList(writes)})`;
    return `No write was sent${held}.`;
  }
  const lines = [`${out.length} write${out.length === 1 ? " was" : "s were"} sent:`];
  for (const call of out) {
    const { outcome, event } = call.write!;
    const verdict = outcome === "accepted"
      ? "accepted by the relay"
      : outcome === "unknown"
      ? "its answer was lost: it may be published; check with a read tool before sending it again"
      : `refused by the relay${call.write!.why ? ` (${call.write!.why})` : ""}`;
    lines.push(`- ${call.tool}${event ? ` event ${event}` : ""}: ${verdict}`);
  }
  const held = writes.filter((call) => !sent(call));
  if (held.length > 0) lines.push(`Not sent: ${heldList(held)}.`);
  return lines.join("\n");
}

function heldList(calls: readonly CallReport[]): string {
  return calls.map((call) => `${call.tool} (${call.write!.why ?? call.write!.outcome})`).join("; ");
}

/** How the program ended, in one line. */
export function endText(report: RunReport): string {
  if (report.end === "returned") return "The program returned.";
  return `The program did not finish (${report.end}): ${report.error ?? "no reason given"}.`;
}

/** The calls, counted by how they ended, and each one that did not end well. */
export function callsText(report: RunReport): string {
  const { calls, callsRefused } = report;
  if (calls.length === 0 && callsRefused === 0) return "Relay calls: none.";
  const count = (state: CallReport["state"]) => calls.filter((call) => call.state === state).length;
  const parts = [`${count("ok")} answered`];
  for (const state of ["error", "not sent", "unknown"] as const) {
    if (count(state) > 0) parts.push(`${count(state)} ${state === "error" ? "failed" : state}`);
  }
  if (callsRefused > 0) parts.push(`${callsRefused} refused inside the program (over its limit)`);
  const lines = [`Relay calls: ${calls.length} (${parts.join(", ")}).`];
  calls.forEach((call, index) => {
    if (call.state !== "ok") {
      lines.push(`- #${index + 1} ${call.tool}: ${call.state}${call.error ? `: ${call.error}` : ""}`);
    }
  });
  return lines.join("\n");
}

/** A call's error, short enough that a hundred of them fit. */
function bounded(call: CallReport): CallReport {
  return call.error && call.error.length > ERROR_CHARS
    ? { ...call, error: `${call.error.slice(0, ERROR_CHARS)}…` }
    : call;
}

/** The structured answer: whole when it fits; else the logs go first, then the value is cut. */
function structured(report: RunReport): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ok: report.end === "returned",
    end: report.end,
    ...(report.error === undefined ? {} : { error: report.error }),
    writesSent: report.calls.filter(sent).length,
    calls: report.calls.map(bounded),
    callsRefused: report.callsRefused,
    logs: report.logs,
    logsDropped: report.logsDropped,
    ...(report.value === undefined ? {} : { value: report.value }),
    ...(report.valueTruncated ? { valueTruncated: true } : {}),
  };
  if (utf8(JSON.stringify(body)) <= STRUCTURED_BYTES) return body;
  body.logsDropped = report.logsDropped + report.logs.length;
  body.logs = [];
  const room = STRUCTURED_BYTES - utf8(JSON.stringify({ ...body, value: "" }));
  if (body.value !== undefined && utf8(JSON.stringify(body.value)) > room) {
    body.value = cutToBytes(JSON.stringify(body.value), Math.max(0, Math.floor(room / 2)));
    body.valueTruncated = true;
  }
  return body;
}

/** The value and the logs as text, cut to what is left of the text's bound. */
function detailText(report: RunReport, room: number): string {
  const parts: string[] = [];
  if (report.value !== undefined) {
    const shown = typeof report.value === "string" ? report.value : JSON.stringify(report.value, null, 2);
    parts.push(`Returned${report.valueTruncated ? " (cut: over the output limit)" : ""}:\n${shown}`);
  }
  if (report.logs.length > 0 || report.logsDropped > 0) {
    const lines = report.logs.map((
      line,
    ) => (line.level === "log" ? line.text : `[${line.level}] ${line.text}`));
    const dropped = report.logsDropped > 0 ? `\n[${report.logsDropped} more log lines not kept]` : "";
    parts.push(`Logs:\n${lines.join("\n")}${dropped}`);
  }
  const text = parts.join("\n\n");
  return utf8(text) <= room
    ? text
    : `${cutToBytes(text, room - 80)}\n[cut here: the whole is in structuredContent]`;
}

/** The tool result for a finished run: isError unless the program returned. */
export function runResult(report: RunReport): CallToolResult {
  const head = [endText(report), writesText(report.calls), callsText(report)].join("\n");
  const headShown = utf8(head) <= TEXT_BYTES / 2 ? head : cutToBytes(head, TEXT_BYTES / 2);
  const detail = detailText(report, TEXT_BYTES - utf8(headShown));
  return {
    content: [{ type: "text", text: detail === "" ? headShown : `${headShown}\n\n${detail}` }],
    structuredContent: structured(report),
    isError: report.end !== "returned",
  };
}
