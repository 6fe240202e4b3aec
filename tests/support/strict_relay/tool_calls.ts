// A tools/call as tinyrelay runs it: the arguments checked against the tool's closed schema first
// (tool_validate.ts), then the tool: a read behind the read gate, answered from what the relay holds;
// an upload into the room store; a write (write_tools.ts); a management tool, which needs the owner.

import type { NostrEvent } from "nostr-tools/pure";
import type { Role } from "./community.ts";
import type { Receipt } from "./event_gates.ts";
import { relayFailure, relayValue } from "./results.ts";
import { storeAttachment, type UploadDeps, uploaderRefusal } from "./room_uploads.ts";
import { validateArguments } from "./tool_validate.ts";
import type { CallContext, ToolDef, ToolResult } from "./types.ts";
import type { Args } from "./values.ts";
import type { GrantUnderReview } from "./write_grant.ts";
import { callGrantRequest, callWrite, isWriteTool } from "./write_tools.ts";

/** What the tools read of the relay. */
export interface ToolRelay {
  /** Unix seconds. */
  now(): number;
  role(pubkey: string): Role;
  /** The read gate (browseRead): its refusal for the caller, if it refuses. */
  readRefusal(pubkey: string): string | undefined;
  /** A read answered from what the relay holds, or undefined for a tool it holds nothing for. */
  read(tool: string, args: Args, caller: string): ToolResult | undefined;
  /** A stored event the caller may see. */
  event(id: string, caller: string): NostrEvent | undefined;
  publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt;
  grant(pubkey: string): GrantUnderReview | undefined;
  uploads: UploadDeps;
}

/** The reads backed by the management path: owner and moderators only. */
const MANAGED_READS = [
  "read_management",
  "list_agents",
  "list_callbacks",
  "list_custom_views",
  "list_join_requests",
];

/** Go's base64.StdEncoding: standard alphabet, padding required; line breaks skipped. */
function standardBase64(text: string): Uint8Array | undefined {
  const bare = text.replace(/[\r\n]/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(bare) || bare.length % 4 !== 0) return undefined;
  try {
    return Uint8Array.from(atob(bare), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** upload_attachment (mcpUploadAttachment), in its order and words. */
function upload(args: Args, caller: string, relay: ToolRelay): ToolResult {
  const data = typeof args.data === "string" ? args.data : "";
  if (data.length > 700 * 1024) {
    return relayFailure(
      "Base64 data exceeds 700 KiB; use the HTTP room attachment endpoint for larger files",
    );
  }
  const bytes = standardBase64(data);
  if (!bytes) return relayFailure("data must be standard Base64");
  if (bytes.length > 32 * 1024 * 1024) return relayFailure("attachment exceeds the 32 MiB room limit");
  const type = typeof args.type === "string" ? args.type.trim() : "";
  if (type === "" || /[\r\n]/.test(type)) return relayFailure("type is required");
  const room = String(args.room);
  const refused = uploaderRefusal(relay.uploads, caller, room);
  if (refused) return relayFailure(`upload failed: ${refused}`);
  const filename = typeof args.filename === "string" ? args.filename : null;
  const stored = storeAttachment(relay.uploads, { bytes, type, filename, room });
  return "error" in stored ? relayFailure(`upload failed: ${stored.error}`) : relayValue(stored);
}

/** A read tool: the read gate, then the relay's answer. */
function read(tool: ToolDef, args: Args, caller: string, relay: ToolRelay): ToolResult {
  const refused = relay.readRefusal(caller);
  if (refused) {
    return relayFailure(tool.name === "read_attachment" ? `attachment unavailable: ${refused}` : refused);
  }
  const answer = relay.read(tool.name, args, caller);
  if (answer) return answer;
  const role = relay.role(caller);
  if (tool.name === "read_status") {
    // The operator's status is the relay's own business; the twin has nothing to report in it.
    return role === "owner" ? relayValue({ errors: {} }) : relayFailure("restricted: operator status");
  }
  if (MANAGED_READS.includes(tool.name)) return managed(tool.name, role);
  return relayFailure(`not found: ${tool.name.replace(/^read_|^list_/, "").replaceAll("_", " ")}`);
}

/**
 * A management tool: the twin holds no jobs, backups, callbacks or views, so the owner is answered
 * with nothing and anyone else refused. The source's refusal for these was not found; these words are
 * the twin's (the facade offers none of these tools).
 */
function managed(name: string, role: Role): ToolResult {
  if (role === "owner") return relayValue({ result: null });
  return relayFailure(`restricted: ${name} needs the relay owner or a moderator`);
}

/** A tool call's answer, as the relay gives it. */
export function callTool(tool: ToolDef, ctx: CallContext, relay: ToolRelay): ToolResult {
  const { args, pubkey: caller } = ctx;
  const problem = validateArguments(tool.inputSchema, args);
  if (problem) return relayFailure(problem, { inputSchema: tool.inputSchema });
  if (tool.name === "upload_attachment") return upload(args, caller, relay);
  if (isWriteTool(tool.name)) {
    const now = Math.floor(relay.now());
    const deps = {
      actor: caller,
      now,
      event: (id: string) => relay.event(id, caller),
      activeGrant: () => relay.grant(caller),
      grant: () => relay.grant(caller),
      publish: (ev: NostrEvent) => relay.publish(ev, new Set([caller])),
    };
    return tool.name === "request_grant" ? callGrantRequest(args, deps) : callWrite(tool.name, args, deps);
  }
  if ((tool.annotations as Record<string, unknown> | undefined)?.readOnlyHint === true) {
    return read(tool, args, caller, relay);
  }
  return managed(tool.name, relay.role(caller));
}
