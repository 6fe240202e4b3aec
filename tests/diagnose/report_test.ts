// tiny_diagnose and `tinyagent diagnose`: the browsegrant answer table
// (facade.md), the verdicts, exit codes, arguments and the printed report.

import assert from "node:assert/strict";
import * as nip19 from "nostr-tools/nip19";
import { type Asked, type Classified, classify, parseGrantAnswer } from "../../lib/diagnose/classify.ts";
import { buildReport, exitCode, type Report, type Verdict } from "../../lib/diagnose/report.ts";
import { renderReport } from "../../lib/diagnose/render.ts";
import { DIAGNOSE_ENTRY, parseAsked } from "../../lib/diagnose/tool.ts";
import type { HttpOutcome } from "../../lib/relay/answer.ts";

const RELAY = "https://relay.example.test/r/acme";
const PUBKEY = "79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798";
const KEY = { pubkey: PUBKEY, npub: nip19.npubEncode(PUBKEY) };
const OPERATOR = "c6047f9441ed7d6d3045406e95c07cd85c778e4b8cef3ca7abac09b95c709ee5";
const NOTHING: Asked = { rooms: [], kinds: [] };

function http(status: number, body: unknown, contentType = "application/json"): HttpOutcome {
  return {
    ok: true,
    status,
    contentType,
    bodyText: typeof body === "string" ? body : JSON.stringify(body),
  };
}

const NO_ANSWER: HttpOutcome = {
  ok: false,
  failure: { class: "transport", detail: "connection refused (127.0.0.1:9)" },
};

function grantResult(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    member: true,
    role: "agent",
    grant: {
      pubkey: PUBKEY,
      owner: OPERATOR,
      event_id: "ee".repeat(32),
      name: "helper",
      expires: 1_900_000_000,
      paused: false,
      revoked: 0,
      scope: { kinds: [9, 11], rooms: ["general"], repos: [], rate: 60 },
      lastEvent: 0,
    },
    state: "active",
    enforced: true,
    expires: 1_900_000_000,
    ...overrides,
  };
}

/** The report for one relay answer, the way `diagnose` builds it. */
function reportFor(outcome: HttpOutcome, asked: Asked = NOTHING): Report {
  return buildReport({ relay: RELAY, identity: KEY, asked, npubOf: nip19.npubEncode }, classify(outcome));
}

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

/** The verdict contract: exit 0 for ok, 2 for the relay refusing access, 3 otherwise. */
const EXIT: Record<Verdict, number> = {
  "ok": 0,
  "needs-grant": 2,
  "not-a-member": 2,
  "unauthorized": 2,
  "unreachable": 3,
  "error": 3,
};

Deno.test("exitCode per verdict", () => {
  for (const [verdict, code] of Object.entries(EXIT)) {
    assert.equal(exitCode(verdict as Verdict), code, verdict);
  }
});

Deno.test("buildReport: a 200 answer", async (t) => {
  await t.step("a member agent whose active grant covers everything asked is ok", () => {
    const asked = { rooms: ["general"], kinds: [9, 11] };
    const report = reportFor(
      http(200, { result: grantResult({ missing: { rooms: [], kinds: [] } }) }),
      asked,
    );
    assert.equal(report.verdict, "ok");
    assert.equal(exitCode(report.verdict), 0);
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
    assert.equal(exitCode(report.verdict), 2);
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
      assert.equal(exitCode(report.verdict), 2);
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
    assert.equal(exitCode(report.verdict), 2);
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
      assert.equal(exitCode(report.verdict), 0);
      assert.equal(report.request_grant, undefined);
      assert.deepEqual(report.checks.coverage.missing, { rooms: [], kinds: [] });
      assert.ok(report.advice.includes(role));
      // Same without the enforced field: the role decides.
      const { enforced: _, ...withoutEnforced } = result;
      assert.equal(reportFor(http(200, { result: withoutEnforced })).verdict, "ok");
    });
  }
});

