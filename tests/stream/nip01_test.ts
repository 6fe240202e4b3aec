// The relay's websocket messages (lib/stream/nip01.ts), rpc-facts.md 4.4 and NIP-01/NIP-42: each
// message type read, every malformed or unknown shape ignored, the REQ/CLOSE/AUTH frames, and the
// shape of a signed event (checked member by member) reduced to its seven members in order.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey } from "nostr-tools/pure";
import {
  authFrame,
  closeFrame,
  isSignedEventShape,
  parseRelayMessage,
  reqFrame,
  signedEventOf,
} from "../../lib/stream/nip01.ts";

function signed() {
  const event = finalizeEvent(
    { kind: 9, created_at: 1_700_000_000, tags: [["h", "general"], ["p", "ab".repeat(32)]], content: "hi" },
    generateSecretKey(),
  );
  // As it arrives from the relay: JSON, nothing nostr-tools added.
  return JSON.parse(JSON.stringify(event));
}

Deno.test("each relay message type", async (t) => {
  const event = signed();
  const cases: [string, string, unknown][] = [
    ["EVENT", JSON.stringify(["EVENT", "tinyagent", event]), {
      type: "EVENT",
      subscription: "tinyagent",
      event,
    }],
    ["EVENT with anything as the event", '["EVENT","s",5]', { type: "EVENT", subscription: "s", event: 5 }],
    ["EOSE", '["EOSE","s"]', { type: "EOSE", subscription: "s" }],
    ["EOSE with hints", '["EOSE","s",["wss://x"]]', { type: "EOSE", subscription: "s" }],
    ["CLOSED", '["CLOSED","s","auth-required: this relay requires AUTH"]', {
      type: "CLOSED",
      subscription: "s",
      reason: "auth-required: this relay requires AUTH",
    }],
    ["CLOSED without a reason", '["CLOSED","s"]', { type: "CLOSED", subscription: "s", reason: "" }],
    ["CLOSED with a reason not a string", '["CLOSED","s",5]', {
      type: "CLOSED",
      subscription: "s",
      reason: "",
    }],
    ["OK true", `["OK","${"cd".repeat(32)}",true,""]`, {
      type: "OK",
      id: "cd".repeat(32),
      accepted: true,
      reason: "",
    }],
    ["OK false", '["OK","x",false,"blocked: AUTH events use AUTH"]', {
      type: "OK",
      id: "x",
      accepted: false,
      reason: "blocked: AUTH events use AUTH",
    }],
    ["OK without a reason", '["OK","x",true]', { type: "OK", id: "x", accepted: true, reason: "" }],
    ["OK with a reason not a string", '["OK","x",false,7]', {
      type: "OK",
      id: "x",
      accepted: false,
      reason: "",
    }],
    ["AUTH", `["AUTH","${"0a".repeat(16)}"]`, { type: "AUTH", challenge: "0a".repeat(16) }],
    ["AUTH with a challenge not a string, passed on", '["AUTH",{"c":1}]', {
      type: "AUTH",
      challenge: { c: 1 },
    }],
    ["NOTICE", '["NOTICE","error: bad subscription id"]', {
      type: "NOTICE",
      message: "error: bad subscription id",
    }],
    ["NOTICE with a number", '["NOTICE",5]', { type: "NOTICE", message: "5" }],
    ["NOTICE with an object", '["NOTICE",{"a":[1]}]', { type: "NOTICE", message: '{"a":[1]}' }],
    ["NOTICE with null", '["NOTICE",null]', { type: "NOTICE", message: "null" }],
    ["whitespace around", ' [ "EOSE" , "s" ] \n', { type: "EOSE", subscription: "s" }],
  ];
  for (const [name, text, expected] of cases) {
    await t.step(name, () => assert.deepEqual(parseRelayMessage(text), expected));
  }
});

Deno.test("frames the helper ignores", async (t) => {
  const event = JSON.stringify(signed());
  const cases: [string, string][] = [
    ["not JSON", "EVENT"],
    ["empty", ""],
    ["truncated", '["EVENT","s",'],
    ["an object", '{"type":"EVENT"}'],
    ["a string", '"EVENT"'],
    ["an empty array", "[]"],
    ["a type alone", '["EOSE"]'],
    ["an AUTH without a challenge", '["AUTH"]'],
    ["a NOTICE without a message", '["NOTICE"]'],
    ["a type that is not a string", '[5,"s"]'],
    ["a null type", '[null,"s"]'],
    ["EVENT of two elements", '["EVENT","s"]'],
    ["EVENT of four elements", `["EVENT","s",${event},{}]`],
    ["EVENT with a subscription that is not a string", `["EVENT",5,${event}]`],
    ["EVENT with a null subscription", `["EVENT",null,${event}]`],
    ["EOSE with a subscription that is not a string", '["EOSE",1]'],
    ["CLOSED with a subscription that is not a string", '["CLOSED",["s"],"x"]'],
    ["OK without a verdict", '["OK","x"]'],
    ["OK with a string verdict", '["OK","x","true",""]'],
    ["OK with a number verdict", '["OK","x",1,""]'],
    ["OK with an id that is not a string", '["OK",5,true,""]'],
    ["COUNT", '["COUNT","s",{"count":3}]'],
    ["NEG-MSG", '["NEG-MSG","s","6100"]'],
    ["NEG-ERR", '["NEG-ERR","s","closed"]'],
    ["a lowercase type", `["event","s",${event}]`],
    ["an unknown type", '["HELLO","s"]'],
  ];
  for (const [name, text] of cases) {
    await t.step(name, () => {
      const message = parseRelayMessage(text);
      assert.equal(message.type, "ignored", JSON.stringify(message));
      assert.equal(typeof (message as { why: string }).why, "string");
    });
  }
  await t.step("an unknown type is named at most 20 characters long", () => {
    const message = parseRelayMessage(JSON.stringify(["X".repeat(1000), "s"]));
    assert.equal(message.type, "ignored");
    assert.ok((message as { why: string }).why.length < 60, (message as { why: string }).why);
  });
});

