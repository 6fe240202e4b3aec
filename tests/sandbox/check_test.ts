// sandbox-check's report (lib/sandbox/check.ts): the verdict from the probe's outcomes and what
// the main thread still holds, and its rendering. The probe itself runs in the sandboxed worker
// and is tested end to end in tests/e2e/sandbox_test.ts.

import assert from "node:assert/strict";
import { type ProbeResult, renderSandboxReport, sandboxReport } from "../../lib/sandbox/check.ts";

const allowed = (name: string, outcome = "ok"): ProbeResult => ({
  name,
  expect: "allowed",
  outcome,
  pass: outcome !== "NotCapable",
});
const denied = (name: string, outcome = "NotCapable"): ProbeResult => ({
  name,
  expect: "denied",
  outcome,
  pass: outcome === "NotCapable",
});

const CONFINED = [
  allowed("connect to the relay 127.0.0.1:9", "ConnectionRefused"),
  allowed("read TINY_PRIVATE_KEY"),
  denied("read a file"),
  denied("start a process"),
];

Deno.test("sandboxReport: confined only when every check passes and the main thread holds nothing", async (t) => {
  await t.step("every check passes, nothing held: pass", () => {
    assert.deepEqual(sandboxReport("worker", CONFINED, []), {
      ran: "worker",
      checks: CONFINED,
      main_thread_holds: [],
      pass: true,
    });
  });
  await t.step("one capability not denied: fail", () => {
    const checks = [...CONFINED, denied("read system information", "ok")];
    assert.equal(sandboxReport("worker", checks, []).pass, false);
  });
  await t.step("the relay not reachable for lack of permission: fail", () => {
    const checks = [allowed("connect to the relay 127.0.0.1:9", "NotCapable"), ...CONFINED.slice(1)];
    assert.equal(sandboxReport("worker", checks, []).pass, false);
  });
  await t.step("the main thread still holding a permission: fail", () => {
    const report = sandboxReport("worker", CONFINED, ["env"]);
    assert.equal(report.pass, false);
    assert.deepEqual(report.main_thread_holds, ["env"]);
  });
  await t.step("a process started confined", () => {
    assert.equal(sandboxReport("confined process", CONFINED, []).ran, "confined process");
  });
});

Deno.test("renderSandboxReport: one line per check, the main thread, then the verdict", async (t) => {
  await t.step("confined", () => {
    const lines = renderSandboxReport(sandboxReport("worker", CONFINED, [])).split("\n");
    assert.deepEqual(lines, [
      "sandbox-check: the probe ran in the worker",
      `✓ ${"connect to the relay 127.0.0.1:9".padEnd(44)} allowed (ConnectionRefused)`,
      `✓ ${"read TINY_PRIVATE_KEY".padEnd(44)} allowed`,
      `✓ ${"read a file".padEnd(44)} denied (NotCapable)`,
      `✓ ${"start a process".padEnd(44)} denied (NotCapable)`,
      `✓ ${"the main thread holds no permission".padEnd(44)} none held`,
      "sandbox: confined",
    ]);
  });
  await t.step("not confined: the failing checks say what was expected", () => {
    const checks = [
      allowed("connect to the relay 127.0.0.1:9", "NotCapable"),
      denied("read system information", "ok"),
      denied("write a file", "PermissionDenied"),
    ];
    const lines = renderSandboxReport(sandboxReport("confined process", checks, ["net", "env"])).split("\n");
    assert.deepEqual(lines, [
      "sandbox-check: the probe ran in the confined process",
      `✗ ${"connect to the relay 127.0.0.1:9".padEnd(44)} denied (NotCapable), expected allowed`,
      `✗ ${"read system information".padEnd(44)} allowed, expected denied`,
      `✗ ${"write a file".padEnd(44)} allowed (PermissionDenied), expected denied`,
      `✗ ${"the main thread holds no permission".padEnd(44)} holds net, env`,
      "sandbox: NOT confined",
    ]);
  });
});
