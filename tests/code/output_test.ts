// A program's output budget (lib/code/output.ts): log lines kept in order while they fit, the rest
// counted; the returned value first at the end; a runaway writer told to stop.

import assert from "node:assert/strict";
import { cutToBytes, OutputBudget, RUNAWAY_FACTOR } from "../../lib/code/output.ts";

const bytes = (text: string) => new TextEncoder().encode(text).length;
const line = (text: string, level = "log") => ({ level, text });

Deno.test("OutputBudget: lines kept while they fit, then the rest only counted", async (t) => {
  await t.step("lines within the budget are all kept, in order, with their level", () => {
    const budget = new OutputBudget(100);
    budget.add(line("one"));
    budget.add(line("two", "warn"));
    assert.deepEqual(budget.finish(), { logs: [line("one"), line("two", "warn")], logsDropped: 0 });
  });
  await t.step("once a line does not fit, it and every later one are counted, never kept", () => {
    const budget = new OutputBudget(10);
    budget.add(line("12345"));
    budget.add(line("1234567"));
    budget.add(line("1"));
    assert.deepEqual(budget.finish(), { logs: [line("12345")], logsDropped: 2 });
  });
  await t.step("bytes are UTF-8 bytes", () => {
    const budget = new OutputBudget(8);
    budget.add(line("éééé"));
    budget.add(line("é"));
    assert.deepEqual(budget.finish(), { logs: [line("éééé")], logsDropped: 1 });
  });
});

Deno.test("OutputBudget.finish: the value comes first, cut when over the whole budget", async (t) => {
  await t.step("a value that fits beside the lines: parsed, every line kept", () => {
    const budget = new OutputBudget(100);
    budget.add(line("hello"));
    assert.deepEqual(budget.finish('{"a":1}'), { value: { a: 1 }, logs: [line("hello")], logsDropped: 0 });
  });
  await t.step("lines trimmed from the last until the value fits", () => {
    const budget = new OutputBudget(20);
    for (const text of ["aaaa", "bbbb", "cccc"]) budget.add(line(text));
    const value = JSON.stringify("x".repeat(8)); // 10 bytes: 10 + 8 ≤ 20 keeps two lines
    assert.deepEqual(budget.finish(value), {
      value: "xxxxxxxx",
      logs: [line("aaaa"), line("bbbb")],
      logsDropped: 1,
    });
  });
  await t.step("a value over the budget: its JSON text cut to the budget, said, every line dropped", () => {
    const budget = new OutputBudget(11);
    budget.add(line("a"));
    const out = budget.finish(JSON.stringify("é".repeat(20)));
    assert.equal(out.valueTruncated, true);
    assert.equal(out.value, '"ééééé', "11 bytes: the quote and five two-byte characters");
    assert.ok(bytes(out.value as string) <= 11);
    assert.ok(JSON.stringify("é".repeat(20)).startsWith(out.value as string));
    assert.deepEqual([out.logs, out.logsDropped], [[], 1]);
  });
  await t.step("a value cut inside the guest (its length longer than its text) is said as cut", () => {
    const out = new OutputBudget(100).finish('"abc', 1_000_000);
    assert.deepEqual(out, { value: '"abc', valueTruncated: true, logs: [], logsDropped: 0 });
  });
  await t.step("no value: none in the outcome", () => {
    assert.equal("value" in new OutputBudget(10).finish(), false);
  });
});

Deno.test("OutputBudget.skip: a line that could not be read is counted, and so is every later one", () => {
  const budget = new OutputBudget(100);
  budget.add(line("a"));
  budget.skip();
  budget.add(line("b"));
  assert.deepEqual(budget.finish(), { logs: [line("a")], logsDropped: 2 });
});

Deno.test("OutputBudget.add: false once the program wrote a runaway's worth", () => {
  const budget = new OutputBudget(1000);
  const results: boolean[] = [];
  for (let i = 0; i < RUNAWAY_FACTOR + 1; i++) results.push(budget.add(line("x".repeat(1000))));
  assert.deepEqual(results, [...Array(RUNAWAY_FACTOR).fill(true), false]);
});

Deno.test("cutToBytes: at most the bytes, on a character boundary", async (t) => {
  const cases: [string, number, string][] = [
    ["short", 10, "short"],
    ["abcdef", 3, "abc"],
    ["éé", 3, "é"],
    ["😀x", 3, ""],
    ["😀x", 4, "😀"],
  ];
  for (const [text, limit, expected] of cases) {
    await t.step(
      `${JSON.stringify(text)} to ${limit}`,
      () => assert.equal(cutToBytes(text, limit), expected),
    );
  }
});
