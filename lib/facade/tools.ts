// The curated tool lists and the kind table (facade.md, "Exposed tools" and
// "Sign and resubmit"). Pure data and pure functions: no I/O.

/** Read tools, offered by default, in the order they are listed. */
export const READ_TOOLS: readonly string[] = [
  "list_repositories",
  "read_repository",
  "list_issues",
  "read_issue",
  "list_pull_requests",
  "read_pull_request",
  "list_files",
  "read_file",
  "read_attachment",
  "list_rooms",
  "read_room",
  "read_thread",
  "list_wiki",
  "read_wiki_page",
  "list_jobs",
  "read_job",
  "read_status",
];

/**
 * Write tools and the event kinds each one is expected to publish. A template
 * is signed only for a tool in this table and only for a kind listed for it.
 * `upload_attachment` stores a file and publishes nothing, so it has no kind.
 */
export const WRITE_KINDS: Readonly<Record<string, readonly number[]>> = {
  create_issue: [1621],
  create_pull_request: [1618],
  comment: [1111],
  post_message: [9],
  start_thread: [11],
  reply_in_thread: [12],
  react: [7],
  publish_wiki_page: [30818],
  propose_wiki_merge: [818],
  upload_attachment: [],
  request_decision: [9, 1111],
  request_grant: [1111],
  request_job: [43001],
  accept_job: [43002],
  job_progress: [43003],
  job_result: [43004],
  job_error: [43006],
  cancel_job: [43005],
};

/** Write tools, added with `--allow-writes`, in the order they are listed. */
export const WRITE_TOOLS: readonly string[] = Object.keys(WRITE_KINDS);

/** The one tool the facade answers itself (diagnose/tool.ts); no relay tool may carry the name. */
export const DIAGNOSE_TOOL = "tiny_diagnose";

/**
 * The relay's tools tinyagent knows and never offers, with why: saying so is
 * more use to a user than "unknown". Keyed by a Map so a name from the host or
 * the command line never reaches Object.prototype.
 */
const NEVER_OFFERED = new Map<string, string>([
  [
    "publish_event",
    "it publishes any signed event, and tinyagent signs only the kinds each curated write tool publishes",
  ],
  ...["read_management", "read_merge_request", "list_agents", "list_callbacks", "list_join_requests"].map((
    name,
  ) => [name, "it is a relay operator's view, outside the curated read tools"] as [string, string]),
  ...[
    "run_job",
    "add_job",
    "remove_job",
    "backup_now",
    "dump_now",
    "set_policy",
    "set_connections",
    "send_test_notification",
    "pause_agent",
    "resume_agent",
    "revoke_agent",
    "pause_all_agents",
    "resume_all_agents",
    "approve_join",
    "deny_join",
    "add_callback",
    "remove_callback",
    "pause_callback",
    "resume_callback",
  ].map((name) =>
    [name, "it is a management tool, for the relay's operator, not an agent"] as [string, string]
  ),
  ...["set_status", "publish_site", "create_room"].map((name) =>
    [name, "it publishes events outside the curated write tools"] as [string, string]
  ),
]);

/** Why a known relay tool is never offered, or undefined for a tool tinyagent may offer or does not know. */
export function neverOfferedReason(name: string): string | undefined {
  return NEVER_OFFERED.get(name);
}

/**
 * The hint after `Unknown tool: <name>` for a tool the host may not call: what
 * would expose it, or why nothing will. Empty for a name tinyagent does not know.
 */
export function unknownToolHint(name: string, allowWrites: boolean): string {
  if (isWriteTool(name)) {
    return allowWrites ? " (a write tool left out by --tools)" : " (a write tool: --allow-writes exposes it)";
  }
  if (isReadTool(name)) return " (a read tool left out by --tools)";
  const reason = neverOfferedReason(name);
  return reason ? ` (never offered: ${reason})` : "";
}

export function isReadTool(name: string): boolean {
  return READ_TOOLS.includes(name);
}

export function isWriteTool(name: string): boolean {
  return Object.hasOwn(WRITE_KINDS, name);
}

/** A write tool that publishes no event (`upload_attachment`): it signs nothing, and still counts as a write. */
export function publishesNothing(tool: string): boolean {
  return isWriteTool(tool) && WRITE_KINDS[tool].length === 0;
}

/** Whether `tool` is a write tool expected to publish events of `kind`. */
export function publishesKind(tool: string, kind: number): boolean {
  return isWriteTool(tool) && WRITE_KINDS[tool].includes(kind);
}

/**
 * Resolves the exposed tool names from `--tools` and `--allow-writes`.
 * Without `--tools`: the read tools, plus the write tools with writes allowed.
 * With `--tools`: the named tools in the order given, duplicates dropped; an
 * unknown name or a write tool without `--allow-writes` is an error naming it.
 * `tiny_diagnose` belongs to neither list: it is always offered, so naming it
 * is an error that says so.
 */
export function resolveExposure(
  tools: readonly string[] | undefined,
  allowWrites: boolean,
): { ok: true; names: string[] } | { ok: false; error: string } {
  if (tools === undefined) {
    return { ok: true, names: allowWrites ? [...READ_TOOLS, ...WRITE_TOOLS] : [...READ_TOOLS] };
  }
  const names: string[] = [];
  if (tools.length === 0) return { ok: false, error: "--tools names no tool" };
  for (const name of tools) {
    if (name === DIAGNOSE_TOOL) {
      return { ok: false, error: `--tools: ${DIAGNOSE_TOOL} is always offered; leave it out of --tools` };
    }
    if (names.includes(name)) continue;
    if (isWriteTool(name)) {
      if (!allowWrites) {
        return { ok: false, error: `--tools: ${name} publishes events; add --allow-writes to expose it` };
      }
    } else if (!isReadTool(name)) {
      const reason = neverOfferedReason(name);
      return {
        ok: false,
        error: reason
          ? `--tools: ${name} is never offered: ${reason}`
          : `--tools: unknown tool ${JSON.stringify(name)}; the tools are ${READ_TOOLS.join(", ")} ` +
            `and, with --allow-writes, ${WRITE_TOOLS.join(", ")}`,
      };
    }
    names.push(name);
  }
  return { ok: true, names };
}