Deno.test("buildReport: failures and old relays", async (t) => {
  await t.step("an old relay (400 unsupported:) is ok, with authentication pass", () => {
    const report = reportFor(http(400, { error: 'unsupported: management method "browsegrant"' }), {
      rooms: ["general"],
      kinds: [9],
    });
    assert.equal(report.verdict, "ok");
    assert.equal(exitCode(report.verdict), 0);
    assert.equal(report.checks.authentication.status, "pass");
    assert.equal(report.checks.authentication.class, undefined);
    assert.equal(report.checks.membership.status, "skip");
    assert.equal(report.checks.grant.status, "skip");
  });
  await t.step("401: unauthorized, class authorization", () => {
    const report = reportFor(http(401, { error: "auth-required: token expired" }));
    assert.equal(report.verdict, "unauthorized");
    assert.equal(exitCode(report.verdict), 2);
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
        assert.equal(exitCode(report.verdict), 2);
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
    assert.equal(exitCode(report.verdict), 3);
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
      assert.equal(exitCode(report.verdict), 3);
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
      assert.equal(exitCode(report.verdict), 3);
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
        assert.equal(exitCode(report.verdict), 2);
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
  await t.step("every verdict is one of the six", () => {
    const verdicts = new Set(Object.keys(EXIT));
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

Deno.test("parseAsked", async (t) => {
  await t.step("valid arguments, duplicates dropped", () => {
    assert.deepEqual(parseAsked({}), { ok: true, asked: { rooms: [], kinds: [] } });
    assert.deepEqual(parseAsked({ rooms: ["general", "ops", "general"], kinds: [9, 0, 65535, 9] }), {
      ok: true,
      asked: { rooms: ["general", "ops"], kinds: [9, 0, 65535] },
    });
  });
  const badRooms: unknown[] = ["general", [""], ["  "], [1], [null], { general: true }, [["general"]]];
  for (const rooms of badRooms) {
    await t.step(`rooms ${JSON.stringify(rooms)} names rooms`, () => {
      const parsed = parseAsked({ rooms, kinds: [9] });
      assert.ok(!parsed.ok);
      if (parsed.ok) return;
      assert.match(parsed.error, /\brooms\b/);
      assert.doesNotMatch(parsed.error, /\bkinds\b/);
    });
  }
  const badKinds: unknown[] = [[70000], [65536], [-1], ["9"], [1.5], "9", [null], { 9: true }];
  for (const kinds of badKinds) {
    await t.step(`kinds ${JSON.stringify(kinds)} names kinds`, () => {
      const parsed = parseAsked({ rooms: ["general"], kinds });
      assert.ok(!parsed.ok);
      if (parsed.ok) return;
      assert.match(parsed.error, /\bkinds\b/);
      assert.doesNotMatch(parsed.error, /\brooms\b/);
    });
  }
  await t.step("more than 256 entries names the list", () => {
    const rooms = parseAsked({ rooms: Array.from({ length: 257 }, (_, i) => `r${i}`) });
    assert.ok(!rooms.ok && /\brooms\b/.test(rooms.error));
    const kinds = parseAsked({ kinds: Array.from({ length: 257 }, (_, i) => i) });
    assert.ok(!kinds.ok && /\bkinds\b/.test(kinds.error));
    assert.ok(parseAsked({ kinds: Array.from({ length: 256 }, (_, i) => i) }).ok);
  });
  await t.step("an unknown field is named", () => {
    const parsed = parseAsked({ rooms: [], room: ["general"] });
    assert.ok(!parsed.ok && parsed.error.includes("room"));
  });
});

Deno.test("DIAGNOSE_ENTRY matches its arguments", () => {
  assert.equal(DIAGNOSE_ENTRY.name, "tiny_diagnose");
  const schema = DIAGNOSE_ENTRY.inputSchema as { type: string; properties: Record<string, unknown> };
  assert.equal(schema.type, "object");
  assert.deepEqual(Object.keys(schema.properties).sort(), ["kinds", "rooms"]);
});

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
