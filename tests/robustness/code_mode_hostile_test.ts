// Hostile programs through a real tinyagent (the sandbox as shipped, on pipes, the SDK client as host):
// each ends as its limit says, and after each a ping answers and a fresh tiny_execute works; 1,000 relay
// calls make 100; Promise.all of 50 serves them all; reaching outside finds nothing; cancellation mid-run
// stops the calls. The process's peak RSS stays under 400 MiB throughout, and the key appears in no
// output. (tests/code/guest_test.ts tries the longer list in process, with exact outcomes.)

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { startStrictRelay, toolOk } from "../support/strict_relay/mod.ts";
import { assertNoSecret, newKey, sdkStdio } from "../support/tinyagent.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { within } from "../support/waits.ts";

const MiB = 1024 * 1024;

type Report = { end: string; value?: unknown; calls: unknown[]; callsRefused: number; logsDropped: number };

/** Each program, and what its end must be (a string: the end; a function: any check of the report). */
const PROGRAMS: [string, string, string | ((report: Report) => void)][] = [
  ["while (true) {}", "async function run() { while (true) {} }", "timeout"],
  [
    "a memory bomb",
    "async function run() { const a = []; for (;;) a.push(new Array(1e5).fill(1)); }",
    "memory",
  ],
  ["recursion without end", "async function run() { function f() { return f() + 1; } return f(); }", "stack"],
  ["a 10 MB string returned", "async function run() { return 'x'.repeat(10 * 1024 * 1024); }", (report) => {
    assert.equal(report.end, "returned");
  }],
  [
    "1,000 console.log lines of 10 KB",
    "async function run() { const s = 'y'.repeat(10240); for (let i = 0; i < 1000; i++) console.log(s); return 1; }",
    (report) => {
      assert.equal(report.end, "returned");
      assert.ok(report.logsDropped > 800);
    },
  ],
  ["a promise that never settles", "async function run() { await new Promise(() => {}); }", "never-settles"],
  [
    "1,000 relay calls",
    "async function run(relay) { let made = 0, refused = 0;\n" +
    "  for (let i = 0; i < 1000; i++) { try { await relay.list_rooms({}); made++; } catch { refused++; } }\n" +
    "  return [made, refused]; }",
    (report) => {
      assert.equal(report.end, "returned");
      assert.deepEqual(report.value, [100, 900]);
    },
  ],
  [
    "Promise.all of 50 calls",
    "async function run(relay) { const all = await Promise.all(Array.from({ length: 50 }, () => relay.list_rooms({})));\n" +
    "  return all.length; }",
    (report) => assert.deepEqual([report.end, report.value, report.calls.length], ["returned", 50, 50]),
  ],
  [
    "reaching outside",
    `async function run(relay) {
      const out = [typeof Deno, typeof fetch, typeof require, typeof setTimeout];
      try { await import("file:///etc/passwd"); out.push("imported"); } catch { out.push("no import"); }
      const outer = globalThis.constructor.constructor("return this")();
      out.push(outer === globalThis, typeof outer.Deno);
      out.push(typeof relay.constructor, typeof Object.getPrototypeOf(relay), Object.isFrozen(relay));
      try { relay.list_rooms = () => "mine"; } catch { out.push("frozen"); }
      try { relay.__proto__ = {}; } catch { out.push("no prototype change"); }
      return out;
    }`,
    (report) => {
      assert.equal(report.end, "returned");
      const [deno, fetch, require, timers, imported, same, outerDeno] = report.value as unknown[];
      assert.deepEqual([deno, fetch, require, timers, imported, same, outerDeno], [
        "undefined",
        "undefined",
        "undefined",
        "undefined",
        "no import",
        true,
        "undefined",
      ]);
    },
  ],
];

