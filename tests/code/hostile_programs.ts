// The hostile programs (lib/code/sandbox.ts, guest.ts, prelude.ts), each with what its outcome must be,
// and how one is run: tests/code/hostile_child.ts runs the list in a process of its own (so its RSS is the
// sandbox's alone), tests/code/hostile_test.ts checks what it reports. Programs that must end by a limit
// other than time get a long deadline, so that a loaded machine cannot turn their end into a timeout.

import assert from "node:assert/strict";
import { IMPORT_MESSAGE } from "../../lib/code/guest.ts";
import type { ProgramOutcome } from "../../lib/code/program.ts";
import { runProgram } from "../../lib/code/sandbox.ts";
import { within } from "../support/waits.ts";
import { FakeBridge, until } from "./fake_bridge.ts";

const MiB = 1024 * 1024;

export interface Hostile {
  name: string;
  code: string;
  wallMs?: number;
  /** Cancel the program once the bridge has seen this many calls. */
  cancelAfterCalls?: number;
  maxPending?: number;
  expect(outcome: ProgramOutcome, bridge: FakeBridge): void;
}

const ends = (end: string) => (outcome: ProgramOutcome) => assert.equal(outcome.end, end, outcome.error);

export const HOSTILE: Hostile[] = [
  { name: "while (true) {}", code: "async function run() { while (true) {} }", expect: ends("timeout") },
  {
    name: "a loop at the top level",
    code: "while (true) {}\nasync function run() {}",
    expect: ends("timeout"),
  },
  {
    name: "a loop that catches the interrupt",
    code: "async function run() { for (;;) { try { while (true) {} } catch {} } }",
    expect: ends("timeout"),
  },
  {
    name: "an endless chain of jobs",
    code: "async function run() { for (;;) await null; }",
    expect: ends("timeout"),
  },
  {
    name: "a memory bomb",
    code: "async function run() { const a = []; while (true) a.push(new Array(1e5).fill(1)); }",
    wallMs: 20_000,
    expect: ends("memory"),
  },
  {
    name: "a memory bomb inside a promise job",
    code: "async function run() { const a = [];\n" +
      "  await Promise.resolve().then(() => { for (;;) a.push(new Array(1e5).fill(1)); }); }",
    wallMs: 20_000,
    expect: ends("memory"),
  },
  {
    name: "recursion without end",
    code: "async function run() { function f() { return f() + 1; } return f(); }",
    wallMs: 20_000,
    expect: ends("stack"),
  },
  {
    name: "a value nested too deeply to serialize",
    code: "async function run() { let a = []; for (let i = 0; i < 1e5; i++) a = [a]; return a; }",
    wallMs: 20_000,
    expect: ends("stack"),
  },
  {
    name: "a regular expression that backtracks for ever",
    code: "async function run() { return /(a+)+$/.test('a'.repeat(40) + 'b'); }",
    expect: ends("timeout"),
  },
  {
    name: "relay answers into a memory already full: refused, never written",
    code: `async function run(relay) {
      const keep = [];
      try { for (;;) keep.push(new Array(1e4).fill(1)); } catch {}
      const seen = [];
      for (let i = 0; i < 3; i++) seen.push(await relay.big().catch((error) => error.message));
      return seen;
    }`,
    wallMs: 20_000,
    expect: (outcome) => {
      assert.equal(outcome.end, "returned", outcome.error);
      const refusal =
        "relay.big: its answer (3145730 characters) does not fit in the memory the program has left";
      assert.deepEqual(outcome.value, Array(3).fill(refusal));
      assert.deepEqual(outcome.calls, Array(3).fill({ tool: "big", state: "ok", error: refusal }));
    },
  },
  {
    name: "a 10 MB string returned",
    code: "async function run() { return 'x'.repeat(10 * 1024 * 1024); }",
    wallMs: 20_000,
    expect: (outcome) => {
      assert.equal(outcome.end, "returned", outcome.error);
      assert.equal(outcome.valueTruncated, true);
      assert.equal(typeof outcome.value, "string");
      assert.equal((outcome.value as string).length, MiB);
      assert.ok((outcome.value as string).startsWith('"xxx'));
    },
  },
  {
    name: "1,000 console.log lines of 10 KB",
    code: "async function run() { const s = 'y'.repeat(10240);\n" +
      "  for (let i = 0; i < 1000; i++) console.log(s); return 'ok'; }",
    wallMs: 20_000,
    expect: (outcome) => {
      assert.equal(outcome.end, "returned", outcome.error);
      const kept = outcome.logs.reduce((sum, line) => sum + line.text.length, 0) +
        JSON.stringify("ok").length;
      assert.ok(kept <= MiB, `${kept} bytes kept`);
      assert.equal(outcome.logs.length, 102);
      assert.equal(outcome.logsDropped, 1000 - outcome.logs.length);
    },
  },
  {
    name: "a runaway logger",
    code: "async function run() { const s = 'y'.repeat(10240); for (;;) console.log(s); }",
    wallMs: 20_000,
    expect: ends("output"),
  },
  {
    name: "a promise that never settles",
    code: "async function run() { await new Promise(() => {}); }",
    expect: ends("never-settles"),
  },
  {
    name: "a host call that never settles",
    code: "async function run(relay) { await relay.never(); }",
    expect: (outcome, bridge) => {
      assert.equal(outcome.end, "timeout");
      assert.equal(bridge.seen[0].context.signal.aborted, true);
    },
  },
  {
    name: "an error whose name loops forever",
    code: "async function run() { const e = new Error('x');\n" +
      "  Object.defineProperty(e, 'name', { get() { for (;;) {} } }); throw e; }",
    expect: ends("timeout"),
  },
  {
    name: "a value whose toJSON loops forever",
    code: "async function run() { return { toJSON() { for (;;) {} } }; }",
    expect: ends("timeout"),
  },
  {
    name: "a static import",
    code: "import x from 'y';\nasync function run() {}",
    expect: (outcome) => {
      assert.equal(outcome.end, "syntax");
      assert.match(outcome.error ?? "", /\(line 1, column \d+\): a program cannot import modules/);
    },
  },
  {
    name: "reaching outside: Deno, fetch, require, timers, process, import(), the global's constructor",
    code: `async function run() {
      const kinds = [typeof Deno, typeof fetch, typeof require, typeof setTimeout, typeof setInterval,
        typeof process, typeof Atomics, typeof WebAssembly];
      let imported;
      try { await import("file:///etc/passwd"); imported = "loaded"; }
      catch (error) { imported = error.message; }
      const outer = globalThis.constructor.constructor("return this")();
      const globals = Object.getOwnPropertyNames(globalThis).filter((name) => !/^[A-Z]/.test(name)).sort();
      return [kinds, imported, outer === globalThis, typeof outer.Deno, globals];
    }`,
    expect: (outcome) => {
      assert.equal(outcome.end, "returned", outcome.error);
      assert.deepEqual(outcome.value, [
        Array(8).fill("undefined"),
        IMPORT_MESSAGE,
        true,
        "undefined",
        // The language's own, the program's run, and console: no host function, no bridge part.
        [
          "console",
          "decodeURI",
          "decodeURIComponent",
          "encodeURI",
          "encodeURIComponent",
          "escape",
          "eval",
          "globalThis",
          "isFinite",
          "isNaN",
          "parseFloat",
          "parseInt",
          "run",
          "undefined",
          "unescape",
        ],
      ]);
    },
  },
  {
    name: "prototype tricks on relay",
    code: `async function run(relay) {
      const tries = {};
      const attempt = (name, fn) => {
        try { tries[name] = fn(); } catch (error) { tries[name] = "threw " + error.name; }
      };
      attempt("__proto__", () => relay.__proto__ === undefined);
      attempt("constructor", () => relay.constructor === undefined);
      attempt("then", () => relay.then === undefined);
      attempt("toString", () => relay.toString === undefined);
      attempt("prototype", () => Object.getPrototypeOf(relay) === null);
      attempt("frozen", () => Object.isFrozen(relay));
      attempt("keys", () => Object.keys(relay).length);
      attempt("define", () => Reflect.defineProperty(relay, "echo", { value: () => "hijacked" }));
      attempt("set", () => Reflect.set(relay, "echo", 1));
      attempt("setPrototypeOf", () => Reflect.setPrototypeOf(relay, {}));
      attempt("delete", () => (Reflect.deleteProperty(relay, "echo"), typeof relay.echo));
      attempt("constructor chain", () => relay.constructor.constructor("return this")());
      attempt("tool's constructor", () => relay.echo.constructor("return typeof Deno")()());
      attempt("awaited", () => typeof relay);
      tries.awaitRelay = (await relay) === relay;
      tries.apply = (await relay.echo.apply(null, [{ via: "apply" }])).echoed.via;
      tries.call = (await relay.call.call(null, { via: "call" })).echoed.via;
      tries.stillWorks = (await relay.echo({ n: 1 })).echoed.n;
      return tries;
    }`,
    expect: (outcome, bridge) => {
      assert.equal(outcome.end, "returned", outcome.error);
      assert.deepEqual(outcome.value, {
        __proto__: true,
        constructor: true,
        then: true,
        toString: true,
        prototype: true,
        frozen: true,
        keys: 0,
        define: false,
        set: false,
        setPrototypeOf: false,
        delete: "function",
        "constructor chain": "threw TypeError",
        "tool's constructor": "threw TypeError",
        awaited: "object",
        awaitRelay: true,
        apply: "apply",
        call: "call",
        stillWorks: 1,
      });
      assert.deepEqual(bridge.seen.map((call) => call.tool), ["echo", "call", "echo"]);
    },
  },
  {
    name: "cancellation mid-run",
    code: "async function run(relay) { await relay.echo();\n" +
      "  for (let i = 0; i < 12; i++) relay.never(); await relay.never(); }",
    wallMs: 60_000,
    maxPending: 4,
    cancelAfterCalls: 5,
    expect: (outcome, bridge) => {
      assert.equal(outcome.end, "cancelled");
      assert.equal(bridge.seen.length, 5, "the calls not yet sent were never sent");
      assert.deepEqual(outcome.calls.map((call) => call.state), [
        "ok",
        ...Array(4).fill("aborted"),
        ...Array(9).fill("not-sent"),
      ]);
    },
  },
  {
    name: "a for await over a relay whose cursor never ends: stopped at the call cap",
    code: `async function run(relay) {
      let walked = 0;
      for await (const item of await relay.endless({})) { walked++; console.log("item " + item); }
      return walked;
    }`,
    wallMs: 60_000,
    expect: (outcome, bridge) => {
      assert.equal(outcome.end, "calls", outcome.error);
      assert.match(
        outcome.error ?? "",
        /relay call limit reached: a program may make at most 100 relay calls/,
      );
      assert.equal(bridge.seen.length, 100);
      assert.equal(outcome.calls.length, 100, "what it walked is in the answer");
      assert.equal(outcome.callsRefused, 1);
      assert.equal(outcome.logs.at(-1)?.text, "item 99");
    },
  },
  {
    name: "an idempotency key of 10 MB: refused at the boundary, nothing sent",
    code: `async function run(relay) {
      const key = "k".repeat(10 * 1024 * 1024);
      try { await relay.post_message({ room: "general" }, { idempotencyKey: key }); return "sent"; }
      catch (error) { return error.message; }
    }`,
    wallMs: 60_000,
    expect: (outcome, bridge) => {
      assert.equal(outcome.end, "returned", outcome.error);
      assert.equal(
        outcome.value,
        "relay.post_message: the idempotencyKey is 10485760 characters, at most 200",
      );
      assert.equal(bridge.seen.length, 0);
      assert.equal(outcome.callsRefused, 1);
    },
  },
];

