// One program inside QuickJS: a fresh runtime and context in a WebAssembly instance, the prelude with its
// host functions, the program evaluated and its run() started, its jobs run and its end read. Every
// step that can run guest code runs as a "slice" whose interrupt deadline is the time the program has
// left, so a CPU-bound loop ends within ms of the deadline even while the clock is paused (a slice's time
// is then charged to the program anyway). Strings leave the guest only after their length is checked.

import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
} from "quickjs-emscripten-core";
import { ARGS_MAX_BYTES, checkEnd, type GuestEnd, KEY_MAX_CHARS, MESSAGE_MAX_CHARS } from "./bridge.ts";
import { noRoomMessage, Oversized } from "./bridge.ts";
import type { CallSink } from "./calls.ts";
import type { ProgramClock } from "./clock.ts";
import type { Instance } from "./engine.ts";
import { EXTRAS_SOURCE, preludeSource } from "./prelude.ts";
import type { ProgramLimits } from "./program.ts";

/**
 * QuickJS's stack limit. Its frames also take WebAssembly frames on the host thread's own stack, so the
 * limit must stop a deep recursion before that stack runs out (measured: 256 KiB does, 512 KiB does not).
 */
export const STACK_BYTES = 192 * 1024;

/**
 * Room an answer needs to enter: five bytes per character (its UTF-8 copy, then QuickJS's string) and a
 * margin. quickjs-emscripten writes host strings into memory it allocates without checking the
 * allocation, so an answer is handed in only while the memory can still grow by that much.
 */
const ROOM_PER_CHAR = 5;
const ROOM_MARGIN = 1024 * 1024;

/** What `import()` rejects with inside a program. */
export const IMPORT_MESSAGE = "import() is not available in a tinyagent program: it reaches the relay only " +
  "through relay.<tool>(args)";

/** The host functions' side in tinyagent: what a call and a log line become. */
export interface GuestHooks {
  /** A call as handed over; returns why it is refused, or undefined once `sink` will be settled. */
  call(name: unknown, argsText: unknown, key: unknown, sink: CallSink): string | undefined;
  log(level: unknown, text: unknown): void;
}

/** Where a program stands after a step. */
export type Step =
  | { state: "pending" }
  | { state: "ended"; end: GuestEnd }
  | { state: "failed"; message: string };

const END_FIELDS = ["kind", "json", "length", "name", "message", "text"] as const;

export class Guest {
  /** Whether the interrupt handler stopped guest code (the deadline, or `stopped()`). */
  interrupted = false;
  /** An error QuickJS threw on tinyagent's side while an answer was handed in (out of memory). */
  failure: unknown;
  #deadline = Infinity;
  #depth = 0;
  #live = new Set<QuickJSDeferredPromise>();
  #kept: QuickJSHandle[] = [];
  #start!: QuickJSHandle;
  #describe!: QuickJSHandle;
  #run: QuickJSHandle | undefined;
  #outer: QuickJSHandle | undefined;
  #extras: QuickJSHandle | undefined;

  private constructor(
    private readonly rt: QuickJSRuntime,
    private readonly ctx: QuickJSContext,
    private readonly clock: ProgramClock,
    private readonly hooks: GuestHooks,
    private readonly stopped: () => boolean,
    private readonly limits: ProgramLimits,
    private readonly instance: Instance,
  ) {}

  /** A fresh runtime and context in `instance`, limited, with the prelude installed. */
  static open(
    instance: Instance,
    limits: ProgramLimits,
    clock: ProgramClock,
    hooks: GuestHooks,
    stopped: () => boolean,
  ): Guest {
    const rt = instance.module.newRuntime();
    rt.setMemoryLimit(limits.memoryBytes);
    rt.setMaxStackSize(STACK_BYTES);
    rt.setModuleLoader(() => ({ error: new Error(IMPORT_MESSAGE) }));
    const guest = new Guest(rt, rt.newContext(), clock, hooks, stopped, limits, instance);
    rt.setInterruptHandler(() => guest.#shouldInterrupt());
    guest.#install();
    return guest;
  }

  /** Relay calls whose promise the program still waits on. */
  get liveCalls(): number {
    return this.#live.size;
  }

  hasPendingJob(): boolean {
    return this.rt.hasPendingJob();
  }

  /** Compiles the program: undefined when it parses, else its syntax error. */
  compile(code: string): Step | undefined {
    const result = this.#slice(() =>
      this.ctx.evalCode(code, "program.js", { type: "global", compileOnly: true })
    );
    if (!result.error) return void result.value.dispose();
    return this.#describeError(result.error);
  }

