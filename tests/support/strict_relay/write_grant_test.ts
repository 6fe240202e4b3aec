// request_grant: the template an active agent is given for its current grant, and the relay's review
// of a grant request (community/agent_grant_requests.go's decodeGrantRequest, validateGrantChanges
// and ReviewAgentGrantRequest), each refusal in its words and order.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import {
  buildGrantRequest,
  checkGrantRequest,
  type GrantUnderReview,
  reviewGrantRequest,
} from "./write_grant.ts";
import type { BuildContext } from "./write_kit.ts";

const NOW = 1_800_000_000;
const AGENT = "a1".repeat(32);
const OPERATOR = "b2".repeat(32);
const GRANT_ID = "c3".repeat(32);
const OTHER = "d4".repeat(32);

const current: GrantUnderReview = {
  eventId: GRANT_ID,
  owner: OPERATOR,
  agent: AGENT,
  active: true,
  kinds: [9],
  rooms: ["general"],
  rate: 60,
  jobs: "serve",
};
const ctx: BuildContext = { actor: AGENT, now: NOW, event: () => undefined, activeGrant: () => undefined };

/** A template for `args` against `grant` (null: the agent holds none). */
function built(args: Record<string, unknown>, grant: GrantUnderReview | null = current) {
  const out = buildGrantRequest(args, ctx, grant ?? undefined);
  return "error" in out ? out.error : out.unsigned;
}

/** The tags of a well-formed request for `changes` on the current grant. */
function requestTags(changes: unknown, o: { base?: string; extra?: string[][] } = {}): string[][] {
  const base = o.base ?? GRANT_ID;
  return [
    ["E", base, "", OPERATOR],
    ["K", "30392"],
    ["P", OPERATOR],
    ["e", base, "", OPERATOR],
    ["k", "30392"],
    ["request", "grant"],
    ["grant", JSON.stringify({ base, changes })],
    ["p", OPERATOR],
    ...(o.extra ?? []),
  ];
}

const request = (tags: string[][], content = "need more", o: Partial<NostrEvent> = {}): NostrEvent => ({
  id: "0".repeat(64),
  pubkey: AGENT,
  created_at: NOW,
  kind: 1111,
  tags,
  content,
  sig: "",
  ...o,
});

const without = (tags: string[][], name: string) => tags.filter((t) => t[0] !== name);
const replaced = (tags: string[][], name: string, value: string[]) =>
  tags.map((t) => (t[0] === name ? value : t));

Deno.test("request_grant: a reason, an active grant and a change; the request's NIP-22 tags on the grant", () => {
  const reason = "reason must be 1 to 500 valid UTF-8 characters";
  assert.equal(built({ reason: " ", changes: { rooms: ["ops"] } }), reason);
  assert.equal(built({ reason: "x".repeat(501), changes: { rooms: ["ops"] } }), reason);
  assert.equal(typeof built({ reason: "😀".repeat(500), changes: { rooms: ["ops"] } }), "object");
  const inactive = "only an active granted agent can request more permissions";
  assert.equal(built({ reason: "r", changes: { rooms: ["ops"] } }, null), inactive);
  assert.equal(built({ reason: "r", changes: { rooms: ["ops"] } }, { ...current, active: false }), inactive);
  assert.equal(built({ reason: "r", changes: {} }), "changes must request at least one permission");
  assert.equal(built({ reason: "r" }), "changes must request at least one permission");
  assert.deepEqual(built({ reason: " need ops ", changes: { rate: 120, rooms: ["ops"] } }), {
    kind: 1111,
    created_at: NOW,
    tags: requestTags({ rooms: ["ops"], rate: 120 }),
    content: "need ops",
  });
});

Deno.test("request_grant: the template is reviewed before it is given", () => {
  assert.equal(
    built({ reason: "r", changes: { rooms: ["general"] } }),
    "invalid: grant request changes nothing",
  );
  assert.equal(
    built({ reason: "r", changes: { jobs: "serve", rate: 60 } }),
    "invalid: grant request changes nothing",
  );
  assert.equal(built({ reason: "r", changes: { rooms: ["Ops"] } }), "invalid: grant request room");
  assert.equal(typeof built({ reason: "r", changes: { kinds: [9, 7] } }), "object");
});

