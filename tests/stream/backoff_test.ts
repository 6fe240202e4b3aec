// The wait before a subscription reconnects (lib/stream/backoff.ts), rpc-facts.md 3.4 and 8.2:
// 1, 2, 4, 8, 16, 30, 30 s; back to 1 s only after a connection that stayed up HEALTHY_MS or longer.

import assert from "node:assert/strict";
import { Backoff, FIRST_WAIT_MS, HEALTHY_MS, LONGEST_WAIT_MS } from "../../lib/stream/backoff.ts";

const SCHEDULE = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000];

const waits = (backoff: Backoff, count: number) => Array.from({ length: count }, () => backoff.next());

Deno.test("the constants", () => {
  assert.equal(FIRST_WAIT_MS, 1_000);
  assert.equal(LONGEST_WAIT_MS, 30_000);
  assert.equal(HEALTHY_MS, 30_000);
});

Deno.test("1 s, doubling, capped at 30 s", () => {
  assert.deepEqual(waits(new Backoff(), SCHEDULE.length), SCHEDULE);
});

Deno.test("ended(upMs)", async (t) => {
  await t.step("a short-lived connection does not reset the waits", () => {
    for (const upMs of [0, 1, 5_000, HEALTHY_MS - 1]) {
      const backoff = new Backoff();
      waits(backoff, 3);
      backoff.ended(upMs);
      assert.deepEqual(waits(backoff, 4), [8_000, 16_000, 30_000, 30_000], `up ${upMs} ms`);
    }
  });
  await t.step("a healthy one resets them to 1 s", () => {
    for (const upMs of [HEALTHY_MS, HEALTHY_MS + 1, 3_600_000]) {
      const backoff = new Backoff();
      waits(backoff, 7);
      backoff.ended(upMs);
      assert.deepEqual(waits(backoff, SCHEDULE.length), SCHEDULE, `up ${upMs} ms`);
    }
  });
  await t.step("from the cap, a short one keeps it at 30 s", () => {
    const backoff = new Backoff();
    waits(backoff, 6);
    backoff.ended(HEALTHY_MS - 1);
    assert.equal(backoff.next(), 30_000);
  });
  await t.step("before any wait, ended changes nothing", () => {
    const backoff = new Backoff();
    backoff.ended(HEALTHY_MS);
    backoff.ended(0);
    assert.deepEqual(waits(backoff, 3), [1_000, 2_000, 4_000]);
  });
  await t.step("a reset, then failures again, doubles again", () => {
    const backoff = new Backoff();
    waits(backoff, 5);
    backoff.ended(HEALTHY_MS);
    assert.deepEqual(waits(backoff, 2), [1_000, 2_000]);
    backoff.ended(10);
    assert.deepEqual(waits(backoff, 2), [4_000, 8_000]);
  });
});
