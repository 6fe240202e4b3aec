// A strict loopback imitation of the relay's MCP endpoint (`<prefix>/mcp`) and its NIP-86
// management endpoint (`<prefix>/manage/rpc`), used as the oracle for tinyagent's tests and demo.
//
// It is built on Deno.listen with its own small HTTP/1.1 framing, because tests need faults that
// Deno.serve cannot produce: a dropped socket, a body cut short, a request that never answers.
// By default every answer carries `Connection: close`, so each request arrives on a fresh
// connection: Deno's fetch silently retries a request whose *reused* connection closes before any
// answer byte, which would hide a `drop`. With `keepAlive`, connections are reused and never closed
// while idle, so a client cannot race an idle close; faults that break framing always close.

import { type NostrEvent, validateEvent, verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export type { NostrEvent };

/** The only MCP revision the relay serves. */
export const PROTOCOL_VERSION = "2026-07-28";
/** The serverInfo carried in every result's `_meta`. */
export const SERVER_INFO = { name: "strict-relay", version: "test" } as const;
/** The NIP-98 challenge sent with every 401. */
export const WWW_AUTHENTICATE = 'Nostr realm="tiny"';

const NIP98_KIND = 27235;
const TOKEN_WINDOW_S = 60;
const DEFAULT_MAX_BODY = 64 * 1024 * 1024;
const MAX_HEAD_BYTES = 64 * 1024;
const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPS = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER = "io.modelcontextprotocol/serverInfo";

// ---------------------------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------------------------

export interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** An MCP CallToolResult object. */
export type ToolResult = Record<string, unknown>;

/** What a tool handler sees: the NIP-98 signer, the call's arguments and the recorded request. */
export interface CallContext {
  pubkey: string;
  args: Record<string, unknown>;
  tool: string;
  request: RecordedRequest;
}

/**
 * A scripted raw HTTP answer, or a fault. Tool handlers may return one instead of a ToolResult,
 * setBrowsegrant functions instead of a result, and relay.script() queues them.
 */
export type Fault =
  /** An arbitrary answer; contentType defaults to application/json when a body is given. */
  | { status: number; body?: string | Uint8Array; headers?: Record<string, string>; contentType?: string }
  /** Close the socket without writing anything. */
  | { drop: true }
  /** Announce a Content-Length larger than what is sent, send part of the body, then close. */
  | { resetMidBody: true; status?: number }
  /** Never answer: the socket stays open until the client gives up or relay.close(). */
  | { hang: true }
  /** A JSON-RPC error body carrying the request's id (null when it has none); status defaults to 400. */
  | { jsonrpcError: { code: number; message: string; data?: unknown }; status?: number }
  /**
   * 200 application/json whose body is a JSON string of exactly this many bytes (at least 2),
   * streamed; with `chunked` it is sent without a Content-Length so only a streaming bound can stop it.
   */
  | { hugeBodyBytes: number; chunked?: boolean };

export type ToolHandler = (ctx: CallContext) => ToolResult | Fault | Promise<ToolResult | Fault>;

/** A browsegrant answer: the `result` object, or a Fault. */
export type BrowsegrantFn = (pubkey: string, params: unknown[]) => unknown | Fault;

export interface RecordedRequest {
  method: string;
  /** The request target's path, without the query. */
  path: string;
  /** The full request URL as the relay sees it: http://<Host header><target>. */
  url: string;
  headers: Headers;
  /** The body bytes as received (only the first maxBodyBytes when the body was larger). */
  body: Uint8Array;
  /** How many body bytes the client sent, including any beyond maxBodyBytes. */
  bodySize: number;
  bodyText: string;
  /** The body parsed as JSON, when it parses. */
  json?: unknown;
  /** The decoded NIP-98 event when one was present and parsed (whether or not it was valid). */
  auth?: NostrEvent;
  /** What the relay answered; undefined for drop and hang. */
  status?: number;
  /** Date.now() when the request was fully read. */
  receivedAt: number;
}

export interface StrictRelayOptions {
  /** Tenant path prefix such as "/r/acme"; endpoints are then <prefix>/mcp and <prefix>/manage/rpc. */
  prefix?: string;
  /** Replaces the default tool table. */
  tools?: ToolDef[];
  /** Appended to the table. */
  extraTools?: ToolDef[];
  /** Default 64 MiB (the real relay uses 1 MiB; tests forward a 40 MiB line). */
  maxBodyBytes?: number;
  /** A signer not in `members` is refused with 403 "restricted: this relay is members-only". */
  membersOnly?: boolean;
  /** Hex pubkeys that count as members when membersOnly is set. */
  members?: string[];
  /** Unix seconds, for the ±60 s token window and templates (default Date.now()/1000). */
  now?: () => number;
  /**
   * Reuse connections (default false: every answer carries `Connection: close`). With reuse,
   * Deno's fetch silently retries a request whose reused connection is dropped before any byte of
   * the answer, so a `drop` fault is only observable without it.
   */
  keepAlive?: boolean;
}

export interface StrictRelay {
  /** Base URL to hand to `tinyagent --relay`: "http://127.0.0.1:<port>" + prefix. */
  url: string;
  /** "http://127.0.0.1:<port>" */
  origin: string;
  /** "127.0.0.1:<port>" */
  host: string;
  port: number;
  /** <url>/mcp */
  mcpUrl: string;
  /** <url>/manage/rpc */
  manageUrl: string;
  /** Every request received, in order: /mcp, /manage/rpc and anything else. */
  requests: RecordedRequest[];
  /** The highest number of requests being handled at once (to prove a client serializes). */
  readonly maxConcurrent: number;
  /** Requests being handled right now (hung ones count until their socket closes). */
  readonly inFlight: number;
  /** Every event accepted by a publishing write tool, in order (duplicates once). */
  published: NostrEvent[];
  /** Membership for membersOnly; mutable. */
  members: Set<string>;
  /** Toggle the members-only refusal at run time. */
  membersOnly: boolean;
  /** The current tool table. */
  readonly tools: ToolDef[];
  /** Override one tool's behaviour (the tool must be in the table to be callable). */
  setTool(name: string, handler: ToolHandler): void;
  /** Replace the table at run time. */
  setTable(tools: ToolDef[]): void;
  /** One-shot answers for the next N requests to /mcp or /manage/rpc, consumed before any check. */
  script(...faults: Fault[]): void;
  /** Every subsequent request waits this long before being answered (0 to clear). */
  delay(ms: number): void;
  /** The browsegrant result (or a Fault) for a signer and its params. */
  setBrowsegrant(fn: BrowsegrantFn): void;
  /** Stops listening and closes every open socket (including hung ones). */
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Default tool table
// ---------------------------------------------------------------------------------------------

type Schema = Record<string, unknown>;
const str = (description: string): Schema => ({ type: "string", description });
const int = (description: string): Schema => ({ type: "integer", description });
const bool = (description: string): Schema => ({ type: "boolean", description });
const obj = (description: string): Schema => ({ type: "object", description });
const arr = (description: string, items: Schema = { type: "string" }): Schema => ({
  type: "array",
  description,
  items,
});
const object = (properties: Record<string, Schema>, required: string[] = []): Schema =>
  required.length ? { type: "object", properties, required } : { type: "object", properties };

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const MANAGE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
const DESTRUCTIVE = { ...MANAGE, destructiveHint: true };
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const page = { cursor: str("Opaque cursor from a previous page."), limit: int("Page size, 1 to 100.") };
const repoRef = { owner: str("Repository owner, hex pubkey."), repo: str("Repository identifier.") };
const event = obj("The signed event, on the second call.");
const attachments = arr("Descriptors returned by upload_attachment, up to eight.", { type: "object" });
const jobAnswer = {
  request: obj("The job request event."),
  e: str("The job request id."),
  p: str("The requester's hex pubkey."),
  room: str("Room id."),
  content: str("Text of the answer."),
  event,
};

/** The default read tools' structuredContent, so clients can check outputSchema handling. */
const ECHO_OUTPUT = object({
  tool: { type: "string" },
  arguments: { type: "object" },
  caller: { type: "string" },
}, ["tool", "arguments", "caller"]);

const DESCRIPTOR_OUTPUT = object({
  url: { type: "string" },
  sha256: { type: "string" },
  size: { type: "integer" },
  type: { type: "string" },
  filename: { type: "string" },
  uploaded: { type: "integer" },
  nip94: { type: "array" },
}, ["url", "sha256", "size", "type"]);

function def(
  name: string,
  description: string,
  inputSchema: Schema,
  annotations: Record<string, unknown>,
  extra: Partial<ToolDef> = {},
): ToolDef {
  return { name, description, inputSchema, annotations, ...extra };
}

/** Every tool the real relay lists, with small realistic schemas. No `tiny_diagnose`. */
export const DEFAULT_TOOLS: ToolDef[] = [
  // Read tools.
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
    object({ id: str("Issue event id.") }, ["id"]),
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
    object({ id: str("Pull request event id.") }, ["id"]),
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

  // Management tools.
  def("run_job", "Queue an existing job to run now.", object({ id: str("Job id.") }, ["id"]), MANAGE),
  def(
    "add_job",
    "Add a pull, push, import, mirror, dump or backup job.",
    object({
      type: str("pull, push, import, mirror, dump or backup."),
      source: str("Source URL."),
      schedule: str("Cron schedule."),
    }, ["type"]),
    MANAGE,
  ),
  def(
    "remove_job",
    "Remove a job and cancel its pending runs.",
    object({ id: str("Job id.") }, ["id"]),
    DESTRUCTIVE,
  ),
  def("backup_now", "Queue a backup of relay data.", object({}), MANAGE),
  def("dump_now", "Queue an event export.", object({}), MANAGE),
  def(
    "set_policy",
    "Apply a partial policy update as the owner.",
    object({ policy: obj("Policy fields to change.") }, ["policy"]),
    MANAGE,
  ),
  def(
    "set_connections",
    "Replace the relay's connection list.",
    object({ connections: arr("Connections.", { type: "object" }) }, ["connections"]),
    DESTRUCTIVE,
  ),
  def(
    "send_test_notification",
    "Send the owner's test notice to the inbox and enabled devices.",
    object({}),
    MANAGE,
  ),
  def(
    "pause_agent",
    "Stop an agent until it is resumed, as an owner or moderator.",
    object({ pubkey: str("Agent hex pubkey.") }, ["pubkey"]),
    MANAGE,
  ),
  def(
    "resume_agent",
    "Let a paused agent publish again.",
    object({ pubkey: str("Agent hex pubkey.") }, ["pubkey"]),
    MANAGE,
  ),
  def(
    "revoke_agent",
    "End an agent's grant and remove its role.",
    object({ pubkey: str("Agent hex pubkey.") }, ["pubkey"]),
    DESTRUCTIVE,
  ),
  def("pause_all_agents", "Pause every active agent.", object({}), MANAGE),
  def("resume_all_agents", "Resume every paused agent.", object({}), MANAGE),
  def(
    "approve_join",
    "Approve an access request by `pubkey`: the key becomes a member and the request is marked approved.",
    object({ pubkey: str("Requester hex pubkey.") }, ["pubkey"]),
    MANAGE,
  ),
  def(
    "deny_join",
    "Deny an access request by `pubkey`. The key stays outside the relay and may ask again.",
    object({ pubkey: str("Requester hex pubkey.") }, ["pubkey"]),
    MANAGE,
  ),
  def(
    "add_callback",
    "Register an https URL that receives each new event matching a filter, signed with a secret returned once. See Callbacks.",
    object({ url: str("https URL."), filter: obj("Nostr filter.") }, ["url", "filter"]),
    MANAGE,
  ),
  def(
    "remove_callback",
    "Delete a callback by id.",
    object({ id: str("Callback id.") }, ["id"]),
    DESTRUCTIVE,
  ),
  def(
    "pause_callback",
    "Stop deliveries to a callback until it is resumed.",
    object({ id: str("Callback id.") }, ["id"]),
    MANAGE,
  ),
  def(
    "resume_callback",
    "Resume a paused callback and clear its failure count.",
    object({ id: str("Callback id.") }, ["id"]),
    MANAGE,
  ),

  // Write tools.
  def("publish_event", "Publish any signed Nostr event.", object({ event }, ["event"]), WRITE),
  def(
    "upload_attachment",
    "Upload Base64 file bytes for a room and return a Blossom descriptor with NIP-92 metadata.",
    object({
      room: str("Room id."),
      data: str("Standard Base64 bytes, up to 700 KiB."),
      type: str("MIME type."),
      filename: str("File name."),
    }, ["room", "data", "type"]),
    WRITE,
    { title: "Upload attachment", outputSchema: DESCRIPTOR_OUTPUT },
  ),
  def(
    "create_issue",
    "Open a kind 1621 issue on a hosted repository.",
    object({
      ...repoRef,
      title: str("Issue title."),
      content: str("Markdown body."),
      labels: arr("Labels."),
      event,
    }, ["owner", "repo", "title"]),
    WRITE,
    { title: "Create issue" },
  ),
  def(
    "create_pull_request",
    "Open a kind 1618 pull request with its commit and clone URL.",
    object({
      ...repoRef,
      title: str("Title."),
      content: str("Description."),
      commit: str("Tip commit."),
      clone: str("Clone URL."),
      branch: str("Branch name."),
      event,
    }, ["owner", "repo", "title", "commit", "clone"]),
    WRITE,
  ),
  def(
    "comment",
    "Reply to an issue, pull request or comment with a kind 1111 event carrying NIP-22 tags. `file`, `line` and `side` anchor the comment to one diff line.",
    object({
      root: str("Root event id."),
      root_kind: int("Root event kind."),
      root_pubkey: str("Root author."),
      parent: str("Parent comment id."),
      content: str("Text."),
      file: str("Path in the diff."),
      line: int("Line number."),
      side: str("old or new."),
      event,
    }, ["root", "root_kind", "root_pubkey"]),
    WRITE,
  ),
  def(
    "set_status",
    "Mark an issue or pull request open, resolved, merged, closed or draft with a kind 1630 to 1633 event.",
    object({
      target: str("Issue or pull request id."),
      status: str("open, resolved, merged, closed or draft."),
      content: str("Note."),
      event,
    }, ["target", "status"]),
    WRITE,
  ),
  def(
    "post_message",
    "Post a kind 9 message in a room, with optional `mentions` and `attachments`.",
    object({
      room: str("Room id."),
      content: str("Message text."),
      mentions: arr("Hex pubkeys to mention."),
      attachments,
      event,
    }, ["room"]),
    WRITE,
    { title: "Post message" },
  ),
  def(
    "start_thread",
    "Start a kind 11 thread in a room with an optional title and `attachments`.",
    object(
      { room: str("Room id."), title: str("Thread title."), content: str("Text."), attachments, event },
      ["room"],
    ),
    WRITE,
  ),
  def(
    "reply_in_thread",
    "Reply with a kind 12 event and optional `attachments`. Unsigned templates resolve a reply ID to the original thread root.",
    object({
      room: str("Room id."),
      root: str("Thread root or reply id."),
      content: str("Text."),
      attachments,
      event,
    }, ["room", "root"]),
    WRITE,
  ),
  def(
    "react",
    "Publish a kind 7 reaction to an event: `+`, `-` or one emoji, with `room` for a room message.",
    object({
      event_id: str("Event id to react to."),
      pubkey: str("Its author."),
      kind: int("Its kind."),
      room: str("Room id."),
      content: str("+, - or one emoji."),
      event,
    }, ["event_id"]),
    WRITE,
  ),
  def(
    "publish_wiki_page",
    "Publish or replace the key's version of a kind 30818 wiki page, with `fork_author` and `fork_event` to record a fork.",
    object({
      d: str("Page identifier."),
      title: str("Title."),
      summary: str("Summary."),
      content: str("Asciidoc body."),
      fork_author: str("Forked author."),
      fork_event: str("Forked version."),
      event,
    }, ["d"]),
    WRITE,
  ),
  def(
    "propose_wiki_merge",
    "Ask a page's author to take in a version with a kind 818 merge request.",
    object({
      d: str("Page identifier."),
      author: str("Target author."),
      version: str("Proposed version id."),
      content: str("Note."),
      event,
    }, ["d", "author", "version"]),
    WRITE,
  ),
  def(
    "publish_site",
    "Publish a static site manifest, kind 15128 for the key's own site or kind 35128 for a named site, from `paths` given as `[path, sha256]` pairs and an optional `expiration`.",
    object({
      paths: arr("[path, sha256] pairs.", { type: "array" }),
      label: str("Named site label."),
      expiration: int("Unix seconds."),
      event,
    }, ["paths"]),
    WRITE,
  ),
  def(
    "create_room",
    "Create a room with a kind 9007 event carrying its id, name, description and visibility.",
    object({
      id: str("Room id."),
      name: str("Name."),
      description: str("Description."),
      visibility: str("public or private."),
      event,
    }, ["id"]),
    WRITE,
  ),
  def(
    "request_decision",
    "Ask a person to approve, decide or answer with a kind 9 room message or a kind 1111 comment carrying a `request` tag.",
    object({
      pubkey: str("The person asked."),
      request: str("approve, decide or question."),
      content: str("The question."),
      room: str("Room id."),
      root: str("Thread root or commented event."),
      root_kind: int("Root kind."),
      root_pubkey: str("Root author."),
      subject: str("Subject."),
      expiration: int("Unix seconds."),
      event,
    }, ["pubkey", "request"]),
    WRITE,
  ),
  def(
    "request_grant",
    "Ask the current grant operator for additional agent permissions with a reason of up to 500 Unicode characters and at least one change. Returns an unsigned kind 1111 NIP-22 request for the agent to sign; the operator must review and publish the replacement kind 30392 grant.",
    object({
      reason: str("Why, 1 to 500 characters."),
      changes: obj("kinds, rooms, repos, sites, wiki, jobs or rate."),
      event,
    }, ["reason", "changes"]),
    WRITE,
    { title: "Request grant" },
  ),
  def(
    "request_job",
    "Ask one or more keys to take on a long task with a kind 43001 job request in a room, with an optional subject, thread root and expiration.",
    object({
      room: str("Room id."),
      assignees: arr("Hex pubkeys asked."),
      content: str("The task."),
      subject: str("Subject."),
      root: str("Thread root."),
      expiration: int("Unix seconds."),
      event,
    }, ["room", "assignees"]),
    WRITE,
  ),
  def(
    "accept_job",
    "Take on a long task you were asked to do with a kind 43002 event.",
    object(jobAnswer),
    WRITE,
  ),
  def(
    "job_progress",
    "Report progress on a long task with a kind 43003 event, as often as needed.",
    object(jobAnswer),
    WRITE,
  ),
  def(
    "job_result",
    "Finish a long task with a kind 43004 event carrying the output and optional artifact references.",
    object({ ...jobAnswer, artifacts: arr("{type: e|a|r, value} references.", { type: "object" }) }),
    WRITE,
  ),
  def(
    "job_error",
    "End a long task that failed with a kind 43006 event carrying the error message.",
    object(jobAnswer),
    WRITE,
  ),
  def("cancel_job", "Cancel a long task you requested with a kind 43005 event.", object(jobAnswer), WRITE),
];

// ---------------------------------------------------------------------------------------------
// Default tool behaviour
// ---------------------------------------------------------------------------------------------

type Args = Record<string, unknown>;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
const s = (v: unknown): string | undefined => (typeof v === "string" && v !== "" ? v : undefined);
function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** A tool failure as the relay reports it: an isError result whose text the agent can act on. */
export function toolError(message: string, structured: Record<string, unknown> = { message }): ToolResult {
  return { content: [{ type: "text", text: message }], structuredContent: structured, isError: true };
}

/** A successful tool result with its structured content mirrored as a JSON text block. */
export function toolOk(structured: Record<string, unknown>): ToolResult {
  return {
    content: [{ type: "text", text: JSON.stringify(structured) }],
    structuredContent: structured,
    isError: false,
  };
}

/** True for the Fault shapes; a plain result object with only a numeric `status` is not one. */
export function isFault(v: unknown): v is Fault {
  if (!isRecord(v)) return false;
  if (v.drop === true || v.resetMidBody === true || v.hang === true) return true;
  if (isRecord(v.jsonrpcError) || typeof v.hugeBodyBytes === "number") return true;
  const rawKeys = ["status", "body", "headers", "contentType"];
  return typeof v.status === "number" && Object.keys(v).every((k) => rawKeys.includes(k));
}

/** A NIP-86 error answer; the status follows the relay's prefixes unless given. */
export function nip86Error(message: string, status?: number): Fault {
  const code = status ??
    (message.startsWith("auth-required:") ? 401 : /^(restricted|blocked):/.test(message) ? 403 : 400);
  return { status: code, body: JSON.stringify({ error: message }) };
}

const TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  integer: Number.isInteger,
  number: (v) => typeof v === "number",
  string: (v) => typeof v === "string",
  boolean: (v) => typeof v === "boolean",
  array: Array.isArray,
  object: isRecord,
};

/** Checks the arguments against the top level of a tool's input schema, as the relay does first. */
function schemaProblem(schema: Record<string, unknown>, args: Args): string | undefined {
  const props = isRecord(schema.properties) ? schema.properties : {};
  for (const key of strings(schema.required)) {
    if (args[key] === undefined) return `${key} is required`;
  }
  for (const [key, value] of Object.entries(args)) {
    const want = isRecord(props[key]) ? props[key].type : undefined;
    if (typeof want !== "string" || value === undefined) continue;
    if (!(TYPE_CHECKS[want]?.(value) ?? true)) return `${key} must be of type ${want}`;
  }
  return undefined;
}

const STATUS_KINDS: Record<string, number> = {
  open: 1630,
  resolved: 1631,
  merged: 1631,
  closed: 1632,
  draft: 1633,
};

/** The kind each publishing tool signs, when it does not depend on the arguments. */
const FIXED_KINDS: Record<string, number> = {
  create_issue: 1621,
  create_pull_request: 1618,
  comment: 1111,
  post_message: 9,
  start_thread: 11,
  reply_in_thread: 12,
  react: 7,
  publish_wiki_page: 30818,
  propose_wiki_merge: 818,
  request_grant: 1111,
  request_job: 43001,
  accept_job: 43002,
  job_progress: 43003,
  job_result: 43004,
  job_error: 43006,
  cancel_job: 43005,
  create_room: 9007,
};

/**
 * The kinds a publishing tool accepts for these arguments, the first being the template's;
 * undefined for a tool that publishes nothing. publish_event accepts any kind.
 */
function publishKinds(tool: string, args: Args): number[] | undefined {
  if (tool in FIXED_KINDS) return [FIXED_KINDS[tool]];
  switch (tool) {
    case "publish_event":
      return [];
    case "request_decision":
      return s(args.root) && !s(args.room) ? [1111] : [9];
    case "set_status":
      return STATUS_KINDS[String(args.status)] ? [STATUS_KINDS[String(args.status)]] : [];
    case "publish_site":
      return [s(args.label) ? 35128 : 15128];
    default:
      return undefined;
  }
}

/** Fixed identities for the default grant, so templates and browsegrant agree. */
const GRANT_OPERATOR = bytesToHex(sha256(new TextEncoder().encode("strict-relay operator")));
const GRANT_EVENT_ID = bytesToHex(sha256(new TextEncoder().encode("strict-relay grant")));

function imetaTags(args: Args): { tags: string[][]; refs: string } {
  const tags: string[][] = [];
  let refs = "";
  for (const a of Array.isArray(args.attachments) ? args.attachments : []) {
    if (!isRecord(a) || !s(a.url)) continue;
    const tag = ["imeta", `url ${a.url}`];
    if (s(a.type)) tag.push(`m ${a.type}`);
    if (s(a.sha256)) tag.push(`x ${a.sha256}`);
    if (typeof a.size === "number") tag.push(`size ${a.size}`);
    tags.push(tag);
    refs += `\n![${s(a.filename) ?? "attachment"}](${a.url})`;
  }
  return { tags, refs };
}

function jobRefs(args: Args): string[][] {
  const request = isRecord(args.request) ? args.request : {};
  const tags: string[][] = [];
  const id = s(args.e) ?? s(request.id);
  const p = s(args.p) ?? s(request.pubkey);
  if (id) tags.push(["e", id]);
  if (p) tags.push(["p", p]);
  if (s(args.room)) tags.push(["h", args.room as string]);
  return tags;
}

/** The template's tags and content for a publishing tool, or a reason the arguments are invalid. */
function templateOf(tool: string, args: Args): { tags: string[][]; content: string } | { invalid: string } {
  const content = typeof args.content === "string" ? args.content : "";
  const t: string[][] = [];
  const opt = (name: string, v: unknown) => {
    if (s(v)) t.push([name, v as string]);
    else if (typeof v === "number") t.push([name, String(v)]);
  };
  switch (tool) {
    case "create_issue":
    case "create_pull_request": {
      t.push(["a", `30617:${args.owner}:${args.repo}`], ["p", String(args.owner)], [
        "subject",
        String(args.title),
      ]);
      for (const label of strings(args.labels)) t.push(["t", label]);
      if (tool === "create_pull_request") {
        t.push(["c", String(args.commit)], ["clone", String(args.clone)]);
        opt("branch-name", args.branch);
      }
      return { tags: t, content };
    }
    case "comment": {
      const anchors = [args.file, args.line, args.side].filter((v) => v !== undefined).length;
      if (anchors !== 0 && anchors !== 3) return { invalid: "file, line and side go together" };
      if (anchors === 3 && args.root_kind === 1621) {
        return { invalid: "a comment under an issue cannot carry file, line and side" };
      }
      if (anchors === 3 && args.side !== "old" && args.side !== "new") {
        return { invalid: "side must be old or new" };
      }
      const kind = String(args.root_kind);
      t.push(["E", String(args.root), "", String(args.root_pubkey)], ["K", kind], [
        "P",
        String(args.root_pubkey),
      ]);
      t.push(["e", s(args.parent) ?? String(args.root)], ["k", s(args.parent) ? "1111" : kind], [
        "p",
        String(args.root_pubkey),
      ]);
      if (anchors === 3) t.push(["file", String(args.file)], ["line", String(args.line), String(args.side)]);
      return { tags: t, content };
    }
    case "post_message":
    case "start_thread":
    case "reply_in_thread": {
      t.push(["h", String(args.room)]);
      if (tool === "start_thread") opt("title", args.title);
      if (tool === "reply_in_thread") t.push(["e", String(args.root), "", "root"]);
      if (tool === "post_message") { for (const p of strings(args.mentions)) t.push(["p", p]); }
      const meta = imetaTags(args);
      t.push(...meta.tags);
      return { tags: t, content: content + meta.refs };
    }
    case "react": {
      t.push(["e", String(args.event_id)]);
      opt("p", args.pubkey);
      opt("k", args.kind);
      opt("h", args.room);
      return { tags: t, content: content || "+" };
    }
    case "publish_wiki_page": {
      t.push(["d", String(args.d)]);
      opt("title", args.title);
      opt("summary", args.summary);
      if (s(args.fork_author)) t.push(["a", `30818:${args.fork_author}:${args.d}`, "", "fork"]);
      if (s(args.fork_event)) t.push(["e", String(args.fork_event), "", "fork"]);
      return { tags: t, content };
    }
    case "propose_wiki_merge": {
      t.push(["a", `30818:${args.author}:${args.d}`], ["e", String(args.version), "", "source"], [
        "p",
        String(args.author),
      ]);
      return { tags: t, content };
    }
    case "request_decision": {
      if (!["approve", "decide", "question"].includes(String(args.request))) {
        return { invalid: "request must be approve, decide or question" };
      }
      if (s(args.room)) {
        t.push(["h", String(args.room)]);
        if (s(args.root)) t.push(["e", String(args.root), "", "root"]);
      } else if (s(args.root)) {
        const kind = String(args.root_kind ?? "");
        const author = String(args.root_pubkey ?? "");
        t.push(["E", String(args.root), "", author], ["K", kind], ["P", author]);
        t.push(["e", String(args.root)], ["k", kind], ["p", author]);
      } else {
        return { invalid: "room or root is required" };
      }
      t.push(["p", String(args.pubkey)], ["request", String(args.request)]);
      opt("subject", args.subject);
      opt("expiration", args.expiration);
      return { tags: t, content };
    }
    case "request_grant": {
      const reason = String(args.reason);
      const length = [...reason].length;
      if (length < 1 || length > 500) return { invalid: "reason must be 1 to 500 characters" };
      const changes = args.changes as Record<string, unknown>;
      const fields = ["kinds", "rooms", "repos", "sites", "wiki", "jobs", "rate"];
      if (!fields.some((f) => changes[f] !== undefined)) {
        return { invalid: "changes needs at least one field" };
      }
      t.push(["E", GRANT_EVENT_ID, "", GRANT_OPERATOR], ["K", "30392"], ["P", GRANT_OPERATOR]);
      t.push(["e", GRANT_EVENT_ID], ["k", "30392"], ["p", GRANT_OPERATOR]);
      t.push(["grant", JSON.stringify({ base: GRANT_EVENT_ID, changes })]);
      return { tags: t, content: reason };
    }
    case "request_job": {
      const assignees = strings(args.assignees);
      if (!assignees.length) return { invalid: "assignees needs at least one key" };
      t.push(["h", String(args.room)]);
      for (const p of assignees) t.push(["p", p]);
      opt("subject", args.subject);
      if (s(args.root)) t.push(["e", String(args.root), "", "root"]);
      opt("expiration", args.expiration);
      return { tags: t, content };
    }
    case "accept_job":
    case "job_progress":
    case "job_result":
    case "job_error":
    case "cancel_job": {
      const refs = jobRefs(args);
      if (!refs.some((r) => r[0] === "e")) return { invalid: "request or e is required" };
      if (!refs.some((r) => r[0] === "h")) return { invalid: "room is required" };
      t.push(...refs);
      for (const a of Array.isArray(args.artifacts) ? args.artifacts : []) {
        if (!isRecord(a) || !["e", "a", "r"].includes(String(a.type)) || !s(a.value)) {
          return { invalid: "each artifact needs a type of e, a or r and a value" };
        }
        t.push([String(a.type), String(a.value)]);
      }
      return { tags: t, content };
    }
    case "set_status": {
      if (!STATUS_KINDS[String(args.status)]) {
        return { invalid: "status must be open, resolved, merged, closed or draft" };
      }
      t.push(["e", String(args.target), "", "root"]);
      return { tags: t, content };
    }
    case "publish_site": {
      const seen = new Set<string>();
      for (const pair of Array.isArray(args.paths) ? args.paths : []) {
        const [path, hash] = Array.isArray(pair) ? pair : [];
        if (typeof path !== "string" || !/^\/.*\.[A-Za-z0-9]+$/.test(path)) {
          return { invalid: `path ${JSON.stringify(path)} must be absolute with a file extension` };
        }
        if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) {
          return { invalid: `hash for ${path} must be 64 hex characters` };
        }
        if (seen.has(path)) return { invalid: `duplicate path ${path}` };
        seen.add(path);
        t.push(["path", path, hash]);
      }
      if (!seen.size) return { invalid: "paths needs at least one [path, sha256] pair" };
      if (s(args.label)) t.unshift(["d", String(args.label)]);
      opt("expiration", args.expiration);
      return { tags: t, content: "" };
    }
    case "create_room": {
      t.push(["h", String(args.id)]);
      opt("name", args.name);
      opt("about", args.description);
      t.push([args.visibility === "private" ? "private" : "public"]);
      return { tags: t, content: "" };
    }
    default:
      return { tags: t, content };
  }
}

