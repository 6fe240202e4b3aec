// The NIP-42 answer to a relay's challenge (lib/stream/nip42.ts), rpc-facts.md 4.5: kind 22242, the
// time given, empty content, tags exactly `relay` then `challenge`; signed with nostr-tools it verifies.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { AUTH_EVENT_KIND, authTemplate } from "../../lib/stream/nip42.ts";

const RELAY = "wss://relay.example.test/r/acme";

Deno.test("the template", () => {
  assert.equal(AUTH_EVENT_KIND, 22242);
  const template = authTemplate(RELAY, "0a1b2c3d4e5f60718293a4b5c6d7e8f9", 1_700_000_000);
  assert.deepEqual(template, {
    kind: 22242,
    created_at: 1_700_000_000,
    tags: [["relay", RELAY], ["challenge", "0a1b2c3d4e5f60718293a4b5c6d7e8f9"]],
    content: "",
  });
  assert.deepEqual(Object.keys(template).sort(), ["content", "created_at", "kind", "tags"]);
});

Deno.test("the relay URL and the challenge are written as given", async (t) => {
  const cases: [string, string][] = [
    ["ws://127.0.0.1:7777", "x"],
    ["wss://relay.example.test", ""],
    [RELAY, 'a "quoted" challenge\nwith <odd> characters ✓'],
  ];
  for (const [relay, challenge] of cases) {
    await t.step(`${relay} ${JSON.stringify(challenge)}`, () => {
      const { tags } = authTemplate(relay, challenge, 1);
      assert.deepEqual(tags, [["relay", relay], ["challenge", challenge]]);
      assert.deepEqual(tags.map(([name]) => name), ["relay", "challenge"]);
      assert.ok(tags.every((tag) => tag.length === 2));
    });
  }
});

Deno.test("signed with nostr-tools, it verifies as the key's AUTH event", () => {
  const secret = generateSecretKey();
  const now = Math.floor(Date.now() / 1000);
  const event = finalizeEvent(authTemplate(RELAY, "challenge-1", now), secret);
  assert.ok(verifyEvent(event));
  assert.equal(event.pubkey, getPublicKey(secret));
  assert.equal(event.kind, 22242);
  assert.equal(event.created_at, now);
  assert.equal(event.content, "");
  assert.deepEqual(event.tags, [["relay", RELAY], ["challenge", "challenge-1"]]);
});
