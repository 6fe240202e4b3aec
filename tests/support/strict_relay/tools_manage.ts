// The management tools the real relay lists; the contract never offers any of them.

import { arr, def, DESTRUCTIVE, MANAGE, obj, object, str } from "./tool_schema.ts";
import type { ToolDef } from "./types.ts";

export const MANAGEMENT_TOOL_DEFS: ToolDef[] = [
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
];
