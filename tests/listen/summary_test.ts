// What the mcp startup line says of listening and approvals (lib/listen/summary.ts): nothing without
// the flags; the rooms, which events and from how many keys; where cards go and who answers; and a
// refusal when the agent's own key is among the approvers.

import assert from "node:assert/strict";
import { approvalsSummary, listenSummary } from "../../lib/listen/summary.ts";

const AGENT = "a".repeat(64);
const FRIEND = "b".repeat(64);

Deno.test("listenSummary: nothing without --listen; the rooms, which events, how many keys", () => {
  assert.equal(listenSummary(undefined), "");
  assert.equal(
    listenSummary({ rooms: ["general", "ops"], allowFrom: [FRIEND], requireMention: true }),
    '; listening to "general", "ops" for the events addressed to the agent (mentions, replies, jobs naming it) ' +
      "from 1 key, as channel notifications and in tiny_inbox",
  );
  assert.match(
    listenSummary({ rooms: ["general"], allowFrom: [FRIEND, AGENT], requireMention: false }),
    /for every message \(and the jobs naming the agent\) from 2 keys/,
  );
});

Deno.test("approvalsSummary: nothing without --approvers; where the cards go; the agent's own key refused", () => {
  assert.equal(approvalsSummary(undefined, AGENT, 300), "");
  const plain = approvalsSummary(
    { approvers: [FRIEND], homeRoom: "ops", confirmViaRelay: false },
    AGENT,
    300,
  );
  assert.match(
    plain,
    /^; Claude Code's permission requests go as approval cards to room "ops", answered by 1 key/,
  );
  assert.match(plain, /within 300 s\)$/);
  const relay = approvalsSummary({ approvers: [FRIEND], homeRoom: "ops", confirmViaRelay: true }, AGENT, 30);
  assert.match(relay, /permission requests and the writes' confirmations go/);
  assert.equal(
    approvalsSummary({ approvers: [FRIEND, AGENT], homeRoom: "ops", confirmViaRelay: true }, AGENT, 30),
    "; approvals from the room refused: --approvers names this agent's own key",
  );
});
