// The gates every write meets, whichever door it came in by (/mcp's write tools, POST /events, the
// websocket), in the order of tinyrelay's gates.Write (internal/gates/gates.go) and with its words:
// the AUTH kind, long tasks' shape, expiry, the agent grant (state, kinds, rooms, repositories, the
// rate per minute), the room, the author's own events, long tasks' writers and answers, and the
// write policy. Pure: what the gates read of the relay comes in a GateContext.

import type { NostrEvent } from "nostr-tools/pure";
import type { AgentGrant, Role } from "./community.ts";
import { isJobKind, jobReplyProblem, jobShapeProblem } from "./job_rules.ts";
import { tag } from "./write_kit.ts";

/** A room as the gates see it. */
export interface RoomFacts {
  access: "open" | "members";
  /** The key's role in the room, if it has one. */
  roleOf(pubkey: string): string | undefined;
}

/** What the gates read of the relay. */
export interface GateContext {
  /** Unix seconds. */
  now: number;
  /** The keys the write's door authenticated: the websocket's AUTHed keys, the NIP-98 signer. */
  session: ReadonlySet<string>;
  role(pubkey: string): Role;
  grantOf(pubkey: string): AgentGrant | undefined;
  admitRate(pubkey: string, rate: number, now: number): boolean;
  room(id: string): RoomFacts | undefined;
  /** A stored event its author may see, by id (a long task's request). */
  stored(id: string): NostrEvent | undefined;
  /** Members-only: writes come from members only (the relay's `allowlist` write policy). */
  membersOnly: boolean;
}

export interface Receipt {
  accepted: boolean;
  event_id: string;
  message: string;
}

const GIT_KINDS = [1617, 1618, 1619, 1621, 1111, 1630, 1631, 1632, 1633];
/** NIP-29 management kinds, which the room handler judges rather than the room gate. */
const ROOM_MANAGEMENT = [9000, 9001, 9002, 9005, 9007, 9008, 9009, 9010, 9021, 9022];
const JOB_SCOPES: Record<string, number[]> = {
  request: [43001, 43005],
  serve: [43002, 43003, 43004, 43006],
  both: [43001, 43002, 43003, 43004, 43005, 43006],
};

/** Whether a grant covers a kind: its k tags, its jobs and wiki terms, and the kinds every agent may publish. */
export function kindAllowed(grant: AgentGrant, kind: number): boolean {
  if (kind === 0 || kind === 10002 || kind === 22242 || grant.kinds.includes(kind)) return true;
  if (grant.jobs && JOB_SCOPES[grant.jobs].includes(kind)) return true;
  return (kind === 30818 && grant.wiki === "edit") || (kind === 818 && grant.wiki !== undefined);
}

/** A repository event's address must be one the grant lists; a status change needs `maintain`. */
function repositoryProblem(ev: NostrEvent, grant: AgentGrant): string | undefined {
  if (!GIT_KINDS.includes(ev.kind)) return undefined;
  const address = [tag(ev.tags, "a"), tag(ev.tags, "A")].find((a) => a.startsWith("30617:")) ?? "";
  if (address === "") {
    return ev.kind === 1111
      ? undefined
      : "restricted: agent grant does not allow repository events without a repository address";
  }
  const [, owner, identifier] = address.split(":");
  const level = grant.repos[`${owner}:${identifier}`];
  if (!level) return `restricted: agent grant does not allow repository ${owner}:${identifier}`;
  if (ev.kind >= 1630 && ev.kind <= 1633 && level !== "maintain") {
    return `restricted: agent grant does not allow status changes in repository ${owner}:${identifier}`;
  }
  return undefined;
}

/** grant.Check: its state, then the kind, the room and the repository. */
function grantProblem(ev: NostrEvent, grant: AgentGrant, now: number): string | undefined {
  if (grant.revoked) return "restricted: agent grant is revoked";
  if (grant.paused) return "restricted: agent grant is paused";
  if (grant.expires <= now) return "restricted: agent grant has expired";
  if (!kindAllowed(grant, ev.kind)) return `restricted: agent grant does not allow kind ${ev.kind}`;
  const room = tag(ev.tags, "h");
  if (room !== "" && !grant.rooms.includes(room)) {
    return `restricted: agent grant does not allow room ${room}`;
  }
  return repositoryProblem(ev, grant);
}

/** What an agent's grant allows, then the request its answer names, then its rate per minute. */
function agentAdmission(ev: NostrEvent, ctx: GateContext): string | undefined {
  const grant = ctx.grantOf(ev.pubkey);
  const role = ctx.role(ev.pubkey);
  // A key with a human role keeps that role's rights; a grant binds an agent, or a key it was revoked from.
  if (!grant || (role !== "agent" && role !== "")) return undefined;
  const problem = grantProblem(ev, grant, ctx.now) ??
    jobReplyProblem(ev, ctx.stored(tag(ev.tags, "e")));
  if (problem) return problem;
  if (!ctx.admitRate(ev.pubkey, grant.rate, ctx.now)) {
    return `restricted: agent grant does not allow more than ${grant.rate} events per minute`;
  }
  return undefined;
}

/** A room event's room must exist, and its author hold a role there or be a member posting to an open room. */
function roomProblem(ev: NostrEvent, ctx: GateContext): string | undefined {
  const id = tag(ev.tags, "h");
  if (id === "" || ev.kind === 9007) return undefined;
  const room = ctx.room(id);
  if (!room) return `invalid: unknown room ${id}`;
  if (ev.kind === 44100 || ev.kind === 44101) return "blocked: member notices are signed by the relay";
  if (ROOM_MANAGEMENT.includes(ev.kind)) {
    return ctx.role(ev.pubkey) === "" ? "restricted: rooms are for members of this relay" : undefined;
  }
  const member = ctx.role(ev.pubkey) !== "";
  if (room.roleOf(ev.pubkey) !== undefined || (room.access === "open" && member)) return undefined;
  return `restricted: not a member of room ${id}`;
}

/** Why the relay refuses to publish `ev`, or undefined: the gates in tinyrelay's order. */
export function gateRefusal(ev: NostrEvent, ctx: GateContext): string | undefined {
  if (ev.kind === 22242) return "blocked: kind 22242 is only accepted inside AUTH";
  const shape = jobShapeProblem(ev);
  if (shape) return shape;
  const expiration = tag(ev.tags, "expiration");
  if (
    ev.kind !== 30392 && /^[+-]?\d+$/.test(expiration) && Number(expiration) > 0 &&
    Number(expiration) <= ctx.now
  ) {
    return "invalid: event has already expired";
  }
  const admission = agentAdmission(ev, ctx) ?? roomProblem(ev, ctx);
  if (admission) return admission;
  if (ev.tags.some((t) => t.length === 1 && t[0] === "-") && !ctx.session.has(ev.pubkey)) {
    return "auth-required: this event may only be published by its author";
  }
  const role = ctx.role(ev.pubkey);
  if (isJobKind(ev.kind)) {
    if (role === "") return "restricted: long tasks are accepted from members and agents";
    if (role !== "agent") {
      const reply = jobReplyProblem(ev, ctx.stored(tag(ev.tags, "e")));
      if (reply) return reply;
    }
  }
  if (ctx.membersOnly && role === "" && ![9021, 9022, 28934, 28936].includes(ev.kind)) {
    return "blocked: this event is not allowed by the relay write policy";
  }
  return undefined;
}

export function receipt(ev: NostrEvent, accepted: boolean, message: string): Receipt {
  return { accepted, event_id: ev.id, message };
}
