// The gates every write meets, in tinyrelay's gates.Write order and words (facts §1.2, §1.3, §1.5,
// §1.6): the AUTH kind, long tasks' shape, expiry, the agent grant (state, kind, room, repository),
// the rate per minute, the room, NIP-70, long tasks' writers and answers, and the write policy. A
// refusal by an earlier gate is the one given when several apply.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { type AgentGrant, Community, grantOver, type Role } from "./community.ts";
import { type GateContext, gateRefusal, type RoomFacts } from "./event_gates.ts";

const NOW = 1_800_000_000;
const AGENT = "a1".repeat(32);
const MEMBER = "b2".repeat(32);
const STRANGER = "c3".repeat(32);
const OWNER = "d4".repeat(32);
const OPS_ADMIN = "e5".repeat(32);
const REPO_OWNER = "f6".repeat(32);

let serial = 0;
function ev(kind: number, tags: string[][] = [], pubkey = AGENT, content = "x"): NostrEvent {
  serial++;
  return {
    id: serial.toString(16).padStart(64, "0"),
    pubkey,
    created_at: NOW,
    kind,
    tags,
    content,
    sig: "0".repeat(128),
  };
}

const open = (roles: Record<string, string> = {}): RoomFacts => ({
  access: "open",
  roleOf: (pk) => roles[pk],
});
const members = (roles: Record<string, string> = {}): RoomFacts => ({
  access: "members",
  roleOf: (pk) => roles[pk],
});

interface World {
  roles?: Record<string, Role>;
  grants?: Record<string, AgentGrant>;
  rooms?: Record<string, RoomFacts>;
  stored?: NostrEvent[];
  session?: string[];
  membersOnly?: boolean;
  community?: Community;
  now?: number;
}

/** A relay as the gates see it: roles, grants, rooms and stored events as told, the rate from a Community. */
function context(w: World = {}): GateContext {
  const community = w.community ?? new Community(() => new Set(), () => false, () => undefined);
  const roles: Record<string, Role> = { [AGENT]: "agent", [MEMBER]: "member", [OWNER]: "owner", ...w.roles };
  return {
    now: w.now ?? NOW,
    session: new Set(w.session ?? [AGENT, MEMBER, STRANGER, OWNER]),
    role: (pk) => roles[pk] ?? "",
    grantOf: (pk) => (w.grants ?? { [AGENT]: grant() })[pk],
    admitRate: (pk, rate, now) => community.admitRate(pk, rate, now),
    room: (id) =>
      (w.rooms ?? { general: open({ [OWNER]: "owner" }), ops: open({ [OPS_ADMIN]: "admin" }) })[id],
    stored: (id) => w.stored?.find((e) => e.id === id),
    membersOnly: w.membersOnly ?? false,
  };
}

function grant(o: Partial<AgentGrant> = {}): AgentGrant {
  return {
    ...grantOver({ rooms: ["general"], kinds: [9, 1, 1621, 1630, 43001, 43002], rate: 600 }, NOW),
    ...o,
  };
}

Deno.test("gates: the AUTH kind is refused first, from anyone", () => {
  for (const pubkey of [OWNER, AGENT, STRANGER]) {
    assert.equal(
      gateRefusal(ev(22242, [], pubkey), context()),
      "blocked: kind 22242 is only accepted inside AUTH",
    );
  }
});

Deno.test("gates: a long task's shape, then expiry, come before the grant", () => {
  const revoked = context({ grants: { [AGENT]: grant({ revoked: true }) } });
  assert.equal(
    gateRefusal(ev(43001, [["p", MEMBER]]), revoked),
    "invalid: job request must name its room in an h tag",
  );
  const expired = ev(9, [["h", "general"], ["expiration", String(NOW)]]);
  assert.equal(gateRefusal(expired, revoked), "invalid: event has already expired");
  assert.equal(gateRefusal(ev(9, [["h", "general"], ["expiration", String(NOW + 1)]]), context()), undefined);
  // A grant's own expiration does not count as the event's (kind 30392).
  assert.equal(gateRefusal(ev(30392, [["expiration", String(NOW - 1)]], OWNER), context()), undefined);
});

Deno.test("gates: an agent's grant: revoked, paused, expired, then kind, room, repository", () => {
  const post = ev(9, [["h", "general"]]);
  const cases: [Partial<AgentGrant>, NostrEvent, string | undefined][] = [
    [{}, post, undefined],
    [{ revoked: true, paused: true, expires: NOW }, post, "restricted: agent grant is revoked"],
    [{ paused: true, expires: NOW }, post, "restricted: agent grant is paused"],
    [{ expires: NOW }, post, "restricted: agent grant has expired"],
    [{ expires: NOW + 1 }, post, undefined],
    [{ kinds: [1] }, ev(9, [["h", "ops"]]), "restricted: agent grant does not allow kind 9"],
    [{}, ev(9, [["h", "ops"]]), "restricted: agent grant does not allow room ops"],
    [{}, ev(1), undefined],
    [{ kinds: [] }, ev(0), undefined],
    [{ kinds: [] }, ev(10002), undefined],
    [{ kinds: [], jobs: "request" }, ev(43001, [["h", "general"], ["p", MEMBER]]), undefined],
    [
      { kinds: [], jobs: "request" },
      ev(43004, [["h", "general"], ["e", "ab".repeat(32)], ["p", MEMBER]]),
      "restricted: agent grant does not allow kind 43004",
    ],
    [
      { kinds: [], wiki: "propose" },
      ev(30818, [["d", "p"]]),
      "restricted: agent grant does not allow kind 30818",
    ],
    [{ kinds: [], wiki: "edit" }, ev(30818, [["d", "p"]]), undefined],
    [{ kinds: [], wiki: "propose" }, ev(818), undefined],
  ];
  for (const [over, event, want] of cases) {
    assert.equal(
      gateRefusal(event, context({ grants: { [AGENT]: grant(over) } })),
      want,
      `${JSON.stringify(over)} ${event.kind}`,
    );
  }
});

