// `POST <prefix>/manage/rpc`: the NIP-86 management endpoint, serving only `browsegrant`, with the
// real relay's status codes for its error prefixes (relay-facts.md).

import { type IncomingRequest, json, type Reply } from "./exchange.ts";
import type { RelayContext } from "./context.ts";
import { isFault, nip86Error } from "./results.ts";
import { GRANT_EVENT_ID, GRANT_OPERATOR } from "./templates.ts";
import { type GrantScope, type RecordedRequest, WWW_AUTHENTICATE } from "./types.ts";
import { isRecord, strings } from "./values.ts";

/** The default grant's scope: what the suite's diagnose tests ask about. */
export const DEFAULT_GRANT_SCOPE: GrantScope = { rooms: ["general"], kinds: [1111, 9] };

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

/** An active agent grant for `pubkey` over `scope`, expiring in 30 days, with what the asked lacks. */
export function activeGrant(pubkey: string, params: unknown[], now: number, scope: GrantScope): unknown {
  const expires = Math.floor(now) + 30 * 24 * 3600;
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
      scope: { kinds: scope.kinds, rooms: scope.rooms, repos: [], rate: 60 },
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