Deno.test("hostile programs through the process: each ends, the session goes on, RSS < 400 MiB, no key", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  const { transport, stderr } = sdkStdio({
    netHost: relay.host,
    relayUrl: relay.url,
    key,
    args: ["--code-mode", "--code-timeout", "3"],
    flags: shippedFlags(),
  });
  const client = new Client({ name: "hostile-host", version: "1" });
  const answers: string[] = [];
  const execute = async (code: string) => {
    const result = await client.callTool({ name: "tiny_execute", arguments: { code } }, undefined, {
      timeout: 120_000,
    });
    answers.push(JSON.stringify(result));
    return result.structuredContent as Report;
  };
  let peak = 0;
  try {
    await client.connect(transport);
    for (const [name, code, expect] of PROGRAMS) {
      await t.step(name, async () => {
        const report = await within(120_000, name, execute(code));
        if (typeof expect === "string") {
          assert.equal(report.end, expect, JSON.stringify(report).slice(0, 500));
        } else expect(report);
        assert.deepEqual(await within(10_000, "a ping after it", client.ping()), {});
        const fresh = await within(
          60_000,
          "a fresh program after it",
          execute("async function run() { return 42; }"),
        );
        assert.deepEqual([fresh.end, fresh.value], ["returned", 42]);
        peak = Math.max(peak, await highWaterMark(transport.pid!));
      });
    }
    await t.step("cancellation mid-run: the calls stop, the next program works", async () => {
      // The relay holds the third call's answer, so the program is waiting on it, with no other call,
      // when the host cancels; a ping answered after the cancellation (sent after it on the same pipe)
      // says tinyagent has taken it in. Only then is the answer let through: a program still running
      // would call again at once, and would go on for its 3 s limit.
      const held = Promise.withResolvers<void>();
      let served = 0;
      relay.setTool("read_room", async () => {
        if (++served >= 3) await held.promise;
        return toolOk({ messages: [] });
      });
      const cancel = new AbortController();
      const running = client.callTool(
        {
          name: "tiny_execute",
          arguments: {
            code: "async function run(relay) { for (;;) await relay.read_room({ id: 'general' }); }",
          },
        },
        undefined,
        { signal: cancel.signal, timeout: 120_000 },
      );
      running.catch(() => {});
      try {
        await within(
          30_000,
          "the program's third call",
          waitFor(() => served === 3),
        );
        cancel.abort();
        await assert.rejects(running);
        assert.deepEqual(await within(10_000, "a ping after the cancellation", client.ping()), {});
      } finally {
        held.resolve();
      }
      await within(30_000, "the calls stopping", stopsGrowing(() => served));
      assert.equal(served, 3, "no call after the cancel");
      const fresh = await within(
        60_000,
        "a fresh program after it",
        execute("async function run() { return 7; }"),
      );
      assert.deepEqual([fresh.end, fresh.value], ["returned", 7]);
      peak = Math.max(peak, await highWaterMark(transport.pid!));
    });
    await t.step("peak RSS under 400 MiB", () => {
      assert.ok(peak > 0 && peak < 400 * MiB, `peak RSS ${(peak / MiB).toFixed(1)} MiB`);
    });
  } finally {
    await client.close();
    await relay.close();
  }
  assertNoSecret(key, stderr(), "stderr");
  assertNoSecret(key, answers.join("\n"), "the answers");
});

/**
 * The process's peak resident set so far (VmHWM), in bytes. Read by `cat`: Deno asks for every
 * permission to read a /proc file, which the test task does not grant.
 */
async function highWaterMark(pid: number): Promise<number> {
  const { stdout } = await new Deno.Command("cat", { args: [`/proc/${pid}/status`], stdout: "piped" })
    .output();
  const kib = Number(/^VmHWM:\s+(\d+) kB$/m.exec(new TextDecoder().decode(stdout))?.[1] ?? 0);
  return kib * 1024;
}

async function waitFor(holds: () => boolean): Promise<void> {
  while (!holds()) await new Promise((resolve) => setTimeout(resolve, 20));
}

/** Resolves once `count()` has not grown for a second. */
async function stopsGrowing(count: () => number): Promise<void> {
  let last = count();
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = count();
    if (now === last) return;
    last = now;
  }
}
