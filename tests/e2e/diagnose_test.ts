// Diagnose end to end: every row of facade.md's browsegrant classification
// table and every grant state, through the `tinyagent diagnose` command (exit
// codes, --json parsed) and through `tiny_diagnose` over stdio.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type Fault, startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { errorBody, type LimitAnswer, type RateFront, startRateFront } from "../support/rate_front.ts";
import {
  assertKeyNeverLeaks,
  assertNoSecret,
  narrowFlags,
  newKey,
  runOnce,
  type TestKey,
  withFacade,
} from "../support/tinyagent.ts";
import {
  type ContractFailureClass,
  type ContractVerdict,
  TINY_DIAGNOSE,
  USAGE_EXIT,
  VERDICT_EXIT,
} from "../support/contract.ts";

const OPERATOR = "d".repeat(64);
const NOW = Math.floor(Date.now() / 1000);

function answer(overrides: Record<string, unknown>, grant: Record<string, unknown> | null = {}) {
  return (pubkey: string) => ({
    member: true,
    role: "agent",
    enforced: true,
    state: "active",
    grant: grant === null ? null : {
      pubkey,
      owner: OPERATOR,
      event_id: "e".repeat(64),
      name: "helper",
      expires: NOW + 86400,
      paused: false,
      revoked: false,
      scope: { kinds: [9], rooms: ["general"], repos: [], rate: 60 },
      lastEvent: 0,
      ...grant,
    },
    ...overrides,
  });
}

interface Row {
  name: string;
  browsegrant?: (pubkey: string, params: unknown[]) => unknown;
  fault?: Fault;
  /** A 429 from a rate-limiting front before the relay (the relay itself never sends one). */
  limited?: LimitAnswer;
  membersOnly?: boolean;
  rooms?: string[];
  kinds?: number[];
  /** The exit status is the contract's for this verdict. */
  verdict: ContractVerdict;
  authentication: string;
  class?: ContractFailureClass;
  /** The membership check's class, when the refusal was about membership. */
  membershipClass?: ContractFailureClass;
  /** The reachability check's detail, when it failed. */
  reachability?: RegExp;
  advice: RegExp;
}

