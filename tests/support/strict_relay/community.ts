// Who may do what on the twin: the relay's owner, its members, its agents and their grants, and each
// agent's events per minute, as tinyrelay's community service keeps them (internal/community/agents.go).
// A key is the owner; or an agent, when it holds a grant (set for it, or, unless the relay is
// members-only and the key not a member, the relay's default grant); or a member; or nobody.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { GrantScope } from "./types.ts";

/** Fixed identities for the relay's owner (every grant's operator) and the default grant's event. */
export const GRANT_OPERATOR = bytesToHex(sha256(new TextEncoder().encode("strict-relay operator")));
export const GRANT_EVENT_ID = bytesToHex(sha256(new TextEncoder().encode("strict-relay grant")));

/** An agent grant (kind 30392) as the relay holds it. */
export interface AgentGrant extends Required<Pick<GrantScope, "rooms" | "kinds">> {
  owner: string;
  eventId: string;
  name: string;
  /** `<owner hex>:<identifier>` to `propose`, `read` or `maintain`. */
  repos: Record<string, "propose" | "read" | "maintain">;
  jobs?: "request" | "serve" | "both";
  wiki?: "propose" | "edit";
  /** Events per minute, 1 to 600. */
  rate: number;
  /** Unix seconds. */
  expires: number;
  paused: boolean;
  revoked: boolean;
}

export type Role = "owner" | "member" | "agent" | "";

/** A grant over `scope`, active for 30 days from `now`, as the operator would sign it. */
export function grantOver(scope: GrantScope, now: number): AgentGrant {
  return {
    owner: GRANT_OPERATOR,
    eventId: GRANT_EVENT_ID,
    name: "test agent",
    rooms: [...scope.rooms],
    kinds: [...scope.kinds],
    repos: { ...scope.repos },
    ...(scope.jobs ? { jobs: scope.jobs } : {}),
    rate: scope.rate ?? 60,
    expires: Math.floor(now) + 30 * 24 * 3600,
    paused: false,
    revoked: false,
  };
}

export class Community {
  /** Grants set for a key; `null`: the key holds none, whatever the default. */
  readonly #grants = new Map<string, AgentGrant | null>();
  /** Each agent's accepted events of the last minute, as Unix seconds. */
  readonly #recent = new Map<string, number[]>();

  constructor(
    readonly members: () => ReadonlySet<string>,
    readonly membersOnly: () => boolean,
    /** The grant every other key holds, or none. */
    readonly defaultGrant: () => AgentGrant | undefined,
  ) {}

  /** Gives `pubkey` a grant of its own, or none (`null`), or the default again (`undefined`). */
  setGrant(pubkey: string, grant: AgentGrant | null | undefined): void {
    if (grant === undefined) this.#grants.delete(pubkey);
    else this.#grants.set(pubkey, grant);
  }

  /** The key's grant: its own, or the default one when it may hold it. */
  grantOf(pubkey: string): AgentGrant | undefined {
    if (pubkey === GRANT_OPERATOR) return undefined;
    const own = this.#grants.get(pubkey);
    if (own !== undefined) return own ?? undefined;
    if (this.membersOnly() && !this.members().has(pubkey)) return undefined;
    return this.defaultGrant();
  }

  /** The key's role; revoking a grant takes the agent role away (the grant stays, for the gates to name). */
  role(pubkey: string): Role {
    if (pubkey === GRANT_OPERATOR) return "owner";
    const grant = this.grantOf(pubkey);
    if (grant && !grant.revoked) return "agent";
    return this.members().has(pubkey) ? "member" : "";
  }

  /** A tenant member: the owner, a member or an agent. */
  isMember(pubkey: string): boolean {
    return this.role(pubkey) !== "";
  }

  /**
   * The per-minute rate, over a sliding 60 s at one-second resolution: false when `rate` events were
   * accepted in the last minute (and this one is not counted), else true, counting this one.
   */
  admitRate(pubkey: string, rate: number, now: number): boolean {
    const at = Math.floor(now);
    const recent = (this.#recent.get(pubkey) ?? []).filter((t) => t > at - 60);
    this.#recent.set(pubkey, recent);
    if (recent.length >= rate) return false;
    recent.push(at);
    return true;
  }
}
