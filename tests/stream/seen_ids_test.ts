// The ids a subscription has passed on (lib/stream/seen_ids.ts): has/add, the bound that forgets the
// oldest first, and the count of what was forgotten.

import assert from "node:assert/strict";
import { SEEN_LIMIT, SeenIds } from "../../lib/stream/seen_ids.ts";

const id = (n: number) => n.toString(16).padStart(64, "0");

Deno.test("has and add", () => {
  const seen = new SeenIds();
  assert.equal(seen.limit, SEEN_LIMIT);
  assert.equal(seen.has(id(1)), false);
  seen.add(id(1));
  assert.equal(seen.has(id(1)), true);
  assert.equal(seen.has(id(2)), false);
  seen.add(id(1));
  assert.equal(seen.has(id(1)), true);
  assert.equal(seen.forgotten, 0);
});

Deno.test("the bound forgets the oldest first, and counts", async (t) => {
  await t.step("a limit of 3", () => {
    const seen = new SeenIds(3);
    for (const n of [1, 2, 3]) seen.add(id(n));
    assert.equal(seen.forgotten, 0);
    assert.deepEqual([1, 2, 3].map((n) => seen.has(id(n))), [true, true, true]);
    seen.add(id(4));
    assert.deepEqual([1, 2, 3, 4].map((n) => seen.has(id(n))), [false, true, true, true]);
    assert.equal(seen.forgotten, 1);
    seen.add(id(5));
    assert.deepEqual([1, 2, 3, 4, 5].map((n) => seen.has(id(n))), [false, false, true, true, true]);
    assert.equal(seen.forgotten, 2);
  });
  await t.step("adding an id already held forgets nothing and does not count", () => {
    const seen = new SeenIds(2);
    seen.add(id(1));
    seen.add(id(2));
    seen.add(id(2));
    seen.add(id(1));
    assert.equal(seen.forgotten, 0);
    assert.ok(seen.has(id(1)) && seen.has(id(2)));
  });
  await t.step("the oldest is the first added, whatever was added again since", () => {
    const seen = new SeenIds(2);
    seen.add(id(1));
    seen.add(id(2));
    seen.add(id(1));
    seen.add(id(3));
    assert.deepEqual([1, 2, 3].map((n) => seen.has(id(n))), [false, true, true]);
  });
  await t.step("a forgotten id is new again when it comes back", () => {
    const seen = new SeenIds(1);
    seen.add(id(1));
    seen.add(id(2));
    assert.equal(seen.has(id(1)), false);
    seen.add(id(1));
    assert.equal(seen.has(id(1)), true);
    assert.equal(seen.has(id(2)), false);
    assert.equal(seen.forgotten, 2);
  });
  await t.step(`the default limit, ${SEEN_LIMIT}`, () => {
    const seen = new SeenIds();
    for (let n = 0; n < SEEN_LIMIT; n++) seen.add(id(n));
    assert.equal(seen.forgotten, 0);
    assert.ok(seen.has(id(0)));
    seen.add(id(SEEN_LIMIT));
    assert.equal(seen.forgotten, 1);
    assert.equal(seen.has(id(0)), false);
    assert.ok(seen.has(id(1)) && seen.has(id(SEEN_LIMIT)));
    for (let n = SEEN_LIMIT + 1; n < SEEN_LIMIT + 100; n++) seen.add(id(n));
    assert.equal(seen.forgotten, 100);
    assert.equal(seen.has(id(99)), false);
    assert.equal(seen.has(id(100)), true);
  });
});
