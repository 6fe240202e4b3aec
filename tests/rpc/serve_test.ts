// The helper's loop (rpc-facts.md 2.3, 2.4), in process with a scripted dispatch: answers in
// completion order with the ids as written, at most 32 calls at once with no input read past them,
// each call bounded and answered once, refusals for lines that are not requests (and for lines that
// hold the key, unechoed), and at end of input every call answered before the streams end.

import assert from "node:assert/strict";
import { LineWriter } from "../../lib/host/stdio.ts";
import type { RpcRequest } from "../../lib/rpc/lines.ts";
import { type Dispatch, HOLDS_KEY, MAX_IN_FLIGHT, RpcError, serveRpc } from "../../lib/rpc/serve.ts";
import { within } from "../support/waits.ts";

const encoder = new TextEncoder();
const KEY = "ab".repeat(32);

/** An input whose lines are given one at a time by the test; counts how many it was asked for. */
class Input implements AsyncIterable<Uint8Array> {
  #queue: (string | null)[] = [];
  #wake: (() => void) | undefined;
  pulls = 0;
  push(...lines: string[]): void {
    this.#queue.push(...lines.map((line) => `${line}\n`));
    this.#wake?.();
  }
  end(): void {
    this.#queue.push(null);
    this.#wake?.();
  }
  async *[Symbol.asyncIterator](): AsyncGenerator<Uint8Array> {
    for (;;) {
      this.pulls++;
      while (this.#queue.length === 0) await new Promise<void>((resolve) => this.#wake = resolve);
      const next = this.#queue.shift()!;
      if (next === null) return;
      yield encoder.encode(next);
    }
  }
}

/** Lines written, parsed, with a way to wait for a count of them. */
class Output {
  lines: Record<string, unknown>[] = [];
  raw: string[] = [];
  #waiters: (() => void)[] = [];
  writer = new LineWriter({
    write: (bytes: Uint8Array) => {
      for (const line of new TextDecoder().decode(bytes).split("\n").filter(Boolean)) {
        this.raw.push(line);
        this.lines.push(JSON.parse(line));
      }
      for (const wake of this.#waiters.splice(0)) wake();
      return Promise.resolve();
    },
  });
  async count(n: number): Promise<void> {
    while (this.lines.length < n) await new Promise<void>((resolve) => this.#waiters.push(resolve));
  }
}

/** A dispatch whose calls wait until the test settles them. */
class Scripted implements Dispatch {
  started: RpcRequest[] = [];
  signals: AbortSignal[] = [];
  #pending = new Map<string, { resolve(value: unknown): void; reject(error: unknown): void }>();
  closed = 0;
  immediate(method: string): boolean {
    return method === "subscribe";
  }
  call(request: RpcRequest, signal: AbortSignal): Promise<unknown> {
    this.started.push(request);
    this.signals.push(signal);
    if (request.method === "subscribe") return Promise.resolve({ subscribed: true });
    if (request.method === "boom") return Promise.reject(new TypeError("a bug"));
    return new Promise((resolve, reject) => this.#pending.set(request.id ?? "", { resolve, reject }));
  }
  settle(id: string, value: unknown): void {
    this.#pending.get(id)!.resolve(value);
  }
  fail(id: string, message: string): void {
    this.#pending.get(id)!.reject(new RpcError(message));
  }
  close(): Promise<void> {
    this.closed++;
    return Promise.resolve();
  }
  holdsKey(text: string): Promise<boolean> {
    return Promise.resolve(text.includes(KEY));
  }
}

function start(options: { timeoutMs?: number; lineLimit?: number } = {}) {
  const input = new Input();
  const output = new Output();
  const dispatch = new Scripted();
  const logs: string[] = [];
  const done = serveRpc({
    input,
    writer: output.writer,
    dispatch,
    timeoutMs: options.timeoutMs ?? 60_000,
    log: (line) => logs.push(line),
    lineLimit: options.lineLimit,
  });
  return { input, output, dispatch, logs, done };
}

Deno.test("answers come in completion order, each with its id exactly as written", async () => {
  const { input, output, dispatch, done } = start();
  input.push('{"id":1,"method":"a"}', '{"id":1.0,"method":"b"}', '{"id":"x","method":"c"}');
  await within(
    2000,
    "three calls started",
    (async () => {
      while (dispatch.started.length < 3) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  dispatch.settle('"x"', "third");
  dispatch.fail("1.0", "second failed");
  dispatch.settle("1", null);
  input.end();
  await within(2000, "the loop ends", done);
  assert.deepEqual(output.raw, [
    '{"id":"x","result":"third"}',
    '{"id":1.0,"error":{"message":"second failed"}}',
    '{"id":1,"result":null}',
  ]);
  assert.equal(dispatch.closed, 1);
});

Deno.test(`at most ${MAX_IN_FLIGHT} calls at once: no more input is read until one ends`, async () => {
  const { input, output, dispatch, done } = start();
  for (let i = 1; i <= MAX_IN_FLIGHT + 8; i++) input.push(`{"id":${i},"method":"slow"}`);
  await within(
    2000,
    "32 calls started",
    (async () => {
      while (dispatch.started.length < MAX_IN_FLIGHT) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(dispatch.started.length, MAX_IN_FLIGHT, "the 33rd waits for a place");
  dispatch.settle("5", "five");
  await within(
    2000,
    "the 33rd starts once one ends",
    (async () => {
      while (dispatch.started.length < MAX_IN_FLIGHT + 1) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  assert.equal(dispatch.started.at(-1)!.id, String(MAX_IN_FLIGHT + 1));
  for (const request of dispatch.started) if (request.id !== "5") dispatch.settle(request.id!, "ok");
  await within(
    2000,
    "the rest start",
    (async () => {
      while (dispatch.started.length < MAX_IN_FLIGHT + 8) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  for (const request of dispatch.started.slice(MAX_IN_FLIGHT + 1)) dispatch.settle(request.id!, "ok");
  input.end();
  await within(2000, "the loop ends", done);
  assert.equal(output.lines.length, MAX_IN_FLIGHT + 8);
});

Deno.test("a stream method answers at once and holds no place among the calls", async () => {
  const { input, output, dispatch, done } = start();
  for (let i = 1; i <= MAX_IN_FLIGHT; i++) input.push(`{"id":${i},"method":"slow"}`);
  await within(
    2000,
    "32 started",
    (async () => {
      while (dispatch.started.length < MAX_IN_FLIGHT) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  // All 32 places are held: a subscribe is still read and answered.
  input.push('{"id":"s1","method":"subscribe"}', '{"id":"s2","method":"subscribe"}');
  await within(2000, "both subscribes, with 32 calls in flight", output.count(2));
  assert.deepEqual(output.lines, [{ id: "s1", result: { subscribed: true } }, {
    id: "s2",
    result: { subscribed: true },
  }]);
  for (const request of dispatch.started) {
    if (request.method === "slow") dispatch.settle(request.id!, "ok");
  }
  input.end();
  await within(2000, "the loop ends", done);
});

Deno.test("each call is bounded: at the bound it is answered once, its signal aborted, a late result dropped", async () => {
  const { input, output, dispatch, done } = start({ timeoutMs: 50 });
  input.push('{"id":7,"method":"query"}');
  await within(2000, "the timeout's answer", output.count(1));
  assert.deepEqual(output.lines[0], {
    id: 7,
    error: { message: "query: no answer within 0.05 s (--timeout)" },
  });
  assert.equal(dispatch.signals[0].aborted, true);
  assert.match((dispatch.signals[0].reason as Error).message, /no answer within/);
  dispatch.settle("7", "too late");
  input.end();
  await within(2000, "the loop ends", done);
  assert.equal(output.lines.length, 1, "answered once");
});

Deno.test("lines that are not requests are refused, and serving goes on", async () => {
  const { input, output, dispatch, logs, done } = start({ lineLimit: 64 });
  input.push(
    "not json",
    "",
    "[1,2]",
    '{"id":3,"method":7}',
    '{"id":4,"method":"x","params":[1]}',
    `{"id":5,"method":"x","params":{"pad":"${"y".repeat(80)}"}}`,
    '{"id":6,"method":"boom"}',
    '{"id":8,"method":"slow"}',
  );
  await within(2000, "seven refusals", output.count(7));
  assert.deepEqual(output.lines.slice(0, 3).map((line) => Object.keys(line)), [["error"], ["error"], [
    "error",
  ]]);
  assert.match(JSON.stringify(output.lines[0]), /the line is not JSON/);
  assert.match(JSON.stringify(output.lines[1]), /the line is empty/);
  assert.deepEqual(output.lines[3], {
    id: 3,
    error: { message: "invalid request: method must be a string" },
  });
  assert.deepEqual(output.lines[4], {
    id: 4,
    error: { message: "invalid request: params must be a JSON object" },
  });
  assert.equal(output.lines[5].id, 5, "an over-long line is refused with its id");
  assert.match(JSON.stringify(output.lines[5]), /over the 64 byte line limit/);
  assert.deepEqual(output.lines[6], { id: 6, error: { message: "boom: internal error" } });
  assert.ok(logs.some((line) => line.includes("a bug")), "the bug is said on stderr");
  dispatch.settle("8", "still serving");
  input.end();
  await within(2000, "the loop ends", done);
  assert.deepEqual(output.lines.at(-1), { id: 8, result: "still serving" });
});

Deno.test("a line holding the agent's key is refused without its id or any of its text, and never dispatched", async () => {
  const { input, output, dispatch, done } = start();
  input.push(`{"id":"${KEY}","method":"publish","params":{"event":{"kind":9,"content":"${KEY}"}}}`);
  input.push(`{"id":2,"method":"query","params":{"filter":{"authors":["${KEY}"]}}}`);
  input.end();
  await within(2000, "the loop ends", done);
  assert.deepEqual(output.lines, [{ error: { message: HOLDS_KEY } }, { error: { message: HOLDS_KEY } }]);
  assert.ok(!output.raw.join("\n").includes(KEY));
  assert.equal(dispatch.started.length, 0);
});

Deno.test("at end of input every call in flight is answered, then the streams end, then the loop", async () => {
  const { input, output, dispatch, done } = start();
  input.push('{"id":1,"method":"slow"}', '{"id":2,"method":"slow"}');
  await within(
    2000,
    "both started",
    (async () => {
      while (dispatch.started.length < 2) await new Promise((r) => setTimeout(r, 1));
    })(),
  );
  input.end();
  let ended = false;
  void done.then(() => ended = true);
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(ended, false, "the loop waits for the calls in flight");
  assert.equal(dispatch.closed, 0, "the streams end after the calls");
  dispatch.settle("2", "two");
  dispatch.settle("1", "one");
  await within(2000, "the loop ends", done);
  assert.deepEqual(output.lines.map((line) => line.id), [2, 1]);
  assert.equal(dispatch.closed, 1);
});
