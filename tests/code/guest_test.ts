// One program inside QuickJS (lib/code/guest.ts), tried with hostile programs (tests/code/hostile_programs.ts), run by tests/code/hostile_child.ts in a process of
// its own: each ends as it should, the instance is dropped after every limit, the process survives and
// a fresh program right after each works, its RSS stays under 400 MiB throughout, and it writes nothing
// to stderr (QuickJS prints there when it aborts). Then programs run at once, here.

import assert from "node:assert/strict";
import { runProgram } from "../../lib/code/sandbox.ts";
import { loaderEnv } from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";
import { FakeBridge } from "./fake_bridge.ts";
import type { HostileReport } from "./hostile_child.ts";
import { HOSTILE } from "./hostile_programs.ts";

const MiB = 1024 * 1024;
const RSS_LIMIT = 400 * MiB;

Deno.test("hostile programs end as they should; the next program works; RSS stays under 400 MiB", async (t) => {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", new URL("./hostile_child.ts", import.meta.url).pathname],
    env: loaderEnv(),
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const output = await within(300_000, "the hostile list", child.output());
  const stdout = new TextDecoder().decode(output.stdout);
  const stderr = new TextDecoder().decode(output.stderr);
  assert.equal(output.code, 0, stderr);
  assert.equal(stderr, "", "nothing written to stderr");
  const reports: HostileReport[] = stdout.trim().split("\n").map((line) => JSON.parse(line));
  assert.deepEqual(reports.map((report) => report.name), HOSTILE.map((hostile) => hostile.name));
  for (const report of reports) {
    await t.step(report.name, () => {
      assert.equal(report.failure, undefined, report.failure);
      const measured: [string, number][] = [["after it", report.rss], [
        "after the fresh one",
        report.rssAfterFresh,
      ]];
      for (const [when, rss] of measured) {
        assert.ok(rss > 0 && rss < RSS_LIMIT, `RSS ${Math.round(rss / MiB)} MiB ${when}`);
      }
    });
  }
});

Deno.test("two hostile programs at once, and a third waiting: all end, the process survives", async () => {
  const programs = [
    "async function run() { while (true) {} }",
    "async function run() { const a = []; while (true) a.push(new Array(1e5).fill(1)); }",
    "async function run(relay) { return (await relay.echo({ n: 1 })).echoed.n; }",
  ];
  const outcomes = await within(
    60_000,
    "three programs",
    Promise.all(
      programs.map((code, i) =>
        runProgram(code, new FakeBridge(), { limits: { wallMs: i === 0 ? 300 : 20_000 } })
      ),
    ),
  );
  assert.deepEqual(outcomes.map((outcome) => outcome.end), ["timeout", "memory", "returned"]);
});
