// The curated tool lists and the kind table (facade.md, "Exposed tools" and
// "Sign and resubmit"). Pure data and pure functions: no I/O.

import { type Conformed, conformTool } from "./conform.ts";
import { isObject } from "./json.ts";
import type { JsonObject, Tool } from "./mcp.ts";

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

/** The one tool the facade answers itself; no relay tool may carry the name. */
export const DIAGNOSE_TOOL = "tiny_diagnose";

export function isReadTool(name: string): boolean {
  return READ_TOOLS.includes(name);
}

export function isWriteTool(name: string): boolean {
  return Object.hasOwn(WRITE_KINDS, name);
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
      return { ok: false, error: `--tools: unknown tool ${JSON.stringify(name)}` };
    }
    names.push(name);
  }
  return { ok: true, names };
}

/**
 * Restricts the relay's `tools/list` entries to the exposed names, in the
 * exposure order, each made a valid MCP tool from the relay's title,
 * description, input schema and annotations (conform.ts). A relay tool
 * outside the exposed set (including one named `tiny_diagnose`) is never
 * offered; the first entry of a name counts.
 */
export function exposedTable(relayTools: unknown[], exposed: readonly string[]): Conformed<Tool[]> {
  const byName = new Map<string, JsonObject>();
  for (const tool of relayTools) {
    if (!isObject(tool)) continue;
    const name = tool.name;
    if (typeof name === "string" && !byName.has(name)) byName.set(name, tool);
  }
  const table: Tool[] = [];
  const notes: string[] = [];
  for (const name of exposed) {
    const entry = byName.get(name);
    if (!entry || name === DIAGNOSE_TOOL) continue;
    const conformed = conformTool(name, entry);
    table.push(conformed.value);
    notes.push(...conformed.notes);
  }
  return { value: table, notes };
}
