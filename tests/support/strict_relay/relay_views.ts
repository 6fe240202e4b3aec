// The twin's state seen from each part that judges by it: the write gates, the room uploads, the
// relay's own tools and the read gate, all over one Community, one set of rooms and one event store,
// so every door (/mcp, /events, the websocket, uploads) decides alike.

import type { NostrEvent } from "nostr-tools/pure";
import { type AgentGrant, type Community, GRANT_OPERATOR } from "./community.ts";
import type { ContentStore } from "./content_store.ts";
import type { GateContext, Receipt, RoomFacts } from "./event_gates.ts";
import type { UploadDeps } from "./room_uploads.ts";
import type { ToolRelay } from "./tool_calls.ts";
import type { Attachment } from "./types.ts";
import type { GrantUnderReview } from "./write_grant.ts";

/** What the views read of the relay core. */
export interface RelayState {
  url: string;
  /** Unix seconds. */
  now(): number;
  community: Community;
  membersOnly(): boolean;
  /** The relay's rooms: open ones, unless seeded content says otherwise. */
  rooms(): Set<string>;
  content: ContentStore;
  attachments: Map<string, Attachment>;
  publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt;
}

/** A room as the gates and uploads see it: seeded with its access and roles, or open with none. */
export function roomFacts(state: RelayState, id: string): RoomFacts | undefined {
  const seeded = state.content.room(id);
  if (seeded) {
    return {
      access: seeded.access ?? "open",
      roleOf: (pubkey) => {
        if (pubkey === GRANT_OPERATOR) return "owner";
        // A member seeded without a role holds the default one (content_types.ts MemberSeed).
        const member = seeded.members?.find((m) => m.pubkey === pubkey);
        return member ? member.role ?? "member" : undefined;
      },
    };
  }
  return state.rooms().has(id)
    ? { access: "open", roleOf: (pubkey) => (pubkey === GRANT_OPERATOR ? "owner" : undefined) }
    : undefined;
}

/** The read gate (browseRead): a members-only relay reads to its members only. */
export function readRefusal(state: RelayState, pubkey: string): string | undefined {
  return state.membersOnly() && !state.community.isMember(pubkey)
    ? "auth-required: this relay is members-only"
    : undefined;
}

export function gateContext(state: RelayState, session: ReadonlySet<string>): GateContext {
  const { community } = state;
  return {
    now: state.now(),
    session,
    role: (pubkey) => community.role(pubkey),
    grantOf: (pubkey) => community.grantOf(pubkey),
    admitRate: (pubkey, rate, now) => community.admitRate(pubkey, rate, now),
    room: (id) => roomFacts(state, id),
    stored: (id) => state.content.event(id, ""),
    membersOnly: state.membersOnly(),
  };
}

export function uploadDeps(state: RelayState): UploadDeps {
  return {
    url: state.url,
    now: () => state.now(),
    role: (pubkey) => state.community.role(pubkey),
    membersOnly: () => state.membersOnly(),
    room: (id) => roomFacts(state, id),
    attachments: state.attachments,
    unscoped: (sha256) => state.content.seededFile(sha256),
  };
}

/** A grant as request_grant's review reads it. */
function underReview(agent: string, grant: AgentGrant, now: number): GrantUnderReview {
  return {
    eventId: grant.eventId,
    owner: grant.owner,
    agent,
    active: !grant.revoked && !grant.paused && grant.expires > now,
    kinds: grant.kinds,
    rooms: grant.rooms,
    rate: grant.rate,
    ...(grant.jobs ? { jobs: grant.jobs } : {}),
    ...(grant.wiki ? { wiki: grant.wiki } : {}),
  };
}

export function toolRelay(state: RelayState, uploads: UploadDeps): ToolRelay {
  const { community, content } = state;
  return {
    now: () => state.now(),
    role: (pubkey) => community.role(pubkey),
    readRefusal: (pubkey) => readRefusal(state, pubkey),
    read: (tool, args, caller) => content.answer(tool, args, caller),
    event: (id, caller) => content.event(id, caller),
    publish: (ev, session) => state.publish(ev, session),
    grant: (pubkey) => {
      const grant = community.grantOf(pubkey);
      return grant ? underReview(pubkey, grant, state.now()) : undefined;
    },
    uploads,
  };
}
