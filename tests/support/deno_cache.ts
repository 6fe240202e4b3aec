// The program's npm packages in a Deno cache, fetched with this process's own settings (loaderEnv:
// its DENO_DIR and trust settings), as a user's first `deno cache main.ts` fetches them. A test whose
// child runs with a narrower environment, or behind a test proxy, warms the cache first: otherwise, on
// a fresh DENO_DIR, what the child's graph holds beyond the test's own is fetched by the child, through
// whatever proxy the test gave it. main.ts names every module, so its graph is the program's.

import assert from "node:assert/strict";
import { loaderEnv, ROOT } from "./tinyagent.ts";

const decoder = new TextDecoder();
const warmed = new Map<string, Promise<void>>();

/** Caches main.ts's packages in `denoDir` (by default this process's cache), once per process. */
export function cacheProgram(denoDir?: string): Promise<void> {
  const key = denoDir ?? "";
  let warming = warmed.get(key);
  if (!warming) {
    warming = run(denoDir);
    warmed.set(key, warming);
  }
  return warming;
}

async function run(denoDir: string | undefined): Promise<void> {
  const warm = await new Deno.Command(Deno.execPath(), {
    args: ["cache", "main.ts"],
    cwd: ROOT,
    env: { ...loaderEnv(), ...(denoDir ? { DENO_DIR: denoDir } : {}) },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(warm.code, 0, decoder.decode(warm.stderr));
}
