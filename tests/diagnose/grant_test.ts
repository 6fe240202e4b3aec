// A browsegrant result read into a verdict (facade.md, `tiny_diagnose`): membership, whether grants
// apply to the role, the grant's state, then the rooms and kinds it lacks.

import assert from "node:assert/strict";
import { exitCode } from "../../lib/diagnose/report.ts";
import { VERDICT_EXIT } from "../support/contract.ts";
import { grantResult, http, KEY, PUBKEY, RELAY, reportFor } from "../support/browsegrant.ts";

Deno.test("buildReport: a 200 answer", async (t) => {
  await t.step("a member agent whose active grant covers everything asked is ok", () => {
    const asked = { rooms: ["general"], kinds: [9, 11] };
    const report = reportFor(
      http(200, { result: grantResult({ missing: { rooms: [], kinds: [] } }) }),
      asked,
    );
    assert.equal(report.verdict, "ok");
    assert.equal(exitCode(report.verdict), VERDICT_EXIT["ok"]);
    assert.equal(report.relay, RELAY);
    assert.equal(report.pubkey, PUBKEY);
    assert.equal(report.npub, KEY.npub);
    assert.equal(report.checks.reachability.status, "pass");
    assert.equal(report.checks.authentication.status, "pass");
    assert.equal(report.checks.authentication.class, undefined);
    assert.equal(report.checks.membership.status, "pass");
    assert.equal(report.checks.grant.status, "pass");
    assert.equal(report.checks.grant.state, "active");
    assert.equal(report.checks.coverage.status, "pass");
    assert.deepEqual(report.checks.coverage.missing, { rooms: [], kinds: [] });
    assert.equal(report.request_grant, undefined);
  });
  await t.step("an active grant with nothing asked is ok", () => {
    const report = reportFor(http(200, { result: grantResult() }));
    assert.equal(report.verdict, "ok");
    assert.equal(report.checks.coverage.status, "skip");
  });
  await t.step("missing rooms and kinds: needs-grant, with request_grant arguments", () => {
    const asked = { rooms: ["general", "ops", "deploy"], kinds: [9, 11, 43001] };
    const missing = { rooms: ["ops", "deploy"], kinds: [43001] };
    const report = reportFor(http(200, { result: grantResult({ missing }) }), asked);
    assert.equal(report.verdict, "needs-grant");
    assert.equal(exitCode(report.verdict), VERDICT_EXIT["needs-grant"]);
    for (const name of ["ops", "deploy", "43001", "request_grant"]) {
      assert.ok(report.advice.includes(name), `advice names ${name}: ${report.advice}`);
    }
    assert.ok(!/\bgeneral\b/.test(report.advice.split("request_grant")[0]), "covered rooms are not missing");
    assert.deepEqual(report.request_grant?.changes, missing);
    assert.equal(typeof report.request_grant?.reason, "string");
    assert.equal(report.checks.coverage.status, "fail");
    assert.deepEqual(report.checks.coverage.missing, missing);
    assert.deepEqual(report.checks.coverage.asked, asked);
  });
  await t.step("only kinds missing: changes hold only kinds", () => {
    const report = reportFor(
      http(200, { result: grantResult({ missing: { rooms: [], kinds: [1111] } }) }),
      { rooms: ["general"], kinds: [9, 1111] },
    );
    assert.equal(report.verdict, "needs-grant");
    assert.deepEqual(report.request_grant?.changes, { kinds: [1111] });
    assert.match(report.advice, /1111/);
  });
  await t.step("only rooms missing: changes hold only rooms", () => {
    const report = reportFor(
      http(200, { result: grantResult({ missing: { rooms: ["ops"], kinds: [] } }) }),
      { rooms: ["ops"], kinds: [] },
    );
    assert.equal(report.verdict, "needs-grant");
    assert.deepEqual(report.request_grant?.changes, { rooms: ["ops"] });
  });

  const states: [string, Record<string, unknown>, RegExp][] = [
    ["none (a member agent without a grant)", { state: "none", grant: null }, /grant/],
    ["paused", { state: "paused" }, /pause/],
    ["expired", { state: "expired", expires: 1_600_000_000 }, /expire/],
    ["revoked (member false, role empty)", { member: false, role: "", state: "revoked" }, /revoke/],
  ];
  for (const [name, overrides, advice] of states) {
    await t.step(`grant state ${name}: needs-grant`, () => {
      const report = reportFor(http(200, { result: grantResult(overrides) }), {
        rooms: ["general"],
        kinds: [9],
      });
      assert.equal(report.verdict, "needs-grant");
      assert.equal(exitCode(report.verdict), VERDICT_EXIT["needs-grant"]);
      assert.match(report.advice, advice);
      assert.equal(report.checks.grant.status, "fail");
      assert.equal(report.checks.authentication.status, "pass");
    });
  }
  await t.step("not a member: not-a-member, advice names the key", () => {
    const report = reportFor(
      http(200, { result: { member: false, role: "", grant: null, state: "none", enforced: true } }),
      { rooms: ["general"], kinds: [9] },
    );
    assert.equal(report.verdict, "not-a-member");
    assert.equal(exitCode(report.verdict), VERDICT_EXIT["not-a-member"]);
    assert.equal(report.checks.membership.status, "fail");
    assert.equal(report.checks.membership.member, false);
    assert.equal(report.checks.authentication.status, "pass");
    assert.ok(report.advice.includes(KEY.npub));
  });
  for (const role of ["owner", "moderator", "member"]) {
    await t.step(`role ${role} is not limited by grants: ok even with missing lists`, () => {
      const result = {
        member: true,
        role,
        grant: null,
        state: "none",
        enforced: false,
        missing: { rooms: ["ops"], kinds: [43001] },
      };
      const report = reportFor(http(200, { result }), { rooms: ["ops"], kinds: [43001] });
      assert.equal(report.verdict, "ok");
      assert.equal(exitCode(report.verdict), VERDICT_EXIT["ok"]);
      assert.equal(report.request_grant, undefined);
      assert.deepEqual(report.checks.coverage.missing, { rooms: [], kinds: [] });
      assert.ok(report.advice.includes(role));
      // Same without the enforced field: the role decides.
      const { enforced: _, ...withoutEnforced } = result;
      assert.equal(reportFor(http(200, { result: withoutEnforced })).verdict, "ok");
    });
  }
});
