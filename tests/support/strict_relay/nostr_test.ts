// The strict relay's websocket, shown with Deno's own WebSocket client and events signed by
// nostr-tools: the unprompted challenge, AUTH's checks in the real relay's order, the read gates
// (members-only relays and rooms), REQ and its history, EOSE's hints, live delivery and CLOSE
// (rpc-facts 6.2; messages: nostr_messages_test.ts).

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import type { StrictRelay } from "./mod.ts";
import { authEvent, expectOk, newKey, now, signed, withRelay, withSocket } from "./nostr_test_kit.ts";

const A = newKey();
const B = newKey();
const MEMBERS_ONLY = "auth-required: this relay is members-only";

Deno.test("strict relay websocket: the challenge comes first, unprompted, one per connection", async () => {
  await withRelay({}, async (relay) => {
    assert.equal(relay.wsUrl, `ws://127.0.0.1:${relay.port}/r/acme`);
    await withSocket(relay.wsUrl, async (ws) => {
      await withSocket(`${relay.wsUrl}/any/path`, async (other) => {
        const first = await ws.next("the challenge");
        assert.deepEqual([first.length, first[0]], [2, "AUTH"]);
        assert.match(first[1] as string, /^[0-9a-f]{32}$/);
        const [, theirs] = await other.next("the other connection's challenge");
        assert.notEqual(theirs, first[1]);
        assert.equal(relay.clientMessages.length, 0, "the client said nothing first");
        await ws.quiet(100);
        const reason = "invalid: auth challenge does not match";
        await expectOk(ws, ["AUTH", authEvent(A, relay.wsUrl, theirs as string)], false, reason);
        await expectOk(ws, ["AUTH", authEvent(A, relay.wsUrl, first[1] as string)], true, "");
        const connection = relay.requests.find((r) => r.path === "/r/acme")?.connection;
        assert.deepEqual(relay.clientMessages.map((m) => [m.connection, (m.message as unknown[])[0]]), [
          [connection, "AUTH"],
          [connection, "AUTH"],
        ]);
        assert.ok(relay.clientMessages.every((m) => typeof m.data === "string" && m.at <= Date.now()));
        assert.deepEqual([relay.wsConnections, relay.openWebSockets], [2, 2]);
      });
    });
  });
});

Deno.test("strict relay websocket: AUTH's checks, in the real relay's order", async (t) => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      const [, c] = await ws.next("challenge");
      const challenge = c as string;
      const url = relay.wsUrl;
      // Each event below also breaks every later check, so a check made out of order shows.
      await t.step("no event; an incomplete or forged one; the wrong kind", async () => {
        await expectOk(ws, ["AUTH"], false, "invalid: AUTH needs an event");
        const { sig: _, ...unsigned } = authEvent(A, "ws://elsewhere", "nope", { kind: 1 });
        await expectOk(ws, ["AUTH", unsigned], false, "invalid: missing sig");
        const forged = { ...authEvent(A, url, challenge), content: "x" };
        await expectOk(ws, ["AUTH", forged], false, "invalid: id or signature does not match content");
        const kind1 = authEvent(A, "ws://elsewhere", "nope", { kind: 1, at: 0 });
        await expectOk(ws, ["AUTH", kind1], false, "invalid: auth event must be kind 22242");
      });
      await t.step("created_at more than 600 s away, either way", async () => {
        const reason = "invalid: auth event created_at is too far from the current time";
        await expectOk(ws, ["AUTH", authEvent(A, "ws://x", "nope", { at: now() - 605 })], false, reason);
        await expectOk(ws, ["AUTH", authEvent(A, "ws://x", "nope", { at: now() + 605 })], false, reason);
        await expectOk(ws, ["AUTH", authEvent(A, url, challenge, { at: now() - 590 })], true, "");
      });
      await t.step("the challenge, then the relay tag", async () => {
        await expectOk(
          ws,
          ["AUTH", authEvent(A, "ws://x", "nope")],
          false,
          "invalid: auth challenge does not match",
        );
        await expectOk(
          ws,
          ["AUTH", authEvent(A, "ws://x", challenge)],
          false,
          "invalid: auth relay tag does not name this relay",
        );
      });
    });
  });
});