  /** Runs the program's top level: undefined when it completes, else what it threw. */
  evaluate(code: string): Step | undefined {
    const result = this.#slice(() => this.ctx.evalCode(code, "program.js", { type: "global" }));
    if (!result.error) return void result.value.dispose();
    return this.#describeError(result.error);
  }

  /** Finds run (declared, or a top-level const/let) and starts run(relay); false without one. */
  start(): boolean {
    const found = this.#slice(() =>
      this.ctx.evalCode("typeof run === 'function' ? run : undefined", "find-run.js", { type: "global" })
    );
    if (found.error || this.ctx.typeof(found.value) !== "function") {
      (found.error ?? found.value).dispose();
      return false;
    }
    this.#run = this.#keep(found.value);
    const started = this.#slice(() => this.ctx.callFunction(this.#start, this.ctx.undefined, this.#run!));
    this.#outer = this.#keep(this.ctx.unwrapResult(started));
    return true;
  }

  /** Runs the pending jobs, then reads run()'s promise. */
  step(): Step {
    const jobs = this.#slice(() => this.rt.executePendingJobs());
    if (jobs.error) return this.#describeError(jobs.error);
    const state = this.ctx.getPromiseState(this.#outer!);
    if (state.type === "pending") return { state: "pending" };
    if (state.type === "rejected") return this.#describeError(state.error);
    if (state.notAPromise) return { state: "failed", message: "run() was not started" };
    return this.#readEnd(state.value);
  }

  /** Frees everything, in order (handles, context, runtime); false when QuickJS refused. */
  dispose(): boolean {
    try {
      for (const handle of this.#kept.reverse()) if (handle.alive) handle.dispose();
      this.ctx.dispose();
      this.rt.dispose();
      return true;
    } catch {
      return false;
    }
  }

  #install(): void {
    const source = preludeSource({
      lineMaxChars: this.limits.outputBytes,
      valueMaxChars: this.limits.outputBytes,
    });
    const prelude = this.#script(source);
    const call = this.#keep(this.ctx.newFunction("call", (n, args, key) => this.#hostCall(n, args, key)));
    const log = this.#keep(this.ctx.newFunction("log", (level, text) => {
      this.hooks.log(this.#read(level, 16), this.#read(text, this.limits.outputBytes));
    }));
    // Pages and keys (prelude.ts's EXTRAS_SOURCE): compiled once, the first time this program needs them.
    const extras = this.#keep(
      this.ctx.newFunction("extras", () => (this.#extras ??= this.#script(EXTRAS_SOURCE)).dup()),
    );
    const pair = this.#keep(this.ctx.unwrapResult(
      this.#slice(() => this.ctx.callFunction(prelude, this.ctx.undefined, call, log, extras)),
    ));
    this.#start = this.#keep(this.ctx.getProp(pair, 0));
    this.#describe = this.#keep(this.ctx.getProp(pair, 1));
  }

  /** tinyagent's own script run in the context and kept (messages.ts leaves its name out of a stack). */
  #script(source: string): QuickJSHandle {
    const value = this.ctx.unwrapResult(this.ctx.evalCode(source, "relay-bridge.js", { type: "global" }));
    return this.#keep(value);
  }

  /** A call: its name, its arguments' JSON text, its key; each read within its bound, absent as undefined. */
  #hostCall(nameHandle: QuickJSHandle, argsHandle: QuickJSHandle, keyHandle: QuickJSHandle): QuickJSHandle {
    const deferred = this.ctx.newPromise();
    this.#live.add(deferred);
    const [name, argsText] = [this.#read(nameHandle, 64), this.#read(argsHandle, ARGS_MAX_BYTES)];
    const refusal = this.hooks.call(name, argsText, this.#read(keyHandle, KEY_MAX_CHARS), {
      resolve: (answer) => {
        if (answer === undefined || this.#room(answer.length)) {
          return void this.#settle(deferred, true, answer);
        }
        const message = noRoomMessage(String(name), answer.length);
        this.#settle(deferred, false, message);
        return message;
      },
      reject: (message) => this.#settle(deferred, false, message),
    });
    if (refusal !== undefined) this.#settle(deferred, false, refusal);
    // quickjs-emscripten frees the returned handle once the guest has it; settling frees the resolvers.
    return deferred.handle;
  }

  /** Whether the instance's memory can still grow enough for a string of `length` to enter. */
  #room(length: number): boolean {
    const left = this.instance.capBytes - this.instance.memory.buffer.byteLength;
    return ROOM_PER_CHAR * length + ROOM_MARGIN <= left;
  }

  #settle(deferred: QuickJSDeferredPromise, ok: boolean, text: string | undefined): void {
    if (!this.#live.delete(deferred)) return;
    try {
      this.#slice(() => {
        const value = text === undefined ? this.ctx.undefined : this.ctx.newString(text);
        try {
          if (ok) deferred.resolve(value);
          else deferred.reject(value);
        } finally {
          if (text !== undefined) value.dispose();
        }
      });
    } catch (error) {
      this.failure ??= error;
    }
  }

  /** A string handed over, copied out only when at most `max` long; anything else as undefined. */
  #read(handle: QuickJSHandle | undefined, max: number): string | Oversized | undefined {
    if (handle === undefined || this.ctx.typeof(handle) !== "string") return undefined;
    const lengthHandle = this.ctx.getProp(handle, "length");
    const length = this.ctx.getNumber(lengthHandle);
    lengthHandle.dispose();
    return length > max ? new Oversized(length) : this.ctx.getString(handle);
  }

  #describeError(error: QuickJSHandle): Step {
    try {
      const described = this.#slice(() => this.ctx.callFunction(this.#describe, this.ctx.undefined, error));
      if (described.error) {
        described.error.dispose();
        return { state: "failed", message: "the program threw a value that cannot be described" };
      }
      return this.#readEnd(described.value);
    } finally {
      error.dispose();
    }
  }

  /** The prelude's record of an end: plain fields, each string copied out within its bound. */
  #readEnd(record: QuickJSHandle): Step {
    try {
      const fields: Record<string, unknown> = {};
      for (const key of END_FIELDS) {
        const handle = this.ctx.getProp(record, key);
        const type = this.ctx.typeof(handle);
        const max = key === "json" ? this.limits.outputBytes : MESSAGE_MAX_CHARS * 2;
        fields[key] = type === "number" ? this.ctx.getNumber(handle) : this.#read(handle, max);
        handle.dispose();
      }
      const end = checkEnd(fields);
      return end.ok ? { state: "ended", end: end.value } : { state: "failed", message: end.message };
    } finally {
      record.dispose();
    }
  }

  #shouldInterrupt(): boolean {
    if (this.stopped() || performance.now() > this.#deadline) this.interrupted = true;
    return this.interrupted;
  }

  /** Runs `fn`, which may run guest code, with the interrupt deadline at the time the program has left. */
  #slice<T>(fn: () => T): T {
    if (this.#depth++ > 0) {
      try {
        return fn();
      } finally {
        this.#depth--;
      }
    }
    const start = performance.now();
    this.#deadline = start + this.clock.remaining();
    try {
      return fn();
    } finally {
      this.#depth--;
      this.#deadline = Infinity;
      this.clock.charge(performance.now() - start);
    }
  }

  #keep(handle: QuickJSHandle): QuickJSHandle {
    this.#kept.push(handle);
    return handle;
  }
}
