// TypeScript in a program: its types stripped (sucrase's typescript transform, which keeps line numbers
// and checks no types), so a model may write either language. Enums become plain objects. Imports are
// kept even when unused (TypeScript would drop them), so an `import` still reads as the syntax error it
// is in a program; `import type` goes, as types do. Sucrase is pure JavaScript that reads no file; it is
// imported on first use (~75 ms cold, well under 1 ms warm). Plain JavaScript passes through with its
// meaning unchanged (a JavaScript-only oddity such as `a < b > (c)` reads as TypeScript's generic call);
// most of it never meets sucrase at all (triedAsWritten).

import { CODE_MAX_CHARS, stripErrorMessage, tooLargeMessage } from "./messages.ts";
import { BY_NAME, type CodePackages, type Sucrase } from "./packages.ts";

let sucrase: Promise<Sucrase> | undefined;

/**
 * Loads sucrase once a process (by the loaders of its first call: packages.ts); a failure says what
 * could not be loaded, and the next call tries again.
 */
function loadSucrase(packages: CodePackages): Promise<Sucrase> {
  return sucrase ??= packages.sucrase().catch((error) => {
    sucrase = undefined;
    throw new Error(
      `cannot load tinyagent's TypeScript stripper (sucrase): ${(error as Error).message ?? error}`,
    );
  });
}

/**
 * Whether `code` is first run as written, as JavaScript, and stripped only when QuickJS cannot compile
 * it. Every construct that reads both as JavaScript and as TypeScript, with different meanings, holds a
 * `<` (type arguments and assertions: `f<T>(x)`, `a < b > (c)`); without one, JavaScript that compiles
 * means what it says as written. It then costs no stripping, nor sucrase's load, and valid JavaScript
 * that sucrase misreads runs: it refuses `c ? (a) : b => a` (an arrow as a conditional's last operand)
 * as a syntax error.
 */
export function triedAsWritten(code: string): boolean {
  return code.length <= CODE_MAX_CHARS && !code.includes("<");
}

/** The program as JavaScript, or a syntax message naming the line. */
export async function stripTypes(
  code: string,
  packages: CodePackages = BY_NAME,
): Promise<{ ok: true; code: string } | { ok: false; message: string }> {
  if (code.length > CODE_MAX_CHARS) return { ok: false, message: tooLargeMessage(code.length) };
  const { transform } = await loadSucrase(packages);
  try {
    const options = {
      transforms: ["typescript" as const],
      disableESTransforms: true,
      keepUnusedImports: true,
    };
    return { ok: true, code: transform(code, options).code };
  } catch (error) {
    return { ok: false, message: stripErrorMessage(error) };
  }
}