Deno.test("strict relay websocket: AUTH's relay tag names the connection's own URL", async () => {
  await withRelay({}, async (relay) => {
    await withSocket(`${relay.wsUrl}/some/path?q=1`, async (ws) => {
      const [, c] = await ws.next("challenge");
      const port = relay.port;
      const refused = [
        `wss://127.0.0.1:${port}/r/acme`,
        `ws://127.0.0.1:${port + 1}/r/acme`,
        "ws://127.0.0.1/r/acme",
        `ws://127.0.0.1:${port}/r/other`,
        `ws://127.0.0.1:${port}/`,
        `ws://127.0.0.1:${port}/r/acme/some/path`,
        `http://127.0.0.1:${port}/r/acme`,
        "not a url",
      ];
      for (const tag of refused) {
        const reason = "invalid: auth relay tag does not name this relay";
        await expectOk(ws, ["AUTH", authEvent(A, tag, c as string)], false, reason);
      }
      const passing = [
        `WS://127.0.0.1:${port}/r/acme`,
        `ws://127.0.0.1:${port}/r/acme//`,
        `ws://127.0.0.1:${port}/r/acme?x=1#y`,
      ];
      for (const tag of passing) await expectOk(ws, ["AUTH", authEvent(B, tag, c as string)], true, "");
    });
  });
});

Deno.test("strict relay websocket: members-only reads", async (t) => {
  await withRelay({ membersOnly: true, members: [A.pk] }, async (relay) => {
    relay.inject(signed(B));
    await t.step("before AUTH, and after AUTH as a non-member: CLOSED members-only", async () => {
      await withSocket(relay.wsUrl, async (ws) => {
        await ws.next("challenge");
        assert.deepEqual(await ws.req("s", {}), { events: [], end: ["CLOSED", "s", MEMBERS_ONLY] });
      });
      await withSocket(relay.wsUrl, async (ws) => {
        await ws.auth(B, relay.wsUrl);
        assert.deepEqual((await ws.req("s", {})).end, ["CLOSED", "s", MEMBERS_ONLY]);
      });
    });
    await t.step("a member is served, and the REQ sent again after AUTH is recorded", async () => {
      await withSocket(relay.wsUrl, async (ws) => {
        const [, challenge] = await ws.next("challenge");
        assert.deepEqual((await ws.req("q", { kinds: [9] })).end, ["CLOSED", "q", MEMBERS_ONLY]);
        await expectOk(ws, ["AUTH", authEvent(A, relay.wsUrl, challenge as string)], true, "");
        const served = await ws.req("q", { kinds: [9] });
        assert.deepEqual([served.events.length, served.end], [1, ["EOSE", "q", ["finish"]]]);
        const sent = relay.clientMessages.map((m) => (m.message as unknown[])[0]);
        assert.deepEqual(sent.slice(-3), ["REQ", "AUTH", "REQ"]);
      });
    });
  });
});

Deno.test("strict relay websocket: readsNeedAuth, at start and at run time", async () => {
  await withRelay({ readsNeedAuth: true }, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      const [, challenge] = await ws.next("challenge");
      assert.deepEqual((await ws.req("s", {})).end, [
        "CLOSED",
        "s",
        "auth-required: this relay requires AUTH",
      ]);
      await expectOk(ws, ["AUTH", authEvent(B, relay.wsUrl, challenge as string)], true, "");
      const end = (await ws.req("s", { kinds: [9] })).end;
      assert.deepEqual(end, ["EOSE", "s", ["finish"]], "any key, once authenticated");
    });
    relay.readsNeedAuth = false;
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      assert.deepEqual((await ws.req("s", { kinds: [9] })).end, ["EOSE", "s", ["finish"]]);
    });
  });
});

