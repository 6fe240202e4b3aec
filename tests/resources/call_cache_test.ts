// The list calls kept briefly (lib/resources/call_cache.ts): the same page asked again within the
// bound is not asked of the relay again; calls on their way are shared; failures are never kept;
// what is kept is bounded.

import assert from "node:assert/strict";
import { CACHE_TTL_MS, CallCache } from "../../lib/resources/call_cache.ts";
import { Failed, fakeRelay } from "./fake_relay.ts";

function clock() {
  let now = 1_000_000;
  return { now: () => now, pass: (ms: number) => void (now += ms) };
}

Deno.test("an answer is kept for 10 s, then asked for again", async () => {
  const relay = fakeRelay({ list_rooms: (args) => ({ items: [], asked: args }) });
  const time = clock();
  const cache = new CallCache(relay.call, { now: time.now });
  const first = await cache.get("list_rooms", { limit: 100 });
  assert.deepEqual(first, { ok: true, answer: { items: [], asked: { limit: 100 } } });
  time.pass(CACHE_TTL_MS - 1);
  assert.deepEqual(await cache.get("list_rooms", { limit: 100 }), first);
  assert.equal(relay.count("list_rooms"), 1);
  time.pass(1);
  await cache.get("list_rooms", { limit: 100 });
  assert.equal(relay.count("list_rooms"), 2, "10 s later the relay is asked again");
  assert.equal(CACHE_TTL_MS, 10_000);
});

Deno.test("other arguments or another tool are another call", async () => {
  const relay = fakeRelay({ list_rooms: () => ({ items: [] }), list_wiki: () => ({ items: [] }) });
  const cache = new CallCache(relay.call);
  await cache.get("list_rooms", { limit: 100 });
  await cache.get("list_rooms", { limit: 100, cursor: "dev" });
  await cache.get("list_wiki", { limit: 100 });
  assert.equal(relay.calls.length, 3);
});

Deno.test("calls asked for while the same one is on its way share it", async () => {
  const relay = fakeRelay({ list_rooms: () => ({ items: [] }) });
  const cache = new CallCache(relay.call);
  const all = await Promise.all([1, 2, 3].map(() => cache.get("list_rooms", { limit: 100 })));
  assert.equal(relay.count("list_rooms"), 1);
  assert.deepEqual(all[0], all[2]);
});

Deno.test("a failure is never kept: the next ask goes to the relay", async () => {
  let fail = true;
  const relay = fakeRelay({
    list_rooms: () => fail ? new Failed("relay: rate-limited: x; retry after 1 s", 1) : { items: [] },
  });
  const cache = new CallCache(relay.call);
  assert.equal((await cache.get("list_rooms", {})).ok, false);
  fail = false;
  assert.equal((await cache.get("list_rooms", {})).ok, true);
  assert.equal(relay.count("list_rooms"), 2);
});

Deno.test("at most `entries` answers are kept, the oldest going first", async () => {
  const relay = fakeRelay({ list_rooms: () => ({ items: [] }) });
  const cache = new CallCache(relay.call, { entries: 3 });
  for (const cursor of ["a", "b", "c", "d"]) await cache.get("list_rooms", { cursor });
  await cache.get("list_rooms", { cursor: "d" });
  await cache.get("list_rooms", { cursor: "b" });
  assert.equal(relay.calls.length, 4, "b, c and d are still kept");
  await cache.get("list_rooms", { cursor: "a" });
  assert.equal(relay.calls.length, 5, "a went first");
});
