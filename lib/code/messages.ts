// What is said when a program does not return: each limit's message, a syntax error named by its line,
// and which end a thrown error means. Pure.

import type { GuestEnd } from "./bridge.ts";
import { callLimitMessage } from "./calls.ts";
import { RUNAWAY_FACTOR } from "./output.ts";
import type { ProgramEnd, ProgramLimits } from "./program.ts";

/** The largest program accepted, in UTF-16 units. */
export const CODE_MAX_CHARS = 256 * 1024;

const MiB = 1024 * 1024;

/** The message for an end tinyagent decided (a limit, cancellation), or for a program that cannot start. */
export function limitMessage(
  end: Exclude<ProgramEnd, "returned" | "threw" | "syntax" | "calls">,
  limits: ProgramLimits,
): string {
  switch (end) {
    case "timeout":
      return `the program ran past its time limit of ${limits.wallMs} ms ` +
        "(time spent waiting for a person's answer does not count)";
    case "memory":
      return `the program ran out of memory (its limit is ${Math.round(limits.memoryBytes / MiB)} MiB)`;
    case "stack":
      return "the program's calls nested too deeply (stack overflow): a recursion without end?";
    case "cancelled":
      return "the program was cancelled before it ended";
    case "output":
      return `the program wrote more than ${
        RUNAWAY_FACTOR * limits.outputBytes
      } bytes of logs and was stopped ` +
        `(at most ${limits.outputBytes} bytes of result and logs can be shown)`;
    case "no-run":
      return "the program must define `async function run(relay) { … }` " +
        "(or `const run = async (relay) => …`); it defines no function named run";
    case "never-settles":
      return "run(relay) can never finish: it waits on a promise that nothing will settle " +
        "(no relay call is pending and no other work is left)";
  }
}

/**
 * A syntax error as said to the model: its message, where it is, and, when that line is an import or an
 * export (which a program, being a script, cannot have), what to do instead.
 */
export function syntaxMessage(message: string, line?: number, column?: number, source?: string): string {
  const where = line === undefined
    ? ""
    : ` (line ${line}${column === undefined ? "" : `, column ${column}`})`;
  const text = line === undefined || source === undefined ? "" : source.split("\n")[line - 1] ?? "";
  const hint = /^\s*import\b/.test(text)
    ? ": a program cannot import modules; it reaches the relay only through relay.<tool>(args)"
    : /^\s*export\b/.test(text)
    ? ": a program is a script; define run without export"
    : "";
  return `SyntaxError: ${message}${where}${hint}`;
}

/** The program is too large to be read. */
export function tooLargeMessage(length: number): string {
  return `the program is too large (${length} characters, at most ${CODE_MAX_CHARS})`;
}

/** Line and column of a QuickJS error in the program, from its stack (`at program.js:LINE:COLUMN`). */
export function programPosition(stack: string): { line?: number; column?: number } {
  const match = /program\.js:(\d+)(?::(\d+))?/.exec(stack);
  if (!match) return {};
  return { line: Number(match[1]), ...(match[2] ? { column: Number(match[2]) } : {}) };
}

/** A sucrase parse error as a syntax message (sucrase ends its message with `(LINE:COLUMN)`, from 1). */
export function stripErrorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  if (error instanceof RangeError) return syntaxMessage(`the program nests too deeply to be read (${text})`);
  const match = /^(.*?)\s*\((\d+):(\d+)\)\s*$/s.exec(text);
  return match ? syntaxMessage(match[1], Number(match[2]), Number(match[3])) : syntaxMessage(text);
}

/** An error's text without the bridge's own stack lines: what is left is the program's. */
export function programStack(text: string): string {
  return text.split("\n").filter((line) => !line.includes("relay-bridge.js")).join("\n").trimEnd();
}

/**
 * Which end a thrown error means: QuickJS's out-of-memory and stack-overflow errors are limits, the
 * call limit's own error (when that limit was reached) is `calls`, anything else the program's own throw.
 */
export function thrownEnd(
  thrown: Extract<GuestEnd, { kind: "threw" }>,
  limits: ProgramLimits,
  callLimitReached: boolean,
): { end: ProgramEnd; error: string } {
  const { name, message, text } = thrown;
  if (name === "InternalError" && message === "out of memory") {
    return { end: "memory", error: limitMessage("memory", limits) };
  }
  if ((name === "InternalError" || name === "RangeError") && message === "stack overflow") {
    return { end: "stack", error: limitMessage("stack", limits) };
  }
  const error = programStack(text);
  if (callLimitReached && message === callLimitMessage(limits.maxCalls)) return { end: "calls", error };
  return { end: "threw", error };
}
