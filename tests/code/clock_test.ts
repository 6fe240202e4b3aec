// A program's wall clock (lib/code/clock.ts) on a clock the test moves: pauses stop it, overlapping
// pauses hold it until the last ends, a resume counts once, and guest time during a pause is charged.

import assert from "node:assert/strict";
import { ProgramClock } from "../../lib/code/clock.ts";

function fakeTime() {
  let now = 1000;
  return { now: () => now, advance: (ms: number) => now += ms };
}

Deno.test("ProgramClock: time runs, stops while paused, and the deadline is the limit", () => {
  const time = fakeTime();
  const clock = new ProgramClock(300, time.now);
  time.advance(100);
  assert.equal(clock.used(), 100);
  const resume = clock.pause();
  time.advance(10_000);
  assert.equal(clock.used(), 100, "a person's time does not count");
  assert.equal(clock.expired(), false);
  resume();
  time.advance(150);
  assert.equal(clock.remaining(), 50);
  time.advance(60);
  assert.equal(clock.remaining(), 0);
  assert.equal(clock.expired(), true);
});

Deno.test("ProgramClock: overlapping pauses hold it until the last ends; a resume counts once", () => {
  const time = fakeTime();
  const clock = new ProgramClock(1000, time.now);
  const first = clock.pause();
  const second = clock.pause();
  time.advance(500);
  first();
  first();
  assert.equal(clock.paused, true, "a second resume of the same pause does not end the other");
  time.advance(500);
  assert.equal(clock.used(), 0);
  second();
  time.advance(200);
  assert.equal(clock.used(), 200);
});

Deno.test("ProgramClock: guest time during a pause is charged; outside one it is already counted", () => {
  const time = fakeTime();
  const clock = new ProgramClock(1000, time.now);
  clock.charge(50);
  assert.equal(clock.used(), 0);
  const resume = clock.pause();
  clock.charge(70);
  assert.equal(clock.used(), 70);
  resume();
  assert.equal(clock.used(), 70);
});

Deno.test("ProgramClock.onChange: told when it stops and starts, until removed", () => {
  const clock = new ProgramClock(1000, fakeTime().now);
  let changes = 0;
  const remove = clock.onChange(() => changes++);
  const resume = clock.pause();
  resume();
  remove();
  clock.pause();
  assert.equal(changes, 2);
});
