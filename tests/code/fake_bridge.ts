// Bridges for the sandbox's tests: one that answers each call from a table of tools, recording every
// call, how many were in flight at most, and each call's context (its signal, its pause).

import type { CallContext, RelayBridge } from "../../lib/code/program.ts";

export interface Seen {
  tool: string;
  args: Record<string, unknown>;
  context: CallContext;
}

export type Tool = (args: Record<string, unknown>, context: CallContext) => unknown;

/** The tools every test bridge has, besides its own. */
const COMMON: Record<string, Tool> = {
  echo: (args) => ({ echoed: args }),
  fail: (args) => {
    throw new Error(String(args.message ?? "the relay refused"));
  },
  never: () => new Promise(() => {}),
  /** Answers on the next macrotask, so many calls are in flight at once. */
  later: (args) => new Promise((resolve) => setTimeout(() => resolve(args), 0)),
};

export class FakeBridge implements RelayBridge {
  seen: Seen[] = [];
  inFlight = 0;
  maxInFlight = 0;

  constructor(private readonly tools: Record<string, Tool> = {}) {}

  async call(tool: string, args: Record<string, unknown>, context: CallContext): Promise<unknown> {
    this.seen.push({ tool, args, context });
    this.inFlight++;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    try {
      const handler = this.tools[tool] ?? COMMON[tool];
      if (!handler) throw new Error(`no tool named ${tool}`);
      return await handler(args, context);
    } finally {
      this.inFlight--;
    }
  }
}

/** Resolves once `predicate` holds, checking after each macrotask (bound it with within()). */
export async function until(predicate: () => boolean): Promise<void> {
  while (!predicate()) await new Promise((resolve) => setTimeout(resolve, 1));
}
