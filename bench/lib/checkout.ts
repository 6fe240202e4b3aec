// Which tinyagent a benchmark runs: this checkout, or an older one beside it (`--baseline DIR`, a
// throwaway `git worktree add /tmp/base <commit>`). Each is run from its own directory with its own
// deno.json and lockfile, the narrow way (`main.ts` with the relay's host and the key variable) or as
// shipped from a checkout (its deno.json's start task: the flags and the entry it names, launch.ts
// here and main.ts before launch.ts existed).

import config from "../../deno.json" with { type: "json" };
import { loaderEnv, ROOT } from "../../tests/support/tinyagent.ts";

export interface Checkout {
  /** Its directory, ending in a slash. */
  dir: string;
  /**
   * `--config <its deno.json>` for another checkout. Deno 2.9.6 finds the config from the entry's
   * directory (not the working directory), so this only makes explicit what it would do; the
   * lockfile is the one beside that deno.json.
   */
  configFlags: string[];
  /** Its start task's flags and entry: how `deno task start` and bin/tinyagent run it. */
  shipped: { flags: string[]; entry: string };
}

/** `deno run <flags…> <entry>.ts` of a deno.json's start task, split; throws when it is not that. */
export function startTask(denoJson: unknown, where: string): { flags: string[]; entry: string } {
  const task = (denoJson as { tasks?: Record<string, unknown> })?.tasks?.start;
  const tokens = typeof task === "string" ? task.trim().split(/\s+/) : [];
  const entry = tokens.at(-1) ?? "";
  const flags = tokens.slice(2, -1);
  if (
    tokens[0] !== "deno" || tokens[1] !== "run" || !/^[\w./-]+\.ts$/.test(entry) ||
    flags.some((f) => !f.startsWith("-"))
  ) {
    throw new Error(`${where}: its start task is ${JSON.stringify(task)}, not "deno run <flags> <entry>.ts"`);
  }
  return { flags, entry };
}

/** This checkout. */
export const HERE: Checkout = { dir: ROOT, configFlags: [], shipped: startTask(config, `${ROOT}deno.json`) };

/**
 * Another checkout at `dir`, its packages cached first: `deno cache --config DIR/deno.json
 * DIR/main.ts` (from its lockfile; it downloads nothing when they already are). The bench may not
 * read files, so `read` is given (child.ts's, by `cat`).
 */
export async function baselineAt(
  dir: string,
  read: (path: string) => Promise<string>,
  log: (line: string) => void,
): Promise<Checkout> {
  if (!dir.startsWith("/")) throw new Error(`--baseline: ${dir} is not an absolute path`);
  const root = dir.endsWith("/") ? dir : `${dir}/`;
  const configFile = `${root}deno.json`;
  const shipped = startTask(JSON.parse(await read(configFile)), configFile);
  const configFlags = ["--config", configFile];
  log(`baseline: caching its packages (deno cache --config ${configFile} ${root}main.ts)`);
  const cache = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "--quiet", ...configFlags, `${root}main.ts`],
    cwd: root,
    env: loaderEnv(),
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!cache.success) {
    const why = new TextDecoder().decode(cache.stderr).trim().slice(-2000);
    throw new Error(`--baseline: deno cache failed for ${root}main.ts: ${why}`);
  }
  return { dir: root, configFlags, shipped };
}
