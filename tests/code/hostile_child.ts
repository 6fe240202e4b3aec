// Runs tests/code/hostile_programs.ts's list in this process of its own, one program after another, each
// followed by a fresh one, and writes one JSON line per program to stdout: its name, the failure of its
// checks if any, and this process's RSS after it and after the fresh program (no forced GC).

import { sandboxStats } from "../../lib/code/sandbox.ts";
import { fresh, HOSTILE, runHostile } from "./hostile_programs.ts";

/** Ends at which the instance must have been dropped rather than kept. */
const DIRTY = ["timeout", "memory", "stack", "output", "cancelled"];

export interface HostileReport {
  name: string;
  failure?: string;
  rss: number;
  rssAfterFresh: number;
}

for (const hostile of HOSTILE) {
  const report: HostileReport = { name: hostile.name, rss: 0, rssAfterFresh: 0 };
  try {
    const { outcome, bridge } = await runHostile(hostile);
    hostile.expect(outcome, bridge);
    if (DIRTY.includes(outcome.end) && sandboxStats().idle) {
      throw new Error(`the instance was kept after the program ended by ${outcome.end}`);
    }
    report.rss = Deno.memoryUsage().rss;
    await fresh();
    report.rssAfterFresh = Deno.memoryUsage().rss;
  } catch (error) {
    report.failure = error instanceof Error ? error.message : String(error);
  }
  console.log(JSON.stringify(report));
}