Deno.test("gates: an agent's repository events need the repository in its grant", () => {
  const repo = `${REPO_OWNER}:tools`;
  const a = ["a", `30617:${REPO_OWNER}:tools`];
  const cases: [AgentGrant["repos"], NostrEvent, string | undefined][] = [
    [{}, ev(1621), "restricted: agent grant does not allow repository events without a repository address"],
    [{}, ev(1111), undefined],
    [{}, ev(1621, [a]), `restricted: agent grant does not allow repository ${repo}`],
    [{ [repo]: "propose" }, ev(1621, [a]), undefined],
    [
      { [repo]: "propose" },
      ev(1630, [a]),
      `restricted: agent grant does not allow status changes in repository ${repo}`,
    ],
    [{ [repo]: "maintain" }, ev(1630, [a]), undefined],
  ];
  for (const [repos, event, want] of cases) {
    const kinds = [1621, 1111, 1630];
    assert.equal(
      gateRefusal(event, context({ grants: { [AGENT]: grant({ repos, kinds }) } })),
      want,
      `${event.kind} ${JSON.stringify(repos)}`,
    );
  }
});

Deno.test("gates: a human role keeps its rights, grant or not; a revoked agent is still judged by its grant", () => {
  const elsewhere = ev(9, [["h", "ops"]], MEMBER);
  assert.equal(gateRefusal(elsewhere, context({ grants: { [MEMBER]: grant({ kinds: [] }) } })), undefined);
  const revoked = context({ roles: { [AGENT]: "" }, grants: { [AGENT]: grant({ revoked: true }) } });
  assert.equal(gateRefusal(ev(9, [["h", "general"]]), revoked), "restricted: agent grant is revoked");
});

Deno.test("gates: the rate per minute, over a sliding minute", async (t) => {
  const community = new Community(() => new Set(), () => false, () => undefined);
  const world = (now: number) =>
    context({ community, now, grants: { [AGENT]: grant({ rate: 2, expires: NOW + 3600 }) } });
  const post = () => ev(9, [["h", "general"]]);
  const limit = "restricted: agent grant does not allow more than 2 events per minute";

  await t.step("the (rate+1)th event in a minute is refused", () => {
    assert.equal(gateRefusal(post(), world(NOW)), undefined);
    assert.equal(gateRefusal(post(), world(NOW + 1)), undefined);
    assert.equal(gateRefusal(post(), world(NOW + 2)), limit);
  });

  await t.step("refused events are not counted", () => {
    for (let i = 0; i < 5; i++) assert.equal(gateRefusal(post(), world(NOW + 30)), limit);
    assert.equal(gateRefusal(post(), world(NOW + 59)), limit);
    // At NOW+60 the event of NOW has left the window: one place, taken.
    assert.equal(gateRefusal(post(), world(NOW + 60)), undefined);
    assert.equal(gateRefusal(post(), world(NOW + 60)), limit);
    // At NOW+61 the event of NOW+1 leaves too; had the refusals at NOW+30 counted, nothing would.
    assert.equal(gateRefusal(post(), world(NOW + 61)), undefined);
  });

  await t.step("each agent has its own window", () => {
    const other = new Community(() => new Set(), () => false, () => undefined);
    const ctx = context({ community: other, grants: { [AGENT]: grant({ rate: 1 }) } });
    assert.equal(gateRefusal(post(), ctx), undefined);
    assert.equal(gateRefusal(ev(9, [["h", "general"]], MEMBER), ctx), undefined);
    assert.equal(
      gateRefusal(post(), ctx),
      "restricted: agent grant does not allow more than 1 events per minute",
    );
  });

  await t.step("an event refused before the rate is not counted; one refused after it is", () => {
    const fresh = new Community(() => new Set(), () => false, () => undefined);
    const rooms = { general: open(), ghost: undefined as unknown as RoomFacts };
    const ctx = context({
      community: fresh,
      rooms,
      grants: { [AGENT]: grant({ rate: 1, rooms: ["general", "ghost"] }) },
    });
    assert.equal(
      gateRefusal(ev(7, [["h", "general"]]), ctx),
      "restricted: agent grant does not allow kind 7",
    );
    assert.equal(gateRefusal(ev(9, [["h", "ghost"]]), ctx), "invalid: unknown room ghost");
    assert.equal(
      gateRefusal(post(), ctx),
      "restricted: agent grant does not allow more than 1 events per minute",
    );
  });
});

