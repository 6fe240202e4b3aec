// Which of the relay's events may reach the model (the listen issue, point 1):
// only from an author in --allow-from, never the agent's own, only in the rooms
// listened to, and only when addressed to the agent — a `p` tag of its key, a
// reply to one of its events, a job request (43001) or cancel (43005) naming
// it — unless --require-mention=false admits every message. Everything else
// is dropped, with the reason. Pure: whether a parent is the agent's is the
// caller's to know (listener.ts asks the relay when it does not).

import type { SignedEvent } from "../key/signer.ts";

/** Messages (9, 11, 12, 1111) and the job request and cancel. */
export const MESSAGE_KINDS: readonly number[] = [9, 11, 12, 1111];
export const JOB_REQUEST = 43001;
export const JOB_CANCEL = 43005;
export const LISTEN_KINDS: readonly number[] = [...MESSAGE_KINDS, JOB_REQUEST, JOB_CANCEL];

/** Why an event was dropped, as the stderr counts name it. */
export type DropReason =
  | "the agent's own"
  | "author not allowed"
  | "another room"
  | "another kind"
  | "not addressed";

export interface Audience {
  /** The agent's public key, hex. */
  agent: string;
  allowFrom: ReadonlySet<string>;
  rooms: ReadonlySet<string>;
  requireMention: boolean;
}

export type Admission =
  | { admit: true }
  | { drop: DropReason }
  /** Addressed only if one of these events is the agent's: ask, then decide again. */
  | { parents: string[] };

const tagValues = (event: SignedEvent, name: string) =>
  event.tags.filter((tag) => tag[0] === name && tag.length > 1).map((tag) => tag[1]);

/** The events `event` answers: its `e` and `E` tags (NIP-10 replies, NIP-22 comments), once each. */
export function parentsOf(event: SignedEvent): string[] {
  return [...new Set([...tagValues(event, "e"), ...tagValues(event, "E")])];
}

/**
 * Whether `event` reaches the model. `isAgents(id)`: true or false when it is known whether that
 * event is the agent's, undefined when not.
 */
export function admission(
  event: SignedEvent,
  audience: Audience,
  isAgents: (id: string) => boolean | undefined,
): Admission {
  if (event.pubkey === audience.agent) return { drop: "the agent's own" };
  if (!LISTEN_KINDS.includes(event.kind)) return { drop: "another kind" };
  if (!audience.allowFrom.has(event.pubkey)) return { drop: "author not allowed" };
  if (!tagValues(event, "h").some((room) => audience.rooms.has(room))) return { drop: "another room" };
  const named = tagValues(event, "p").includes(audience.agent);
  if (event.kind === JOB_REQUEST || event.kind === JOB_CANCEL) {
    return named ? { admit: true } : { drop: "not addressed" };
  }
  if (named || !audience.requireMention) return { admit: true };
  const parents = parentsOf(event);
  if (parents.some((id) => isAgents(id) === true)) return { admit: true };
  const unknown = parents.filter((id) => isAgents(id) === undefined);
  return unknown.length > 0 ? { parents: unknown } : { drop: "not addressed" };
}
