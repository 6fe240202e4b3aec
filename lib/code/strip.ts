// TypeScript in a program: its types erased by swc's strip-only mode (@swc/wasm-typescript, the stripper
// Node.js itself uses), which checks no types and replaces each with spaces, so every line and column stays
// where the model wrote it. Only TypeScript that erases to nothing is accepted: an enum, a namespace with
// values or a parameter property would need code written for it, and swc refuses `<T>x` for `x as T`; each
// is a syntax error naming its line and what to write instead (messages.ts). `import` and `export` stay, so
// they read as the syntax errors they are in a program; `import type` goes, as types do. The stripper is one
// file with its WebAssembly inside and no dependency; it loads on first use with no read permission. Most
// JavaScript never meets it (triedAsWritten).

import {
  CODE_MAX_CHARS,
  isStripError,
  stripErrorMessage,
  stripFailureMessage,
  tooLargeMessage,
} from "./messages.ts";
import { BY_NAME, type CodePackages, type Stripper } from "./packages.ts";

/** A program stripped, or why not. */
export type Stripped = { ok: true; code: string } | { ok: false; message: string };

/**
 * After a failure inside the stripper's WebAssembly, the memory past which it is set aside: a failure
 * leaves what the call had allocated behind, and WebAssembly memory never shrinks. The largest program
 * accepted (256 KiB of TypeScript) takes ~11 MiB.
 */
export const STRIPPER_MEMORY_BOUND = 32 * 1024 * 1024;

/** The part of swc's wasm-bindgen glue the recovery uses (its `__wasm` export, not in its types). */
interface WasmInternals {
  memory: WebAssembly.Memory;
  /** Moves the WebAssembly's own stack pointer by `delta` and returns it: 0 reads it. */
  __wbindgen_add_to_stack_pointer(delta: number): number;
}

function internalsOf(swc: Stripper): WasmInternals | undefined {
  const wasm = (swc as unknown as { __wasm?: Partial<WasmInternals> }).__wasm;
  return wasm?.memory instanceof WebAssembly.Memory &&
      typeof wasm.__wbindgen_add_to_stack_pointer === "function"
    ? wasm as WasmInternals
    : undefined;
}

/** A program whose stripped text is known: run after a failure, it shows the stripper works again. */
const CANARY = ["let a: number = 1;", "let a         = 1;"] as const;

/**
 * swc's stripper, kept usable after a failure inside its WebAssembly. A program nested deeply enough (about
 * a thousand levels) overflows the parser's stack: the WebAssembly traps, or V8 throws a RangeError, and
 * its stack pointer is left where the failure stopped it, so every later call fails too. It is put back;
 * then, if the canary does not strip as it should or the memory left behind is past the bound, the
 * stripper is set aside for the rest of the process: TypeScript is refused, saying why, and JavaScript
 * runs as written (sandbox.ts).
 */
export class GuardedStripper {
  #setAside: string | undefined;
  constructor(private readonly swc: Stripper) {}

  strip(code: string): Stripped {
    if (this.#setAside !== undefined) return { ok: false, message: this.#setAside };
    const wasm = internalsOf(this.swc);
    const stack = wasm?.__wbindgen_add_to_stack_pointer(0);
    try {
      return { ok: true, code: this.swc.transformSync(code, { mode: "strip-only" }).code };
    } catch (error) {
      if (isStripError(error)) return { ok: false, message: stripErrorMessage(error, code) };
      const message = stripFailureMessage(error);
      this.#recover(wasm, stack);
      return { ok: false, message: this.#setAside === undefined ? message : `${message}; ${this.#setAside}` };
    }
  }

  #recover(wasm: WasmInternals | undefined, stack: number | undefined): void {
    if (wasm && stack !== undefined) {
      wasm.__wbindgen_add_to_stack_pointer(stack - wasm.__wbindgen_add_to_stack_pointer(0));
    }
    const why = !wasm || stack === undefined
      ? "its stack cannot be put back"
      : wasm.memory.buffer.byteLength > STRIPPER_MEMORY_BOUND
      ? `its memory grew past ${STRIPPER_MEMORY_BOUND / 1024 / 1024} MiB`
      : !this.#canaryHolds()
      ? "it no longer strips correctly"
      : undefined;
    if (why !== undefined) {
      this.#setAside = `the TypeScript stripper failed on an earlier program and is set aside (${why}): ` +
        "write the program in JavaScript";
    }
  }

  #canaryHolds(): boolean {
    try {
      return this.swc.transformSync(CANARY[0], { mode: "strip-only" }).code === CANARY[1];
    } catch {
      return false;
    }
  }
}

let stripper: Promise<GuardedStripper> | undefined;

/**
 * Loads the stripper once a process (by the loaders of its first call: packages.ts); a failure says what
 * could not be loaded, and the next call tries again.
 */
function loadStripper(packages: CodePackages): Promise<GuardedStripper> {
  return stripper ??= packages.stripper().then((swc) => new GuardedStripper(swc)).catch((error) => {
    stripper = undefined;
    throw new Error(
      `cannot load tinyagent's TypeScript stripper (@swc/wasm-typescript): ${
        (error as Error).message ?? error
      }`,
    );
  });
}

/**
 * Whether `code` is first run as written, as JavaScript, and stripped only when QuickJS cannot compile
 * it. Every construct that reads both as JavaScript and as TypeScript, with different meanings, holds a
 * `<` (type arguments and assertions: `f<T>(x)`, `a < b > (c)`); without one, JavaScript that compiles
 * means what it says as written. It then costs no stripping, nor the stripper's load.
 */
export function triedAsWritten(code: string): boolean {
  return code.length <= CODE_MAX_CHARS && !code.includes("<");
}

/**
 * Whether a program the stripper did not strip is then run as written, when it was not already: valid
 * JavaScript that swc refuses (it reads a program as TypeScript does, which refuses `with` and legacy
 * octal literals), or any JavaScript once the stripper is set aside. What swc refuses as TypeScript (an
 * enum, `<T>x`, a parameter property) is no JavaScript either: its compile fails, and the stripper's
 * message, naming the line, is the one said.
 */
export function retriedAsWritten(code: string): boolean {
  return code.length <= CODE_MAX_CHARS && code.includes("<");
}

/** The program as JavaScript, or a syntax message naming the line. */
export async function stripTypes(code: string, packages: CodePackages = BY_NAME): Promise<Stripped> {
  if (code.length > CODE_MAX_CHARS) return { ok: false, message: tooLargeMessage(code.length) };
  return (await loadStripper(packages)).strip(code);
}
