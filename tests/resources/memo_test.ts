// A few results kept by their input (lib/resources/memo.ts): what was kept is given back, the least
// recently used goes first once there are more than its size.

import assert from "node:assert/strict";
import { Memo } from "../../lib/resources/memo.ts";

Deno.test("what is kept is given back; what is not, is not", () => {
  const memo = new Memo<number>(3);
  assert.equal(memo.set("a", 1), 1);
  assert.equal(memo.get("a"), 1);
  assert.equal(memo.get("b"), undefined);
});

Deno.test("past its size, the least recently used goes", () => {
  const memo = new Memo<number>(2);
  memo.set("a", 1);
  memo.set("b", 2);
  memo.get("a"); // a is now the most recently used
  memo.set("c", 3);
  assert.deepEqual([memo.get("a"), memo.get("b"), memo.get("c")], [1, undefined, 3]);
  memo.set("a", 10); // set again: replaced, not kept twice
  memo.set("d", 4);
  assert.deepEqual([memo.get("a"), memo.get("c"), memo.get("d")], [10, undefined, 4]);
});
