// The management tools of the real relay's table, in its order (tinyrelay's mcp_tools.go). The facade
// never offers them; the twin lists them so a table read from it is the relay's whole table.

import {
  callbackSecret,
  CHANGES,
  CONTROLS,
  def,
  described,
  enumOf,
  id,
  object,
  pubKey,
  SETTINGS,
  text,
} from "./tool_schema.ts";
import type { ToolDef } from "./types.ts";

const byId = object({ id }, "id");
const byName = object({ name: id }, "name");
const byAgent = object({ agent: pubKey }, "agent");
const byPubkey = object({ pubkey: pubKey }, "pubkey");
const OWNER_OR_MODERATOR = "Requires an owner or moderator key.";
const CALLBACK_DELEGATES = "The callback's owner, the relay owner and moderators may do this.";

const customView = object(
  {
    name: described(
      { type: "string", pattern: "^[a-z0-9-]{1,32}$" },
      "View name: 1 to 32 lowercase letters, digits or hyphens.",
    ),
    kinds: {
      type: "array",
      items: { type: "integer", minimum: 0, maximum: 65535 },
      minItems: 1,
      maxItems: 16,
      description: "Event kinds the view watches; 30618 sends the repository README at its head.",
    },
    transform: described(text, "An https URL on a public host that renders the blocks."),
    trigger: described(
      enumOf("write", "hourly"),
      "write sends each matching event as it arrives; hourly sends the newest ones every hour.",
    ),
    audience: described(enumOf("public", "members"), "Who may see the artifacts."),
    languages: {
      type: "array",
      items: { type: "string", minLength: 1, maxLength: 32 },
      minItems: 1,
      maxItems: 32,
      description: "Fenced block languages the view renders, lowercase.",
    },
    max_bytes: {
      type: "integer",
      minimum: 1,
      maximum: 4 * 1024 * 1024,
      description: "Largest artifact accepted, in bytes. 1 MiB when omitted, 4 MiB at most.",
    },
    secret: callbackSecret,
  },
  "name",
  "kinds",
  "transform",
  "languages",
);

export const MANAGEMENT_TOOL_DEFS: ToolDef[] = [
  def(
    "run_job",
    "Queue an existing job to run now. Read jobs through read_management to check its completion.",
    byId,
    CHANGES,
  ),
  def(
    "add_job",
    "Add a background job. every is the interval in hours; 0 runs once. Pull and push jobs need ws:// or wss:// relay URLs; pull may instead discover relays for a public key. Dump and backup jobs may omit relays.",
    object(
      {
        id,
        kind: enumOf("pull", "push", "import", "mirror", "dump", "backup"),
        relays: { type: "array", items: text },
        filter: described(text, "Nostr filter encoded as a JSON object string."),
        every: { type: "integer", minimum: 0, description: "Interval in hours. Zero runs once." },
        discoverPubKey: pubKey,
      },
      "id",
      "kind",
    ),
    CHANGES,
  ),
  def("remove_job", "Remove a job and cancel its pending runs.", byId, SETTINGS),
  def(
    "backup_now",
    "Queue a backup of relay data. Read jobs and backups through read_management to check completion.",
    object(),
    CHANGES,
  ),
  def(
    "dump_now",
    "Queue an event export. Read jobs and dumps through read_management to check completion.",
    object(),
    CHANGES,
  ),
  def(
    "set_policy",
    "Apply a partial relay policy update. Read the current policy before changing access, delivery or features. Requires the owner key.",
    object({ patch: { type: "object", minProperties: 1 } }, "patch"),
    SETTINGS,
  ),
  def(
    "set_connections",
    "Replace the relay's connection list. Read the current list with read_management listconnections before editing it.",
    object({ connections: { type: "array", items: { type: "object" } } }, "connections"),
    SETTINGS,
  ),
  def(
    "send_test_notification",
    "Send the relay's test notice to the owner's inbox and enabled devices. Owner only.",
    object(),
    CHANGES,
  ),
  def(
    "add_callback",
    "Register an https URL that receives a POST with each new event matching filter that your key may see. The filter takes kinds (required), authors, #a, #e, #p and #h with at most 8 values each. The answer carries the callback id and, once, the secret used for the X-Tiny-Signature header; keep it. Members and agents may hold up to the relay's callback allowance, 4 by default.",
    object(
      {
        url: described(text, "An https URL on a public host."),
        filter: {
          type: "object",
          description: "NIP-01 filter subset: kinds, authors, #a, #e, #p, #h.",
          minProperties: 1,
        },
        secret: callbackSecret,
      },
      "url",
      "filter",
    ),
    CHANGES,
  ),
  def(
    "add_custom_view",
    "Define a custom view: the relay POSTs the fenced code blocks of matching events, in the listed languages, to an https transform and keeps the SVG or PNG artifacts it returns as relay-signed events shown in place of the blocks. The answer carries the secret once, used for the X-Transform-Signature header; keep it. Owner only.",
    customView,
    CHANGES,
  ),
  def(
    "remove_custom_view",
    "Delete a custom view and every artifact it produced. Owner only.",
    byName,
    SETTINGS,
  ),
  def(
    "pause_custom_view",
    "Stop a custom view: no transform requests until it is resumed. Its artifacts stay. Owner only.",
    byName,
    CONTROLS,
  ),
  def(
    "resume_custom_view",
    "Resume a paused custom view and clear its failure count. Owner only.",
    byName,
    CONTROLS,
  ),
  def(
    "run_custom_view",
    "Queue a backfill of a custom view over the newest 500 events of its kinds. Blocks that already have an artifact are reused unless refresh is true, which rebuilds them from the transform. Owner only.",
    object({
      name: id,
      refresh: { type: "boolean", description: "Rebuild existing artifacts from the transform." },
    }, "name"),
    CHANGES,
  ),
  def("remove_callback", `Delete a callback by id. ${CALLBACK_DELEGATES}`, byId, SETTINGS),
  def(
    "pause_callback",
    `Stop deliveries to a callback until it is resumed. ${CALLBACK_DELEGATES}`,
    byId,
    CONTROLS,
  ),
  def("resume_callback", "Resume a paused callback and clear its failure count.", byId, CONTROLS),
  def(
    "pause_agent",
    `Stop an agent from publishing until it is resumed. The grant stays in place. ${OWNER_OR_MODERATOR}`,
    byAgent,
    CONTROLS,
  ),
  def("resume_agent", `Let a paused agent publish again. ${OWNER_OR_MODERATOR}`, byAgent, CONTROLS),
  def(
    "revoke_agent",
    `End an agent's grant and remove its agent role. The grant event stays stored for audit; a fresh grant restores access. ${OWNER_OR_MODERATOR}`,
    byAgent,
    SETTINGS,
  ),
  def(
    "approve_join",
    `Approve an access request: the key becomes a member, the relay's member list and add-user record follow, and the request is marked approved. ${OWNER_OR_MODERATOR}`,
    byPubkey,
    CONTROLS,
  ),
  def(
    "deny_join",
    `Deny an access request. The key stays outside the relay and may ask again. ${OWNER_OR_MODERATOR}`,
    byPubkey,
    CONTROLS,
  ),
  def("pause_all_agents", `Pause every active agent at once. ${OWNER_OR_MODERATOR}`, object(), CONTROLS),
  def("resume_all_agents", `Resume every paused agent. ${OWNER_OR_MODERATOR}`, object(), CONTROLS),
];
