// Every part, by literal specifier: what a confined run (main.ts, which can read no file to load one
// later) and the compiled binary's worker hold. Deno reads every module named here when it reads this
// module's graph; a run that needs fewer is given fewer (parts.ts).

import type { SessionParts } from "./parts.ts";

export const ALL_PARTS: SessionParts = {
  mcp: () => import("./mcp.ts"),
  listen: () => import("./listening_parts.ts"),
  resources: () => import("./resources_session.ts"),
  code: () => import("./code_mode.ts"),
  packages: () => import("../code/packages_named.ts"),
  rpc: () => import("./rpc.ts"),
  tools: () => import("./tool_commands.ts"),
  diagnose: () => import("./diagnose_command.ts"),
};