/** Four events in two rooms, two of them at the same second; the two tied, in id order. */
function storeFour(relay: StrictRelay) {
  const t0 = now() - 100;
  const old = signed(A, { created_at: t0, content: "old" });
  const mid1 = signed(B, { created_at: t0 + 10, content: "mid one", kind: 11 });
  const mid2 = signed(A, { created_at: t0 + 10, content: "mid two", tags: [["h", "lab"]] });
  const recent = signed(B, { created_at: t0 + 20, content: "recent", tags: [["h", "lab"], ["p", A.pk]] });
  for (const ev of [mid2, old, recent, mid1]) assert.equal(relay.inject(ev), true);
  assert.equal(relay.inject(old), false, "a duplicate is stored once");
  const tied = [mid1, mid2].sort((a, b) => (a.id < b.id ? -1 : 1)).map((e) => e.content);
  return { t0, old, recent, tied };
}

const contents = (events: NostrEvent[]) => events.map((e) => e.content);

Deno.test("strict relay websocket: REQ's history, newest first, limits and filters", async () => {
  await withRelay({ rooms: ["general", "lab"] }, async (relay) => {
    const { t0, old, recent, tied } = storeFour(relay);
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      const got = async (filters: unknown[]) => contents((await ws.req("q", ...filters)).events);
      const { events, end } = await ws.req("all", {});
      assert.deepEqual(contents(events), ["recent", ...tied, "old"], "newest first, ties by id");
      assert.deepEqual(end, ["EOSE", "all", ["finish", "auth"]]);
      assert.deepEqual(Object.keys(events[0]), [
        "id",
        "pubkey",
        "created_at",
        "kind",
        "tags",
        "content",
        "sig",
      ]);
      assert.deepEqual(await got([{ limit: 2 }]), ["recent", tied[0]]);
      assert.deepEqual(await got([{ limit: 0 }]), []);
      assert.deepEqual(await got([{ ids: [old.id, recent.id] }]), ["recent", "old"]);
      assert.deepEqual(await got([{ authors: [A.pk] }]), ["mid two", "old"]);
      assert.deepEqual(await got([{ kinds: [11] }]), ["mid one"]);
      assert.deepEqual(await got([{ "#h": ["lab"] }]), ["recent", "mid two"]);
      assert.deepEqual(await got([{ "#p": [A.pk] }]), ["recent"]);
      assert.deepEqual(await got([{ since: t0 + 10, until: t0 + 10 }]), tied);
      assert.deepEqual(
        await got([{ kinds: [11] }, { authors: [A.pk], limit: 1 }]),
        tied,
        "a union, each its limit",
      );
    });
  });
});

Deno.test("strict relay websocket: live events, CLOSE, and a REQ replacing its id", async (t) => {
  await withRelay({ rooms: ["general", "lab"] }, async (relay) => {
    const { t0 } = storeFour(relay);
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      await t.step("after EOSE, to matching subscriptions only", async () => {
        assert.equal((await ws.req("lab", { "#h": ["lab"], since: t0 + 15 })).events.length, 1);
        await ws.req("mine", { authors: [A.pk] });
        const fresh = signed(A, { tags: [["h", "lab"]], content: "fresh" });
        relay.inject(fresh);
        assert.deepEqual(await ws.next("live for lab"), ["EVENT", "lab", fresh]);
        assert.deepEqual(await ws.next("live for mine"), ["EVENT", "mine", fresh]);
        relay.inject(signed(B, { content: "general, by B" }));
        await ws.quiet();
      });
      await t.step("CLOSE ends one; the same id replaces one", async () => {
        ws.send(["CLOSE", "mine"]);
        ws.send(["CLOSE", "never-opened"]);
        await ws.req("lab", { kinds: [11] });
        relay.inject(signed(A, { tags: [["h", "lab"]], content: "unseen" }));
        await ws.quiet();
        const thread = signed(B, { kind: 11, content: "thread" });
        relay.inject(thread);
        assert.deepEqual(await ws.next("the replacing filter's event"), ["EVENT", "lab", thread]);
        const refused = await ws.req("lab", { ids: ["not hex"] });
        assert.equal(refused.end[0], "CLOSED", "a refused REQ still ends the one it replaces");
        relay.inject(signed(B, { kind: 11, content: "after the refusal" }));
        await ws.quiet();
        assert.equal(relay.events.length, 9);
      });
    });
  });
});

