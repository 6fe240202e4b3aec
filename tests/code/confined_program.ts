// The worker of tests/code/confined_test.ts: it runs with no permission at all, as tinyagent's sandboxed
// worker does (no read, in particular), proves it cannot read a file, then runs the programs it is sent
// through runProgram, which loads QuickJS and the type stripper on first use, here.

import type { ProgramOutcome } from "../../lib/code/program.ts";
import { runProgram } from "../../lib/code/sandbox.ts";

export type Request = { code: string };
export type Reply = { readDenied: string; outcome: ProgramOutcome; ms: number } | { failed: string };

function readDenied(): string {
  try {
    Deno.readTextFileSync(new URL(import.meta.url));
    return "read allowed";
  } catch (error) {
    return (error as Error).name;
  }
}

// The worker global scope, typed without pulling the worker lib into the whole program.
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<Request>) => void) | null;
  postMessage(message: Reply): void;
};

const bridge = {
  call: (tool: string, args: Record<string, unknown>) =>
    Promise.resolve({ tool, args, from: "the worker's bridge" }),
};

scope.onmessage = async (event) => {
  try {
    const start = performance.now();
    const outcome = await runProgram(event.data.code, bridge, { limits: { wallMs: 20_000 } });
    scope.postMessage({ readDenied: readDenied(), outcome, ms: performance.now() - start } satisfies Reply);
  } catch (error) {
    scope.postMessage({ failed: String(error) } satisfies Reply);
  }
};
