// `POST <prefix>/manage/rpc`: the NIP-86 management endpoint, serving only `browsegrant`, with the
// real relay's status codes for its error prefixes (relay-facts.md).

import { type IncomingRequest, json, type Reply } from "./exchange.ts";
import type { RelayContext } from "./context.ts";
import { isFault, nip86Error } from "./results.ts";
import type { AgentGrant, Community } from "./community.ts";
import { kindAllowed } from "./event_gates.ts";
import { CONTRACT_KINDS } from "../contract.ts";
import { type GrantScope, type RecordedRequest, WWW_AUTHENTICATE } from "./types.ts";
import { isRecord, strings } from "./values.ts";

/**
 * The default grant's scope, as an operator granting an agent tinyagent's writes would sign it: room
 * general, every kind tinyagent's write tools publish, no repositories.
 */
export const DEFAULT_GRANT_SCOPE: GrantScope = {
  rooms: ["general"],
  kinds: [...new Set(Object.values(CONTRACT_KINDS).flat())].sort((a, b) => a - b),
};

/** Why browsegrant's params are refused: at most one object of rooms and kinds, within bounds. */
function paramsProblem(params: unknown): string | undefined {
  if (!Array.isArray(params) || params.length > 1) return "invalid: params must be [] or [{rooms, kinds}]";
  if (!params.length) return undefined;
  const p = params[0];
  if (!isRecord(p)) return "invalid: params[0] must be an object";
  if (p.rooms !== undefined) {
    if (!Array.isArray(p.rooms) || p.rooms.length > 256) {
      return "invalid: rooms must be a list of at most 256 entries";
    }
    if (!p.rooms.every((r) => typeof r === "string" && r !== "")) {
      return "invalid: rooms must be non-empty strings";
    }
  }
  if (p.kinds !== undefined) {
    if (!Array.isArray(p.kinds) || p.kinds.length > 256) {
      return "invalid: kinds must be a list of at most 256 entries";
    }
    if (!p.kinds.every((k) => Number.isInteger(k) && k >= 0 && k <= 65535)) {
      return "invalid: kinds must be integers from 0 to 65535";
    }
  }
  return undefined;
}

/** Answers a request to `<prefix>/manage/rpc` that is a POST. */
export async function answerManage(
  ctx: RelayContext,
  req: IncomingRequest,
  rec: RecordedRequest,
): Promise<Reply> {
  if (req.tooLarge) return nip86Error(`invalid: request body exceeds ${ctx.maxBody} bytes`, 413);
  if (!(req.headers.get("content-type") ?? "").toLowerCase().includes("application/nostr+json+rpc")) {
    return nip86Error("invalid: Content-Type must be application/nostr+json+rpc", 415);
  }
  const auth = ctx.authenticate(rec, true);
  if ("reason" in auth) {
    return {
      ...nip86Error(`auth-required: ${auth.reason}`),
      headers: { "WWW-Authenticate": WWW_AUTHENTICATE },
    };
  }
  if (ctx.refusesNonMember(auth.pubkey)) return nip86Error("restricted: this relay is members-only");
  const msg = rec.json;
  if (!isRecord(msg)) return nip86Error("invalid: body must be a JSON object");
  if (typeof msg.method !== "string") return nip86Error("invalid: method is required");
  if (msg.method !== "browsegrant") {
    return nip86Error(`unsupported: management method ${JSON.stringify(msg.method)}`);
  }
  const params = msg.params ?? [];
  const problem = paramsProblem(params);
  if (problem) return nip86Error(problem);
  const result = await ctx.browsegrant(auth.pubkey, params as unknown[]);
  if (isFault(result)) return result;
  return json(200, { result });
}

/** A grant as browsegrant shows it (tinyrelay's AgentGrant JSON). */
function grantJson(pubkey: string, grant: AgentGrant): Record<string, unknown> {
  const repos = Object.entries(grant.repos).map(([key, level]) => {
    const [owner, identifier] = key.split(":");
    return { owner, identifier, level };
  });
  return {
    pubkey,
    owner: grant.owner,
    event_id: grant.eventId,
    name: grant.name,
    expires: grant.expires,
    paused: grant.paused,
    revoked: grant.revoked,
    scope: {
      kinds: grant.kinds,
      rooms: grant.rooms,
      repos,
      ...(grant.jobs ? { jobs: grant.jobs } : {}),
      rate: grant.rate,
    },
    lastEvent: 0,
  };
}

function stateOf(grant: AgentGrant | undefined, now: number): string {
  if (!grant) return "none";
  if (grant.revoked) return "revoked";
  if (grant.expires <= now) return "expired";
  return grant.paused ? "paused" : "active";
}

/**
 * browsegrant's result for `pubkey`, from the relay's grants: its membership, role, grant and state,
 * and, when rooms or kinds were asked about, those the grant does not cover (none when not enforced).
 */
export function grantAnswer(community: Community, pubkey: string, params: unknown[], now: number): unknown {
  const grant = community.grantOf(pubkey);
  const role = community.role(pubkey);
  const enforced = role === "" || role === "agent";
  const result: Record<string, unknown> = {
    member: role !== "",
    role,
    grant: grant ? grantJson(pubkey, grant) : null,
    state: stateOf(grant, now),
    enforced,
    ...(grant ? { expires: grant.expires, rate: grant.rate } : {}),
  };
  const asked = isRecord(params[0]) ? params[0] : {};
  if (asked.rooms !== undefined || asked.kinds !== undefined) {
    const kinds = Array.isArray(asked.kinds) ? asked.kinds as number[] : [];
    result.missing = enforced
      ? {
        rooms: strings(asked.rooms).filter((room) => !grant?.rooms.includes(room)),
        kinds: kinds.filter((kind) => !grant || !kindAllowed(grant, kind)),
      }
      : { rooms: [], kinds: [] };
  }
  return result;
}
