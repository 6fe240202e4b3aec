// The strict relay's `POST <prefix>/events` (the relay's HTTP bridge), shown with Deno's fetch and
// tokens and events signed by hand with nostr-tools: accepted, duplicate, every gate's 400 receipt in
// the relay's order, agent grants and their rate per minute, every NIP-98 401, events the relay cannot
// parse in event.Parse's words, the size bound only when --max-message-bytes is set; and the one event
// store that /events, MCP publishing and inject() share.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { type StrictRelay } from "./mod.ts";
import {
  authEvent,
  enc,
  type Key,
  mcpPublish,
  newKey,
  nip98,
  now,
  plain,
  signed,
  type TokenOptions,
  withRelay,
  WsClient,
} from "./nostr_test_kit.ts";

const A = newKey();
const B = newKey();
const JSON_TYPE = "application/json; charset=utf-8";

interface Answer {
  status: number;
  text: string;
  headers: Headers;
}

async function post(
  relay: StrictRelay,
  body: string,
  o: TokenOptions & { authorization?: string | null; url?: string; httpMethod?: string } = {},
): Promise<Answer> {
  const url = o.url ?? `${relay.url}/events`;
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  const authorization = o.authorization === undefined ? nip98(url, body, A, o) : o.authorization;
  if (authorization !== null) headers.Authorization = authorization;
  const method = o.httpMethod ?? "POST";
  const res = await fetch(url, { method, headers, body: method === "GET" ? undefined : body });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const receipt = (ev: NostrEvent, accepted: boolean, message: string) =>
  JSON.stringify({ accepted, event_id: ev.id, message });

Deno.test("strict relay /events: accepted, stored, delivered live; a duplicate", async (t) => {
  await withRelay({}, async (relay) => {
    const ws = await WsClient.open(relay.wsUrl);
    try {
      await ws.next("challenge");
      await ws.req("live", { kinds: [9] });
      const ev = signed(A);
      await t.step("200 and the receipt, keys sorted; the event in relay.events and live", async () => {
        const a = await post(relay, JSON.stringify(ev));
        assert.equal(a.status, 200);
        assert.equal(a.headers.get("content-type"), JSON_TYPE);
        assert.equal(a.text, receipt(ev, true, ""));
        assert.deepEqual(relay.events, [ev]);
        assert.deepEqual(await ws.next("the event, live"), ["EVENT", "live", ev]);
      });
      await t.step(
        "the same event again: 200 with the duplicate's message, stored once, not delivered",
        async () => {
          const a = await post(relay, JSON.stringify(ev));
          assert.equal(a.status, 200);
          assert.equal(a.text, receipt(ev, true, "duplicate: already have this event"));
          assert.equal(relay.events.length, 1);
          await ws.quiet();
        },
      );
      await t.step("an MCP publish_event is stored too (and still in published), and goes live", async () => {
        const other = signed(A, { content: "via mcp" });
        const res = await mcpPublish(relay, A, other);
        const body = await res.json();
        assert.equal(res.status, 200, JSON.stringify(body));
        assert.equal(body.result.structuredContent.accepted, true);
        assert.deepEqual(relay.published.map(plain), [other]);
        assert.deepEqual(relay.events, [ev, other]);
        assert.deepEqual(await ws.next("the MCP event, live"), ["EVENT", "live", other]);
      });
      await t.step("inject() stores someone else's event, refuses an invalid one", async () => {
        const theirs = signed(B, { content: "from B" });
        assert.equal(relay.inject(theirs), true);
        assert.deepEqual(await ws.next("the injected event, live"), ["EVENT", "live", theirs]);
        assert.throws(() => relay.inject({ ...theirs, content: "forged" }), /id or signature does not match/);
        assert.equal(relay.events.length, 3);
      });
      await t.step(
        "pass() sends any event to the matching subscriptions as it is, and stores nothing",
        async () => {
          const forged = { ...signed(B, { content: "real" }), content: "forged" };
          relay.pass(forged);
          assert.deepEqual(await ws.next("the forgery, as it is"), ["EVENT", "live", forged]);
          assert.equal(relay.events.length, 3);
        },
      );
    } finally {
      await ws.close();
    }
  });
});

Deno.test("strict relay /events: every gate refuses with a 400 receipt, in the relay's order", async () => {
  // Human members only (no default grant): the membership gates, not an agent's grant, judge here.
  const options = { membersOnly: true, members: [A.pk], rooms: ["general", "lab"], grantScope: null };
  await withRelay(options, async (relay) => {
    const refused = async (ev: NostrEvent, message: string, signer: Key = A) => {
      const a = await post(relay, JSON.stringify(ev), { key: signer });
      assert.equal(a.status, 400, a.text);
      assert.equal(a.headers.get("content-type"), JSON_TYPE);
      assert.equal(a.text, receipt(ev, false, message));
    };
    await refused(authEvent(A, relay.wsUrl, "x"), "blocked: kind 22242 is only accepted inside AUTH");
    // A long task's shape is judged before who sent it: a stranger's malformed request is `invalid:`.
    const noRoom = signed(B, { kind: 43001, tags: [["p", A.pk]] });
    await refused(noRoom, "invalid: job request must name its room in an h tag", B);
    await refused(
      signed(A, { tags: [["h", "lab"], ["expiration", String(now() - 1)]] }),
      "invalid: event has already expired",
    );
    await refused(signed(A, { tags: [["h", "attic"]] }), "invalid: unknown room attic");
    // The room gate comes before the write policy: a stranger in a room is told about the room.
    await refused(signed(B, { tags: [["h", "lab"]] }), "restricted: not a member of room lab", B);
    const protectedNote = signed(A, { kind: 1, tags: [["-"]] });
    await refused(protectedNote, "auth-required: this event may only be published by its author", B);
    await refused(
      signed(B, { kind: 1, tags: [] }),
      "blocked: this event is not allowed by the relay write policy",
      B,
    );
    const reason = "restricted: a test's own gate";
    relay.setEventGate((ev) => (ev.kind === 40003 ? reason : undefined));
    await refused(signed(A, { kind: 40003 }), reason);
    relay.setEventGate(undefined);
    assert.deepEqual(relay.events, []);

    const fine = signed(A, { tags: [["h", "lab"], ["expiration", String(now() + 30)]] });
    assert.equal((await post(relay, JSON.stringify(fine))).status, 200);
    assert.equal((await post(relay, JSON.stringify(protectedNote))).status, 200, "its author may");
    relay.members.add(B.pk);
    assert.equal(
      (await post(relay, JSON.stringify(signed(B, { kind: 1, tags: [] })), { key: B })).status,
      200,
    );
    assert.equal(relay.events.length, 3);
  });
});

Deno.test("strict relay /events: an agent's grant, its state, and its rate per minute", async () => {
  let clock = now();
  await withRelay({ rooms: ["general", "lab"], now: () => clock }, async (relay) => {
    const send = (ev: NostrEvent) => post(relay, JSON.stringify(ev), { createdAt: clock });
    const refused = async (ev: NostrEvent, message: string) => {
      const a = await send(ev);
      assert.equal(a.status, 400, a.text);
      assert.equal(a.text, receipt(ev, false, message));
    };
    const accepted = async (ev: NostrEvent, message = "") => {
      const a = await send(ev);
      assert.equal(a.status, 200, a.text);
      assert.equal(a.text, receipt(ev, true, message));
    };
    relay.setGrant(A.pk, { rooms: ["general"], kinds: [9], rate: 2 });
    await refused(signed(A, { kind: 1, tags: [] }), "restricted: agent grant does not allow kind 1");
    await refused(signed(A, { tags: [["h", "lab"]] }), "restricted: agent grant does not allow room lab");
    await accepted(signed(A, { content: "one" }));
    await accepted(signed(A, { content: "two" }));
    const limit = "restricted: agent grant does not allow more than 2 events per minute";
    await refused(signed(A, { content: "three" }), limit);
    clock += 59;
    await refused(signed(A, { content: "a minute less a second on" }), limit);
    clock += 1;
    const again = signed(A, { content: "a minute on" });
    await accepted(again);
    // The rate counts what passed the grant, even what storage then takes as a duplicate.
    await accepted(again, "duplicate: already have this event");
    await refused(signed(A, { content: "over, after the duplicate" }), limit);

    const scope = { rooms: ["general"], kinds: [9] };
    relay.setGrant(A.pk, scope, { paused: true });
    await refused(signed(A), "restricted: agent grant is paused");
    relay.setGrant(A.pk, scope, { revoked: true, paused: true });
    await refused(signed(A), "restricted: agent grant is revoked");
    relay.setGrant(A.pk, scope, { expires: clock });
    await refused(signed(A), "restricted: agent grant has expired");
    // Without a grant the key is nobody; yet its posts as an agent joined it to general, not lab.
    relay.setGrant(A.pk, null);
    await refused(signed(A, { tags: [["h", "lab"]] }), "restricted: not a member of room lab");
    await accepted(signed(A, { content: "still in general" }));
  });
});

Deno.test("strict relay /events: NIP-98 refusals are 401 with the relay's texts, in its order", async () => {
  const clock = now();
  await withRelay({ now: () => clock }, async (relay) => {
    const body = JSON.stringify(signed(A));
    const url = `${relay.url}/events`;
    const refused = async (o: Parameters<typeof post>[2], reason: string) => {
      const a = await post(relay, body, { createdAt: clock, ...o });
      assert.equal(a.status, 401, a.text);
      assert.equal(a.headers.get("content-type"), JSON_TYPE);
      assert.equal(a.text, JSON.stringify({ error: `auth-required: ${reason}` }));
    };
    const passes = async (o: Parameters<typeof post>[2]) => {
      const a = await post(relay, body, { createdAt: clock, ...o });
      assert.equal(a.status, 200, a.text);
    };
    const missing = "missing Nostr Authorization header";
    await refused({ authorization: null }, missing);
    await refused({ authorization: "Bearer x" }, missing);
    await refused({ authorization: `${nip98(url, body, A)} extra` }, missing);
    await refused({ authorization: "Nostr %%%" }, "malformed NIP-98 token");
    const encoded = (text: string) => `Nostr ${btoa(text)}`;
    await refused(
      { authorization: encoded("hello") },
      "invalid event JSON: invalid character 'h' looking for beginning of value",
    );
    await refused({ authorization: encoded('{"kind":27235}') }, "invalid: missing id");
    const token = JSON.parse(atob(nip98(url, body, A).slice("Nostr ".length)));
    const forged = encoded(JSON.stringify({ ...token, content: "changed" }));
    await refused({ authorization: forged }, "invalid: id or signature does not match content");
    // Each token below also breaks every later check, so a check made out of order shows.
    await refused({ kind: 1, createdAt: clock - 3600, u: "http://elsewhere/" }, "token must be kind 27235");
    await refused({ createdAt: clock - 61, u: "http://elsewhere/", method: "GET" }, "token expired");
    await refused({ createdAt: clock + 61 }, "token expired");
    await refused({ u: `${relay.url}/mcp`, method: "GET" }, "token was signed for another URL");
    await refused({ u: `${relay.origin}/events` }, "token was signed for another URL");
    await refused({ u: `${url}?x=1` }, "token was signed for another URL");
    await refused({ method: "PUT", payload: "00".repeat(32) }, "token was signed for another method");
    await refused({ payload: "00".repeat(32) }, "token payload hash does not match the body");
    await refused({ payload: null }, "token payload hash does not match the body");
    await passes({ createdAt: clock - 60 });
    await passes({ createdAt: clock + 60 });
    await passes({ u: url.replace("http://127.0.0.1", "HTTP://127.0.0.1"), method: "post" });
    const once = nip98(url, body, A, { createdAt: clock });
    await passes({ authorization: once });
    await refused({ authorization: once }, "token replay detected");
  });
});

Deno.test("strict relay /events: events the relay cannot take, in event.Parse's words", async () => {
  await withRelay({}, async (relay) => {
    const invalid = async (body: string, error: string) => {
      const a = await post(relay, body);
      assert.equal(a.status, 400, a.text);
      assert.equal(a.headers.get("content-type"), JSON_TYPE);
      assert.equal(a.text, JSON.stringify({ error }));
    };
    const ev = signed(A);
    const json = (value: unknown) => JSON.stringify(value);
    await invalid("", "invalid event JSON: unexpected end of JSON input");
    await invalid(
      "{not json",
      "invalid event JSON: invalid character 'n' looking for beginning of object key string",
    );
    await invalid(
      json([ev]),
      "invalid event JSON: json: cannot unmarshal array into Go value of type map[string]json.RawMessage",
    );
    const { sig: _, ...unsigned } = ev;
    await invalid(json(unsigned), "invalid: missing sig");
    const { tags: _t, ...tagless } = ev;
    await invalid(json(tagless), "invalid: missing tags");
    await invalid(
      json({ ...ev, kind: "9" }),
      "invalid event JSON: json: cannot unmarshal string into Go struct field Event.kind of type int",
    );
    await invalid(
      json({ ...ev, tags: [["h", 1]] }),
      "invalid event JSON: json: cannot unmarshal number into Go struct field Event.tags of type string",
    );
    await invalid(json({ ...ev, id: "abc" }), "invalid: bad id");
    await invalid(json({ ...ev, pubkey: ev.pubkey.toUpperCase() }), "invalid: bad pubkey");
    await invalid(json({ ...ev, sig: "00" }), "invalid: bad sig");
    await invalid(json({ ...ev, kind: 70000 }), "invalid: kind out of range");
    await invalid(json({ ...ev, created_at: -1 }), "invalid: bad created_at");
    await invalid(json({ ...ev, tags: null }), "invalid: tags must be a list");
    await invalid(json({ ...ev, tags: [[]] }), "invalid: bad tag");
    await invalid(json({ ...ev, content: "edited" }), "invalid: id or signature does not match content");
    await invalid(json({ ...ev, sig: "00".repeat(64) }), "invalid: id or signature does not match content");
    assert.deepEqual(relay.events, []);
  });
});

Deno.test("strict relay /events: the size bound, only with --max-message-bytes; methods, paths", async (t) => {
  await t.step("no bound by default: a 2 MiB event is taken, where /mcp stops at 1 MiB", async () => {
    await withRelay({}, async (relay) => {
      const big = JSON.stringify(signed(A, { content: "x".repeat(2 * 1024 * 1024) }));
      assert.equal((await post(relay, big)).status, 200);
      const mcp = await fetch(relay.mcpUrl, { method: "POST", body: big });
      assert.equal(mcp.status, 413);
      await mcp.body?.cancel();
    });
  });
  await withRelay({ maxMessageBytes: 2048 }, async (relay) => {
    await t.step(
      "with a bound: a body over it is 400, before NIP-98; exactly the bound is taken",
      async () => {
        const big = JSON.stringify(signed(A, { content: "x".repeat(2048) }));
        const a = await post(relay, big, { authorization: null });
        assert.equal(a.status, 400);
        assert.equal(a.text, '{"error":"http: request body too large"}');
        const exact = enc.encode(JSON.stringify(signed(A, { content: "" }))).length;
        const fits = JSON.stringify(signed(A, { content: "y".repeat(2048 - exact) }));
        assert.equal(enc.encode(fits).length, 2048);
        assert.equal((await post(relay, fits)).status, 200, "exactly the limit is accepted");
      },
    );
    await t.step("other methods: 405; outside the tenant: 404", async () => {
      const url = `${relay.url}/events`;
      const a = await post(relay, "", {
        httpMethod: "GET",
        authorization: nip98(url, undefined, A, { method: "GET" }),
      });
      assert.equal(a.status, 405);
      assert.equal(a.headers.get("allow"), "POST");
      const outside = await post(relay, JSON.stringify(signed(A)), { url: `${relay.origin}/events` });
      assert.equal(outside.status, 404);
    });
  });
});
