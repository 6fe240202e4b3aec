// runProgram: a model's program run in QuickJS, its relay calls through a RelayBridge, within its limits.
// The program defines `async function run(relay)`; TypeScript's types are stripped (strip.ts). It waits for a
// turn (at most two programs run at once; its clock starts with its turn), then runs in a fresh runtime
// and context: the guest's jobs run until run()'s promise settles, the program is stopped, or nothing
// could ever settle it. Every end is an outcome, never an exception: whatever the program does, the
// process goes on and the next program runs. Only a failure to load the engine itself rejects.
//
// The instance is kept for the next program only after a clean end (returned, threw, no run, syntax,
// never settles) with no call left pending and its memory small, and only once it was disposed in order;
// after a limit, an interrupt, cancellation or any failure it is dropped without being disposed.

import { checkCall, checkLog } from "./bridge.ts";
import { CallQueue } from "./calls.ts";
import { ProgramClock } from "./clock.ts";
import { EnginePool, type Instance, KEEP_MAX_BYTES } from "./engine.ts";
import { Guest, type Step } from "./guest.ts";
import { limitMessage, programPosition, syntaxMessage, thrownEnd } from "./messages.ts";
import { type FinishedOutput, OutputBudget } from "./output.ts";
import {
  checkLimits,
  DEFAULT_LIMITS,
  type ProgramEnd,
  type ProgramLimits,
  type ProgramOutcome,
  type RelayBridge,
} from "./program.ts";
import type { CodePackages } from "./packages.ts";
import { retriedAsWritten, stripTypes, triedAsWritten } from "./strip.ts";

export interface RunOptions {
  /** The program's limits; each one not given is DEFAULT_LIMITS'. */
  limits?: Partial<ProgramLimits>;
  /** Cancels the program: calls not yet sent are never sent, calls in flight have their signal aborted. */
  signal?: AbortSignal;
  /** Whether the code may be TypeScript (its types are stripped first); true unless false. */
  typescript?: boolean;
  /** How QuickJS and the type stripper are loaded, the first time (packages.ts); by name unless given. */
  packages?: CodePackages;
}

/** The turns every program takes. */
const pool = new EnginePool();

/** Programs running and waiting, and whether an instance is kept idle. */
export function sandboxStats(): ReturnType<EnginePool["stats"]> {
  return pool.stats();
}

/** Runs `code`'s run(relay) with `bridge` behind relay, and says how it ended. */
export async function runProgram(
  code: string,
  bridge: RelayBridge,
  options: RunOptions = {},
): Promise<ProgramOutcome> {
  const limits = checkLimits({ ...DEFAULT_LIMITS, ...options.limits });
  if (options.signal?.aborted) return notRun("cancelled", limitMessage("cancelled", limits));
  const run = (source: string) => runSource(source, bridge, limits, options);
  if (options.typescript === false) return await run(code);
  // JavaScript first where it cannot mean anything else (strip.ts): a compile is a program's first step,
  // so one that fails ran nothing, made no call and wrote nothing, and is stripped and run again.
  if (triedAsWritten(code)) {
    const asWritten = await run(code);
    if (asWritten.end !== "syntax") return asWritten;
  }
  const stripped = await stripTypes(code, options.packages);
  if (stripped.ok) return await run(stripped.code);
  if (retriedAsWritten(code)) {
    const asWritten = await run(code);
    if (asWritten.end !== "syntax") return asWritten;
  }
  return notRun("syntax", stripped.message);
}

/** JavaScript `source` run in its turn on an instance of the pool. */
async function runSource(
  source: string,
  bridge: RelayBridge,
  limits: ProgramLimits,
  { signal, packages }: RunOptions,
): Promise<ProgramOutcome> {
  const turn = await pool.acquire(limits.memoryBytes, signal, packages);
  if (!turn) return notRun("cancelled", limitMessage("cancelled", limits));
  const run = new ProgramRun(turn.instance, bridge, limits, signal);
  try {
    return await run.execute(source);
  } finally {
    turn.release(run.keep);
  }
}

/** A program that never started: cancelled first, or its code unreadable. */
function notRun(end: "cancelled" | "syntax", error: string): ProgramOutcome {
  return { end, error, logs: [], logsDropped: 0, calls: [], callsRefused: 0 };
}

type Stop = "timeout" | "cancelled" | "output";

/** One program on its instance: the loop, the stops, and the outcome. */
class ProgramRun {
  /** Whether the instance may serve the next program. */
  keep = false;
  #stop: Stop | undefined;
  #clock: ProgramClock;
  #output: OutputBudget;
  #calls: CallQueue;
  #guest: Guest | undefined;
  #wake: (() => void) | undefined;
  #poked = false;

  constructor(
    private readonly instance: Instance,
    bridge: RelayBridge,
    private readonly limits: ProgramLimits,
    private readonly signal?: AbortSignal,
  ) {
    this.#clock = new ProgramClock(limits.wallMs);
    this.#output = new OutputBudget(limits.outputBytes);
    this.#calls = new CallQueue(bridge, limits, () => this.#clock.pause(), () => this.#poke());
  }

