// A write tool as tinyrelay serves it (mcpWrite, mcp_tools.go): called with a signed `event`, the
// event is parsed, checked against the tool's shape and published through the same gates as every
// other door, the rest of the arguments ignored; called without, the template is built from the plain
// fields, its thread root resolved, and answered with the instruction to sign it.

import type { NostrEvent } from "nostr-tools/pure";
import type { Receipt } from "./event_gates.ts";
import { relayFailure, relayValue } from "./results.ts";
import { decoded, eventProblem } from "./signed_event.ts";
import type { ToolResult } from "./types.ts";
import type { Args } from "./values.ts";
import { buildGrantRequest, checkGrantRequest, GRANT_SHAPE, type GrantUnderReview } from "./write_grant.ts";
import { JOB_WRITES } from "./write_jobs.ts";
import type { BuildContext, WriteSpec } from "./write_kit.ts";
import { REPO_WRITES } from "./write_repo.ts";
import { resolveThread, ROOM_WRITES } from "./write_room.ts";
import { SHAPES, SIGN_NEXT } from "./write_shapes.ts";
import { WIKI_SITE_WRITES } from "./write_wiki_site.ts";

/** Every write tool's builder, check and shape (request_grant is served on its own). */
export const WRITE_SPECS: Record<string, WriteSpec> = {
  publish_event: { shape: SHAPES.anyEvent },
  ...REPO_WRITES,
  ...ROOM_WRITES,
  ...WIKI_SITE_WRITES,
  ...JOB_WRITES,
};

export const isWriteTool = (name: string): boolean => name in WRITE_SPECS || name === "request_grant";

/** What a write reads of the relay besides its builders' context. */
export interface WriteDeps extends BuildContext {
  /** Publishes through the gates, as the caller (the NIP-98 signer) authenticated. */
  publish(ev: NostrEvent): Receipt;
  /** The caller's current grant, for request_grant. */
  grant(): GrantUnderReview | undefined;
}

/** The publish result, accepted or refused, in the relay's words (mcpPublish). */
function published(receipt: Receipt): ToolResult {
  const value = { accepted: receipt.accepted, event_id: receipt.event_id, message: receipt.message };
  return receipt.accepted
    ? relayValue(value)
    : relayFailure(`The relay rejected the event: ${receipt.message}`, value);
}

/** The `event` argument when the call carries one (null counts as none). */
function signedArgument(args: Args): unknown {
  return Object.hasOwn(args, "event") && args.event !== null ? args.event : undefined;
}

/** The signed event, parsed as the relay parses events, or the parse's words. */
function parsed(raw: unknown): NostrEvent | { error: string } {
  const problem = eventProblem(raw);
  return problem ? { error: problem } : decoded(raw as Record<string, unknown>);
}

/** One call of a write tool other than request_grant. */
export function callWrite(name: string, args: Args, deps: WriteDeps): ToolResult {
  const spec = WRITE_SPECS[name];
  const expected = { expected: spec.shape };
  const raw = signedArgument(args);
  if (raw !== undefined) {
    const ev = parsed(raw);
    const problem = "error" in ev ? ev.error : spec.check?.(ev, deps.now);
    if (problem) return relayFailure(`The event is not acceptable: ${problem}\n${spec.shape}`, expected);
    return published(deps.publish(ev as NostrEvent));
  }
  if (!spec.build) return relayFailure(`event is required. ${spec.shape}`, expected);
  const built = spec.build(args, deps);
  const resolved = "error" in built ? built : resolveThread(built.unsigned, deps);
  if ("error" in resolved) return relayFailure(`${resolved.error}\n${spec.shape}`, expected);
  return relayValue({ next: SIGN_NEXT, unsigned: resolved.unsigned });
}

/** request_grant: the agent's own request reviewed against its current grant, then published. */
export function callGrantRequest(args: Args, deps: WriteDeps): ToolResult {
  const expected = { expected: GRANT_SHAPE };
  const raw = signedArgument(args);
  if (raw !== undefined) {
    const ev = parsed(raw);
    const problem = "error" in ev ? ev.error : checkGrantRequest(ev, deps.actor, deps.grant());
    if (problem) {
      return relayFailure(`The grant request is not acceptable: ${problem}\n${GRANT_SHAPE}`, expected);
    }
    return published(deps.publish(ev as NostrEvent));
  }
  const built = buildGrantRequest(args, deps, deps.grant());
  if ("error" in built) return relayFailure(`${built.error}\n${GRANT_SHAPE}`, expected);
  return relayValue({ next: SIGN_NEXT, unsigned: built.unsigned });
}
