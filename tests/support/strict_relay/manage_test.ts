// `<prefix>/manage/rpc`'s browsegrant, answered from the relay's grants (relay.setGrant), which the
// write gates follow too; the endpoint's checks; and a test's own browsegrant (setBrowsegrant).

import assert from "node:assert/strict";
import { nip86Error, type StrictRelay } from "./mod.ts";
import { DEFAULT_GRANT_SCOPE } from "./manage_endpoint.ts";
import {
  answer,
  call,
  clock,
  type Key,
  ME,
  newKey,
  nip98,
  signed,
  type TokenOptions,
  withRelay,
} from "./mcp_test_kit.ts";

async function manage(
  relay: StrictRelay,
  body: unknown,
  o: { token?: TokenOptions; contentType?: string; tokenUrl?: string; key?: Key } = {},
) {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const res = await fetch(relay.manageUrl, {
    method: "POST",
    headers: {
      "Authorization": nip98(o.tokenUrl ?? relay.manageUrl, text, { key: o.key, ...o.token }),
      "Content-Type": o.contentType ?? "application/nostr+json+rpc",
    },
    body: text,
  });
  return await answer(res);
}

const browse = async (relay: StrictRelay, params: unknown[] = [], key: Key = ME) => {
  const a = await manage(relay, { method: "browsegrant", params }, { key });
  assert.equal(a.status, 200, a.text);
  return a.json.result;
};

const DAY = 24 * 3600;

Deno.test("browsegrant: the default grant, as the relay holds it", async () => {
  await withRelay({}, async (relay) => {
    const result = await browse(relay);
    const expires = clock.now + 30 * DAY;
    assert.deepEqual(result, {
      member: true,
      role: "agent",
      grant: {
        pubkey: ME.pk,
        owner: result.grant.owner,
        event_id: result.grant.event_id,
        name: "test agent",
        expires,
        paused: false,
        revoked: false,
        scope: { kinds: DEFAULT_GRANT_SCOPE.kinds, rooms: ["general"], repos: [], rate: 60 },
        lastEvent: 0,
      },
      state: "active",
      enforced: true,
      expires,
      rate: 60,
    });
    assert.match(result.grant.owner, /^[0-9a-f]{64}$/);
    assert.notEqual(result.grant.owner, ME.pk);
  });
});

Deno.test("browsegrant: a grant's state, scope and what it does not cover follow setGrant", async (t) => {
  await withRelay({}, async (relay) => {
    const scope = { rooms: ["general", "ops"], kinds: [9], jobs: "serve" as const, rate: 5 };
    const states: [string, Parameters<StrictRelay["setGrant"]>[2], string][] = [
      ["active", {}, "active"],
      ["paused", { paused: true }, "paused"],
      ["revoked", { revoked: true }, "revoked"],
      ["expired", { expires: clock.now }, "expired"],
      ["revoked wins over expired", { revoked: true, expires: clock.now - 1 }, "revoked"],
    ];
    for (const [name, state, expected] of states) {
      await t.step(name, async () => {
        relay.setGrant(ME.pk, scope, state);
        const result = await browse(relay);
        assert.equal(result.state, expected);
        assert.deepEqual(result.grant.scope, {
          kinds: [9],
          rooms: ["general", "ops"],
          repos: [],
          jobs: "serve",
          rate: 5,
        });
        assert.equal(result.rate, 5);
      });
    }

    await t.step(
      "missing: asked rooms and kinds the grant does not cover (jobs covers the serve kinds)",
      async () => {
        relay.setGrant(ME.pk, scope);
        const result = await browse(relay, [{ rooms: ["general", "lab"], kinds: [9, 43004, 43001, 1] }]);
        assert.deepEqual(result.missing, { rooms: ["lab"], kinds: [43001, 1] });
        assert.equal((await browse(relay)).missing, undefined);
      },
    );

    await t.step("no grant: not a member, nothing covered", async () => {
      relay.setGrant(ME.pk, null);
      const result = await browse(relay, [{ rooms: ["general"], kinds: [9] }]);
      assert.deepEqual(result, {
        member: false,
        role: "",
        grant: null,
        state: "none",
        enforced: true,
        missing: { rooms: ["general"], kinds: [9] },
      });
    });

    await t.step("a member without a grant is not enforced: nothing is missing", async () => {
      relay.members.add(ME.pk);
      const result = await browse(relay, [{ rooms: ["lab"], kinds: [1] }]);
      assert.deepEqual(
        [result.member, result.role, result.enforced, result.missing],
        [true, "member", false, { rooms: [], kinds: [] }],
      );
    });
  });
});