const ROWS: Row[] = [
  {
    name: "200, an active grant covering what is asked",
    browsegrant: answer({ missing: { rooms: [], kinds: [] } }),
    rooms: ["general"],
    kinds: [9],
    verdict: "ok",
    authentication: "pass",
    advice: /covers rooms general and kinds 9/,
  },
  {
    name: "200, the grant lacks rooms and kinds",
    browsegrant: answer({ missing: { rooms: ["ops"], kinds: [1111] } }),
    rooms: ["general", "ops"],
    kinds: [9, 1111],
    verdict: "needs-grant",
    authentication: "pass",
    advice:
      /lacks rooms ops and kinds 1111: call request_grant with \{"reason":.*"changes":\{"rooms":\["ops"\],"kinds":\[1111\]\}\}/,
  },
  {
    name: "200, no grant",
    browsegrant: answer({ state: "none" }, null),
    verdict: "needs-grant",
    authentication: "pass",
    advice: /holds no agent grant/,
  },
  {
    name: "200, a paused grant",
    browsegrant: answer({ state: "paused" }, { paused: true }),
    verdict: "needs-grant",
    authentication: "pass",
    advice: /paused: ask the grant's operator npub1\w+ to resume it/,
  },
  {
    name: "200, a revoked grant (the relay reads it as not a member)",
    browsegrant: answer({ member: false, role: "", state: "revoked" }, { revoked: true }),
    verdict: "needs-grant",
    authentication: "pass",
    advice: /revoked/,
  },
  {
    name: "200, an expired grant",
    browsegrant: answer({ state: "expired" }, { expires: NOW - 3600 }),
    verdict: "needs-grant",
    authentication: "pass",
    advice: /expired at \d{4}-\d\d-\d\dT/,
  },
  {
    name: "200, not a member",
    browsegrant: answer({ member: false, role: "", state: "none", enforced: true }, null),
    verdict: "not-a-member",
    authentication: "pass",
    advice: /not a member.*ask the relay owner/,
  },
  // A state name the relay supplies never indexes one of our tables: Object.prototype's names included.
  ...["toString", "constructor", "hasOwnProperty", "__proto__", "suspended"].map((state): Row => ({
    name: `200, a grant in the state ${JSON.stringify(state)}`,
    browsegrant: answer({ state }),
    verdict: "needs-grant",
    authentication: "pass",
    advice: new RegExp(
      `^the agent grant is ${state}, not active: ask the grant's operator npub1\\w+ to make it active$`,
    ),
  })),
  ...["owner", "moderator", "member"].map((role): Row => ({
    name: `200, the ${role} role is not enforced`,
    browsegrant: answer({ role, enforced: false, state: "none", missing: { rooms: [], kinds: [] } }, null),
    rooms: ["anything"],
    verdict: "ok",
    authentication: "pass",
    advice: new RegExp(`${role} role`),
  })),
  {
    name: "401",
    fault: { status: 401, body: '{"error":"auth-required: invalid signature"}' },
    verdict: "unauthorized",
    authentication: "fail",
    class: "authorization",
    advice: /refused the signed request \(HTTP 401: auth-required: invalid signature\)/,
  },
  {
    name: "403",
    fault: { status: 403, body: '{"error":"blocked: go away"}' },
    verdict: "unauthorized",
    authentication: "fail",
    class: "authorization",
    advice: /HTTP 403/,
  },
  {
    name: "403 from a members-only relay",
    membersOnly: true,
    verdict: "not-a-member",
    // The relay judged the signature good, then refused the key: membership failed, class authorization.
    authentication: "pass",
    membershipClass: "authorization",
    advice: /members-only.*ask the relay owner for membership/,
  },
  {
    name: "400 unsupported: an old relay",
    fault: { status: 400, body: '{"error":"unsupported: management method \\"browsegrant\\""}' },
    verdict: "ok",
    authentication: "pass",
    advice: /predates browsegrant/,
  },
  {
    name: "400 with another message",
    fault: { status: 400, body: '{"error":"invalid: rooms must be non-empty"}' },
    verdict: "error",
    authentication: "fail",
    class: "protocol",
    advice: /HTTP 400: invalid: rooms must be non-empty/,
  },
  {
    name: "404",
    fault: { status: 404, body: "no such page", contentType: "text/plain" },
    verdict: "error",
    authentication: "fail",
    class: "protocol",
    advice: /HTTP 404/,
  },
  {
    name: "429 from a front",
    limited: { body: errorBody("rate-limited: slow down") },
    verdict: "unreachable",
    authentication: "fail",
    class: "rate-limited",
    advice: /retry/,
  },
  {
    name: "500",
    fault: { status: 500, body: "oops", contentType: "text/plain" },
    verdict: "unreachable",
    authentication: "skip",
    class: "transport",
    reachability: /^HTTP 500: oops$/,
    advice: /no usable answer/,
  },
  {
    name: "a dropped connection",
    fault: { drop: true },
    verdict: "unreachable",
    authentication: "skip",
    class: "transport",
    reachability: /closed the connection/,
    advice: /no usable answer/,
  },
  {
    name: "invalid JSON",
    fault: { status: 200, body: "{nope" },
    verdict: "unreachable",
    authentication: "skip",
    class: "transport",
    reachability: /not a valid result/,
    advice: /no usable answer/,
  },
];

/** A row's relay, and the front tinyagent reaches it through when the row is a 429. */
interface Target {
  relay: StrictRelay;
  front?: RateFront;
  /** What tinyagent is given: the relay's URL, or the front's. */
  url: string;
  host: string;
}

