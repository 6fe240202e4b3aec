// The write budget (lib/oversight/write_budget.ts): at most N writes in the process; a place is
// held from clearance to signing, given back when nothing was signed.

import assert from "node:assert/strict";
import { type Reservation, WriteBudget } from "../../lib/oversight/write_budget.ts";
import { budgetSpentText } from "../support/oversight.ts";

function reserve(budget: WriteBudget): Reservation {
  const place = budget.reserve();
  assert.ok(!("refused" in place), "a place was expected");
  return place;
}

Deno.test("no budget: every write goes ahead", () => {
  const budget = new WriteBudget();
  for (let i = 0; i < 1_000; i++) reserve(budget).spend();
  assert.equal(budget.spent, 1_000);
  assert.equal(budget.refusal(), undefined);
});

Deno.test("--max-writes 2: the third write is refused, in the issue's words", () => {
  const budget = new WriteBudget(2);
  reserve(budget).spend();
  assert.equal(budget.refusal(), undefined);
  reserve(budget).spend();
  assert.equal(budget.refusal(), budgetSpentText(2, 2));
  assert.deepEqual(budget.reserve(), { refused: budgetSpentText(2, 2) });
  assert.equal(budget.spent, 2);
});

Deno.test("a place released gives the write back; a place spends once", () => {
  const budget = new WriteBudget(1);
  const held = reserve(budget);
  // Held, not spent: the next write is refused while this one waits, and the refusal says so.
  assert.match(budget.refusal()!, /0 events signed by this session and 1 more waiting to be signed/);
  held.release();
  held.spend(); // settled already: no effect
  assert.equal(budget.spent, 0);
  const next = reserve(budget);
  next.spend();
  next.spend();
  next.release();
  assert.equal(budget.spent, 1);
  assert.equal(budget.refusal(), budgetSpentText(1, 1));
});