  async execute(source: string): Promise<ProgramOutcome> {
    const unlisten = this.#clock.onChange(() => this.#poke());
    const cancel = () => this.#halt("cancelled");
    this.signal?.addEventListener("abort", cancel, { once: true });
    try {
      return await this.#loop(source);
    } catch (error) {
      return this.#failed(error);
    } finally {
      unlisten();
      this.signal?.removeEventListener("abort", cancel);
    }
  }

  async #loop(source: string): Promise<ProgramOutcome> {
    const guest = this.#guest = Guest.open(this.instance, this.limits, this.#clock, {
      call: (name, argsText, key, sink) => {
        const call = checkCall(name, argsText, key);
        if (call.ok) return this.#calls.request(call.value, sink);
        this.#calls.refuse();
        return call.message;
      },
      log: (level, text) => {
        const line = checkLog(level, text, this.limits.outputBytes);
        if (!line.ok) this.#output.skip();
        else if (!this.#output.add(line.value)) this.#stop ??= "output";
      },
    }, () => this.#stop !== undefined);
    const syntax = guest.compile(source);
    if (syntax) return this.#syntax(syntax, source);
    const top = guest.evaluate(source);
    if (top || this.#stopped()) return this.#conclude(top ?? { state: "pending" });
    if (!guest.start()) return this.#stopped() ? this.#conclude({ state: "pending" }) : this.#ended("no-run");
    while (true) {
      if (this.#clock.expired()) this.#stop ??= "timeout";
      if (this.#stop) return this.#conclude({ state: "pending" });
      const step = guest.step();
      if (step.state !== "pending" || this.#stopped()) return this.#conclude(step);
      if (guest.hasPendingJob()) continue;
      if (this.#calls.outstanding === 0) return this.#ended("never-settles");
      await this.#sleep();
    }
  }

  /** Whether the program was stopped from outside or QuickJS failed on tinyagent's side. */
  #stopped(): boolean {
    return this.#stop !== undefined || this.#guest?.interrupted === true ||
      this.#guest?.failure !== undefined;
  }

  /** The outcome once guest code has stopped: a stop, a failure, or run()'s own end, in that order. */
  #conclude(step: Step): ProgramOutcome {
    const guest = this.#guest!;
    if (this.#stop || guest.interrupted) return this.#ended(this.#stop ?? "timeout");
    if (guest.failure !== undefined) return this.#failed(guest.failure);
    if (step.state === "failed") return this.#ended("threw", step.message);
    if (step.state === "pending") return this.#ended("never-settles");
    const end = step.end;
    if (end.kind === "value") {
      return this.#ended("returned", undefined, this.#output.finish(end.json, end.length));
    }
    if (end.kind === "undefined") return this.#ended("returned");
    if (end.kind === "unserializable") {
      return this.#ended("threw", `run() returned a value that is not JSON: ${end.message}`);
    }
    const thrown = thrownEnd(end, this.limits, this.#calls.limitReached);
    return this.#ended(thrown.end, thrown.error);
  }

  #syntax(step: Step, source: string): ProgramOutcome {
    if (step.state === "ended" && step.end.kind === "threw" && step.end.name === "SyntaxError") {
      const { line, column } = programPosition(step.end.text);
      return this.#ended("syntax", syntaxMessage(step.end.message, line, column, source));
    }
    return this.#conclude(step);
  }

  /** An exception on tinyagent's side of QuickJS: the host thread's stack, WebAssembly's memory, an abort. */
  #failed(error: unknown): ProgramOutcome {
    if (this.#stop) return this.#ended(this.#stop);
    const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    if (error instanceof RangeError && /call stack/i.test(text)) return this.#ended("stack");
    if (/out of memory|memory access out of bounds|Aborted/i.test(text)) return this.#ended("memory");
    return this.#ended("threw", `the sandbox failed while running the program (${text.slice(0, 500)})`);
  }

  #ended(end: ProgramEnd, error?: string, finished?: FinishedOutput): ProgramOutcome {
    const clean = ["returned", "threw", "no-run", "syntax", "never-settles", "calls"].includes(end) &&
      !this.#stopped() && this.#guest?.liveCalls === 0;
    this.#calls.end(end === "cancelled" ? "the program was cancelled" : `the program ended (${end})`);
    this.keep = clean && this.instance.memory.buffer.byteLength <= KEEP_MAX_BYTES && this.#guest!.dispose();
    const said = error ??
      (end === "returned" || end === "threw" || end === "syntax" || end === "calls"
        ? undefined
        : limitMessage(end, this.limits));
    return {
      end,
      ...(said === undefined ? {} : { error: said }),
      ...(finished ?? this.#output.finish()),
      calls: this.#calls.records(),
      callsRefused: this.#calls.refused,
    };
  }

  #halt(stop: Stop): void {
    this.#stop ??= stop;
    this.#poke();
  }

  #poke(): void {
    if (this.#wake) this.#wake();
    else this.#poked = true;
  }

  /** Until a call settles, the clock stops or starts, the program is cancelled, or its time is up. */
  #sleep(): Promise<void> {
    if (this.#poked) {
      this.#poked = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = this.#clock.paused
        ? undefined
        : setTimeout(() => this.#wake?.(), this.#clock.remaining() + 1);
      this.#wake = () => {
        clearTimeout(timer);
        this.#wake = undefined;
        resolve();
      };
    });
  }
}