Deno.test("strict relay websocket: EOSE's hints, finish or more, and auth", async () => {
  const roomSeed = {
    rooms: [{ id: "vault", name: "Vault", access: "members" as const, members: [{ pubkey: A.pk }] }],
  };
  await withRelay({ rooms: ["general", "lab"] }, async (relay) => {
    relay.seed(roomSeed);
    storeFour(relay);
    await withSocket(relay.wsUrl, async (ws) => {
      const [, challenge] = await ws.next("challenge");
      const hints = async (...filters: unknown[]) => ((await ws.req("h", ...filters)).end as unknown[])[2];
      assert.deepEqual(await hints({ kinds: [9] }), ["finish"]);
      assert.deepEqual(await hints({ kinds: [9], limit: 1 }), ["more"], "a limit cut the history short");
      assert.deepEqual(await hints({ kinds: [9], limit: 3 }), ["finish"], "a limit that cut nothing");
      assert.deepEqual(await hints({ kinds: [11] }, { kinds: [9], limit: 0 }), ["more"], "any filter's");
      assert.deepEqual(await hints({ authors: [A.pk] }), ["finish", "auth"], "no kinds");
      assert.deepEqual(await hints({ kinds: [4] }), ["finish", "auth"], "a private kind, before AUTH");
      assert.deepEqual(await hints({ kinds: [9], "#h": ["vault"] }), ["finish", "auth"], "a members room");
      assert.deepEqual(await hints({ kinds: [9], "#h": ["lab"] }), ["finish"], "an open room");
      await expectOk(ws, ["AUTH", authEvent(B, relay.wsUrl, challenge as string)], true, "");
      assert.deepEqual(await hints({ kinds: [1059] }), ["finish"], "a private kind, after AUTH");
      assert.deepEqual(
        await hints({ kinds: [9], "#h": ["vault"] }),
        ["finish"],
        "a members room, after AUTH",
      );
      assert.deepEqual(
        await hints({ kinds: [9], limit: 1 }, {}),
        ["more", "auth"],
        "no kinds, even after AUTH",
      );
    });
  });
});

Deno.test("strict relay websocket: a members-only room is read by its members only", async () => {
  await withRelay({}, async (relay) => {
    relay.seed({ rooms: [{ id: "vault", name: "Vault", access: "members", members: [{ pubkey: A.pk }] }] });
    // A second apart, so the history's order (newest first) does not hang on their ids.
    const secret = signed(A, { tags: [["h", "vault"]], content: "secret", created_at: now() - 1 });
    const open = signed(B, { content: "open", created_at: now() - 2 });
    relay.inject(secret);
    relay.inject(open);
    await withSocket(relay.wsUrl, async (outsider) => {
      await withSocket(relay.wsUrl, async (member) => {
        await outsider.auth(B, relay.wsUrl);
        await member.auth(A, relay.wsUrl);
        assert.deepEqual(
          (await outsider.req("s", { kinds: [9] })).events,
          [open],
          "history without the room's",
        );
        assert.deepEqual((await member.req("s", { kinds: [9] })).events, [secret, open], "the room's member");
        const live = signed(A, { tags: [["h", "vault"]], content: "live secret" });
        relay.inject(live);
        assert.deepEqual(await member.next("the room's event, live"), ["EVENT", "s", live]);
        await outsider.quiet();
      });
    });
  });
});