/** Runs one hostile program with a bridge of the common tools (and `call`); returns its outcome and bridge. */
export async function runHostile(hostile: Hostile): Promise<{ outcome: ProgramOutcome; bridge: FakeBridge }> {
  const bridge = new FakeBridge({
    call: (args) => ({ echoed: args }),
    big: () => "y".repeat(3 * MiB),
    // A list whose every page names a next one.
    endless: (args) => ({
      items: [Number(args.cursor ?? 0)],
      next_cursor: String(Number(args.cursor ?? 0) + 1),
    }),
    post_message: () => ({ event_id: "never" }),
  });
  const controller = new AbortController();
  const limits = {
    wallMs: hostile.wallMs ?? 300,
    ...(hostile.maxPending ? { maxPending: hostile.maxPending } : {}),
  };
  const running = runProgram(hostile.code, bridge, { limits, signal: controller.signal });
  if (hostile.cancelAfterCalls !== undefined) {
    const count = hostile.cancelAfterCalls;
    await within(10_000, `${count} calls`, until(() => bridge.seen.length === count));
    controller.abort();
  }
  return { outcome: await within(60_000, hostile.name, running), bridge };
}

/** A program that must work after each hostile one. */
export async function fresh(): Promise<void> {
  const outcome = await within(
    60_000,
    "the program after it",
    runProgram(
      "async function run(relay) { return (await relay.echo({ n: 7 })).echoed.n; }",
      new FakeBridge(),
      {
        limits: { wallMs: 20_000 },
      },
    ),
  );
  assert.deepEqual([outcome.end, outcome.value], ["returned", 7], outcome.error);
}
