// The nearest resource URIs for a wrong one (lib/resources/nearest.ts), compared on what names the
// resource, and the -32602 refusal naming up to three.

import assert from "node:assert/strict";
import { echoedUri, nearestUris, refusal, resourcePart } from "../../lib/resources/nearest.ts";

Deno.test("URIs are compared on what names the resource, not the relay or tenant", () => {
  assert.equal(resourcePart("tiny://relay.example/room/general"), "room/general");
  assert.equal(resourcePart("tiny://h:1/r/acme/room/general?as=json"), "room/general?as=json");
  assert.equal(resourcePart("https://other.example/rooms/general"), "rooms/general");
  const rooms = ["general", "random", "dev", "genesis"].map((id) => `tiny://relay.example/room/${id}`);
  assert.deepEqual(nearestUris("tiny://relay.example/room/genral", rooms), [
    "tiny://relay.example/room/general",
  ]);
  assert.deepEqual(nearestUris("tiny://relay.example/rooms/general", rooms), [
    "tiny://relay.example/room/general",
    "tiny://relay.example/room/genesis",
  ]);
  assert.deepEqual(nearestUris("tiny://x.example/room/gensis", rooms), ["tiny://relay.example/room/genesis"]);
  assert.deepEqual(nearestUris("tiny://relay.example/wiki/nothing-like-it", rooms), []);
});

Deno.test("the refusal: -32602, the words, up to three nearest, and data {uri, nearest, reason}", () => {
  const near = [
    "tiny://h/room/general",
    "tiny://h/room/genesis",
    "tiny://h/room/generic",
    "tiny://h/room/gen",
  ];
  assert.deepEqual(refusal("tiny://h/room/genral", "not-found", "no room genral here.", near), {
    code: -32602,
    message:
      "no room genral here. Nearest that resolve: tiny://h/room/general, tiny://h/room/genesis, tiny://h/room/generic.",
    data: { uri: "tiny://h/room/genral", nearest: near.slice(0, 3), reason: "not-found" },
  });
  assert.equal(
    refusal("u", "syntax", "bad", ["tiny://h/room/a"]).message,
    "bad. Nearest that resolves: tiny://h/room/a.",
  );
  assert.equal(refusal("u", "syntax", "bad", []).message, "bad.");
  // An over-long URI is never echoed whole.
  const long = `tiny://h/${"a".repeat(100_000)}`;
  const refused = refusal(long, "too-long", "too long", []);
  assert.ok(refused.data.uri.length <= 65 + 1, String(refused.data.uri.length));
  assert.ok(!JSON.stringify(refused).includes("a".repeat(100)));
  assert.equal(echoedUri("tiny://h/room/a"), "tiny://h/room/a");
});

Deno.test("a 100 KB URI is compared on its first characters, and matches nothing far from it", () => {
  const big = "x".repeat(100_000);
  assert.deepEqual(
    nearestUris(`tiny://relay.example/room/${big}`, ["tiny://relay.example/room/general"]),
    [],
  );
});
