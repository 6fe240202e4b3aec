// The limits a program runs under (lib/code/program.ts): each a whole number in its range, or a
// RangeError naming the one that is not.

import assert from "node:assert/strict";
import { checkLimits, DEFAULT_LIMITS } from "../../lib/code/program.ts";

Deno.test("the defaults hold, and each limit out of range is named", () => {
  assert.deepEqual(checkLimits(DEFAULT_LIMITS), DEFAULT_LIMITS);
  const refused: [string, number][] = [
    ["wallMs", 0],
    ["wallMs", 10 * 60_000 + 1],
    ["wallMs", 1.5],
    ["memoryBytes", 1024],
    ["maxCalls", -1],
    ["maxPending", 0],
    ["outputBytes", 1023],
    ["outputBytes", Number.NaN],
  ];
  for (const [name, value] of refused) {
    assert.throws(
      () => checkLimits({ ...DEFAULT_LIMITS, [name]: value }),
      (error: unknown) =>
        error instanceof RangeError && error.message.startsWith(`ProgramLimits.${name} must be`),
      `${name} = ${value}`,
    );
  }
  assert.equal(checkLimits({ ...DEFAULT_LIMITS, maxCalls: 0 }).maxCalls, 0, "no call at all is a limit too");
});
