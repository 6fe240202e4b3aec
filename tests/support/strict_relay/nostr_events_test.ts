// The strict relay's `POST <prefix>/events` (rpc-facts 6.3), shown with Deno's fetch and tokens and
// events signed by hand with nostr-tools: accepted, duplicate, every gate, every 401, invalid events,
// the size limit; and the one event store that /events, MCP publishing and inject() share.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { type StrictRelay } from "./mod.ts";
import {
  authEvent,
  enc,
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
        assert.match(a.headers.get("content-type") ?? "", /^application\/json/);
        assert.equal(a.text, receipt(ev, true, ""));
        assert.deepEqual(relay.events, [ev]);
        assert.deepEqual(await ws.next("the event, live"), ["EVENT", "live", ev]);
      });
      await t.step("the same event again: 200, duplicate, stored once", async () => {
        const a = await post(relay, JSON.stringify(ev));
        assert.equal(a.status, 200);
        assert.equal(a.text, receipt(ev, true, "duplicate: already have this event"));
        assert.equal(relay.events.length, 1);
        await ws.quiet();
      });
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

Deno.test("strict relay /events: every gate refuses with a 400 receipt", async () => {
  await withRelay({ membersOnly: true, members: [A.pk], rooms: ["general", "lab"] }, async (relay) => {
    const refused = async (ev: NostrEvent, message: string) => {
      const a = await post(relay, JSON.stringify(ev));
      assert.equal(a.status, 400, a.text);
      assert.equal(a.text, receipt(ev, false, message));
    };
    await refused(authEvent(A, relay.wsUrl, "x"), "blocked: AUTH events use AUTH");
    await refused(signed(A, { tags: [["h", "general"], ["h", "attic"]] }), "invalid: unknown room attic");
    await refused(signed(B, { tags: [["h", "lab"]] }), "restricted: not a member of room lab");
    await refused(signed(B, { kind: 1, tags: [] }), "restricted: this relay is members-only");
    await refused(
      signed(A, { tags: [["h", "lab"], ["expiration", String(now() - 1)]] }),
      "invalid: event has already expired",
    );
    relay.setEventGate((
      ev,
    ) => (ev.kind === 40003 ? "restricted: agent grant does not cover kind 40003" : undefined));
    await refused(signed(A, { kind: 40003 }), "restricted: agent grant does not cover kind 40003");
    assert.deepEqual(relay.events, []);
    const fine = signed(A, { tags: [["h", "lab"], ["expiration", String(now() + 30)]] });
    assert.equal((await post(relay, JSON.stringify(fine))).status, 200);
    relay.members.add(B.pk);
    assert.equal((await post(relay, JSON.stringify(signed(B, { kind: 1, tags: [] })))).status, 200);
    assert.equal(relay.events.length, 2);
  });
});

Deno.test("strict relay /events: NIP-98 refusals are 401 with the real relay's reasons", async () => {
  await withRelay({}, async (relay) => {
    const body = JSON.stringify(signed(A));
    const url = `${relay.url}/events`;
    const refused = async (o: Parameters<typeof post>[2], reason: string) => {
      const a = await post(relay, body, o);
      assert.equal(a.status, 401, a.text);
      assert.equal(a.text, JSON.stringify({ error: `auth-required: ${reason}` }));
    };
    await refused({ authorization: null }, "missing Nostr Authorization header");
    await refused({ authorization: "Bearer x" }, "missing Nostr Authorization header");
    await refused({ authorization: "Nostr %%%" }, "malformed NIP-98 token");
    await refused({ authorization: `Nostr ${btoa('{"kind":27235}')}` }, "malformed NIP-98 token");
    await refused({ kind: 1 }, "token must be kind 27235");
    await refused({ createdAt: now() - 120 }, "token expired");
    await refused({ createdAt: now() + 120 }, "token expired");
    await refused({ u: `${relay.url}/mcp` }, "token was signed for another URL");
    await refused({ u: `${relay.origin}/events` }, "token was signed for another URL");
    await refused({ method: "PUT" }, "token was signed for another method");
    await refused({ payload: "00".repeat(32) }, "token payload hash does not match the body");
    await refused({ payload: null }, "token payload hash does not match the body");
    const once = nip98(url, body, A);
    assert.equal((await post(relay, body, { authorization: once })).status, 200);
    await refused({ authorization: once }, "token replay detected");
  });
});

Deno.test("strict relay /events: invalid events, the size limit, methods, paths", async (t) => {
  await withRelay({ maxMessageBytes: 2048 }, async (relay) => {
    const invalid = async (body: string, error: string) => {
      const a = await post(relay, body);
      assert.equal(a.status, 400, a.text);
      assert.equal(a.text, JSON.stringify({ error }));
    };
    const ev = signed(A);
    await t.step("not a complete signed event: 400 invalid", async () => {
      const { sig: _, ...unsigned } = ev;
      await invalid(JSON.stringify(unsigned), "invalid: missing sig");
      const { tags: _t, ...tagless } = ev;
      await invalid(JSON.stringify(tagless), "invalid: missing tags");
      await invalid(JSON.stringify({ ...ev, id: "abc" }), "invalid: bad id");
      await invalid(JSON.stringify({ ...ev, kind: "9" }), "invalid: bad kind");
      await invalid(JSON.stringify({ ...ev, tags: [["h", 1]] }), "invalid: bad tags");
      await invalid(
        JSON.stringify({ ...ev, content: "edited" }),
        "invalid: id or signature does not match content",
      );
      await invalid(
        JSON.stringify({ ...ev, sig: "00".repeat(64) }),
        "invalid: id or signature does not match content",
      );
      await invalid(JSON.stringify([ev]), "invalid: event must be a JSON object");
      await invalid("{not json", "invalid: body must be a JSON event");
    });
    await t.step("a body over the message size: 400, before NIP-98", async () => {
      const big = JSON.stringify(signed(A, { content: "x".repeat(2048) }));
      const a = await post(relay, big, { authorization: null });
      assert.equal(a.status, 400);
      assert.equal(a.text, '{"error":"http: request body too large"}');
      const exact = enc.encode(JSON.stringify(signed(A, { content: "" }))).length;
      const fits = JSON.stringify(signed(A, { content: "y".repeat(2048 - exact) }));
      assert.equal(enc.encode(fits).length, 2048);
      assert.equal((await post(relay, fits)).status, 200, "exactly the limit is accepted");
    });
    await t.step("other methods: 405; outside the tenant: 404", async () => {
      const url = `${relay.url}/events`;
      const a = await post(relay, "", {
        httpMethod: "GET",
        authorization: nip98(url, undefined, A, { method: "GET" }),
      });
      assert.equal(a.status, 405);
      assert.equal(a.headers.get("allow"), "POST");
      const outside = await post(relay, JSON.stringify(ev), { url: `${relay.origin}/events` });
      assert.equal(outside.status, 404);
    });
  });
});
