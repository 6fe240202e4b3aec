// The engine's turns and instances (lib/code/engine.ts): at most two programs at once, the rest in line
// in order, a turn given up while waiting, at most one idle instance kept, and WebAssembly memory capped.
// QuickJS and the type stripper load without reading a file: a Worker holding no permission at all (no read, as
// tinyagent's sandboxed worker, lib/sandbox/confine.ts) loads runProgram and runs a TypeScript program
// that calls the relay, twice (the second on the loaded engine).

import assert from "node:assert/strict";
import { EnginePool, KEEP_MAX_BYTES, loadEngine, MAX_RUNNING, newInstance } from "../../lib/code/engine.ts";
import { within } from "../support/waits.ts";
import type { Reply, Request } from "./confined_program.ts";

const MiB = 1024 * 1024;

Deno.test("EnginePool: at most two running, the rest in line in order", async () => {
  assert.equal(MAX_RUNNING, 2);
  const pool = new EnginePool();
  const first = await within(30_000, "first turn", pool.acquire(64 * MiB));
  const second = await within(30_000, "second turn", pool.acquire(64 * MiB));
  const order: string[] = [];
  const third = pool.acquire(64 * MiB).then((turn) => (order.push("third"), turn));
  const fourth = pool.acquire(64 * MiB).then((turn) => (order.push("fourth"), turn));
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(pool.stats(), { running: 2, waiting: 2, idle: false });
  first!.release(false);
  const thirdTurn = await within(30_000, "third turn", third);
  assert.deepEqual(order, ["third"]);
  second!.release(false);
  thirdTurn!.release(false);
  (await within(30_000, "fourth turn", fourth))!.release(false);
  assert.deepEqual(order, ["third", "fourth"]);
  assert.deepEqual(pool.stats(), { running: 0, waiting: 0, idle: false });
});

Deno.test("EnginePool: a turn given up while waiting is never taken", async () => {
  const pool = new EnginePool(1);
  const first = await within(30_000, "first turn", pool.acquire(64 * MiB));
  const controller = new AbortController();
  const waiting = pool.acquire(64 * MiB, controller.signal);
  controller.abort();
  assert.equal(await waiting, null);
  assert.deepEqual(pool.stats(), { running: 1, waiting: 0, idle: false });
  first!.release(false);
  assert.equal(await pool.acquire(64 * MiB, AbortSignal.abort()), null, "already cancelled: no turn");
  assert.deepEqual(pool.stats(), { running: 0, waiting: 0, idle: false });
});

Deno.test("EnginePool: one idle instance kept after a clean end, reused; none after an unclean one", async () => {
  const pool = new EnginePool();
  const a = (await within(30_000, "a", pool.acquire(64 * MiB)))!;
  const b = (await within(30_000, "b", pool.acquire(64 * MiB)))!;
  assert.notEqual(a.instance, b.instance, "each running program has an instance of its own");
  a.release(true);
  b.release(true);
  a.release(false);
  assert.deepEqual(
    pool.stats(),
    { running: 0, waiting: 0, idle: true },
    "one kept; a second release does nothing",
  );
  const c = (await within(30_000, "c", pool.acquire(64 * MiB)))!;
  assert.equal(c.instance, b.instance, "the kept instance is reused");
  assert.deepEqual(pool.stats(), { running: 1, waiting: 0, idle: false });
  c.release(false);
  assert.deepEqual(pool.stats(), { running: 0, waiting: 0, idle: false }, "an unclean end: dropped");
  const d = (await within(30_000, "d", pool.acquire(64 * MiB)))!;
  d.instance.memory.grow((KEEP_MAX_BYTES - d.instance.memory.buffer.byteLength) / 65536 + 1);
  d.release(true);
  assert.deepEqual(pool.stats().idle, false, "an instance whose memory grew large is not kept");
});

Deno.test("newInstance: WebAssembly memory that cannot grow past the cap", async () => {
  const instance = await within(30_000, "instance", newInstance(32 * MiB));
  const context = instance.module.newContext();
  assert.equal(context.dump(context.unwrapResult(context.evalCode("6 * 7"))), 42);
  // Grown from outside here only to find the cap; the instance is not used again.
  instance.memory.grow(32 * MiB / 65536 - instance.memory.buffer.byteLength / 65536);
  assert.equal(instance.memory.buffer.byteLength, 32 * MiB);
  assert.throws(() => instance.memory.grow(1), RangeError);
});

Deno.test("newInstance: QuickJS starts without asking whether this is Node, and process is put back", async () => {
  await within(30_000, "the engine", loadEngine());
  const own = Object.getOwnPropertyDescriptor(globalThis, "process")!;
  let asked = 0;
  const spy = {
    get: () => (asked++, own.get ? own.get.call(globalThis) : own.value),
    configurable: true,
    enumerable: own.enumerable,
  };
  Object.defineProperty(globalThis, "process", spy);
  try {
    const instance = await within(30_000, "instance", newInstance(32 * MiB));
    const context = instance.module.newContext();
    assert.equal(context.dump(context.unwrapResult(context.evalCode("6 * 7"))), 42);
    context.dispose();
    // Node's answer would have it load node:fs and the rest for a file system it never uses.
    assert.equal(asked, 0, "the build looked at process");
    assert.equal(Object.getOwnPropertyDescriptor(globalThis, "process")?.get, spy.get, "process is back");
  } finally {
    Object.defineProperty(globalThis, "process", own);
  }
});

const NONE: Deno.PermissionOptionsObject = {
  read: false,
  net: false,
  env: false,
  write: false,
  run: false,
  ffi: false,
  sys: false,
  import: false,
};

function ask(worker: Worker, request: Request): Promise<Reply> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<Reply>) => resolve(event.data);
    worker.onerror = (event) => {
      event.preventDefault();
      reject(new Error(event.message));
    };
    worker.postMessage(request);
  });
}

Deno.test("a worker without read permission loads the sandbox and runs programs", async () => {
  const worker = new Worker(new URL("./confined_program.ts", import.meta.url), {
    type: "module",
    deno: { permissions: NONE },
  });
  try {
    const code = "interface Room { id: string }\n" +
      "async function run(relay: any): Promise<Room[]> {\n" +
      "  const answer = await relay.list_rooms({ limit: 1 });\n" +
      "  return [{ id: answer.tool + ' ' + answer.args.limit + ', ' + answer.from }];\n" +
      "}";
    for (const round of ["cold", "warm"]) {
      const reply = await within(60_000, `the ${round} program's outcome`, ask(worker, { code }));
      assert.ok(!("failed" in reply), "failed" in reply ? reply.failed : "");
      assert.equal(reply.readDenied, "NotCapable", "the worker cannot read a file");
      assert.equal(reply.outcome.end, "returned", reply.outcome.error);
      assert.deepEqual(reply.outcome.value, [{ id: "list_rooms 1, the worker's bridge" }]);
      console.log(`${round}: ${reply.ms.toFixed(1)} ms`);
    }
  } finally {
    worker.terminate();
  }
});
