// The permission flags the release binary is compiled with. They are spelled
// out in one place only, deno.json's `start` task (`deno task start` runs
// launch.ts, main.ts's program from a checkout, exactly as the binary runs);
// this reads them from there.

import config from "../deno.json" with { type: "json" };

const PREFIX = ["deno", "run"];
const ENTRY = "launch.ts";

/**
 * The tokens between `deno run` and `launch.ts` in `task`, which must be
 * `deno run <flags…> launch.ts` with every flag starting with `-`.
 */
export function parseStartTask(task: unknown): string[] {
  const shape = `expected "deno run <flags> ${ENTRY}"`;
  if (typeof task !== "string") {
    throw new Error(`deno.json has no "start" task (${shape}), so the shipped flags are unknown`);
  }
  const tokens = task.trim().split(/\s+/);
  const flags = tokens.slice(PREFIX.length, -1);
  if (
    tokens.length < PREFIX.length + 1 ||
    PREFIX.some((word, i) => tokens[i] !== word) ||
    tokens.at(-1) !== ENTRY ||
    flags.some((flag) => !flag.startsWith("-"))
  ) {
    throw new Error(`deno.json's "start" task is "${task}": ${shape}, so the shipped flags are unknown`);
  }
  return flags;
}

/** The flags of deno.json's `start` task: what `deno compile` builds the binary with. */
export function shippedFlags(): string[] {
  return parseStartTask((config.tasks as Record<string, unknown>).start);
}

if (import.meta.main) console.log(shippedFlags().join(" "));