async function targetFor(row: Row): Promise<Target> {
  const relay = await startStrictRelay({ membersOnly: row.membersOnly });
  if (row.browsegrant) relay.setBrowsegrant(row.browsegrant);
  // A fault for every attempt, so a retried connection meets it too.
  if (row.fault) relay.setBrowsegrant(() => row.fault!);
  if (!row.limited) return { relay, url: relay.url, host: relay.host };
  const front = startRateFront(relay);
  front.limit(1, row.limited);
  return { relay, front, url: front.url, host: front.host };
}

async function closeTarget(target: Target): Promise<void> {
  await target.front?.close();
  await target.relay.close();
}

function checkReport(report: Record<string, unknown>, row: Row, target: Target, key: TestKey) {
  assert.equal(report.verdict, row.verdict);
  assert.match(String(report.advice), row.advice);
  assert.equal(report.relay, target.url);
  assert.equal(report.pubkey, key.pubkey);
  assert.equal(report.npub, key.npub);
  const checks = report.checks as Record<string, Record<string, unknown>>;
  assert.equal(checks.authentication.status, row.authentication);
  assert.equal(checks.authentication.class, row.class);
  assert.equal(checks.membership.class, row.membershipClass);
  if (row.reachability) {
    assert.equal(checks.reachability.status, "fail");
    assert.match(String(checks.reachability.detail), row.reachability);
  }
  if (row.verdict === "unauthorized") assert.notEqual(report.verdict, "unreachable");
}

function checkRequest(target: Target, key: TestKey, row: Row) {
  const { relay, front } = target;
  if (front) {
    // The one call went no further than the front's 429: no retry reached the relay.
    assert.deepEqual([front.answered.length, front.pending, relay.requests.length], [1, 0, 0]);
    assertKeyNeverLeaks(key, { lines: [], stderr: "" }, [{ requests: front.answered }]);
  }
  const requests = [...front?.answered ?? [], ...relay.requests];
  const manage = requests.filter((r) => r.path === "/manage/rpc");
  assert.equal(manage.length >= 1, true, "one signed NIP-86 call");
  assert.equal(requests.filter((r) => r.path === "/mcp").length, 0, "never through /mcp");
  const request = manage[0];
  assert.match(request.headers.get("content-type") ?? "", /application\/nostr\+json\+rpc/);
  const body = JSON.parse(request.bodyText);
  assert.equal(body.method, "browsegrant");
  const asked: Record<string, unknown> = {};
  if (row.rooms) asked.rooms = row.rooms;
  if (row.kinds) asked.kinds = row.kinds;
  assert.deepEqual(body.params, Object.keys(asked).length ? [asked] : []);
  const event = request.auth!;
  assert.ok(verifyEvent(event));
  assert.equal(event.pubkey, key.pubkey);
  const tag = (name: string) => event.tags.find((t) => t[0] === name)?.[1];
  assert.equal(tag("u"), `${target.url}/manage/rpc`);
  assert.equal(tag("method"), "POST");
  assert.equal(tag("payload"), bytesToHex(sha256(request.body)));
  assert.ok(tag("nonce"));
}

Deno.test("tinyagent diagnose: each row, exit code and --json report", async (t) => {
  for (const row of ROWS) {
    await t.step(row.name, async () => {
      const target = await targetFor(row);
      const key = newKey();
      try {
        const args = ["diagnose", "--relay", target.url, "--json"];
        if (row.rooms) args.push("--rooms", row.rooms.join(","));
        if (row.kinds) args.push("--kinds", row.kinds.join(","));
        const run = await runOnce({
          flags: narrowFlags(target.host),
          args,
          env: { TINY_PRIVATE_KEY: key.hex },
        });
        assert.equal(run.code, VERDICT_EXIT[row.verdict], run.stderr);
        checkReport(JSON.parse(run.stdout), row, target, key);
        checkRequest(target, key, row);
        assertNoSecret(key, run.stdout + run.stderr, "output");
      } finally {
        await closeTarget(target);
      }
    });
  }
});

