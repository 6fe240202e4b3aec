// Every fixed value the tests check, written out from facade.md (the contract) rather than imported
// from lib/, so a change to lib/ that breaks the contract fails the tests: the tool lists and the
// kind table, the handshake versions, the JSON-RPC codes, the error prefixes and refusal texts, the
// bounds and their notes, the verdicts with their exit statuses and the failure classes. Counts and
// positions are derived from the lists, never typed.

/** Read tools, offered by default, in the contract's order (facade.md, "Exposed tools"). */
export const CONTRACT_READ: readonly string[] = [
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

/** Write tools and the kinds each signs, in the contract's order (facade.md, "Sign and resubmit"). */
export const CONTRACT_KINDS: Readonly<Record<string, readonly number[]>> = {
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

/** Write tools, added with `--allow-writes`, in the contract's order (facade.md, "Exposed tools"). */
export const CONTRACT_WRITE: readonly string[] = Object.keys(CONTRACT_KINDS);

// --- Exposed tools -------------------------------------------------------------------------------

/** The one tool the facade answers itself, always offered last in `tools/list` (facade.md, "Exposed tools"). */
export const TINY_DIAGNOSE = "tiny_diagnose";

/**
 * Relay tools never offered, whatever the flags: `publish_event` and `read_management`, which the
 * contract names, and relay tools in neither list (facade.md, "Exposed tools").
 */
export const HIDDEN_RELAY_TOOLS: readonly string[] = [
  "publish_event",
  "read_management",
  "set_status",
  "publish_site",
  "create_room",
  "ban_pubkey",
  "allow_pubkey",
  "grant_agent",
  "revoke_agent",
  "list_agents",
  "change_relay_name",
];

// --- Host protocol -------------------------------------------------------------------------------

/** Handshake versions `initialize` answers as asked (facade.md, "Host protocol", `initialize`). */
export const HANDSHAKE_VERSIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/** The version `initialize` answers for any other (facade.md, "Host protocol", `initialize`). */
export const FALLBACK_VERSION = "2025-06-18";

/** Any other request (facade.md, "Host protocol"). */
export const METHOD_NOT_FOUND = -32601;

/** A message that is not one JSON object (facade.md, "Host protocol"). */
export const PARSE_ERROR = -32700;

/** A tool outside the exposed set: `-32602` `Unknown tool` (facade.md, "Errors"). */
export const INVALID_PARAMS = -32602;

/** The start of the `-32602` message for a tool outside the exposed set (facade.md, "Errors"). */
export const UNKNOWN_TOOL = "Unknown tool";

/** JSON-RPC 2.0's Invalid Request, for malformed requests and over-long lines (JSON-RPC 2.0, 5.1; facade.md names no code). */
export const INVALID_REQUEST = -32600;

/** JSON-RPC 2.0's Internal error (JSON-RPC 2.0, 5.1; facade.md names no code). */
export const INTERNAL_ERROR = -32603;

// --- Relay protocol ------------------------------------------------------------------------------

/** The relay's MCP revision in `MCP-Protocol-Version` and `_meta` (facade.md, "Relay protocol"; the value is mcp.md's). */
export const RELAY_PROTOCOL_VERSION = "2026-07-28";

/** The kind of the NIP-98 proof in `Authorization: Nostr …` (facade.md, "Relay protocol"). */
export const NIP98_KIND = 27235;

// --- Sign and resubmit ---------------------------------------------------------------------------

/** Kinds that authorize rather than publish, never signed whatever the tool (facade.md, "Sign and resubmit"). */
export const AUTHORIZATION_KINDS: readonly number[] = [22242, 24242, 27235];

/** An agent grant, never signed by the facade (facade.md, "Sign and resubmit"). */
export const GRANT_KIND = 30392;

/** The tool error for a template the facade will not sign (facade.md, "Sign and resubmit" and "Errors"). */
export function unexpectedKindText(kind: number | string, tool: string): string {
  return `the relay returned an unsigned event this tool is not expected to publish: kind ${kind} from ${tool}`;
}

/** The tool error for an authorization kind (facade.md, "Sign and resubmit"). */
export function authorizationRefusalText(kind: number | string, tool: string): string {
  return `refused to sign a kind ${kind} authorization event returned by ${tool}`;
}

// --- Errors --------------------------------------------------------------------------------------

/** HTTP 401/403 and `restricted:`/`auth-required:` refusals (facade.md, "Errors"). */
export const PERMISSION_PREFIX = "permission: ";

/** Relay refusals inside an `isError` result that gain the `permission: ` prefix (facade.md, "Errors"). */
export const PERMISSION_MARKED: readonly string[] = ["restricted:", "auth-required:"];

/** Connection failure, timeout, invalid response or HTTP 5xx (facade.md, "Errors"). */
export const TRANSPORT_PREFIX = "transport: ";

/** Any other JSON-RPC error from the relay (facade.md, "Errors"). */
export const RELAY_PREFIX = "relay: ";

// --- Bounds --------------------------------------------------------------------------------------

/** Each text content block is cut at 64 KiB (facade.md, "Bounds"). */
export const TEXT_LIMIT_BYTES = 65536;

/** `structuredContent` is bounded to 256 KiB of JSON (facade.md, "Bounds"). */
export const STRUCTURED_LIMIT_BYTES = 262144;

/** Input lines up to 48 MiB are accepted (facade.md, "Bounds"). */
export const INPUT_LINE_LIMIT_BYTES = 50331648;

/** The line a cut text block ends with (facade.md, "Bounds"). */
export function truncationMarker(shown: number | string, total: number | string): string {
  return `[truncated: ${shown} of ${total} bytes shown]`;
}

/** The line the first text block gains when `structuredContent` is replaced (facade.md, "Bounds"). */
export function structuredTruncationNote(total: number | string): string {
  return `[structuredContent truncated: ${total} bytes exceeds the ${STRUCTURED_LIMIT_BYTES} byte limit]`;
}

/** What replaces `structuredContent` over the bound (facade.md, "Bounds"). */
export function structuredTruncated(total: number): { truncated: true; bytes: number } {
  return { truncated: true, bytes: total };
}

const HOLE = "\u0000";

/** A wording as a pattern: its text escaped, each hole the number given or any number, captured. */
function patternOf(text: string, ...numbers: (number | undefined)[]): string {
  let hole = 0;
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll(HOLE, () => {
    const number = numbers[hole++];
    return number === undefined ? "(\\d+)" : String(number);
  });
}

/** The truncation marker ending a text; a number left out matches any, captured (facade.md, "Bounds"). */
export function truncationMarkerPattern(shown?: number, total?: number): RegExp {
  return new RegExp(`${patternOf(truncationMarker(HOLE, HOLE), shown, total)}$`);
}

/** The structuredContent note ending a line; a total left out matches any, captured (facade.md, "Bounds"). */
export function structuredTruncationNotePattern(total?: number): RegExp {
  return new RegExp(`${patternOf(structuredTruncationNote(HOLE), total)}$`, "m");
}

// --- tiny_diagnose -------------------------------------------------------------------------------

/** The six verdicts (facade.md, "Exposed tools", `tiny_diagnose`). */
export const VERDICTS = [
  "ok",
  "needs-grant",
  "not-a-member",
  "unauthorized",
  "unreachable",
  "error",
] as const;
export type ContractVerdict = (typeof VERDICTS)[number];

/** `tinyagent diagnose`'s exit status per verdict (facade.md, "Exposed tools", the browsegrant table). */
export const VERDICT_EXIT: Readonly<Record<ContractVerdict, number>> = {
  "ok": 0,
  "needs-grant": 2,
  "not-a-member": 2,
  "unauthorized": 2,
  "unreachable": 3,
  "error": 3,
};

/** A usage error's exit status (facade.md, "Exposed tools": the report of `tinyagent diagnose`, whose usage says 1). */
export const USAGE_EXIT = 1;

/** The `class` the `authentication` check carries on failure (facade.md, "Exposed tools", the browsegrant table). */
export const FAILURE_CLASSES = ["authorization", "rate-limited", "protocol", "transport"] as const;
export type ContractFailureClass = (typeof FAILURE_CLASSES)[number];

/**
 * What `initialize` announces. Beyond facade.md's `{"tools": {}}`: tinyagent tells the host when the
 * tool table changes (notifications/tools/list_changed), as docs/choices.md says.
 */
export const ANNOUNCED_CAPABILITIES = { tools: { listChanged: true } } as const;

/**
 * What an mcp session announces: the tools, and the relay's content as resources (issue 33): with
 * subscriptions, without list_changed (never sent), and completions of the templates' variables.
 */
export const SESSION_CAPABILITIES = {
  ...ANNOUNCED_CAPABILITIES,
  resources: { subscribe: true },
  completions: {},
} as const;
