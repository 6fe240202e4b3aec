// Which parts a command's worker holds, and the entry module that gives it exactly those. Under
// `deno run`, Deno reads a module's whole graph before running it, the modules it imports later by a
// literal name included; a worker started from this entry reads the worker's protocol, the runner and
// its command's parts, never the rest of the program (the helper for mcp, the listener without
// --listen). The worker may read no file, so the parts are named here, while the main thread can read
// them. Pure.

import type { Command } from "../cli/args.ts";
import { PART_MODULES, type PartName } from "../session/parts.ts";

/**
 * The parts `command` may load, in a fixed order. Never code mode's packages: by literal specifiers they
 * would be read before the worker's first answer, and by name (code/packages.ts) they load without.
 */
export function partsFor(
  command: Extract<
    Command,
    { command: "mcp" | "rpc" | "method" | "tools" | "call" | "diagnose" | "whoami" | "sandbox-check" }
  >,
): PartName[] {
  switch (command.command) {
    case "mcp":
      return [
        "mcp",
        ...(command.listen || command.approvals ? ["listen" as const] : []),
        ...(command.codeMode ? ["code" as const] : []),
        "resources",
      ];
    case "rpc":
    case "method":
      return ["rpc"];
    case "tools":
    case "call":
      return ["tools"];
    case "diagnose":
      return ["diagnose"];
    case "whoami":
    case "sandbox-check":
      return [];
  }
}

/**
 * The source of a module that starts the worker with `parts`, each loaded by a literal URL (so its
 * graph is read with the entry's, and evaluated on first use). `lib` is lib/'s URL.
 */
export function workerSource(parts: readonly PartName[], lib: URL): string {
  const url = (path: string) => JSON.stringify(new URL(path, lib).href);
  const loaders = parts.map((name) => `  ${name}: () => import(${url(PART_MODULES[name])}),`);
  return [
    `import { serveWorker } from ${url("sandbox/worker.ts")};`,
    "serveWorker({",
    ...loaders,
    "});",
  ].join("\n");
}

/** The entry as a URL a Worker can start from. */
export function workerEntryUrl(parts: readonly PartName[], lib: URL): string {
  return `data:application/javascript;base64,${btoa(workerSource(parts, lib))}`;
}