Deno.test("tinyagent diagnose: the readable report", async (t) => {
  const row = ROWS[1];
  const { relay } = await targetFor(row);
  const key = newKey();
  try {
    const run = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["diagnose", "--relay", relay.url, "--rooms", "general,ops", "--kinds", "9,1111"],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    await t.step("one line per check with a mark, verdict and advice last, no colour on a pipe", () => {
      assert.equal(run.code, VERDICT_EXIT["needs-grant"]);
      assert.ok(!run.stdout.includes("\x1b["), "no escape codes when stdout is not a terminal");
      const lines = run.stdout.trim().split("\n");
      assert.match(lines.find((l) => l.includes("reachability"))!, /^✓ /);
      assert.match(lines.find((l) => l.includes("authentication"))!, /^✓ /);
      assert.match(lines.find((l) => l.includes("rooms and kinds"))!, /^✗ .*lacks rooms ops and kinds 1111/);
      assert.equal(lines.at(-2), "verdict: needs-grant");
      assert.match(lines.at(-1)!, /^advice: {2}the grant lacks/);
    });
  } finally {
    await relay.close();
  }
  await t.step("a usage error exits 1", async () => {
    const run = await runOnce({ args: ["diagnose", "--relay", "http://127.0.0.1:9", "--kinds", "70000"] });
    assert.equal(run.code, USAGE_EXIT);
    assert.match(run.stderr, /--kinds: "70000" is not an event kind/);
  });
});

Deno.test("tiny_diagnose over stdio: each row, never isError", async (t) => {
  for (const row of ROWS) {
    await t.step(row.name, async () => {
      const target = await targetFor(row);
      try {
        // The session also checks exit 0 and that the key shows nowhere.
        await withFacade({ relay: target.relay, url: target.url }, async (facade, _relay, key) => {
          const args: Record<string, unknown> = {};
          if (row.rooms) args.rooms = row.rooms;
          if (row.kinds) args.kinds = row.kinds;
          const message = await facade.request("tools/call", { name: TINY_DIAGNOSE, arguments: args });
          const result = message.result as {
            content: { text: string }[];
            structuredContent: Record<string, unknown>;
            isError: boolean;
          };
          assert.equal(result.isError, false);
          checkReport(result.structuredContent, row, target, key);
          assert.equal(result.content[0].text, `${row.verdict}: ${result.structuredContent.advice}`);
          checkRequest(target, key, row);
        });
      } finally {
        await closeTarget(target);
      }
    });
  }
});

Deno.test("tiny_diagnose: listed even when the table cannot load; bad arguments name the field", async (t) => {
  await withFacade({ args: ["--tools", "list_rooms"] }, async (facade, relay) => {
    await t.step("listed alone when the relay's table fails", async () => {
      relay.script({
        status: 401,
        body: '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"auth-required: nope"}}',
      });
      const list = await facade.request("tools/list", {});
      assert.deepEqual((list.result as { tools: { name: string }[] }).tools.map((t) => t.name), [
        TINY_DIAGNOSE,
      ]);
    });
    for (
      const [args, field] of [
        [{ rooms: "general" }, "rooms"],
        [{ rooms: [""] }, "rooms"],
        [{ kinds: [70000] }, "kinds"],
        [{ kinds: [1.5] }, "kinds"],
        [{ kinds: ["9"] }, "kinds"],
      ] as const
    ) {
      await t.step(`invalid ${JSON.stringify(args)}`, async () => {
        const message = await facade.request("tools/call", { name: TINY_DIAGNOSE, arguments: args });
        const result = message.result as { content: { text: string }[]; isError: boolean };
        assert.equal(result.isError, true);
        assert.match(result.content[0].text, new RegExp(`invalid arguments: ${field}`));
      });
    }
  });
});