Deno.test("the frames the helper sends", async (t) => {
  await t.step("REQ: each filter its own element, as given", () => {
    const filters = [{ ids: ["a"], "#h": ["general"], limit: 1 }, { kinds: [43004, 43005], "#e": ["b"] }];
    const frame = reqFrame("tinyagent-query", filters);
    assert.equal(
      frame,
      '["REQ","tinyagent-query",{"ids":["a"],"#h":["general"],"limit":1},{"kinds":[43004,43005],"#e":["b"]}]',
    );
    assert.deepEqual(JSON.parse(frame), ["REQ", "tinyagent-query", ...filters]);
  });
  await t.step("REQ with one filter", () => {
    assert.equal(reqFrame("tinyagent", [{ kinds: [9] }]), '["REQ","tinyagent",{"kinds":[9]}]');
  });
  await t.step("REQ with none", () => assert.equal(reqFrame("q", []), '["REQ","q"]'));
  await t.step("CLOSE", () => assert.equal(closeFrame("tinyagent"), '["CLOSE","tinyagent"]'));
  await t.step("AUTH carries the signed event", () => {
    const event = signed();
    assert.deepEqual(JSON.parse(authFrame(event)), ["AUTH", event]);
  });
});

Deno.test("isSignedEventShape", async (t) => {
  const good = signed();
  await t.step("a nostr-tools-signed event", () => {
    assert.equal(isSignedEventShape(good), true);
    assert.equal(
      isSignedEventShape(
        finalizeEvent({ kind: 0, created_at: 0, tags: [], content: "" }, generateSecretKey()),
      ),
      true,
    );
  });
  await t.step("extra members do not matter to the shape", () => {
    assert.equal(isSignedEventShape({ ...good, relay: "x" }), true);
  });
  const broken: [string, Record<string, unknown>][] = [
    ["an uppercase id", { id: good.id.toUpperCase() }],
    ["a short id", { id: good.id.slice(1) }],
    ["an id not hex", { id: `${good.id.slice(1)}g` }],
    ["an uppercase pubkey", { pubkey: good.pubkey.toUpperCase() }],
    ["a long pubkey", { pubkey: `${good.pubkey}0` }],
    ["an uppercase sig", { sig: good.sig.toUpperCase() }],
    ["a short sig", { sig: good.sig.slice(2) }],
    ["a sig of 127 characters", { sig: good.sig.slice(1) }],
    ["a long sig", { sig: `${good.sig}00` }],
    ["a float kind", { kind: 9.5 }],
    ["kind 70000", { kind: 70_000 }],
    ["kind 65536", { kind: 65_536 }],
    ["a negative kind", { kind: -1 }],
    ["a string kind", { kind: "9" }],
    ["a negative created_at", { created_at: -1 }],
    ["a float created_at", { created_at: 1.5 }],
    ["a string created_at", { created_at: "1700000000" }],
    ["created_at past 2^53", { created_at: 2 ** 53 }],
    ["a tag item not a string", { tags: [["h", 5]] }],
    ["a null tag item", { tags: [["h", null]] }],
    ["a tag not an array", { tags: ["h"] }],
    ["tags not an array", { tags: {} }],
    ["content not a string", { content: 5 }],
    ["content null", { content: null }],
  ];
  for (const [name, change] of broken) {
    await t.step(name, () => assert.equal(isSignedEventShape({ ...good, ...change }), false));
  }
  for (const member of ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"]) {
    await t.step(`missing ${member}`, () => {
      const event = { ...good };
      delete event[member];
      assert.equal(isSignedEventShape(event), false);
    });
  }
  for (const value of [null, undefined, "event", 5, [good]]) {
    await t.step(
      `not an object: ${JSON.stringify(value)}`,
      () => assert.equal(isSignedEventShape(value), false),
    );
  }
});

Deno.test("signedEventOf: the seven members alone, in the NIP-01 order", () => {
  const good = signed();
  const fromRelay = {
    sig: good.sig,
    seen: true,
    tags: good.tags,
    content: good.content,
    kind: good.kind,
    created_at: good.created_at,
    relay: "wss://elsewhere.example",
    pubkey: good.pubkey,
    id: good.id,
  };
  const event = signedEventOf(fromRelay);
  assert.deepEqual(Object.keys(event), ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"]);
  assert.deepEqual(event, good);
  assert.equal(
    JSON.stringify(event),
    `{"id":"${good.id}","pubkey":"${good.pubkey}","created_at":1700000000,"kind":9,` +
      `"tags":${JSON.stringify(good.tags)},"content":"hi","sig":"${good.sig}"}`,
  );
});
