// tinyagent from a checkout, as bin/tinyagent and `deno task start` run it (with the shipped
// permission flags): main.ts's program, each module loaded by URL when a command needs it. Deno reads
// a module's whole graph before running it, the modules it imports later by a literal name included;
// loaded by URL, they are read only if they run, and the sandbox's worker is given its command's parts
// alone (lib/sandbox/worker_entry.ts). It needs read permission for its own code, which the shipped
// flags hold until the sandbox starts; a confined run starts from main.ts.

import { Fatal } from "./lib/cli/fatal.ts";
import { ENTRY_MODULES, type EntryModules, main } from "./lib/sandbox/entry.ts";
import { PART_MODULES, type PartName, type SessionParts } from "./lib/session/parts.ts";

const LIB = new URL("./lib/", import.meta.url);

/** Started without read permission for its own code (a confined run): what to run instead. */
const CONFINED =
  "launch.ts loads tinyagent's modules as a command needs them, which needs read permission for the " +
  "checkout; started confined (--allow-net=HOST:PORT --allow-env=VAR only), run main.ts instead, which " +
  "names every module up front";

/** The module at `path` under lib/, imported by URL. */
const byUrl = <T>(path: string) => (): Promise<T> =>
  import(new URL(path, LIB).href).catch((error) => {
    throw /^Requires read access/.test((error as Error)?.message ?? "") ? new Fatal(CONFINED) : error;
  });

const parts = Object.fromEntries(
  (Object.keys(PART_MODULES) as PartName[]).map((name) => [name, byUrl(PART_MODULES[name])]),
) as unknown as SessionParts;

const modules: EntryModules = {
  run: byUrl(ENTRY_MODULES.run),
  check: byUrl(ENTRY_MODULES.check),
  usage: byUrl(ENTRY_MODULES.usage),
  hostConfig: byUrl(ENTRY_MODULES.hostConfig),
  parts,
};

if (import.meta.main) Deno.exit(await main(Deno.args, modules));
