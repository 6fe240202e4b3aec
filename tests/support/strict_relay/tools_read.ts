// The read tools of the real relay's table, in its order (tinyrelay's internal/daemon/mcp_tools.go):
// the 17 the contract offers and the ones it keeps hidden. upload_attachment sits among them there,
// with the publishing annotations, and so it does here.

import {
  collaborationState,
  def,
  enumOf,
  hash,
  id,
  limit,
  object,
  pageName,
  pubKey,
  PUBLISHES,
  READS,
  roomID,
  text,
} from "./tool_schema.ts";
import type { ToolDef } from "./types.ts";

const collaborationList = object(
  { owner: pubKey, repo: id, cursor: text, limit, q: text, label: text, state: collaborationState },
  "owner",
  "repo",
);
const collaborationDetail = object(
  { owner: pubKey, repo: id, event: hash, cursor: text, limit },
  "owner",
  "repo",
  "event",
);
const READ_METHODS = [
  "stats",
  "getpolicy",
  "listaudit",
  "listjobs",
  "listbackups",
  "listdumps",
  "deliverystatus",
  "storagestats",
  "gitstorage",
  "listconnections",
  "listmembers",
];

export const READ_TOOL_DEFS: ToolDef[] = [
  def(
    "list_repositories",
    "List repositories visible to your account. Supports search and pagination.",
    object({ cursor: text, limit, q: text }),
    READS,
  ),
  def(
    "read_repository",
    "Read a repository tree, source file, history, commit diff or activity. Use ref to select a branch, tag or commit.",
    object(
      {
        owner: pubKey,
        repo: id,
        ref: text,
        path: text,
        view: enumOf("tree", "file", "history", "commit", "activity"),
        offset: { type: "integer", minimum: 0 },
        limit,
      },
      "owner",
      "repo",
    ),
    READS,
  ),
  def(
    "list_issues",
    "List repository issues with search, status filters and pagination.",
    collaborationList,
    READS,
  ),
  def("read_issue", "Read an issue, its replies and authorized status changes.", collaborationDetail, READS),
  def(
    "list_pull_requests",
    "List repository pull requests with search, status filters and pagination.",
    collaborationList,
    READS,
  ),
  def(
    "read_pull_request",
    "Read a pull request, its replies, authorized updates and available diff.",
    collaborationDetail,
    READS,
  ),
  def(
    "list_files",
    "List stored files visible to your account.",
    object({ cursor: text, limit, q: text }),
    READS,
  ),
  def(
    "read_file",
    "Read a stored file's metadata and available preview by SHA-256 hash.",
    object({ hash }, "hash"),
    READS,
  ),
  def(
    "upload_attachment",
    "Upload a bounded file for a room message. Returns its Blossom URL and NIP-92 metadata; pass the descriptor as an attachment to a room write tool.",
    object(
      {
        room: roomID,
        data: {
          type: "string",
          description:
            "Standard Base64 file bytes, at most 700 KiB of encoded data. Use PUT /rooms/<id>/attachments for larger files.",
        },
        type: { type: "string", minLength: 1, maxLength: 255 },
        filename: { type: "string", minLength: 1, maxLength: 255 },
      },
      "room",
      "data",
      "type",
    ),
    PUBLISHES,
  ),
  def(
    "read_attachment",
    "Read a stored attachment your key may access. Images and audio are returned as native MCP content; other files return Base64 data. Reads are limited to 4 MiB.",
    object({ sha256: hash, max_bytes: { type: "integer", minimum: 1, maximum: 4 * 1024 * 1024 } }, "sha256"),
    READS,
  ),
  def(
    "read_status",
    "Read service health, storage and job status. Requires an owner or moderator key.",
    object(),
    READS,
  ),
  def(
    "read_management",
    "Read relay configuration, jobs, backups, delivery status or members with your key's permissions. gitstorage requires owner and repo.",
    object({ method: enumOf(...READ_METHODS), owner: pubKey, repo: id }, "method"),
    READS,
  ),
  def(
    "list_rooms",
    "List chat rooms visible to your account with member counts and the time of the last message.",
    object({ cursor: text, limit }),
    READS,
  ),
  def(
    "read_room",
    "Read a room, its members and its newest messages, threads and reactions. Pass cursor from next_cursor for older messages.",
    object({ id: roomID, cursor: text, limit }, "id"),
    READS,
  ),
  def(
    "read_thread",
    "Read a thread root and its replies in a room, newest first.",
    object({ id: roomID, event: hash, cursor: text, limit }, "id", "event"),
    READS,
  ),
  def(
    "list_wiki",
    "List wiki pages with their preferred version. q searches titles and summaries; author prefers that key's versions.",
    object({ q: text, author: pubKey, cursor: text, limit }),
    READS,
  ),
  def(
    "read_wiki_page",
    "Read a wiki page: its preferred version with content, every version, the history of revisions with their states, merge requests and redirects. Pass author to prefer that key's version or version to open one by event id, including an archived revision from the history.",
    object({ d: pageName, author: pubKey, version: hash }, "d"),
    READS,
  ),
  def(
    "read_merge_request",
    "Read a wiki merge request with its status, the proposed version and the target version.",
    object({ id: hash }, "id"),
    READS,
  ),
  def(
    "list_agents",
    "List granted agents with their name, key, owner, expiration, paused and revoked state, scope and last event. Requires an owner or moderator key.",
    object(),
    READS,
  ),
  def(
    "list_jobs",
    "List long task requests (kind 43001) visible to your key, each with its room, requester, assignees, subject, state (open, done, failed or cancelled), status (queued, accepted, running, done, failed or cancelled), newest progress, result with its artifacts, error and cancel time. state narrows the list; mine lists only your own requests.",
    object({
      cursor: text,
      limit,
      state: enumOf("open", "done", "failed", "cancelled", "all"),
      mine: { type: "boolean" },
    }),
    READS,
  ),
  def(
    "read_job",
    "Read one long task request by event id with its settled state and its answers oldest first: accepted, progress, result, cancel and error events.",
    object({ id: hash }, "id"),
    READS,
  ),
  def(
    "list_callbacks",
    "List event callbacks: id, owner, host, filter, paused state, failures and last delivery. Members and agents see their own; the owner and moderators see every callback. The secret is never listed.",
    object(),
    READS,
  ),
  def(
    "list_custom_views",
    "List the owner's custom views: name, kinds, languages, transform host, trigger, audience, state, failures and last run. The secret is never listed. Owner only.",
    object(),
    READS,
  ),
  def(
    "list_join_requests",
    "List access requests from people who asked to join without an invite: pubkey, reason, requested_at, status (pending, approved or denied), decided_by and decided_at. Pending requests come first. Requires an owner or moderator key.",
    object(),
    READS,
  ),
];
