// The read tools the real relay lists, in its order: the 17 the contract offers, and the read-only
// ones it keeps hidden (read_management, read_merge_request, list_agents and the like).

import { arr, bool, def, ECHO_OUTPUT, int, object, page, READ, repoRef, str } from "./tool_schema.ts";
import type { ToolDef } from "./types.ts";

export const READ_TOOL_DEFS: ToolDef[] = [
  def(
    "list_repositories",
    "List hosted repositories with search and pagination.",
    object({ q: str("Search text."), ...page }),
    READ,
    { title: "List repositories", outputSchema: ECHO_OUTPUT },
  ),
  def(
    "read_repository",
    "Read a repository tree, file, history, commit diff or activity at a ref.",
    object({
      ...repoRef,
      ref: str("Branch, tag or commit."),
      path: str("Path in the tree."),
      view: str("tree, file, history, diff or activity."),
    }, ["owner", "repo"]),
    READ,
  ),
  def(
    "list_issues",
    "List a repository's issues with search, status and label filters.",
    object({
      ...repoRef,
      q: str("Search text."),
      status: str("open, resolved, closed or draft."),
      label: str("Label filter."),
      ...page,
    }, ["owner", "repo"]),
    READ,
  ),
  def(
    "read_issue",
    "Read an issue with its replies and authorized status changes.",
    object({ ...repoRef, event: str("Issue event id.") }, ["owner", "repo", "event"]),
    READ,
  ),
  def(
    "list_pull_requests",
    "List a repository's pull requests with the same filters.",
    object({ ...repoRef, q: str("Search text."), status: str("Status filter."), ...page }, ["owner", "repo"]),
    READ,
  ),
  def(
    "read_pull_request",
    "Read a pull request with replies, updates and the available diff.",
    object({ ...repoRef, event: str("Pull request event id.") }, ["owner", "repo", "event"]),
    READ,
  ),
  def("list_files", "List stored files visible to the key.", object({ ...page }), READ),
  def(
    "read_file",
    "Read a stored file's metadata and preview by SHA-256 hash.",
    object({ sha256: str("Hex SHA-256 of the file.") }, ["sha256"]),
    READ,
  ),
  def(
    "read_attachment",
    "Read a stored file by SHA-256 hash. Images and audio return native MCP content; all file types include Base64 data. Reads are limited to 4 MiB.",
    object({ sha256: str("Hex SHA-256 of the file."), max_bytes: int("Read limit, at most 4 MiB.") }, [
      "sha256",
    ]),
    READ,
    {
      title: "Read attachment",
      outputSchema: object({
        sha256: { type: "string" },
        size: { type: "integer" },
        type: { type: "string" },
        data: { type: "string" },
      }, ["sha256", "size", "type", "data"]),
    },
  ),
  def(
    "read_status",
    "Read service health, storage and job status as an owner or moderator.",
    object({}),
    READ,
    { title: "Relay status", outputSchema: ECHO_OUTPUT },
  ),
  def(
    "read_management",
    "Run a read-only management method: stats, getpolicy, listaudit, listjobs, listbackups, listdumps, deliverystatus, storagestats, gitstorage, listconnections or listmembers.",
    object({ method: str("The management method."), params: arr("Method parameters.", {}) }, ["method"]),
    READ,
  ),
  def(
    "list_rooms",
    "List chat rooms visible to the key with member counts and the time of the last message.",
    object({ ...page }),
    READ,
    { title: "List rooms", outputSchema: ECHO_OUTPUT },
  ),
  def(
    "read_room",
    "Read a room by `id` with its members and newest messages, paged with `cursor` and `limit`.",
    object({ id: str("Room id."), ...page }, ["id"]),
    READ,
  ),
  def(
    "read_thread",
    "Read a thread root by room `id` and `event` with its replies, newest first.",
    object({ id: str("Room id."), event: str("Thread root event id.") }, ["id", "event"]),
    READ,
  ),
  def(
    "list_wiki",
    "List wiki pages with their preferred version. `q` searches titles and summaries, `author` prefers that key's versions.",
    object({ q: str("Search text."), author: str("Preferred author."), ...page }),
    READ,
  ),
  def(
    "read_wiki_page",
    "Read a page by `d` with its versions, its `history` of revisions with their states, merge requests and redirects. `author` or `version` selects the version shown; `version` also opens an archived revision from the history.",
    object(
      { d: str("Page identifier."), author: str("Author to show."), version: str("Version event id.") },
      ["d"],
    ),
    READ,
  ),
  def(
    "read_merge_request",
    "Read a wiki merge request by `id` with its status, proposed version and target version.",
    object({ id: str("Merge request event id.") }, ["id"]),
    READ,
  ),
  def(
    "list_agents",
    "List granted agents with their state, scope and last event, as an owner or moderator.",
    object({}),
    READ,
  ),
  def(
    "list_jobs",
    "List long task requests visible to the key with each one's state, status, newest progress, result and error. `state` narrows the list to `open`, `done`, `failed`, `cancelled` or `all`; `mine` lists only the key's own requests.",
    object({
      state: str("open, done, failed, cancelled or all."),
      mine: bool("Only the key's own requests."),
      room: str("Room id."),
      ...page,
    }),
    READ,
  ),
  def(
    "read_job",
    "Read one long task request by `id` with its answers, oldest first.",
    object({ id: str("Job request event id.") }, ["id"]),
    READ,
  ),
  def(
    "list_callbacks",
    "List event callbacks with their host, filter, state and last delivery. Members and agents see their own; the owner and moderators see all.",
    object({}),
    READ,
  ),
  def(
    "list_join_requests",
    "List access requests from people who asked to join without an invite, pending first, with each one's key, reason, time, state and decision, as an owner or moderator. See Access requests.",
    object({ state: str("pending, approved, denied or all.") }),
    READ,
  ),
];
