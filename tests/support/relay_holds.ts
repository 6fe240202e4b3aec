// What the strict relay must hold before a write is one the real relay would take: a thread to reply
// in, a long task's request to answer or cancel, a grant over a repository. The real relay refuses a
// reply to a thread it does not hold, an answer to a request it does not hold, and a repository event
// its agent grant does not name; a test of tinyagent's write path sets these up here, as a person
// would have them, rather than loosen the relay.

import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import type { GrantScope, StrictRelay } from "./strict_relay/mod.ts";
import { CONTRACT_KINDS } from "./contract.ts";

const someoneKey = generateSecretKey();
/** Another member of the relay: the author of the threads and requests stored here. */
export const SOMEONE = getPublicKey(someoneKey);

/** Stores `event` signed by `secretKey` (someone else's by default), as the relay would hold it. */
function store(relay: StrictRelay, event: Omit<NostrEvent, "id" | "sig" | "pubkey">, secretKey = someoneKey) {
  const signed = finalizeEvent(event, secretKey);
  if (!relay.inject(signed)) throw new Error(`the relay already held ${signed.id}`);
  return signed;
}

const now = () => Math.floor(Date.now() / 1000);

/** A thread (kind 11) someone started in `room`: what reply_in_thread and react can name. */
export function threadIn(relay: StrictRelay, room = "general", title = "a thread"): NostrEvent {
  return store(relay, { kind: 11, created_at: now(), tags: [["h", room], ["title", title]], content: title });
}

/** A long task's request (kind 43001) in `room` from someone, asking `agent`: what its answers name. */
export function requestTo(relay: StrictRelay, agent: string, room = "general"): NostrEvent {
  return store(relay, {
    kind: 43001,
    created_at: now(),
    tags: [["h", room], ["p", agent], ["subject", "a task"]],
    content: "please do it",
  });
}

/** A long task's request the agent (`secretKey`) made in `room`, asking someone: what cancel_job names. */
export function requestBy(relay: StrictRelay, secretKey: Uint8Array, room = "general"): NostrEvent {
  return store(relay, {
    kind: 43001,
    created_at: now(),
    tags: [["h", room], ["p", SOMEONE], ["subject", "my task"]],
    content: "please do it",
  }, secretKey);
}

/** The default grant's rooms and kinds (room general, every kind tinyagent's write tools publish). */
export function agentScope(extra: Partial<GrantScope> = {}): GrantScope {
  const kinds = [...new Set(Object.values(CONTRACT_KINDS).flat())].sort((a, b) => a - b);
  return { rooms: ["general"], kinds, ...extra };
}

/** Grants `agent` the default scope and repository `<owner>:<repo>` at `level`, as its operator would. */
export function grantRepository(
  relay: StrictRelay,
  agent: string,
  owner: string,
  repo: string,
  level: "propose" | "maintain" = "propose",
): void {
  relay.setGrant(agent, agentScope({ repos: { [`${owner}:${repo}`]: level } }));
}
