// The parts of tinyagent a command may need beyond the runner: each command's session, and what a flag
// adds to mcp. Who runs a command hands the runner the parts it may load (run.ts takes them, never
// imports them): under `deno run`, the sandbox's worker is given only its command's parts
// (sandbox/worker_entry.ts), so the rest of the program is never read; a confined run and the
// compiled binary hold them all (all_parts.ts). Pure: names, paths and types only.

/** Each part, loaded (and evaluated) on first use. */
export interface SessionParts {
  mcp(): Promise<typeof import("./mcp.ts")>;
  /** mcp --listen / --approvers: the listener and the approvals on the relay's websocket. */
  listen(): Promise<typeof import("./listening_parts.ts")>;
  /** mcp's resources and completions, loaded on the host's first request for them. */
  resources(): Promise<typeof import("./resources_session.ts")>;
  /** mcp --code-mode: tiny_search and tiny_execute. */
  code(): Promise<typeof import("./code_mode.ts")>;
  /**
   * Code mode's npm packages by literal specifiers, for a run whose graph holds every part anyway; a
   * worker started from source is not given it, and loads them by name (code/packages.ts).
   */
  packages(): Promise<typeof import("../code/packages_named.ts")>;
  /** rpc and call METHOD. */
  rpc(): Promise<typeof import("./rpc.ts")>;
  /** tools and call TOOL. */
  tools(): Promise<typeof import("./tool_commands.ts")>;
  diagnose(): Promise<typeof import("./diagnose_command.ts")>;
}

export type PartName = keyof SessionParts;

/** Each part's module, from lib/: how a worker entry or a launcher names it by URL. */
export const PART_MODULES: Readonly<Record<PartName, string>> = {
  mcp: "session/mcp.ts",
  listen: "session/listening_parts.ts",
  resources: "session/resources_session.ts",
  code: "session/code_mode.ts",
  packages: "code/packages_named.ts",
  rpc: "session/rpc.ts",
  tools: "session/tool_commands.ts",
  diagnose: "session/diagnose_command.ts",
};

/** The part `name` from `parts`, or a clear internal error: a runner was not given what it needs. */
export function partOf<N extends PartName>(parts: Partial<SessionParts>, name: N): SessionParts[N] {
  const load = parts[name];
  if (!load) {
    throw new Error(`internal error: tinyagent's ${name} code was not loaded for this command`);
  }
  return load;
}
