// The browsegrant answer table (facade.md, `tiny_diagnose`): how the one signed answer is
// classified by its HTTP status, and how a 200 result is read.

import assert from "node:assert/strict";
import { type Classified, classify, parseGrantAnswer } from "../../lib/diagnose/classify.ts";
import type { HttpOutcome } from "../../lib/relay/answer.ts";
import { grantResult, http, NO_ANSWER } from "../support/browsegrant.ts";
import { FAILURE_CLASSES } from "../support/contract.ts";

Deno.test("classify: every row of the browsegrant table", async (t) => {
  const rows: [string, HttpOutcome, Partial<Classified> & { kind: Classified["kind"] }][] = [
    ["200 with a result", http(200, { result: grantResult() }), { kind: "result", status: 200 }],
    ["401", http(401, { error: "auth-required: token expired" }), {
      kind: "failure",
      class: "authorization",
      status: 401,
    }],
    ["403", http(403, { error: "blocked: this key is banned" }), {
      kind: "failure",
      class: "authorization",
      status: 403,
    }],
    ["403 members-only", http(403, { error: "restricted: this relay is members-only" }), {
      kind: "failure",
      class: "authorization",
      status: 403,
    }],
    ["400 unsupported:", http(400, { error: 'unsupported: management method "browsegrant"' }), {
      kind: "old-relay",
      status: 400,
    }],
    ["400 other message", http(400, { error: "invalid: browsegrant rooms must be room ids" }), {
      kind: "failure",
      class: "protocol",
      status: 400,
    }],
    ["404", http(404, "404 page not found", "text/plain"), {
      kind: "failure",
      class: "protocol",
      status: 404,
    }],
    ["409", http(409, { error: "conflict" }), { kind: "failure", class: "protocol", status: 409 }],
    ["429", http(429, { error: "rate-limited: slow down" }), {
      kind: "failure",
      class: "rate-limited",
      status: 429,
    }],
    ["500", http(500, { error: "internal" }), { kind: "failure", class: "transport", status: 500 }],
    ["503", http(503, "Service Unavailable", "text/plain"), {
      kind: "failure",
      class: "transport",
      status: 503,
    }],
    ["transport failure (no answer)", NO_ANSWER, { kind: "failure", class: "transport" }],
    ["200 with invalid JSON", http(200, "{not json"), { kind: "failure", class: "transport" }],
    ["200 with a result missing member", http(200, { result: { role: "agent", state: "active" } }), {
      kind: "failure",
      class: "transport",
    }],
    ["200 without a result", http(200, { error: "odd" }), { kind: "failure", class: "transport" }],
    ["200 with a non-object result", http(200, { result: [true] }), { kind: "failure", class: "transport" }],
  ];
  for (const [name, outcome, want] of rows) {
    await t.step(name, () => {
      const got = classify(outcome);
      for (const [field, value] of Object.entries(want)) {
        assert.deepEqual((got as Record<string, unknown>)[field], value, `${name}: ${field}`);
      }
    });
  }
  await t.step("the classes are the contract's, each one produced by some row", () => {
    const classes = new Set(
      rows.map(([, outcome]) => classify(outcome)).map((got) => "class" in got ? got.class : undefined),
    );
    classes.delete(undefined);
    assert.deepEqual([...classes].sort(), [...FAILURE_CLASSES].sort());
  });
  await t.step("the relay's message is carried", () => {
    const got = classify(http(401, { error: "auth-required: token expired" }));
    assert.ok(got.kind === "failure" && got.message.includes("auth-required: token expired"));
    const old = classify(http(400, { error: 'unsupported: management method "browsegrant"' }));
    assert.ok(old.kind === "old-relay" && old.message.startsWith("unsupported:"));
  });
  await t.step("only a 400 starting with unsupported: is an old relay", () => {
    for (
      const [status, error] of [
        [400, "invalid: unsupported: nested"],
        [400, " unsupported: leading space"],
        [404, "unsupported: wrong status"],
        [405, "unsupported: method"],
        [422, "unsupported: x"],
      ] as const
    ) {
      assert.notEqual(classify(http(status, { error })).kind, "old-relay", `${status} ${error}`);
    }
  });
  await t.step("a 200 result is read as a grant answer", () => {
    const got = classify(http(200, { result: grantResult({ missing: { rooms: ["ops"], kinds: [43] } }) }));
    assert.equal(got.kind, "result");
    if (got.kind !== "result") return;
    assert.equal(got.answer.member, true);
    assert.equal(got.answer.role, "agent");
    assert.equal(got.answer.state, "active");
    assert.equal(got.answer.enforced, true);
    assert.deepEqual(got.answer.missing, { rooms: ["ops"], kinds: [43] });
  });
});

Deno.test("parseGrantAnswer", async (t) => {
  await t.step("enforced defaults from the role when the relay omits it", () => {
    for (
      const [role, enforced] of [["", true], ["agent", true], ["member", false], ["owner", false]] as const
    ) {
      const answer = parseGrantAnswer({ member: role !== "", role, state: "none", grant: null });
      assert.equal(answer?.enforced, enforced, role);
    }
  });
  await t.step("not a result", () => {
    for (
      const value of [
        null,
        [],
        "x",
        {},
        { member: "yes" },
        { member: true, role: 5 },
        { member: true, grant: "x" },
        { member: true, missing: { rooms: [1] } },
        { member: true, missing: { kinds: [70000] } },
      ]
    ) {
      assert.equal(parseGrantAnswer(value), undefined, JSON.stringify(value));
    }
  });
});
