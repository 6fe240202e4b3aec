// diagnose's verdicts and exit codes (facade.md, `tiny_diagnose`): failures and old relays, and the
// safety properties every report holds.

import assert from "node:assert/strict";
import { exitCode } from "../../lib/diagnose/report.ts";
import { renderReport } from "../../lib/diagnose/render.ts";
import { grantResult, http, KEY, NO_ANSWER, reportFor } from "../support/browsegrant.ts";
import { type ContractVerdict, VERDICT_EXIT, VERDICTS } from "../support/contract.ts";

Deno.test("exitCode per verdict: 0 for ok, 2 for the relay refusing access, 3 otherwise", () => {
  for (const verdict of VERDICTS) assert.equal(exitCode(verdict), VERDICT_EXIT[verdict], verdict);
});

Deno.test("buildReport: failures and old relays", async (t) => {
  await t.step("an old relay (400 unsupported:) is ok, with authentication pass", () => {
    const report = reportFor(http(400, { error: 'unsupported: management method "browsegrant"' }), {
      rooms: ["general"],
      kinds: [9],
    });
    assert.equal(report.verdict, "ok");
    assert.equal(exitCode(report.verdict), VERDICT_EXIT["ok"]);
    assert.equal(report.checks.authentication.status, "pass");
    assert.equal(report.checks.authentication.class, undefined);
    assert.equal(report.checks.membership.status, "skip");
    assert.equal(report.checks.grant.status, "skip");
  });
  await t.step("401: unauthorized, class authorization", () => {
    const report = reportFor(http(401, { error: "auth-required: token expired" }));
    assert.equal(report.verdict, "unauthorized");
    assert.equal(exitCode(report.verdict), VERDICT_EXIT["unauthorized"]);
    assert.equal(report.checks.authentication.status, "fail");
    assert.equal(report.checks.authentication.class, "authorization");
    assert.equal(report.checks.authentication.http_status, 401);
    assert.equal(report.checks.reachability.status, "pass", "the relay answered");
    assert.match(report.advice, /auth-required: token expired/);
  });
  await t.step("403 without members-only: unauthorized", () => {
    const report = reportFor(http(403, { error: "blocked: banned" }));
    assert.equal(report.verdict, "unauthorized");
    assert.equal(report.checks.authentication.class, "authorization");
  });
  await t.step(
    "403 naming a members-only relay: not-a-member; the signature passed, membership failed",
    () => {
      for (const error of ["restricted: this relay is members-only", "restricted: Members only relay"]) {
        const report = reportFor(http(403, { error }), { rooms: ["general"], kinds: [] });
        assert.equal(report.verdict, "not-a-member", error);
        assert.equal(exitCode(report.verdict), VERDICT_EXIT["not-a-member"]);
        assert.equal(report.checks.authentication.status, "pass");
        assert.equal(report.checks.authentication.class, undefined);
        assert.equal(report.checks.membership.status, "fail");
        assert.equal(report.checks.membership.class, "authorization");
        assert.equal(report.checks.membership.detail, error);
        assert.ok(report.advice.includes(KEY.npub));
      }
    },
  );
  await t.step("401 mentioning members-only is still unauthorized", () => {
    assert.equal(
      reportFor(http(401, { error: "auth-required: members-only relay" })).verdict,
      "unauthorized",
    );
  });
  await t.step("429: unreachable, class rate-limited, advice says to retry", () => {
    const report = reportFor(http(429, { error: "rate-limited: slow down" }));
    assert.equal(report.verdict, "unreachable");
    assert.equal(exitCode(report.verdict), VERDICT_EXIT["unreachable"]);
    assert.equal(report.checks.authentication.status, "fail");
    assert.equal(report.checks.authentication.class, "rate-limited");
    assert.match(report.advice, /retry/i);
  });
  for (
    const [name, outcome] of [
      ["400 other message", http(400, { error: "invalid: browsegrant kinds must be event kinds" })],
      ["404", http(404, "404 page not found", "text/plain")],
      ["405", http(405, "")],
      ["409", http(409, { error: "conflict" })],
      ["413", http(413, { error: "too large" })],
    ] as const
  ) {
    await t.step(`${name}: error, class protocol`, () => {
      const report = reportFor(outcome);
      assert.equal(report.verdict, "error");
      assert.equal(exitCode(report.verdict), VERDICT_EXIT["error"]);
      assert.equal(report.checks.authentication.status, "fail");
      assert.equal(report.checks.authentication.class, "protocol");
    });
  }
  for (
    const [name, outcome] of [
      ["500", http(500, { error: "internal" })],
      ["502", http(502, "<h1>Bad Gateway</h1>", "text/html")],
      ["503", http(503, "")],
      ["no answer", NO_ANSWER],
      ["200 with invalid JSON", http(200, "<html>")],
      ["200 with an invalid result", http(200, { result: { role: "agent" } })],
    ] as const
  ) {
    await t.step(`${name}: unreachable, never a working signature`, () => {
      const report = reportFor(outcome);
      assert.equal(report.verdict, "unreachable");
      assert.equal(exitCode(report.verdict), VERDICT_EXIT["unreachable"]);
      assert.notEqual(report.checks.authentication.status, "pass");
      assert.equal(report.checks.reachability.status, "fail");
    });
  }
});

