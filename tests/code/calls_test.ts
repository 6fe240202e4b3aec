// A program's relay calls on their way to the bridge (lib/code/calls.ts), with a bridge the test holds:
// order, at most maxPending in flight, at most maxCalls, and the program's end.

import assert from "node:assert/strict";
import { ANSWER_MAX_BYTES } from "../../lib/code/bridge.ts";
import { callLimitMessage, CallQueue, type CallSink } from "../../lib/code/calls.ts";
import type { CallContext, RelayBridge } from "../../lib/code/program.ts";

interface Held {
  tool: string;
  args: Record<string, unknown>;
  context: CallContext;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

/** A bridge whose calls wait until the test settles them. */
function heldBridge(): RelayBridge & { held: Held[] } {
  const held: Held[] = [];
  return {
    held,
    call: (tool, args, context) =>
      new Promise((resolve, reject) => held.push({ tool, args, context, resolve, reject })),
  };
}

/** A sink that records what the program would see. */
function sink(seen: string[], name: string): CallSink {
  return {
    resolve: (answer) => void seen.push(`${name} ok ${answer}`),
    reject: (message) => void seen.push(`${name} error ${message}`),
  };
}

const turn = () => new Promise((resolve) => setTimeout(resolve, 0));

function queue(bridge: RelayBridge, limits = { maxCalls: 100, maxPending: 8 }) {
  let pauses = 0;
  let settled = 0;
  const calls = new CallQueue(bridge, limits, () => {
    pauses++;
    return () => {};
  }, () => settled++);
  return { calls, pauses: () => pauses, settled: () => settled };
}

Deno.test("CallQueue: calls start in order, at most maxPending at once, the rest as earlier ones settle", async () => {
  const bridge = heldBridge();
  const { calls, settled } = queue(bridge, { maxCalls: 100, maxPending: 3 });
  const seen: string[] = [];
  for (let i = 0; i < 5; i++) {
    assert.equal(calls.request({ tool: `t${i}`, args: { i } }, sink(seen, `t${i}`)), undefined);
  }
  assert.equal(bridge.held.length, 0, "nothing starts during the guest's turn");
  await turn();
  assert.deepEqual(bridge.held.map((call) => call.tool), ["t0", "t1", "t2"]);
  assert.equal(calls.outstanding, 5);
  bridge.held[1].resolve({ n: 1 });
  await turn();
  assert.deepEqual(bridge.held.map((call) => call.tool), ["t0", "t1", "t2", "t3"]);
  assert.deepEqual(seen, ['t1 ok {"n":1}']);
  assert.equal(settled(), 1);
  assert.deepEqual(bridge.held[3].args, { i: 3 });
});

Deno.test("CallQueue: answers, refusals and answers that cannot enter the program", async () => {
  const bridge = heldBridge();
  const { calls } = queue(bridge);
  const seen: string[] = [];
  for (const name of ["a", "b", "c", "d"]) calls.request({ tool: name, args: {} }, sink(seen, name));
  await turn();
  bridge.held[0].resolve(undefined);
  bridge.held[1].reject(new Error("the person said no"));
  bridge.held[2].resolve("x".repeat(ANSWER_MAX_BYTES));
  bridge.held[3].resolve([1, "two"]);
  await turn();
  assert.deepEqual(seen.map((line) => line.slice(0, 56)), [
    "a ok undefined",
    "b error the person said no",
    "c error relay.c: its answer is too large for a program (",
    'd ok [1,"two"]',
  ]);
  assert.deepEqual(calls.records().map(({ tool, state }) => `${tool} ${state}`), [
    "a ok",
    "b error",
    "c ok",
    "d ok",
  ]);
  assert.match(
    calls.records()[2].error ?? "",
    /too large/,
    "the call was made; the program did not get its answer",
  );
});

Deno.test("CallQueue: an answer the guest has no room for: the call was made, its error says why", async () => {
  const bridge = heldBridge();
  const { calls } = queue(bridge);
  calls.request({ tool: "big", args: {} }, { resolve: () => "no room", reject: () => {} });
  await turn();
  bridge.held[0].resolve("x");
  await turn();
  assert.deepEqual(calls.records(), [{ tool: "big", state: "ok", error: "no room" }]);
});

Deno.test("CallQueue: a bridge that throws at once is a refusal the program sees", async () => {
  const { calls } = queue({
    call: () => {
      throw new Error("no such tool");
    },
  });
  const seen: string[] = [];
  calls.request({ tool: "x", args: {} }, sink(seen, "x"));
  await turn();
  assert.deepEqual(seen, ["x error no such tool"]);
});

Deno.test("CallQueue: at most maxCalls accepted; the next is refused with the limit's message", () => {
  const { calls } = queue(heldBridge(), { maxCalls: 2, maxPending: 8 });
  const seen: string[] = [];
  assert.equal(calls.request({ tool: "a", args: {} }, sink(seen, "a")), undefined);
  assert.equal(calls.request({ tool: "b", args: {} }, sink(seen, "b")), undefined);
  assert.equal(calls.limitReached, false);
  assert.equal(calls.request({ tool: "c", args: {} }, sink(seen, "c")), callLimitMessage(2));
  assert.equal(calls.limitReached, true);
  assert.equal(calls.refused, 1);
  assert.equal(calls.records().length, 2);
  calls.refuse();
  assert.equal(calls.refused, 2, "malformed calls are counted too");
});

Deno.test("CallQueue.end: waiting calls never sent, calls in flight aborted, late answers ignored", async () => {
  const bridge = heldBridge();
  const { calls } = queue(bridge, { maxCalls: 100, maxPending: 2 });
  const seen: string[] = [];
  for (const name of ["a", "b", "c", "d"]) calls.request({ tool: name, args: {} }, sink(seen, name));
  await turn();
  bridge.held[0].resolve(1);
  await turn();
  assert.equal(bridge.held.length, 3);
  calls.end("the program timed out");
  assert.equal(bridge.held[1].context.signal.aborted, true);
  assert.equal((bridge.held[1].context.signal.reason as Error).message, "the program timed out");
  bridge.held[1].resolve(2);
  bridge.held[2].reject(new Error("late"));
  await turn();
  assert.equal(bridge.held.length, 3, "the waiting call was never sent");
  assert.deepEqual(seen, ["a ok 1"], "nothing reaches the program after its end");
  assert.deepEqual(calls.records().map((record) => record.state), ["ok", "aborted", "aborted", "not-sent"]);
  assert.equal(calls.request({ tool: "e", args: {} }, sink(seen, "e")), "the program has ended");
});

Deno.test("CallQueue: the bridge's pause reaches the program's clock", async () => {
  const bridge = heldBridge();
  const { calls, pauses } = queue(bridge);
  calls.request({ tool: "write", args: {} }, sink([], "write"));
  await turn();
  bridge.held[0].context.pause();
  assert.equal(pauses(), 1);
});