/** A tiny PNG (1x1, opaque) that read_attachment serves for hashes it does not hold. */
const SAMPLE_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

function base64(bytes: Uint8Array): string {
  return btoa(latin1(bytes));
}

/** Decodes standard Base64 only, as upload_attachment requires; undefined when it is not. */
function decodeStdBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Checks a signed event for its tool: shape, signature, signer, kind, then the template's tags. */
function publishProblem(tool: string, args: Args, ev: unknown, signer: string): string | undefined {
  if (
    !isRecord(ev) || !validateEvent(ev) || !Number.isInteger(ev.kind) || !Number.isInteger(ev.created_at) ||
    typeof ev.id !== "string" || typeof ev.sig !== "string"
  ) {
    return "malformed event";
  }
  if (!verifyEvent(ev as NostrEvent)) return "bad event signature";
  if (ev.pubkey !== signer) return "event pubkey does not match the signing key";
  if (tool === "publish_event") return undefined;
  const kinds = publishKinds(tool, args) ?? [];
  if (!kinds.includes(ev.kind as number)) {
    return `kind ${ev.kind} is not published by ${tool}; expected ${kinds.join(" or ")}`;
  }
  const template = templateOf(tool, args);
  if ("invalid" in template) return template.invalid;
  if (JSON.stringify(ev.tags) !== JSON.stringify(template.tags)) {
    return `tags do not match; expected ${JSON.stringify(template.tags)}`;
  }
  if (ev.content !== template.content) return "content does not match the template";
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// HTTP/1.1 framing
// ---------------------------------------------------------------------------------------------

/** A request that cannot be framed: answered with this status and the connection closed. */
class HttpError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const REASONS: Record<number, string> = {
  100: "Continue",
  200: "OK",
  202: "Accepted",
  204: "No Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

const encoder = new TextEncoder();
const TOKEN_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return out;
}

function concat(parts: Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Buffered reads over a connection. */
class ByteReader {
  #conn: Deno.Conn;
  #buf = new Uint8Array(64 * 1024);
  #start = 0;
  #end = 0;

  constructor(conn: Deno.Conn) {
    this.#conn = conn;
  }

  get buffered(): number {
    return this.#end - this.#start;
  }

  /** Reads more bytes; false at EOF. */
  async fill(): Promise<boolean> {
    if (this.#start === this.#end) this.#start = this.#end = 0;
    if (this.#end === this.#buf.length) {
      if (this.#start > 0) {
        this.#buf.copyWithin(0, this.#start, this.#end);
      } else {
        const bigger = new Uint8Array(this.#buf.length * 2);
        bigger.set(this.#buf);
        this.#buf = bigger;
      }
      this.#end -= this.#start;
      this.#start = 0;
    }
    const n = await this.#conn.read(this.#buf.subarray(this.#end));
    if (n === null) return false;
    this.#end += n;
    return true;
  }

  /** The bytes before the next CRLFCRLF (consumed), or null at a clean EOF between requests. */
  async readHead(max: number): Promise<Uint8Array | null> {
    let scanned = 0;
    for (;;) {
      // Clients may send stray CRLFs between requests; skip them before the request line.
      while (this.buffered >= 2 && this.#buf[this.#start] === 13 && this.#buf[this.#start + 1] === 10) {
        this.#start += 2;
        scanned = 0;
      }
      const view = this.#buf.subarray(this.#start, this.#end);
      for (let i = Math.max(0, scanned - 3); i + 3 < view.length; i++) {
        if (view[i] === 13 && view[i + 1] === 10 && view[i + 2] === 13 && view[i + 3] === 10) {
          const head = view.slice(0, i);
          this.#start += i + 4;
          return head;
        }
      }
      scanned = view.length;
      if (scanned > max) throw new HttpError(431, "request head too large");
      if (!(await this.fill())) {
        if (this.buffered === 0) return null;
        throw new HttpError(400, "connection closed inside the request head");
      }
    }
  }

  /** One CRLF-terminated line (for chunk sizes and trailers). */
  async readLine(max: number): Promise<string> {
    let scanned = 0;
    for (;;) {
      const view = this.#buf.subarray(this.#start, this.#end);
      for (let i = Math.max(0, scanned - 1); i + 1 < view.length; i++) {
        if (view[i] === 13 && view[i + 1] === 10) {
          const line = latin1(view.subarray(0, i));
          this.#start += i + 2;
          return line;
        }
      }
      scanned = view.length;
      if (scanned > max) throw new HttpError(400, "line too long");
      if (!(await this.fill())) throw new HttpError(400, "connection closed inside the body");
    }
  }

  /** Passes exactly n bytes to sink, in views that are only valid during the call. */
  async readExact(n: number, sink: (chunk: Uint8Array) => void): Promise<void> {
    while (n > 0) {
      if (this.buffered === 0 && !(await this.fill())) {
        throw new HttpError(400, "connection closed inside the body");
      }
      const take = Math.min(n, this.buffered);
      sink(this.#buf.subarray(this.#start, this.#start + take));
      this.#start += take;
      n -= take;
    }
  }

  /** Discards input until the peer closes (or the socket is closed under us). */
  async drain(): Promise<void> {
    try {
      while (await this.fill()) this.#start = this.#end;
    } catch {
      // closed by relay.close()
    }
  }
}

interface ParsedRequest {
  method: string;
  target: string;
  headers: Headers;
  body: Uint8Array;
  bodySize: number;
  tooLarge: boolean;
  keepAlive: boolean;
}

/** Reads one request; null when the client closed the connection between requests. */
async function readRequest(
  reader: ByteReader,
  maxBody: number,
  sendContinue: () => Promise<void>,
): Promise<ParsedRequest | null> {
  const headBytes = await reader.readHead(MAX_HEAD_BYTES);
  if (headBytes === null) return null;
  const lines = latin1(headBytes).split("\r\n");
  const m = /^(\S+) (\S+) HTTP\/(1\.[01])$/.exec(lines[0]);
  if (!m || !TOKEN_RE.test(m[1])) throw new HttpError(400, "malformed request line");
  const [, method, target, version] = m;
  if (!target.startsWith("/")) throw new HttpError(400, "request target must be a path");
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const h = /^([^:\s]+):[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!h || !TOKEN_RE.test(h[1])) throw new HttpError(400, "malformed header line");
    try {
      headers.append(h[1], h[2]);
    } catch {
      throw new HttpError(400, "invalid header value");
    }
  }
  if (version === "1.1" && !headers.has("host")) throw new HttpError(400, "missing Host header");

  const connection = (headers.get("connection") ?? "").toLowerCase();
  const keepAlive = version === "1.1" ? !/\bclose\b/.test(connection) : /\bkeep-alive\b/.test(connection);

  const te = headers.get("transfer-encoding");
  const cl = headers.get("content-length");
  if (te !== null && cl !== null) throw new HttpError(400, "both Transfer-Encoding and Content-Length");
  if (te !== null && te.toLowerCase() !== "chunked") {
    throw new HttpError(501, "unsupported Transfer-Encoding");
  }
  let length = 0;
  if (cl !== null) {
    const values = cl.split(",").map((v) => v.trim());
    if (!values.every((v) => /^\d+$/.test(v) && v === values[0])) {
      throw new HttpError(400, "invalid Content-Length");
    }
    length = Number(values[0]);
    if (!Number.isSafeInteger(length)) throw new HttpError(400, "invalid Content-Length");
  }
  if ((te !== null || length > 0) && /100-continue/i.test(headers.get("expect") ?? "") && version === "1.1") {
    await sendContinue();
  }

  // Bodies over maxBody are read to the end but not kept, so the connection stays in sync.
  let bodySize = 0;
  let kept = 0;
  let tooLarge = false;
  let body: Uint8Array;
  if (te === null) {
    bodySize = length;
    tooLarge = length > maxBody;
    const into = new Uint8Array(tooLarge ? 0 : length);
    await reader.readExact(length, (chunk) => {
      if (!tooLarge) into.set(chunk, kept);
      kept += chunk.length;
    });
    body = into;
  } else {
    const parts: Uint8Array[] = [];
    for (;;) {
      const sizeLine = await reader.readLine(4096);
      const size = /^([0-9a-fA-F]{1,12})(?:[ \t]*;.*)?$/.exec(sizeLine);
      if (!size) throw new HttpError(400, "invalid chunk size");
      const n = parseInt(size[1], 16);
      if (n === 0) break;
      await reader.readExact(n, (chunk) => {
        bodySize += chunk.length;
        if (bodySize > maxBody) tooLarge = true;
        else parts.push(chunk.slice());
      });
      if ((await reader.readLine(2)) !== "") throw new HttpError(400, "missing CRLF after chunk");
    }
    while ((await reader.readLine(MAX_HEAD_BYTES)) !== "") {
      // trailers are ignored
    }
    kept = parts.reduce((a, p) => a + p.length, 0);
    body = concat(parts, kept);
  }
  return { method, target, headers, body, bodySize, tooLarge, keepAlive };
}

function responseHead(status: number, headers: [string, string][], close: boolean): Uint8Array {
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? "Status"}\r\nDate: ${new Date().toUTCString()}\r\n`;
  for (const [k, v] of headers) head += `${k}: ${v}\r\n`;
  if (close) head += "Connection: close\r\n";
  return encoder.encode(head + "\r\n");
}

async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

// ---------------------------------------------------------------------------------------------
// NIP-98
// ---------------------------------------------------------------------------------------------

/** Decodes a token in standard or URL-safe Base64, padded or not, without mixing alphabets. */
function decodeToken(token: string): string | undefined {
  const std = /^[A-Za-z0-9+/]+={0,2}$/.test(token);
  const url = /^[A-Za-z0-9_-]+={0,2}$/.test(token);
  if (!std && !url) return undefined;
  const bare = token.replace(/=+$/, "");
  if (bare.length !== token.length && token.length % 4 !== 0) return undefined; // wrong padding
  if (bare.length % 4 === 1) return undefined;
  try {
    const binary = atob(bare.replaceAll("-", "+").replaceAll("_", "/"));
    return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** Splits an absolute URL into its compared parts; undefined when it is not one. */
function urlParts(u: string): { scheme: string; host: string; path: string; query: string } | undefined {
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]+)([^?#]*)(?:\?([^#]*))?$/.exec(u);
  if (!m) return undefined;
  return { scheme: m[1].toLowerCase(), host: m[2].toLowerCase(), path: m[3] || "/", query: m[4] ?? "" };
}

function sameUrl(tag: string, requestUrl: string): boolean {
  const a = urlParts(tag);
  const b = urlParts(requestUrl);
  return !!a && !!b && a.scheme === b.scheme && a.host === b.host && a.path === b.path && a.query === b.query;
}

function tagValue(ev: NostrEvent, name: string): string | undefined {
  return ev.tags.find((t) => t[0] === name)?.[1];
}

function parseAuth(headers: Headers): NostrEvent | undefined {
  const header = headers.get("authorization");
  if (!header?.startsWith("Nostr ")) return undefined;
  const json = decodeToken(header.slice(6).trim());
  if (json === undefined) return undefined;
  try {
    const ev = JSON.parse(json);
    return isRecord(ev) ? ev as unknown as NostrEvent : undefined;
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// The relay
// ---------------------------------------------------------------------------------------------

/** Internal answer: every answer, ordinary or not, is written through the Fault shapes. */
type Answer = Fault;

/** How a connection goes on after an answer: reused, closed after the client, or cut. */
type Ending = "keep" | "graceful" | "abrupt";

function json(status: number, value: unknown, headers: Record<string, string> = {}): Answer {
  return { status, body: JSON.stringify(value), headers, contentType: "application/json" };
}

function rpcError(status: number, id: unknown, code: number, message: string, data?: unknown): Answer {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return json(status, { jsonrpc: "2.0", id: id ?? null, error });
}

function rpcId(rec: RecordedRequest): string | number | null {
  const id = isRecord(rec.json) ? rec.json.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

function mediaType(value: string | null): string {
  return (value ?? "").split(";")[0].trim().toLowerCase();
}

function delayFor(ms: number, closed: Promise<void>): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([new Promise<void>((r) => (timer = setTimeout(r, ms))), closed]).finally(() =>
    clearTimeout(timer)
  );
}

class Relay implements StrictRelay {
  url: string;
  origin: string;
  host: string;
  port: number;
  mcpUrl: string;
  manageUrl: string;
  requests: RecordedRequest[] = [];
  published: NostrEvent[] = [];
  members: Set<string>;
  membersOnly: boolean;

  #prefix: string;
  #keepAlive: boolean;
  #listener: Deno.Listener;
  #maxBody: number;
  #now: () => number;
  #table: ToolDef[];
  #handlers = new Map<string, ToolHandler>();
  #script: Fault[] = [];
  #delayMs = 0;
  #browsegrant: BrowsegrantFn;
  #seenTokens = new Map<string, number>();
  #uploads = new Map<string, { bytes: Uint8Array; type: string }>();
  #conns = new Set<Deno.Conn>();
  #tasks = new Set<Promise<void>>();
  #inFlight = 0;
  #maxConcurrent = 0;
  #closed = false;
  #closedPromise: Promise<void>;
  #signalClosed!: () => void;

  constructor(listener: Deno.Listener, options: StrictRelayOptions) {
    this.#listener = listener;
    this.port = (listener.addr as Deno.NetAddr).port;
    this.host = `127.0.0.1:${this.port}`;
    this.origin = `http://${this.host}`;
    this.#prefix = (options.prefix ?? "").replace(/\/+$/, "");
    if (this.#prefix && !this.#prefix.startsWith("/")) this.#prefix = `/${this.#prefix}`;
    this.url = this.origin + this.#prefix;
    this.mcpUrl = `${this.url}/mcp`;
    this.manageUrl = `${this.url}/manage/rpc`;
    this.#maxBody = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    this.#keepAlive = options.keepAlive ?? false;
    this.#now = options.now ?? (() => Date.now() / 1000);
    this.#table = [...(options.tools ?? DEFAULT_TOOLS), ...(options.extraTools ?? [])];
    this.membersOnly = options.membersOnly ?? false;
    this.members = new Set(options.members ?? []);
    this.#browsegrant = (pubkey, params) => this.#defaultBrowsegrant(pubkey, params);
    this.#closedPromise = new Promise((r) => (this.#signalClosed = r));
    this.#track(this.#acceptLoop());
  }

  get maxConcurrent(): number {
    return this.#maxConcurrent;
  }
  get inFlight(): number {
    return this.#inFlight;
  }
  get tools(): ToolDef[] {
    return this.#table;
  }
  setTool(name: string, handler: ToolHandler): void {
    this.#handlers.set(name, handler);
  }
  setTable(tools: ToolDef[]): void {
    this.#table = [...tools];
  }
  script(...faults: Fault[]): void {
    this.#script.push(...faults);
  }
  delay(ms: number): void {
    this.#delayMs = ms;
  }
  setBrowsegrant(fn: BrowsegrantFn): void {
    this.#browsegrant = fn;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signalClosed();
    try {
      this.#listener.close();
    } catch {
      // already closed
    }
    for (const conn of this.#conns) {
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
    this.#conns.clear();
    // Tasks may spawn no new work once closed; wait until every one has settled.
    while (this.#tasks.size) await Promise.allSettled([...this.#tasks]);
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    task.finally(() => this.#tasks.delete(task));
  }

  async #acceptLoop(): Promise<void> {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch {
        return; // listener closed
      }
      if (this.#closed) {
        conn.close();
        return;
      }
      this.#conns.add(conn);
      this.#track(this.#serveConn(conn));
    }
  }

  async #serveConn(conn: Deno.Conn): Promise<void> {
    const reader = new ByteReader(conn);
    let ending: Ending = "graceful";
    try {
      while (!this.#closed) {
        let req: ParsedRequest | null;
        try {
          req = await readRequest(
            reader,
            this.#maxBody,
            () => writeAll(conn, encoder.encode("HTTP/1.1 100 Continue\r\n\r\n")),
          );
        } catch (err) {
          if (!(err instanceof HttpError) || this.#closed) throw err;
          const body = encoder.encode(`${err.message}\n`);
          const head = responseHead(err.status, [
            ["Content-Type", "text/plain; charset=utf-8"],
            ["Content-Length", String(body.length)],
          ], true);
          await writeAll(conn, concat([head, body], head.length + body.length));
          break;
        }
        if (req === null) break;
        const outcome = await this.#handle(conn, reader, req);
        if (outcome !== "keep") {
          ending = outcome;
          break;
        }
      }
      if (ending === "graceful" && !this.#closed) await this.#linger(conn, reader);
    } catch {
      // the peer went away or relay.close() closed the socket
    } finally {
      this.#conns.delete(conn);
      try {
        conn.close();
      } catch {
        // already closed
      }
    }
  }

  /**
   * Half-closes and waits (briefly) for the client to close first: closing with unread input would
   * send a reset that can destroy the answer before the client reads it.
   */
  async #linger(conn: Deno.Conn, reader: ByteReader): Promise<void> {
    try {
      await conn.closeWrite();
    } catch {
      return;
    }
    await Promise.race([reader.drain(), delayFor(2000, this.#closedPromise)]);
  }

  /** Handles one request and says how the connection goes on. */
  async #handle(conn: Deno.Conn, reader: ByteReader, req: ParsedRequest): Promise<Ending> {
    const rec = this.#record(req);
    this.#inFlight++;
    this.#maxConcurrent = Math.max(this.#maxConcurrent, this.#inFlight);
    let released = false;
    // Called just before the answer leaves, so a serializing client can never be seen overlapping.
    const release = () => {
      if (!released) {
        released = true;
        this.#inFlight--;
      }
    };
    try {
      await delayFor(this.#delayMs, this.#closedPromise);
      if (this.#closed) return "abrupt";
      let answer: Answer;
      try {
        answer = await Promise.race([
          this.#route(req, rec),
          this.#closedPromise.then((): Answer => ({ drop: true })),
        ]);
      } catch (err) {
        console.error("strict relay: handler failed:", err);
        answer = rpcError(
          500,
          rpcId(rec),
          -32603,
          `internal error: ${err instanceof Error ? err.message : err}`,
        );
      }
      if (this.#closed) return "abrupt";
      return await this.#send(conn, reader, req, rec, answer, release);
    } finally {
      release();
    }
  }

  #record(req: ParsedRequest): RecordedRequest {
    const q = req.target.indexOf("?");
    const path = q < 0 ? req.target : req.target.slice(0, q);
    const bodyText = new TextDecoder().decode(req.body);
    const rec: RecordedRequest = {
      method: req.method,
      path,
      url: `http://${req.headers.get("host") ?? this.host}${req.target}`,
      headers: req.headers,
      body: req.body,
      bodySize: req.bodySize,
      bodyText,
      receivedAt: Date.now(),
    };
    if (!req.tooLarge && bodyText !== "") {
      try {
        rec.json = JSON.parse(bodyText);
      } catch {
        // not JSON: left undefined
      }
    }
    const auth = parseAuth(req.headers);
    if (auth) rec.auth = auth;
    this.requests.push(rec);
    return rec;
  }

  /** Writes an answer; says how the connection goes on. */
  async #send(
    conn: Deno.Conn,
    reader: ByteReader,
    req: ParsedRequest,
    rec: RecordedRequest,
    answer: Answer,
    release: () => void,
  ): Promise<Ending> {
    const keep = this.#keepAlive && req.keepAlive;
    if ("drop" in answer) {
      release();
      return "abrupt";
    }
    if ("hang" in answer) {
      // Stays in flight until the client gives up (closes) or relay.close().
      await Promise.race([reader.drain(), this.#closedPromise]);
      return "abrupt";
    }
    if ("resetMidBody" in answer) {
      const status = answer.status ?? 200;
      rec.status = status;
      const partial = encoder.encode(
        `{"jsonrpc":"2.0","id":${JSON.stringify(rpcId(rec))},"result":{"content":[{"type":"text","text":"`,
      );
      const head = responseHead(status, [["Content-Type", "application/json"], [
        "Content-Length",
        String(partial.length + 4096),
      ]], false);
      release();
      await writeAll(conn, concat([head, partial], head.length + partial.length));
      return "abrupt";
    }
    if ("hugeBodyBytes" in answer) {
      const total = Math.max(2, Math.floor(answer.hugeBodyBytes));
      rec.status = 200;
      const framing: [string, string] = answer.chunked
        ? ["Transfer-Encoding", "chunked"]
        : ["Content-Length", String(total)];
      release();
      await writeAll(conn, responseHead(200, [["Content-Type", "application/json"], framing], !keep));
      const block = new Uint8Array(64 * 1024).fill(0x61); // 'a'
      let left = total;
      while (left > 0) {
        const n = Math.min(left, block.length);
        const chunk = block.subarray(0, n).slice();
        if (left === total) chunk[0] = 0x22; // opening quote
        if (n === left) chunk[n - 1] = 0x22; // closing quote
        if (answer.chunked) {
          const size = encoder.encode(`${n.toString(16)}\r\n`);
          await writeAll(conn, concat([size, chunk, encoder.encode("\r\n")], size.length + n + 2));
        } else {
          await writeAll(conn, chunk);
        }
        left -= n;
      }
      if (answer.chunked) await writeAll(conn, encoder.encode("0\r\n\r\n"));
      return keep ? "keep" : "graceful";
    }
    if ("jsonrpcError" in answer) {
      const { code, message, data } = answer.jsonrpcError;
      answer = rpcError(answer.status ?? 400, rpcId(rec), code, message, data);
    }
    const raw = answer as {
      status: number;
      body?: string | Uint8Array;
      headers?: Record<string, string>;
      contentType?: string;
    };
    const body = typeof raw.body === "string" ? encoder.encode(raw.body) : raw.body ?? new Uint8Array();
    const headers: [string, string][] = [];
    const given = Object.entries(raw.headers ?? {});
    const hasType = given.some(([k]) => k.toLowerCase() === "content-type");
    const type = raw.contentType ?? (body.length && !hasType ? "application/json" : undefined);
    if (type) headers.push(["Content-Type", type]);
    for (const [k, v] of given) {
      if (k.toLowerCase() !== "content-length" && k.toLowerCase() !== "connection") headers.push([k, v]);
    }
    headers.push(["Content-Length", String(body.length)]);
    rec.status = raw.status;
    const head = responseHead(raw.status, headers, !keep);
    release();
    await writeAll(conn, req.method === "HEAD" ? head : concat([head, body], head.length + body.length));
    return keep ? "keep" : "graceful";
  }

  async #route(req: ParsedRequest, rec: RecordedRequest): Promise<Answer> {
    const isMcp = rec.path === `${this.#prefix}/mcp`;
    const isManage = rec.path === `${this.#prefix}/manage/rpc`;
    if (!isMcp && !isManage) {
      return { status: 404, body: "404 page not found\n", contentType: "text/plain; charset=utf-8" };
    }
    const scripted = this.#script.shift();
    if (scripted) return scripted;
    if (req.method !== "POST") {
      return { ...rpcError(405, null, -32600, "method not allowed: use POST"), headers: { Allow: "POST" } };
    }
    return isMcp ? await this.#mcp(req, rec) : await this.#manage(req, rec);
  }

  // ---- NIP-98 -------------------------------------------------------------------------------

  /** The signer's pubkey, or the reason the token is refused. */
  #authenticate(
    req: ParsedRequest,
    rec: RecordedRequest,
    requirePayload: boolean,
  ): { pubkey: string } | { reason: string } {
    const header = req.headers.get("authorization");
    if (!header) return { reason: "missing token" };
    if (!header.startsWith("Nostr ")) return { reason: "authorization scheme must be Nostr" };
    const ev = rec.auth as unknown;
    if (ev === undefined) return { reason: "invalid token encoding" };
    if (
      !isRecord(ev) || !validateEvent(ev) || !Number.isInteger(ev.kind) || !Number.isInteger(ev.created_at) ||
      typeof ev.id !== "string" || typeof ev.sig !== "string"
    ) {
      return { reason: "malformed token event" };
    }
    // Verify a copy: nostr-tools caches the verdict on the object it is given.
    const event = structuredClone(ev) as unknown as NostrEvent;
    if (!verifyEvent(event)) return { reason: "invalid signature" };
    if (event.kind !== NIP98_KIND) return { reason: `wrong kind ${event.kind}` };
    const now = this.#now();
    if (event.created_at < now - TOKEN_WINDOW_S) return { reason: "token expired" };
    if (event.created_at > now + TOKEN_WINDOW_S) return { reason: "token from the future" };
    const u = tagValue(event, "u");
    if (u === undefined || !sameUrl(u, rec.url)) return { reason: "url mismatch" };
    const method = tagValue(event, "method");
    if (method === undefined || method.toUpperCase() !== req.method.toUpperCase()) {
      return { reason: "method mismatch" };
    }
    const payload = tagValue(event, "payload");
    if (req.body.length > 0 || requirePayload) {
      if (payload === undefined) return { reason: "missing payload" };
      if (payload !== bytesToHex(sha256(req.body))) return { reason: "payload mismatch" };
    }
    for (const [id, at] of this.#seenTokens) if (at < now - TOKEN_WINDOW_S) this.#seenTokens.delete(id);
    if (this.#seenTokens.has(event.id)) return { reason: "replayed token" };
    this.#seenTokens.set(event.id, now);
    return { pubkey: event.pubkey };
  }

  #isRefusedNonMember(pubkey: string): boolean {
    return this.membersOnly && !this.members.has(pubkey);
  }

  // ---- /mcp ---------------------------------------------------------------------------------

  async #mcp(req: ParsedRequest, rec: RecordedRequest): Promise<Answer> {
    const h = req.headers;
    const origin = h.get("origin");
    if (origin !== null && origin.toLowerCase() !== `http://${(h.get("host") ?? this.host).toLowerCase()}`) {
      return rpcError(403, null, -32600, "forbidden: origin not allowed");
    }
    if (req.tooLarge) return rpcError(413, null, -32600, `request body exceeds ${this.#maxBody} bytes`);
    const auth = this.#authenticate(req, rec, false);
    if ("reason" in auth) {
      return {
        ...rpcError(401, null, -32600, `auth-required: ${auth.reason}`),
        headers: { "WWW-Authenticate": WWW_AUTHENTICATE },
      };
    }
    if (this.#isRefusedNonMember(auth.pubkey)) {
      return rpcError(403, null, -32600, "restricted: this relay is members-only");
    }
    const accept = h.get("accept");
    if (
      accept !== null &&
      !accept.split(",").map((a) => mediaType(a)).some((t) => t === "application/json" || t === "*/*")
    ) {
      return rpcError(406, null, -32600, "not acceptable: responses are application/json");
    }
    if (mediaType(h.get("content-type")) !== "application/json") {
      return rpcError(415, null, -32600, "unsupported media type: use application/json");
    }

    const msg = rec.json;
    if (!isRecord(msg)) return rpcError(400, null, -32700, "parse error: body must be one JSON-RPC object");
    const hasId = "id" in msg;
    const id = msg.id;
    if (hasId && typeof id !== "string" && typeof id !== "number") {
      return rpcError(400, null, -32600, "invalid request: id must be a string or number");
    }
    if (msg.jsonrpc !== "2.0") return rpcError(400, id, -32600, 'invalid request: jsonrpc must be "2.0"');
    if (typeof msg.method !== "string" || msg.method === "") {
      return rpcError(400, id, -32600, "invalid request: missing method");
    }
    if (!hasId) return { status: 202 };

    const version = h.get("mcp-protocol-version");
    if (version === null) {
      return rpcError(400, id, -32020, "header mismatch: MCP-Protocol-Version is required");
    }
    if (version !== PROTOCOL_VERSION) {
      return rpcError(400, id, -32022, `unsupported protocol version ${version}`, {
        supported: [PROTOCOL_VERSION],
        requested: version,
      });
    }
    const params = isRecord(msg.params) ? msg.params : undefined;
    if (msg.params !== undefined && !params) {
      return rpcError(400, id, -32602, "invalid params: params must be an object");
    }
    const meta = params && isRecord(params._meta) ? params._meta : undefined;
    const metaVersion = meta?.[META_VERSION];
    if (typeof metaVersion !== "string") {
      return rpcError(400, id, -32602, `invalid params: _meta["${META_VERSION}"] is required`);
    }
    if (metaVersion !== version) {
      return rpcError(
        400,
        id,
        -32020,
        `header mismatch: MCP-Protocol-Version ${version} differs from _meta ${metaVersion}`,
      );
    }
    if (!isRecord(meta?.[META_CAPS])) {
      return rpcError(400, id, -32602, `invalid params: _meta["${META_CAPS}"] must be an object`);
    }
    const mcpMethod = h.get("mcp-method");
    if (mcpMethod !== msg.method) {
      return rpcError(
        400,
        id,
        -32020,
        `header mismatch: Mcp-Method ${JSON.stringify(mcpMethod)} differs from method ${msg.method}`,
      );
    }
    if (msg.method === "tools/call") {
      const header = h.get("mcp-name");
      if (header === null) {
        return rpcError(400, id, -32020, "header mismatch: Mcp-Name is required for tools/call");
      }
      if (typeof params?.name !== "string") {
        return rpcError(400, id, -32602, "invalid params: name is required");
      }
      const b64 = /^=\?base64\?(.*)\?=$/.exec(header);
      const decoded = b64 ? decodeToken(b64[1]) : header;
      if (decoded !== params.name) {
        return rpcError(400, id, -32020, `header mismatch: Mcp-Name differs from params.name ${params.name}`);
      }
    }

    switch (msg.method) {
      case "server/discover":
        return this.#result(id, {
          supportedVersions: [PROTOCOL_VERSION],
          capabilities: { tools: { listChanged: false } },
          serverInfo: { ...SERVER_INFO },
          instructions: "Strict test relay: every POST carries NIP-98 and the MCP headers.",
        });
      case "tools/list":
        return this.#result(id, { tools: this.#table, ttlMs: 60000, cacheScope: "private" });
      case "tools/call":
        return await this.#callTool(
          id as string | number,
          params as Record<string, unknown>,
          auth.pubkey,
          rec,
        );
      default:
        return rpcError(404, id, -32601, `Method not found: ${msg.method}`);
    }
  }

  #result(id: unknown, result: Record<string, unknown>): Answer {
    const meta = isRecord(result._meta) ? result._meta : {};
    return json(200, {
      jsonrpc: "2.0",
      id,
      result: {
        ...result,
        resultType: result.resultType ?? "complete",
        _meta: { ...meta, [META_SERVER]: { ...SERVER_INFO } },
      },
    });
  }

  async #callTool(
    id: string | number,
    params: Record<string, unknown>,
    pubkey: string,
    rec: RecordedRequest,
  ): Promise<Answer> {
    const name = params.name as string;
    const tool = this.#table.find((t) => t.name === name);
    if (!tool) return rpcError(400, id, -32602, `Unknown tool: ${name}`);
    if (params.arguments !== undefined && !isRecord(params.arguments)) {
      return rpcError(400, id, -32602, "invalid params: arguments must be an object");
    }
    const args = (params.arguments ?? {}) as Args;
    const ctx: CallContext = { pubkey, args, tool: name, request: rec };
    const handler = this.#handlers.get(name) ?? ((c: CallContext) => this.#defaultTool(tool, c));
    const out = await handler(ctx);
    if (isFault(out)) return out;
    return this.#result(id, out);
  }

  #defaultTool(tool: ToolDef, ctx: CallContext): ToolResult {
    const { args, pubkey } = ctx;
    const problem = schemaProblem(tool.inputSchema, args);
    if (problem) return toolError(`invalid: ${problem}`);
    const now = Math.floor(this.#now());

    if (tool.name === "upload_attachment") {
      const data = String(args.data);
      if (data.length > 700 * 1024) return toolError("invalid: data exceeds 700 KiB of Base64");
      const bytes = decodeStdBase64(data);
      if (!bytes || !bytes.length) return toolError("invalid: data must be non-empty standard Base64");
      const hash = bytesToHex(sha256(bytes));
      const type = String(args.type);
      const ext = (/^[a-z]+\/([a-z0-9]+)/.exec(type)?.[1] ?? "bin").replace("jpeg", "jpg");
      const url = `${this.url}/media/${hash}.${ext}`;
      const filename = s(args.filename) ?? `${hash.slice(0, 12)}.${ext}`;
      this.#uploads.set(hash, { bytes, type });
      return toolOk({
        url,
        sha256: hash,
        size: bytes.length,
        type,
        filename,
        uploaded: now,
        nip94: [["url", url], ["m", type], ["x", hash], ["size", String(bytes.length)]],
      });
    }
    if (tool.name === "read_attachment") {
      const stored = this.#uploads.get(String(args.sha256));
      const bytes = stored?.bytes ?? SAMPLE_PNG;
      const type = stored?.type ?? "image/png";
      const data = base64(bytes);
      const structured = { sha256: bytesToHex(sha256(bytes)), size: bytes.length, type, data };
      const content: Record<string, unknown>[] = [];
      if (type.startsWith("image/")) content.push({ type: "image", data, mimeType: type });
      else if (type.startsWith("audio/")) content.push({ type: "audio", data, mimeType: type });
      else if (type.startsWith("text/")) {
        content.push({ type: "text", text: new TextDecoder().decode(bytes) });
      } else content.push({ type: "text", text: `${type}, ${bytes.length} bytes` });
      return { content, structuredContent: structured, isError: false };
    }

    const kinds = publishKinds(tool.name, args);
    if (kinds === undefined) return toolOk({ tool: tool.name, arguments: args, caller: pubkey });

    if (args.event === undefined) {
      if (tool.name === "publish_event") return toolError("invalid: event is required");
      const template = templateOf(tool.name, args);
      if ("invalid" in template) {
        return toolError(`invalid: ${template.invalid}`, {
          accepted: false,
          message: `invalid: ${template.invalid}`,
        });
      }
      const unsigned = { kind: kinds[0], created_at: now, tags: template.tags, content: template.content };
      const next = `Sign this event and call ${tool.name} again with it as event.`;
      return {
        content: [{ type: "text", text: `${JSON.stringify(unsigned)}\n${next}` }],
        structuredContent: { unsigned, next },
        isError: false,
      };
    }
    const why = publishProblem(tool.name, args, args.event, pubkey);
    if (why) return toolError(`invalid: ${why}`, { accepted: false, message: `invalid: ${why}` });
    const ev = args.event as unknown as NostrEvent;
    const duplicate = this.published.some((p) => p.id === ev.id);
    if (!duplicate) this.published.push(ev);
    return toolOk({
      event_id: ev.id,
      accepted: true,
      message: duplicate ? "duplicate: already have this event" : "",
    });
  }

  // ---- /manage/rpc --------------------------------------------------------------------------

  async #manage(req: ParsedRequest, rec: RecordedRequest): Promise<Answer> {
    if (req.tooLarge) return nip86Error(`invalid: request body exceeds ${this.#maxBody} bytes`, 413);
    if (!(req.headers.get("content-type") ?? "").toLowerCase().includes("application/nostr+json+rpc")) {
      return nip86Error("invalid: Content-Type must be application/nostr+json+rpc", 415);
    }
    const auth = this.#authenticate(req, rec, true);
    if ("reason" in auth) {
      return {
        ...nip86Error(`auth-required: ${auth.reason}`),
        headers: { "WWW-Authenticate": WWW_AUTHENTICATE },
      } as Answer;
    }
    if (this.#isRefusedNonMember(auth.pubkey)) return nip86Error("restricted: this relay is members-only");
    const msg = rec.json;
    if (!isRecord(msg)) return nip86Error("invalid: body must be a JSON object");
    if (typeof msg.method !== "string") return nip86Error("invalid: method is required");
    if (msg.method !== "browsegrant") {
      return nip86Error(`unsupported: management method ${JSON.stringify(msg.method)}`);
    }
    const params = msg.params ?? [];
    if (!Array.isArray(params) || params.length > 1) {
      return nip86Error("invalid: params must be [] or [{rooms, kinds}]");
    }
    if (params.length) {
      const p = params[0];
      if (!isRecord(p)) return nip86Error("invalid: params[0] must be an object");
      if (p.rooms !== undefined) {
        if (!Array.isArray(p.rooms) || p.rooms.length > 256) {
          return nip86Error("invalid: rooms must be a list of at most 256 entries");
        }
        if (!p.rooms.every((r) => typeof r === "string" && r !== "")) {
          return nip86Error("invalid: rooms must be non-empty strings");
        }
      }
      if (p.kinds !== undefined) {
        if (!Array.isArray(p.kinds) || p.kinds.length > 256) {
          return nip86Error("invalid: kinds must be a list of at most 256 entries");
        }
        if (!p.kinds.every((k) => Number.isInteger(k) && k >= 0 && k <= 65535)) {
          return nip86Error("invalid: kinds must be integers from 0 to 65535");
        }
      }
    }
    const result = await this.#browsegrant(auth.pubkey, params);
    if (isFault(result)) return result;
    return json(200, { result });
  }

  #defaultBrowsegrant(pubkey: string, params: unknown[]): unknown {
    const expires = Math.floor(this.#now()) + 30 * 24 * 3600;
    const scope = { kinds: [1111, 9], rooms: ["general"], repos: [], rate: 60 };
    const result: Record<string, unknown> = {
      member: true,
      role: "agent",
      enforced: true,
      state: "active",
      grant: {
        pubkey,
        owner: GRANT_OPERATOR,
        event_id: GRANT_EVENT_ID,
        name: "test agent",
        expires,
        paused: false,
        revoked: false,
        scope,
        lastEvent: 0,
      },
      expires,
      rate: 60,
    };
    const asked = isRecord(params[0]) ? params[0] : {};
    if (asked.rooms !== undefined || asked.kinds !== undefined) {
      result.missing = {
        rooms: strings(asked.rooms).filter((r) => !scope.rooms.includes(r)),
        kinds: (Array.isArray(asked.kinds) ? asked.kinds as number[] : []).filter((k) =>
          !scope.kinds.includes(k)
        ),
      };
    }
    return result;
  }
}

/** Starts a relay on 127.0.0.1 with an OS-chosen port. Close it with relay.close(). */
export function startStrictRelay(options: StrictRelayOptions = {}): Promise<StrictRelay> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0, transport: "tcp" });
  return Promise.resolve(new Relay(listener, options));
}
