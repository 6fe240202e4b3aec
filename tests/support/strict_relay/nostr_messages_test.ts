// The strict relay's websocket messages, shown with Deno's own WebSocket client and events signed by
// nostr-tools: every NOTICE, bad REQs and filters, EVENT with its gates, and closeSubscriptions
// (rpc-facts 6.2).

import assert from "node:assert/strict";
import {
  authEvent,
  expectOk,
  newKey,
  signed,
  withRelay,
  withSocket,
  type WsClient,
} from "./nostr_test_kit.ts";

const A = newKey();
const B = newKey();

async function notice(ws: WsClient, message: unknown, text: string): Promise<void> {
  if (message instanceof Uint8Array) ws.sendBinary(message);
  else ws.send(message);
  assert.deepEqual(await ws.next(text), ["NOTICE", text]);
}

Deno.test("strict relay websocket: every NOTICE", async () => {
  await withRelay({ maxMessageBytes: 4096 }, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      await notice(ws, new Uint8Array([91, 93]), "error: binary frames are not supported");
      await notice(
        ws,
        JSON.stringify(["REQ", "x", { "#t": ["a".repeat(4096)] }]),
        "error: message too large",
      );
      await notice(ws, "[not json", "error: could not parse message");
      await notice(ws, '{"REQ":1}', "error: could not parse message");
      await notice(ws, "[1]", "error: message type must be a string");
      await notice(ws, ["COUNT", "c", {}], "error: unknown message type COUNT");
      await notice(ws, ["EVENT"], "error: EVENT needs an event");
      await notice(ws, ["REQ", "only-an-id"], "error: REQ needs an id and at least one filter");
      await notice(ws, ["REQ"], "error: REQ needs an id and at least one filter");
      await notice(ws, ["REQ", "", {}], "error: bad subscription id");
      await notice(ws, ["REQ", "x".repeat(65), {}], "error: bad subscription id");
      await notice(ws, ["REQ", 7, {}], "error: bad subscription id");
      assert.deepEqual((await ws.req("x".repeat(64), {})).end, ["EOSE", "x".repeat(64)], "64 is fine");
      const binary = relay.clientMessages[0];
      assert.deepEqual([binary.data, binary.message], [new Uint8Array([91, 93]), undefined]);
    });
  });
});

Deno.test("strict relay websocket: a bad filter is CLOSED invalid; search is unsupported", async () => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      const bad: [unknown, string][] = [
        [[], "filter must be an object"],
        [{ ids: ["abc"] }, "ids must be 64-character lowercase hex strings"],
        [{ authors: ["AB".repeat(32)] }, "authors must be 64-character lowercase hex strings"],
        [{ kinds: ["9"] }, "kinds must be integers from 0 to 65535"],
        [{ limit: -1 }, "limit must be a non-negative integer"],
        [{ since: 1.5 }, "since must be a non-negative integer"],
        [{ "#hh": ["x"] }, "tag filter #hh must name a single letter"],
        [{ "#h": [1] }, "#h must be a list of strings"],
      ];
      for (const [filter, problem] of bad) {
        assert.deepEqual((await ws.req("b", {}, filter)).end, [
          "CLOSED",
          "b",
          `invalid: bad filter: ${problem}`,
        ]);
      }
      const search = await ws.req("s", { search: "x" });
      assert.deepEqual(search.end, ["CLOSED", "s", "unsupported: search is switched off on this relay"]);
    });
  });
});

Deno.test("strict relay websocket: EVENT needs AUTH and a valid event, is stored once", async () => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      const [, challenge] = await ws.next("challenge");
      const auth = authEvent(A, relay.wsUrl, challenge as string);
      await expectOk(ws, ["EVENT", auth], false, "blocked: AUTH events use AUTH");
      const ev = signed(A);
      await expectOk(ws, ["EVENT", ev], false, "auth-required: this relay requires AUTH");
      const forged = { ...ev, content: "changed" };
      await expectOk(ws, ["EVENT", forged], false, "invalid: id or signature does not match content");
      await expectOk(ws, ["AUTH", auth], true, "");
      await ws.req("live", { ids: [ev.id] });
      ws.send(["EVENT", ev]);
      assert.deepEqual(await ws.next("the event, live"), ["EVENT", "live", ev]);
      assert.deepEqual(await ws.next("OK"), ["OK", ev.id, true, ""]);
      await expectOk(ws, ["EVENT", ev], true, "duplicate: already have this event");
      assert.deepEqual(relay.events, [ev]);
    });
  });
});

Deno.test("strict relay websocket: EVENT passes the gates, a test's own last", async () => {
  await withRelay({ membersOnly: true, members: [A.pk, B.pk] }, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.auth(A, relay.wsUrl);
      await expectOk(ws, ["EVENT", signed(B, { tags: [["h", "lab"]] })], false, "invalid: unknown room lab");
      relay.members.delete(B.pk);
      const outsider = signed(B);
      await expectOk(ws, ["EVENT", outsider], false, "restricted: not a member of room general");
      const reason = "restricted: agent grant does not cover kind 1";
      relay.setEventGate((e) => (e.kind === 1 ? reason : undefined));
      const note = signed(A, { kind: 1, tags: [] });
      await expectOk(ws, ["EVENT", note], false, reason);
      relay.setEventGate(undefined);
      await expectOk(ws, ["EVENT", note], true, "");
    });
  });
});

Deno.test("strict relay websocket: closeSubscriptions closes every live subscription", async () => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (one) => {
      await withSocket(relay.wsUrl, async (two) => {
        await one.next("challenge");
        await two.next("challenge");
        await one.req("a", {});
        await one.req("b", { kinds: [1] });
        await two.req("a", {});
        assert.equal(relay.closeSubscriptions(), 3);
        const reason = "blocked: relay access policy changed; subscribe again";
        const closedOne = [await one.next("CLOSED"), await one.next("CLOSED")];
        assert.deepEqual(closedOne, [["CLOSED", "a", reason], ["CLOSED", "b", reason]]);
        assert.deepEqual(await two.next("CLOSED"), ["CLOSED", "a", reason]);
        relay.inject(signed(A));
        await one.quiet();
        await two.quiet(0);
        await two.req("c", {});
        const other = "blocked: relay policy changed; subscribe again";
        assert.equal(relay.closeSubscriptions(other), 1);
        assert.deepEqual(await two.next("CLOSED"), ["CLOSED", "c", other]);
      });
    });
  });
});
