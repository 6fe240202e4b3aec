// The strict relay's websocket messages, shown with Deno's own WebSocket client and events signed by
// nostr-tools: every NOTICE, the message size bound only when set, bad REQs and filters, COUNT and
// NIP-77 on a relay that serves neither, EVENT with or without AUTH judged by the gates (the OK
// before the event's own live delivery), and closeSubscriptions (tinyrelay's relay.go).

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
      await notice(ws, "[]", "error: could not parse message");
      await notice(ws, "null", "error: could not parse message");
      await notice(ws, "[1]", "error: message type must be a string");
      await notice(ws, "[null]", "error: unknown message type ");
      await notice(ws, ["PING"], "error: unknown message type PING");
      await notice(ws, ["EVENT"], "error: EVENT needs an event");
      await notice(ws, ["REQ", "only-an-id"], "error: REQ needs an id and at least one filter");
      await notice(ws, ["REQ"], "error: REQ needs an id and at least one filter");
      await notice(ws, ["COUNT", "c"], "error: COUNT needs an id and at least one filter");
      await notice(ws, ["REQ", "", {}], "error: bad subscription id");
      await notice(ws, ["REQ", "x".repeat(65), {}], "error: bad subscription id");
      // 33 characters, but 66 bytes: the bound is Go's len(), in bytes.
      await notice(ws, ["REQ", "\u00e9".repeat(33), {}], "error: bad subscription id");
      await notice(ws, ["REQ", 7, {}], "error: bad subscription id");
      ws.send(["CLOSE"]);
      ws.send(["CLOSE", 7]);
      ws.send(["CLOSE", "never-opened"]);
      await ws.quiet();
      const fine = async (id: string) =>
        assert.deepEqual((await ws.req(id, {})).end, ["EOSE", id, ["finish", "auth"]]);
      await fine("x".repeat(64));
      await fine("\u00e9".repeat(32));
      const binary = relay.clientMessages[0];
      assert.deepEqual([binary.data, binary.message], [new Uint8Array([91, 93]), undefined]);
    });
  });
});

Deno.test("strict relay websocket: no size bound unless the operator sets one", async () => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      const big = { kinds: [9], "#t": ["a".repeat(2 * 1024 * 1024)] };
      assert.deepEqual((await ws.req("big", big)).end, ["EOSE", "big", ["finish"]]);
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

Deno.test("strict relay websocket: COUNT and NIP-77 on a relay that serves neither", async (t) => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      await t.step("COUNT: checked as a REQ, then refused; it ends a subscription of its id", async () => {
        const off = "error: count failed: unsupported: COUNT is switched off on this relay";
        ws.send(["COUNT", "c", { kinds: [9] }]);
        assert.deepEqual(await ws.next("COUNT's CLOSED"), ["CLOSED", "c", off]);
        ws.send(["COUNT", "c", []]);
        assert.deepEqual(await ws.next("a bad filter"), [
          "CLOSED",
          "c",
          "invalid: bad filter: filter must be an object",
        ]);
        await ws.req("a", { kinds: [9] });
        ws.send(["COUNT", "a", {}]);
        assert.deepEqual(await ws.next("COUNT's CLOSED"), ["CLOSED", "a", off]);
        relay.inject(signed(A));
        await ws.quiet();
      });
      await t.step("NEG-OPEN, NEG-MSG, NEG-CLOSE: NEG-ERR in the relay's order, or nothing", async () => {
        const cases: [unknown[], unknown[]][] = [
          [["NEG-OPEN"], ["NEG-ERR", "", "error: NEG-OPEN needs a subscription id"]],
          [["NEG-MSG", 5], ["NEG-ERR", "", "error: bad subscription id"]],
          [["NEG-OPEN", "n", {}], ["NEG-ERR", "n", "error: NEG-OPEN needs a filter and a message"]],
          [["NEG-OPEN", "n", [], "zz"], ["NEG-ERR", "n", "invalid: bad filter: filter must be an object"]],
          [["NEG-OPEN", "n", {}, "abc"], ["NEG-ERR", "n", "invalid: message must be hex"]],
          [["NEG-OPEN", "n", {}, "61Ff"], [
            "NEG-ERR",
            "n",
            "unsupported: sync is switched off on this relay",
          ]],
          [["NEG-MSG", "n"], ["NEG-ERR", "n", "error: NEG-MSG needs a message"]],
          [["NEG-MSG", "n", 61], ["NEG-ERR", "n", "invalid: message must be hex"]],
          [["NEG-MSG", "n", "61"], ["NEG-ERR", "n", "closed: no such sync, send NEG-OPEN first"]],
        ];
        for (const [message, answer] of cases) {
          ws.send(message);
          assert.deepEqual(await ws.next(JSON.stringify(message)), answer);
        }
        ws.send(["NEG-CLOSE", "n"]);
        await ws.quiet();
      });
    });
  });
});

