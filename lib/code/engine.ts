// The QuickJS engine programs run in, and the turns they take. The engine (quickjs-emscripten's core and
// bellard QuickJS built as one ES module with its WebAssembly inside, so loading it reads no file and
// works in tinyagent's read-less sandbox) is imported on first use, never at start, once a process, by
// the loaders its first program was given (packages.ts; every program of a process is given the same).
//
// Each running program has a WebAssembly instance of its own, whose memory is capped at the program's
// memory limit: QuickJS's own memory limit does not bound what it takes from WebAssembly (measured), the
// cap does. At most MAX_RUNNING programs run at once; others wait in line, in order. An instance that ran
// a program to a clean end is kept for the next one (a fresh instance costs ~10 ms, a fresh runtime in a
// kept one ~0.3 ms), at most one kept idle; any other is dropped, never disposed (disposing after a limit
// was hit can abort inside QuickJS), and its memory goes with it.

import type { QuickJSWASMModule } from "quickjs-emscripten-core";
import { BY_NAME, type CodePackages, type Core, type VariantModule } from "./packages.ts";

type Variant = VariantModule["default"];

/** Programs running at once. */
export const MAX_RUNNING = 2;

/** An instance whose memory grew past this is dropped rather than kept (its memory never shrinks). */
export const KEEP_MAX_BYTES = 32 * 1024 * 1024;

/** The engine's initial WebAssembly memory, in 64 KiB pages: what its build expects (16 MiB). */
const INITIAL_PAGES = 256;

/** One WebAssembly instance of QuickJS, with its capped memory. */
export interface Instance {
  module: QuickJSWASMModule;
  memory: WebAssembly.Memory;
  capBytes: number;
}

/** A program's turn: its instance, given back once with whether it may be kept. */
export interface Turn {
  instance: Instance;
  release(keep: boolean): void;
}

let engine: Promise<{ core: Core; variant: Variant }> | undefined;

/** Loads the engine once; a failure says what could not be loaded, and the next call tries again. */
export function loadEngine(packages: CodePackages = BY_NAME): Promise<{ core: Core; variant: Variant }> {
  return engine ??= Promise.all([packages.core(), packages.variant()]).then(
    ([core, variant]) => ({ core, variant: variant.default }),
    (error) => {
      engine = undefined;
      throw new Error(
        `cannot load tinyagent's program sandbox (QuickJS): ${(error as Error).message ?? error}`,
      );
    },
  );
}

/** A fresh instance whose WebAssembly memory can never grow past `capBytes`. */
export async function newInstance(capBytes: number, packages?: CodePackages): Promise<Instance> {
  const { core, variant } = await loadEngine(packages);
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: Math.floor(capBytes / 65536) });
  const module = await core.newQuickJSWASMModuleFromVariant(
    core.newVariant(notNode(variant), { wasmMemory: memory }),
  );
  return { module, memory, capBytes };
}

/**
 * `variant` with its loader started where no `process` global is seen. The emscripten build asks
 * `globalThis.process?.versions?.node` when it starts; Deno answers like Node, and the build then loads
 * node:module, node:fs, node:path and node:url for its file system, which it never uses here (its
 * WebAssembly is inside it): about a hundred of Deno's Node modules, ~1 MiB of the sandbox's heap and
 * more of its RSS (docs/performance.md). The question is asked before the loader's first await, so the
 * global is hidden for exactly that synchronous start, and no other code can see it gone.
 */
export function notNode(variant: Variant): Variant {
  return {
    ...variant,
    importModuleLoader: async () => {
      const load = loaderOf(await variant.importModuleLoader());
      return (options) => withoutProcess(() => load(options));
    },
  };
}

type Imported = Awaited<ReturnType<Variant["importModuleLoader"]>>;
type Loader = Extract<Imported, (...args: never[]) => unknown>;

/** The loader in what the variant's import gave: itself or a module's default (as the core unwraps it). */
function loaderOf(imported: Imported): Loader {
  let value: unknown = imported;
  while (typeof value === "object" && value !== null && "default" in value) value = value.default;
  if (typeof value !== "function") throw new Error("QuickJS's build has no module loader");
  return value as Loader;
}

/** Runs `work` with globalThis.process undefined (the property replaced, never read), then puts it back. */
function withoutProcess<T>(work: () => T): T {
  const own = Object.getOwnPropertyDescriptor(globalThis, "process");
  if (!own?.configurable) return work();
  Object.defineProperty(globalThis, "process", { value: undefined, configurable: true, writable: true });
  try {
    return work();
  } finally {
    Object.defineProperty(globalThis, "process", own);
  }
}

/** Turns to run a program: at most `maxRunning` at once, in the order asked; one idle instance kept. */
export class EnginePool {
  #running = 0;
  #line: (() => void)[] = [];
  #idle: Instance | undefined;

  constructor(readonly maxRunning = MAX_RUNNING) {}

  /** Programs running, programs waiting, and whether an instance is kept. */
  stats(): { running: number; waiting: number; idle: boolean } {
    return { running: this.#running, waiting: this.#line.length, idle: this.#idle !== undefined };
  }

  /** Waits for a turn, then an instance with that memory cap; null when `signal` aborts first. */
  async acquire(capBytes: number, signal?: AbortSignal, packages?: CodePackages): Promise<Turn | null> {
    if (!await this.#turn(signal)) return null;
    let instance = this.#idle?.capBytes === capBytes ? this.#idle : undefined;
    this.#idle = instance ? undefined : this.#idle;
    try {
      instance ??= await newInstance(capBytes, packages);
    } catch (error) {
      this.#next();
      throw error;
    }
    let released = false;
    return {
      instance,
      release: (keep) => {
        if (released) return;
        released = true;
        if (keep && instance.memory.buffer.byteLength <= KEEP_MAX_BYTES) this.#idle = instance;
        this.#next();
      },
    };
  }

  #turn(signal?: AbortSignal): Promise<boolean> {
    if (signal?.aborted) return Promise.resolve(false);
    if (this.#running < this.maxRunning) {
      this.#running++;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const go = () => {
        signal?.removeEventListener("abort", leave);
        this.#running++;
        resolve(true);
      };
      const leave = () => {
        this.#line = this.#line.filter((waiter) => waiter !== go);
        resolve(false);
      };
      signal?.addEventListener("abort", leave, { once: true });
      this.#line.push(go);
    });
  }

  #next(): void {
    this.#running--;
    this.#line.shift()?.();
  }
}
