// tinyagent's entry point, holding the whole program in its graph: the compiled binary's (which embeds
// what it names), and the one a confined run starts from (`deno run --allow-net=HOST:PORT
// --allow-env=VAR main.ts`), which can read no file to load a module later. The work is
// lib/sandbox/entry.ts's; launch.ts runs the same from a checkout reading only what a command needs.

import { main } from "./lib/sandbox/entry.ts";
import { ALL_PARTS } from "./lib/session/all_parts.ts";

if (import.meta.main) {
  Deno.exit(
    await main(Deno.args, {
      run: () => import("./lib/session/run.ts"),
      check: () => import("./lib/sandbox/check.ts"),
      usage: () => import("./lib/cli/usage.ts"),
      hostConfig: () => import("./lib/cli/host_config.ts"),
      parts: ALL_PARTS,
    }),
  );
}
