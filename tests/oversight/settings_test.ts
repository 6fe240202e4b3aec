// The oversight settings in words (lib/oversight/settings.ts): the startup line's part and
// `tinyagent tools`.

import assert from "node:assert/strict";
import { DEFAULT_OVERSIGHT, oversightReport, oversightSummary } from "../../lib/oversight/settings.ts";
import { DEFAULT_CONFIRM_TIMEOUT_SECONDS } from "../support/oversight.ts";

const ALL = {
  auditLog: "/home/you/audit.jsonl",
  maxWrites: 5,
  confirmWrites: true,
  confirmTimeoutMs: 90_000,
};

Deno.test("the default: five minutes to answer, no budget, no log, no question", () => {
  assert.deepEqual(DEFAULT_OVERSIGHT, {
    confirmWrites: false,
    confirmTimeoutMs: DEFAULT_CONFIRM_TIMEOUT_SECONDS * 1000,
  });
});

Deno.test("in words: what holds the writes back, and a host that cannot ask said once", () => {
  assert.equal(oversightSummary(DEFAULT_OVERSIGHT, false, "host"), "writes not allowed");
  assert.equal(
    oversightSummary({ ...DEFAULT_OVERSIGHT, auditLog: "/a.jsonl" }, false, "host"),
    'writes not allowed; audit log "/a.jsonl"',
  );
  assert.equal(
    oversightSummary(DEFAULT_OVERSIGHT, true, "host"),
    "writes allowed, each with a receipt on stderr",
  );
  assert.equal(
    oversightSummary({ ...DEFAULT_OVERSIGHT, maxWrites: 50, confirmWrites: true }, false, "host"),
    "writes not allowed (--max-writes 50 and --confirm-writes have no writes to act on: add --allow-writes)",
  );
  assert.equal(
    oversightSummary({ ...DEFAULT_OVERSIGHT, confirmTimeoutMs: 9_000 }, true, "host"),
    "writes allowed, each with a receipt on stderr; --confirm-timeout has nothing to time without --confirm-writes",
  );
  assert.equal(
    oversightSummary(ALL, true, "host"),
    "writes allowed, each with a receipt on stderr; each approved by the person through the host first " +
      '(90 s to answer); at most 5 writes in this session; audit log "/home/you/audit.jsonl"',
  );
  assert.match(
    oversightSummary(ALL, true, "host", false),
    /each to be approved through the host, which cannot ask its person \(its initialize declared no elicitation capability\): every write will be refused; use a host that supports MCP elicitation, or drop --confirm-writes/,
  );
  assert.match(
    oversightSummary({ ...ALL, maxWrites: 1 }, true, "terminal"),
    /through the terminal first.*at most 1 write in/,
  );
});

Deno.test("as JSON for tinyagent tools --json", () => {
  assert.deepEqual(oversightReport(ALL, true), {
    allow_writes: true,
    confirm_writes: true,
    confirm_timeout_seconds: 90,
    max_writes: 5,
    audit_log: "/home/you/audit.jsonl",
  });
  assert.deepEqual(oversightReport(DEFAULT_OVERSIGHT, false), {
    allow_writes: false,
    confirm_writes: false,
    confirm_timeout_seconds: 300,
    max_writes: null,
    audit_log: null,
  });
});
