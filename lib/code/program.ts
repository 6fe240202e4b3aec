// The contract of a program run: its limits, the bridge its relay calls go through, and what is said of
// it when it ends. Pure.

import type { LogLine } from "./output.ts";

export interface ProgramLimits {
  /** Wall-clock time, ms; time paused while a person is asked does not count. */
  wallMs: number;
  /** Guest memory: the sandbox's whole WebAssembly memory is capped at this, in bytes. */
  memoryBytes: number;
  /** Relay calls a program may make; the one past it rejects inside the program. */
  maxCalls: number;
  /** Relay calls pending at once; the rest wait their turn, in order. */
  maxPending: number;
  /** UTF-8 bytes of the returned value and the log lines together. */
  outputBytes: number;
}

export const DEFAULT_LIMITS: Readonly<ProgramLimits> = Object.freeze({
  wallMs: 30_000,
  memoryBytes: 64 * 1024 * 1024,
  maxCalls: 100,
  maxPending: 8,
  outputBytes: 1024 * 1024,
});

/** The smallest memory cap: the engine itself starts with 16 MiB of WebAssembly memory. */
export const MIN_MEMORY_BYTES = 32 * 1024 * 1024;

/** What one call may do besides answering: see RelayBridge.call. */
export interface CallContext {
  /** Aborts when the program ends (deadline, cancellation, a limit) while the call is in flight. */
  signal: AbortSignal;
  /** Stops the program's wall clock until the returned function is called (while a person is asked). */
  pause(): () => void;
  /** The key the program gave the write (`{ idempotencyKey }`), checked at the boundary. */
  idempotencyKey?: string;
}

export interface RelayBridge {
  /**
   * One relay call, made on tinyagent's normal tool-call path. Resolves with the value the program sees
   * (JSON), rejects with an Error whose message the program sees.
   */
  call(tool: string, args: Record<string, unknown>, context: CallContext): Promise<unknown>;
}

/**
 * How a program ended: run() `returned` or `threw`; a limit stopped it (`timeout`, `memory`, `stack`,
 * `output`: a runaway writer of logs; `calls`: it threw the call limit's error); it was `cancelled`; it
 * could not start (`syntax`, `no-run`); or run()'s promise could never settle (`never-settles`: nothing
 * pending could ever settle it).
 */
export type ProgramEnd =
  | "returned"
  | "threw"
  | "timeout"
  | "memory"
  | "stack"
  | "cancelled"
  | "output"
  | "calls"
  | "syntax"
  | "no-run"
  | "never-settles";

/**
 * One relay call the program made, in the order it asked: `queued` never happens in an outcome (a call
 * still waiting at the end is `not-sent`: it never reached the bridge); `sent` never either (a call in
 * flight at the end is `aborted`: its signal aborted, and whether it took effect is not known); `ok` the
 * bridge answered (with `error` when its answer could not enter the program), `error` it refused.
 */
export interface CallRecord {
  tool: string;
  state: "queued" | "sent" | "ok" | "error" | "aborted" | "not-sent";
  error?: string;
}

export interface ProgramOutcome {
  end: ProgramEnd;
  /** What run() returned, JSON-safe; when valueTruncated, the start of its JSON text, as a string. */
  value?: unknown;
  valueTruncated?: true;
  /** Why the program did not return: its error, or the limit it reached. */
  error?: string;
  logs: LogLine[];
  logsDropped: number;
  /** Every relay call accepted, in order; calls refused (past maxCalls, or malformed) are only counted. */
  calls: CallRecord[];
  callsRefused: number;
}

/** `limits` checked: whole numbers in range, or a RangeError naming the one that is not. */
export function checkLimits(limits: ProgramLimits): ProgramLimits {
  const ranges: [keyof ProgramLimits, number, number][] = [
    ["wallMs", 1, 10 * 60_000],
    ["memoryBytes", MIN_MEMORY_BYTES, 1024 * 1024 * 1024],
    ["maxCalls", 0, 100_000],
    ["maxPending", 1, 1_000],
    ["outputBytes", 1024, 64 * 1024 * 1024],
  ];
  for (const [name, min, max] of ranges) {
    const value = limits[name];
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new RangeError(
        `ProgramLimits.${name} must be a whole number from ${min} to ${max}, not ${value}`,
      );
    }
  }
  return limits;
}
