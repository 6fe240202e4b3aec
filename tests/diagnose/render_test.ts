// diagnose's report for a person at a terminal: one line per check, the verdict and the advice last.

import assert from "node:assert/strict";
import type { Report } from "../../lib/diagnose/report.ts";
import { renderReport } from "../../lib/diagnose/render.ts";
import { grantResult, http, NO_ANSWER, reportFor } from "../support/browsegrant.ts";

Deno.test("renderReport", async (t) => {
  const reports: [string, Report][] = [
    ["ok", reportFor(http(200, { result: grantResult() }), { rooms: ["general"], kinds: [9] })],
    [
      "needs-grant",
      reportFor(http(200, { result: grantResult({ missing: { rooms: ["ops"], kinds: [] } }) }), {
        rooms: ["ops"],
        kinds: [],
      }),
    ],
    ["unauthorized", reportFor(http(401, { error: "auth-required: bad signature" }))],
    ["unreachable", reportFor(NO_ANSWER)],
  ];
  for (const [name, report] of reports) {
    await t.step(`${name}: plain text, one line per check, verdict and advice last`, () => {
      const text = renderReport(report, false);
      assert.ok(!text.includes("\x1b"), "no escape codes without colour");
      const lines = text.split("\n");
      const checkLines = lines.filter((line) => /^[✓✗-] /.test(line));
      assert.equal(checkLines.length, 5, text);
      const order: [keyof Report["checks"], RegExp][] = [
        ["reachability", /reachability/],
        ["authentication", /authentication/],
        ["membership", /membership/],
        ["grant", /grant/],
        ["coverage", /rooms and kinds/],
      ];
      const marks = { pass: "✓", fail: "✗", skip: "-" };
      order.forEach(([check, label], i) => {
        assert.match(checkLines[i], label);
        assert.equal(checkLines[i][0], marks[report.checks[check].status], `${check} mark`);
        assert.ok(checkLines[i].includes(report.checks[check].detail), `${check} detail`);
      });
      assert.equal(lines.at(-2), `verdict: ${report.verdict}`);
      assert.equal(lines.at(-1), `advice:  ${report.advice}`);
      assert.ok(text.includes(report.npub) && text.includes(report.relay));
    });
  }
  await t.step("a failed authentication shows its class", () => {
    const text = renderReport(reportFor(http(429, { error: "slow down" })), false);
    assert.match(text, /✗ authentication.*\[rate-limited\]/);
  });
  await t.step("with colour, escape codes are used", () => {
    const text = renderReport(reports[0][1], true);
    assert.ok(text.includes("\x1b["));
    // Without the codes, the text is the plain rendering.
    // deno-lint-ignore no-control-regex
    assert.equal(text.replace(/\x1b\[[0-9;]*m/g, ""), renderReport(reports[0][1], false));
  });
});
