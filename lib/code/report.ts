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
  /** The idempotency key the program gave the write. */
  key?: string;
  /** The write was not sent: its key answered with the write sent under it earlier in the session. */
  replayed?: true;
  /** A key this call dropped (expired, or the oldest past the most kept), in words. */
  keyNote?: string;
}

/** Everything the answer reports: how the program ended, each call as the answer reports it, the table. */
export interface RunReport extends Omit<ProgramOutcome, "calls"> {
  calls: CallReport[];
  /** The exposed table's short hash as the run ended: tiny_search's answers give it too. */
  tableHash?: string;
}

/** The structured answer's bound (the facade's), with room for the envelope. */
const STRUCTURED_BYTES = 250 * 1024;
/** The text block's bound (the facade's), with room for the marker. */
const TEXT_BYTES = 60 * 1024;
const ERROR_CHARS = 500;

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** Whether the relay may have published the write in this run: it left, whatever came back. */
function sent(call: CallReport): boolean {
  return call.write !== undefined && !call.replayed && call.write.outcome !== "held" &&
    call.write.outcome !== "not sent";
}

/** The relay's verdict on a write that left, in words. */
function verdict(call: CallReport): string {
  const { outcome, why } = call.write!;
  return outcome === "accepted"
    ? "accepted by the relay"
    : outcome === "unknown"
    ? "its answer was lost: it may be published; check with a read tool before sending it again"
    : `refused by the relay${why ? ` (${why})` : ""}`;
}

const eventOf = (call: CallReport) => call.write?.event ? ` event ${call.write.event}` : "";

/** The writes, in words: none sent, or each one sent, held or of unknown fate; those a key answered. */
export function writesText(calls: readonly CallReport[]): string {
  const writes = calls.filter((call) => call.write && !call.replayed);
  const out = writes.filter(sent);
  const lines: string[] = [];
  if (out.length === 0) {
    const held = writes.length === 0 ? "" : ` (${writes.length} held back: ${heldList(writes)})`;
    lines.push(`No write was sent${held}.`);
  } else {
    lines.push(`${out.length} write${out.length === 1 ? " was" : "s were"} sent:`);
    for (const call of out) lines.push(`- ${call.tool}${eventOf(call)}: ${verdict(call)}`);
    const held = writes.filter((call) => !sent(call));
    if (held.length > 0) lines.push(`Not sent: ${heldList(held)}.`);
  }
  const replayed = calls.filter((call) => call.replayed && call.write);
  if (replayed.length > 0) {
    lines.push(`Not sent again, answered by an idempotency key from earlier in this session:`);
    for (const call of replayed) {
      lines.push(`- ${call.tool}${eventOf(call)} (key ${JSON.stringify(call.key)}): ${verdict(call)}`);
    }
  }
  for (const call of calls) if (call.keyNote) lines.push(`Note: ${call.keyNote}.`);
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
  const byKey = calls.filter((call) => call.replayed && call.state === "ok").length;
  const parts = [
    `${count("ok")} answered${byKey > 0 ? ` (${byKey} by an idempotency key, no relay call)` : ""}`,
  ];
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

/** Writes a key answered without sending them. */
const replays = (report: RunReport) => report.calls.filter((call) => call.replayed && call.write).length;

/** The structured answer: whole when it fits; else the logs go first, then the value is cut. */
function structured(report: RunReport): Record<string, unknown> {
  const body: Record<string, unknown> = {
    ok: report.end === "returned",
    end: report.end,
    ...(report.error === undefined ? {} : { error: report.error }),
    writesSent: report.calls.filter(sent).length,
    ...(replays(report) > 0 ? { writesReplayed: replays(report) } : {}),
    ...(report.tableHash === undefined ? {} : { tableHash: report.tableHash }),
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
  const table = report.tableHash === undefined ? [] : [`Table hash: ${report.tableHash}.`];
  const head = [endText(report), writesText(report.calls), callsText(report), ...table].join("\n");
  const headShown = utf8(head) <= TEXT_BYTES / 2 ? head : cutToBytes(head, TEXT_BYTES / 2);
  const detail = detailText(report, TEXT_BYTES - utf8(headShown));
  return {
    content: [{ type: "text", text: detail === "" ? headShown : `${headShown}\n\n${detail}` }],
    structuredContent: structured(report),
    isError: report.end !== "returned",
  };
}
