// TypeScript in a program: its types stripped (sucrase's typescript transform, which keeps line numbers
// and checks no types), so a model may write either language. Enums become plain objects. Imports are
// kept even when unused (TypeScript would drop them), so an `import` still reads as the syntax error it
// is in a program; `import type` goes, as types do. Sucrase is pure JavaScript that reads no file; it is
// imported on first use (~100 ms cold, well under 1 ms warm). Plain JavaScript passes through with its
// meaning unchanged (a JavaScript-only oddity such as `a < b > (c)` reads as TypeScript's generic call).

import { CODE_MAX_CHARS, stripErrorMessage, tooLargeMessage } from "./messages.ts";

type Sucrase = typeof import("sucrase");

let sucrase: Promise<Sucrase> | undefined;

/** Loads sucrase once; a failure says what could not be loaded, and the next call tries again. */
function loadSucrase(): Promise<Sucrase> {
  return sucrase ??= import("sucrase").catch((error) => {
    sucrase = undefined;
    throw new Error(
      `cannot load tinyagent's TypeScript stripper (sucrase): ${(error as Error).message ?? error}`,
    );
  });
}

/** The program as JavaScript, or a syntax message naming the line. */
export async function stripTypes(
  code: string,
): Promise<{ ok: true; code: string } | { ok: false; message: string }> {
  if (code.length > CODE_MAX_CHARS) return { ok: false, message: tooLargeMessage(code.length) };
  const { transform } = await loadSucrase();
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