Deno.test("grant requests: the relay's review, each refusal in order", () => {
  const good = requestTags({ rooms: ["ops"] });
  const cases: [NostrEvent, GrantUnderReview | undefined, string | undefined][] = [
    [request(good), current, undefined],
    [request(good, "x", { kind: 1 }), current, "invalid: not an agent grant request"],
    [
      request(replaced(good, "request", ["request", "approve"])),
      current,
      "invalid: not an agent grant request",
    ],
    [request(good, " "), current, "invalid: grant request rationale must be 1 to 500 characters"],
    [request(good, "é".repeat(501)), current, "invalid: grant request rationale must be 1 to 500 characters"],
    [
      request(replaced(good, "grant", ["grant", "{"])),
      current,
      "invalid: grant request needs a base and changes",
    ],
    [
      request(replaced(good, "grant", ["grant", '{"changes":{"rooms":["ops"]}}'])),
      current,
      "invalid: grant request needs a base and changes",
    ],
    [
      request(replaced(good, "grant", ["grant", `{"base":"${GRANT_ID}","changes":{"color":1}}`])),
      current,
      "invalid: grant request needs a base and changes",
    ],
    [
      request(replaced(good, "grant", ["grant", `{"base":"${GRANT_ID}","note":1}`])),
      current,
      "invalid: grant request needs a base and changes",
    ],
    [request([...good, ["t", "x"]]), current, "invalid: grant request contains an unsupported tag"],
    [request([...good, ["p", OTHER]]), current, "invalid: grant request contains duplicate tags"],
    [request(requestTags({})), current, "invalid: grant request has no changes"],
    [request(requestTags({ rooms: ["ok", "Not Ok"] })), current, "invalid: grant request room"],
    [
      request(
        requestTags({
          repos: [{ owner: OTHER, identifier: "r", level: "read" }, {
            owner: OTHER,
            identifier: "r",
            level: "maintain",
          }],
        }),
      ),
      current,
      "invalid: repeated repository in grant request",
    ],
    [
      request(requestTags({ sites: [{ label: "*" }, { label: "*", ttl: 3 }] })),
      current,
      "invalid: duplicate site or negative TTL in grant request",
    ],
    [
      request(requestTags({ sites: [{ label: "*", ttl: -1 }] })),
      current,
      "invalid: duplicate site or negative TTL in grant request",
    ],
    [
      request(replaced(good, "E", ["E", OTHER, "", OPERATOR])),
      current,
      "invalid: grant request base must match its NIP-22 references",
    ],
    [
      request(replaced(good, "e", ["e", OTHER])),
      current,
      "invalid: grant request base must match its NIP-22 references",
    ],
    [request(without(good, "p")), current, "invalid: grant request needs exactly one operator"],
    [
      request(replaced(good, "K", ["K", "1111"])),
      current,
      "invalid: grant request needs matching NIP-22 grant references",
    ],
    [
      request(replaced(good, "P", ["P", OTHER])),
      current,
      "invalid: grant request needs matching NIP-22 grant references",
    ],
    [request(good), undefined, "conflict: grant request is no longer for the current grant"],
    [
      request(good),
      { ...current, eventId: OTHER },
      "conflict: grant request is no longer for the current grant",
    ],
    [
      request(good),
      { ...current, active: false },
      "restricted: grant request is not for the agent's active current grant",
    ],
    [
      request(good),
      { ...current, owner: OTHER },
      "restricted: grant request is not for the agent's active current grant",
    ],
    [
      request(good, "x", { pubkey: OTHER }),
      current,
      "restricted: grant request is not for the agent's active current grant",
    ],
    [
      request(requestTags({ kinds: [9], rooms: ["general"] })),
      current,
      "invalid: grant request changes nothing",
    ],
  ];
  for (const [event, grant, want] of cases) {
    assert.equal(
      reviewGrantRequest(event, grant),
      want,
      `${want}: ${JSON.stringify(event.tags.find((t) => t[0] === "grant"))}`,
    );
  }
});

Deno.test("grant requests: a signed one must be the calling agent's own, before the review", () => {
  const event = request(requestTags({ rooms: ["ops"] }), "x", { pubkey: OTHER });
  assert.equal(
    checkGrantRequest(event, AGENT, current),
    "the event pubkey must match the authenticated agent",
  );
  assert.equal(checkGrantRequest(request(requestTags({ rooms: ["ops"] })), AGENT, current), undefined);
});