Deno.test("gates: rooms: unknown, relay notices, management kinds, then a role or an open room", () => {
  const rooms = { general: open(), lab: members({ [AGENT]: "member" }), ops: open({ [OPS_ADMIN]: "admin" }) };
  const ctx = context({ rooms, grants: {} });
  const cases: [NostrEvent, string | undefined][] = [
    [ev(9, [["h", "ghost"]], MEMBER), "invalid: unknown room ghost"],
    [ev(9007, [["h", "ghost"]], MEMBER), undefined],
    [ev(44100, [["h", "general"]], OWNER), "blocked: member notices are signed by the relay"],
    [ev(9021, [["h", "lab"]], STRANGER), "restricted: rooms are for members of this relay"],
    [ev(9021, [["h", "lab"]], MEMBER), undefined],
    [ev(9, [["h", "general"]], MEMBER), undefined],
    [ev(9, [["h", "general"]], STRANGER), "restricted: not a member of room general"],
    [ev(9, [["h", "lab"]], MEMBER), "restricted: not a member of room lab"],
    [ev(9, [["h", "lab"]], AGENT), undefined],
    [ev(9, [["h", "ops"]], OPS_ADMIN), undefined],
    [ev(1, [], STRANGER), undefined],
  ];
  for (const [event, want] of cases) {
    assert.equal(gateRefusal(event, ctx), want, `${event.kind} ${event.tags[0]?.[1]}`);
  }
  // The grant's rooms are checked before the room's existence.
  assert.equal(
    gateRefusal(ev(9, [["h", "ghost"]]), context({ rooms })),
    "restricted: agent grant does not allow room ghost",
  );
});

Deno.test("gates: NIP-70: a protected event only from a session its author authenticated", () => {
  const guarded = (pubkey: string, room = "general") => ev(9, [["h", room], ["-"]], pubkey);
  const ctx = context({ session: [OWNER] });
  assert.equal(
    gateRefusal(guarded(MEMBER), ctx),
    "auth-required: this event may only be published by its author",
  );
  assert.equal(gateRefusal(guarded(OWNER), ctx), undefined);
  assert.equal(
    gateRefusal(ev(9, [["h", "general"], ["-", "x"]], MEMBER), ctx),
    undefined,
    "only a bare - tag",
  );
  assert.equal(
    gateRefusal(guarded(STRANGER), ctx),
    "restricted: not a member of room general",
    "the room first",
  );
});

Deno.test("gates: long tasks: from members and agents only, answers to requests the relay holds", () => {
  const req = ev(43001, [["h", "general"], ["p", AGENT]], MEMBER);
  const answer = (pubkey: string) => ev(43002, [["h", "general"], ["e", req.id], ["p", MEMBER]], pubkey);
  // The stranger holds a role in the room (kept from when it was a member), so the room lets it by.
  const rooms = { general: open({ [STRANGER]: "member" }) };
  const ctx = context({ stored: [req], rooms });
  const writers = "restricted: long tasks are accepted from members and agents";
  assert.equal(gateRefusal(req, ctx), undefined);
  assert.equal(gateRefusal(ev(43001, [["h", "general"], ["p", AGENT]], STRANGER), ctx), writers);
  assert.equal(gateRefusal(ev(9, [["h", "general"]], STRANGER), ctx), undefined, "its chat passes");
  assert.equal(gateRefusal(answer(AGENT), ctx), undefined);
  assert.equal(
    gateRefusal(answer(OWNER), ctx),
    "restricted: job accepted must come from a key the request asked",
  );
  assert.equal(
    gateRefusal(answer(AGENT), context()),
    "restricted: job accepted must name a request this relay holds",
  );
  assert.equal(
    gateRefusal(answer(MEMBER), context()),
    "restricted: job accepted must name a request this relay holds",
  );
  // The room comes first: a stranger without a room role hears about the room.
  assert.equal(
    gateRefusal(answer(STRANGER), context({ stored: [req] })),
    "restricted: not a member of room general",
  );
  // Members-only, the writer rule still comes before the write policy.
  assert.equal(gateRefusal(answer(STRANGER), context({ stored: [req], rooms, membersOnly: true })), writers);
});

Deno.test("gates: the write policy of a members-only relay, last", () => {
  const closed = context({ membersOnly: true });
  const policy = "blocked: this event is not allowed by the relay write policy";
  assert.equal(gateRefusal(ev(1, [], STRANGER), closed), policy);
  assert.equal(gateRefusal(ev(1, [], STRANGER), context()), undefined);
  for (const kind of [9021, 9022, 28934, 28936]) {
    assert.equal(gateRefusal(ev(kind, [], STRANGER), closed), undefined);
  }
  for (const pubkey of [MEMBER, AGENT, OWNER]) {
    assert.equal(gateRefusal(ev(1, [], pubkey), closed), undefined);
  }
  assert.equal(
    gateRefusal(ev(9, [["h", "general"]], STRANGER), closed),
    "restricted: not a member of room general",
  );
});
