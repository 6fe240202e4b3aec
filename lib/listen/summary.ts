// What the session's startup line says of listening and approvals from the
// room: the rooms, who may reach the model and which events, where the cards
// go and who answers them. Pure.

import type { ApprovalSettings, ListenSettings } from "./settings.ts";

const quoted = (rooms: readonly string[]) => rooms.map((room) => JSON.stringify(room)).join(", ");
const keys = (count: number) => `${count} key${count === 1 ? "" : "s"}`;

/** `--listen` in words; empty without it. */
export function listenSummary(listen: ListenSettings | undefined): string {
  if (!listen) return "";
  const which = listen.requireMention
    ? "the events addressed to the agent (mentions, replies, jobs naming it)"
    : "every message (and the jobs naming the agent)";
  return `; listening to ${quoted(listen.rooms)} for ${which} from ${keys(listen.allowFrom.length)}, ` +
    `as channel notifications and in tiny_inbox`;
}

/** `--approvers` in words; empty without it. `agent`: this key, which may not approve its own writes. */
export function approvalsSummary(
  approvals: ApprovalSettings | undefined,
  agent: string,
  seconds: number,
): string {
  if (!approvals) return "";
  if (approvals.approvers.includes(agent)) {
    return "; approvals from the room refused: --approvers names this agent's own key";
  }
  const asked = approvals.confirmViaRelay ? " and the writes' confirmations" : "";
  return `; Claude Code's permission requests${asked} go as approval cards to room ` +
    `${JSON.stringify(approvals.homeRoom)}, answered by ${
      keys(approvals.approvers.length)
    } (a signed kind 1111 ` +
    `allow or deny in the card's thread, within ${seconds} s)`;
}