Deno.test("browsegrant: the gates read the same grants", async () => {
  await withRelay({}, async (relay) => {
    const agent = newKey();
    const cases: [Parameters<StrictRelay["setGrant"]>[2], string][] = [
      [{ revoked: true }, "restricted: agent grant is revoked"],
      [{ paused: true }, "restricted: agent grant is paused"],
      [{ expires: clock.now - 1 }, "restricted: agent grant has expired"],
    ];
    for (const [state, reason] of cases) {
      relay.setGrant(agent.pk, { rooms: ["general"], kinds: [9] }, state);
      assert.equal((await browse(relay, [], agent)).grant.pubkey, agent.pk);
      const post = signed(agent);
      const a = await call(relay, "post_message", { event: post }, { token: { key: agent } });
      assert.equal(a.json.result.structuredContent.message, reason);
    }
    relay.setGrant(agent.pk, { rooms: ["general"], kinds: [9] });
    const post = signed(agent);
    const a = await call(relay, "post_message", { event: post }, { token: { key: agent } });
    assert.equal(a.json.result.structuredContent.accepted, true);
  });
});

Deno.test("manage: the endpoint's own checks", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("invalid lists are 400 invalid:", async () => {
      for (
        const p of [{ rooms: [""] }, { kinds: [70000] }, { kinds: [1.5] }, { rooms: Array(257).fill("r") }]
      ) {
        const a = await manage(relay, { method: "browsegrant", params: [p] });
        assert.equal(a.status, 400, JSON.stringify(p));
        assert.match(a.json.error, /^invalid: /);
      }
    });

    await t.step("another method is unsupported", async () => {
      const a = await manage(relay, { method: "listbannedpubkeys", params: [] });
      assert.equal(a.status, 400);
      assert.deepEqual(a.json, { error: 'unsupported: management method "listbannedpubkeys"' });
    });

    await t.step("Content-Type, then NIP-98 in the relay's words", async () => {
      const json = await manage(relay, { method: "browsegrant" }, { contentType: "application/json" });
      assert.equal(json.status, 415);
      const wrongU = await manage(relay, { method: "browsegrant" }, { tokenUrl: relay.mcpUrl });
      assert.equal(wrongU.status, 401);
      assert.equal(wrongU.headers.get("www-authenticate"), 'Nostr realm="tiny"');
      assert.deepEqual(wrongU.json, { error: "auth-required: token was signed for another URL" });
      const noPayload = await manage(relay, { method: "browsegrant" }, { token: { payload: null } });
      assert.deepEqual(noPayload.json, {
        error: "auth-required: token payload hash does not match the body",
      });
    });
  });

  await t.step("a members-only relay answers its members only", async () => {
    await withRelay({ membersOnly: true }, async (relay) => {
      const a = await manage(relay, { method: "browsegrant", params: [] });
      assert.equal(a.status, 403);
      assert.deepEqual(a.json, { error: "restricted: this relay is members-only" });
      relay.members.add(ME.pk);
      assert.equal((await browse(relay)).role, "agent");
    });
  });
});

Deno.test("manage: setBrowsegrant answers in place of the grants, a result or a fault", async () => {
  await withRelay({}, async (relay) => {
    relay.setBrowsegrant((pubkey, params) => ({
      member: false,
      role: "",
      grant: null,
      state: "none",
      pubkey,
      params,
    }));
    const a = await manage(relay, { method: "browsegrant", params: [{ rooms: ["x"] }] });
    assert.deepEqual(a.json.result, {
      member: false,
      role: "",
      grant: null,
      state: "none",
      pubkey: ME.pk,
      params: [{ rooms: ["x"] }],
    });
    relay.setBrowsegrant(() => nip86Error("restricted: grant revoked"));
    const b = await manage(relay, { method: "browsegrant" });
    assert.equal(b.status, 403);
    assert.deepEqual(b.json, { error: "restricted: grant revoked" });
    relay.setBrowsegrant(() => ({ drop: true }));
    await assert.rejects(manage(relay, { method: "browsegrant" }));
  });
});
