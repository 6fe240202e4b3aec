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
 * export (which a program, being a script, cannot have), what to do instead; else `advice`, if any.
 */
export function syntaxMessage(
  message: string,
  line?: number,
  column?: number,
  source?: string,
  advice?: string,
): string {
  const where = line === undefined
    ? ""
    : ` (line ${line}${column === undefined ? "" : `, column ${column}`})`;
  const text = line === undefined || source === undefined ? "" : source.split("\n")[line - 1] ?? "";
  const hint = /^\s*import\b/.test(text)
    ? ": a program cannot import modules; it reaches the relay only through relay.<tool>(args)"
    : /^\s*export\b/.test(text)
    ? ": a program is a script; define run without export"
    : advice
    ? `: ${advice}`
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

/**
 * What the type stripper (swc, strip.ts) throws for a program it cannot strip: `InvalidSyntax`, or
 * `UnsupportedSyntax` for TypeScript that is more than types. Its line counts from 1; its column from 0, in
 * columns as a terminal shows them (a tab is 4, a wide character 2), not characters.
 */
export interface StripError {
  code: string;
  message: string;
  startLine: number;
  startColumn: number;
}

/** Whether `error` is the stripper's own refusal (not a failure inside it). */
export function isStripError(error: unknown): error is StripError {
  const e = error as Partial<StripError> | null;
  return typeof e === "object" && e !== null && typeof e.code === "string" && typeof e.message === "string" &&
    Number.isInteger(e.startLine) && Number.isInteger(e.startColumn);
}

/** How to write, without it, TypeScript that does more than type (swc names what it refused). */
function rewriteAdvice(refused: string): string {
  const instead = /\benum\b/.test(refused)
    ? "write the enum as an object (`const Color = { Red: 0, Green: 1 } as const;`)"
    : /parameter property/.test(refused)
    ? "declare the field in the class and assign it in the constructor " +
      "(`id: string; constructor(id: string) { this.id = id; }`)"
    : /namespace|module/.test(refused)
    ? "write the namespace as an object or as plain functions"
    : "write it another way";
  return `a program's types are erased and nothing else is compiled; ${instead}`;
}

/**
 * The column, from 1, in characters, of swc's terminal column `shown` on `text`; none where the line holds
 * anything but printable ASCII and tabs (how wide swc took each other character is not known).
 */
function columnOf(text: string, shown: number): number | undefined {
  let width = 0;
  for (let index = 0; index < text.length; index++) {
    if (width >= shown) return index + 1;
    const code = text.charCodeAt(index);
    if (code === 9) width += 4;
    else if (code >= 32 && code < 127) width += 1;
    else if (!(code === 13 && index === text.length - 1)) return undefined;
  }
  return width === shown ? text.length + 1 : undefined;
}

/** The stripper's refusal as a syntax message naming the model's line (swc keeps every line in place). */
export function stripErrorMessage(error: StripError, source: string): string {
  const text = source.split("\n")[error.startLine - 1] ?? "";
  const advice = error.code === "UnsupportedSyntax" && !/\bInstead\b/.test(error.message)
    ? rewriteAdvice(error.message)
    : undefined;
  const message = error.message.replace(/\.$/, "");
  return syntaxMessage(message, error.startLine, columnOf(text, error.startColumn), source, advice);
}

/**
 * A failure inside the stripper's WebAssembly (not a refusal): a program that nests so deeply its parser
 * runs out of stack (a trap, or a RangeError), or anything else the stripper did not expect.
 */
export function stripFailureMessage(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  const deep = error instanceof RangeError ||
    (error instanceof WebAssembly.RuntimeError && /memory access out of bounds/.test(error.message));
  return syntaxMessage(
    deep
      ? `the program nests too deeply to be read (${text})`
      : `the program could not be read: the TypeScript stripper failed (${text})`,
  );
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