// facade.md: "the `authentication` check carries the class on failure", transport included.
Deno.test({
  name: "buildReport: a transport failure fails reachability only, says its detail once, and keeps its class",
  fn() {
    for (
      const outcome of [
        http(500, { error: "internal" }),
        http(503, ""),
        NO_ANSWER,
        http(200, "{not json"),
        http(200, { result: { role: "agent" } }),
      ]
    ) {
      const report = reportFor(outcome);
      const { reachability, authentication } = report.checks;
      assert.equal(reachability.status, "fail");
      assert.equal(authentication.status, "skip", "no signature was judged");
      assert.equal(authentication.class, "transport");
      const text = renderReport(report, false);
      assert.equal(text.split(reachability.detail).length - 1, 1, `the detail once: ${text}`);
    }
  },
});

Deno.test("buildReport: the safety properties", async (t) => {
  await t.step("a refused signature is never unreachable", () => {
    for (const status of [401, 403]) {
      for (
        const error of [
          "auth-required: token expired",
          "restricted: members-only",
          "timeout",
          "unreachable",
          "",
        ]
      ) {
        const report = reportFor(http(status, error === "" ? "" : { error }));
        assert.notEqual(report.verdict, "unreachable", `${status} ${error}`);
        assert.ok(["unauthorized", "not-a-member"].includes(report.verdict), `${status} ${error}`);
        assert.equal(exitCode(report.verdict), VERDICT_EXIT[report.verdict as ContractVerdict]);
      }
    }
  });
  await t.step("no 4xx other than 400 unsupported: gives authentication pass", () => {
    for (let status = 400; status <= 499; status++) {
      for (const error of ["unsupported: browsegrant", "invalid: x", "restricted: x"]) {
        const report = reportFor(http(status, { error }));
        const oldRelay = status === 400 && error.startsWith("unsupported:");
        assert.equal(report.checks.authentication.status === "pass", oldRelay, `${status} ${error}`);
        assert.equal(report.verdict === "ok", oldRelay, `${status} ${error}`);
      }
    }
  });
  await t.step(`every verdict is one of the ${VERDICTS.length}`, () => {
    const verdicts = new Set<string>(VERDICTS);
    for (
      const outcome of [
        http(200, { result: grantResult() }),
        http(401, ""),
        http(429, ""),
        http(418, ""),
        http(500, ""),
        NO_ANSWER,
      ]
    ) {
      assert.ok(verdicts.has(reportFor(outcome).verdict));
    }
  });
});