Deno.test("strict relay websocket: EVENT with or without AUTH, judged by the gates; stored once", async () => {
  await withRelay({}, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      const [, challenge] = await ws.next("challenge");
      const auth = authEvent(A, relay.wsUrl, challenge as string);
      await expectOk(ws, ["EVENT", auth], false, "blocked: AUTH events use AUTH");
      const forged = { ...signed(A), content: "changed" };
      await expectOk(ws, ["EVENT", forged], false, "invalid: id or signature does not match content");
      await expectOk(ws, ["EVENT", null], false, "invalid: missing id");
      await expectOk(ws, ["EVENT", { id: "abc" }], false, "invalid: missing pubkey");
      await expectOk(
        ws,
        ["EVENT", "x"],
        false,
        "invalid event JSON: json: cannot unmarshal string into Go value of type map[string]json.RawMessage",
      );
      const mine = signed(A, { tags: [["h", "general"], ["-"]], content: "mine alone" });
      await expectOk(
        ws,
        ["EVENT", mine],
        false,
        "auth-required: this event may only be published by its author",
      );
      await ws.req("live", { kinds: [9] });
      const ev = signed(A);
      ws.send(["EVENT", ev]);
      assert.deepEqual(await ws.next("OK, without AUTH"), ["OK", ev.id, true, ""]);
      assert.deepEqual(await ws.next("then the event, live"), ["EVENT", "live", ev]);
      await expectOk(ws, ["EVENT", ev], true, "duplicate: already have this event");
      await ws.quiet();
      await expectOk(ws, ["AUTH", authEvent(B, relay.wsUrl, challenge as string)], true, "");
      await expectOk(
        ws,
        ["EVENT", mine],
        false,
        "auth-required: this event may only be published by its author",
      );
      await expectOk(ws, ["AUTH", auth], true, "");
      await expectOk(ws, ["EVENT", mine], true, "");
      assert.deepEqual(await ws.next("mine, live"), ["EVENT", "live", mine]);
      assert.deepEqual(relay.events, [ev, mine]);
    });
  });
});

Deno.test("strict relay websocket: EVENT passes the gates, a test's own last", async () => {
  await withRelay({ membersOnly: true, members: [A.pk, B.pk], rooms: ["general", "lab"] }, async (relay) => {
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.auth(A, relay.wsUrl);
      // Members hold the default grant: room general. The grant is judged before the room.
      const grant = "restricted: agent grant does not allow room lab";
      await expectOk(ws, ["EVENT", signed(B, { tags: [["h", "lab"]] })], false, grant);
      await expectOk(
        ws,
        ["EVENT", signed(A, { kind: 1, tags: [] })],
        false,
        "restricted: agent grant does not allow kind 1",
      );
      relay.members.delete(B.pk);
      await expectOk(ws, ["EVENT", signed(B)], false, "restricted: not a member of room general");
      const policy = "blocked: this event is not allowed by the relay write policy";
      await expectOk(ws, ["EVENT", signed(B, { kind: 1, tags: [] })], false, policy);
      const reason = "restricted: a test's own gate";
      relay.setEventGate((e) => (e.content === "gated" ? reason : undefined));
      const gated = signed(A, { content: "gated" });
      await expectOk(ws, ["EVENT", gated], false, reason);
      relay.setEventGate(undefined);
      await expectOk(ws, ["EVENT", gated], true, "");
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
