// A signed event published under the person's hold (lib/oversight/gated_publish.ts), with a real
// WriteGate and Signer and the HTTP side faked: each fate — accepted, refused (by its receipt or
// its status), not sent, unknown (a lost answer, an unreadable receipt, the call's own bound) —
// with what the caller gets, the receipt on stderr and the audit entry; a write held back signs and
// sends nothing; and when signing throws, the place in the budget is given back and nothing sent.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type EventTemplate, Signer } from "../../lib/key/signer.ts";
import { PackageLoadError } from "../../lib/key/stack.ts";
import { failureDetail, gatedPublish, type PublishDeps } from "../../lib/oversight/gated_publish.ts";
import type { AuditEntry } from "../../lib/oversight/audit_record.ts";
import type { ConfirmAnswer } from "../../lib/oversight/confirmation.ts";
import { WriteBudget } from "../../lib/oversight/write_budget.ts";
import { WriteGate } from "../../lib/oversight/write_gate.ts";
import { parseRelayUrl } from "../../lib/relay/endpoint.ts";
import type { SignedOutcome, SignedRequest } from "../../lib/relay/signed_http.ts";
import { DECLINED_AT_HOST } from "../support/oversight.ts";

const secretKey = generateSecretKey();
const signerResult = await Signer.fromValue(bytesToHex(secretKey), "TINY_PRIVATE_KEY");
assert.ok(signerResult.ok);
const signer = signerResult.signer;
const parsed = parseRelayUrl("http://127.0.0.1:7777/r/acme");
assert.ok(parsed.ok);
const endpoint = parsed.endpoint;
const TEMPLATE: EventTemplate = {
  kind: 9,
  created_at: 1_700_000_000,
  tags: [["h", "general"]],
  content: "hello",
};
const ARGS = { room: "general", content: "hello" };

const answer = (status: number, body: string, reason = "OK"): SignedOutcome => ({
  ok: true,
  answer: { status, reason, headers: new Map(), body },
});

interface Setup {
  deps: PublishDeps;
  budget: WriteBudget;
  sent: SignedRequest[];
  entries: AuditEntry[];
  logs: string[];
  signed: number;
}

function setup(
  outcome: SignedOutcome | ((signal: AbortSignal) => SignedOutcome),
  options: { limit?: number; answers?: ConfirmAnswer[]; sign?: PublishDeps["signer"]["sign"] } = {},
): Setup {
  const budget = new WriteBudget(options.limit);
  const entries: AuditEntry[] = [];
  const logs: string[] = [];
  const sent: SignedRequest[] = [];
  const answers = options.answers;
  const setup: Setup = {
    budget,
    sent,
    entries,
    logs,
    signed: 0,
    deps: {
      endpoint,
      signer: {
        sign: (template) => {
          setup.signed++;
          return options.sign ? options.sign(template) : signer.sign(template);
        },
      },
      http: {
        send: (request, signal) => {
          sent.push(request);
          return Promise.resolve(typeof outcome === "function" ? outcome(signal) : outcome);
        },
      },
      gate: new WriteGate({
        relay: endpoint.base,
        session: "7@start",
        budget,
        ask: answers && (() => Promise.resolve(answers.shift() ?? { action: "decline" })),
        where: "host",
        audit: { append: (entry) => Promise.resolve(void entries.push(entry)) },
        log: (line) => logs.push(line),
        now: () => new Date(Date.UTC(2026, 11, 1)),
      }),
    },
  };
  return setup;
}

const never = () => new AbortController().signal;

Deno.test("accepted: the event, signed and POSTed once to /events, its receipt and entry", async () => {
  const s = setup(answer(200, '{"accepted":true,"message":""}'));
  const published = await gatedPublish(s.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(published.ok);
  const event = JSON.parse(JSON.stringify(published.event));
  assert.ok(verifyEvent({ ...event }));
  assert.equal(event.pubkey, getPublicKey(secretKey));
  assert.deepEqual([event.kind, event.tags, event.content], [9, [["h", "general"]], "hello"]);
  assert.equal(s.sent.length, 1);
  const [request] = s.sent;
  assert.equal(request.method, "POST");
  assert.equal(request.url, "http://127.0.0.1:7777/r/acme/events");
  assert.equal(request.target, "/r/acme/events");
  assert.equal(request.headers["Content-Type"], "application/json");
  assert.deepEqual(JSON.parse(new TextDecoder().decode(request.body)), event);
  assert.deepEqual(s.logs, [
    `receipt: post_message signed kind 9 event ${event.id} in room "general": "hello": accepted`,
  ]);
  assert.deepEqual(s.entries, [{
    time: "2026-12-01T00:00:00.000Z",
    session: "7@start",
    relay: endpoint.base,
    tool: "post_message",
    arguments: ARGS,
    event,
    answer: { accepted: true, message: "" },
    outcome: "accepted",
  }]);
  assert.equal(s.budget.spent, 1);
});

Deno.test("refused: by the receipt, or by the status, in the relay's words", async () => {
  const byReceipt = setup(answer(200, '{"accepted":false,"message":"blocked: not in this room"}'));
  const first = await gatedPublish(byReceipt.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!first.ok && !first.held);
  assert.equal(first.error, "blocked: not in this room");
  assert.ok(first.event && verifyEvent({ ...first.event }));
  assert.match(byReceipt.logs[0], /: refused: blocked: not in this room$/);
  assert.equal(byReceipt.entries[0].outcome, "refused");
  assert.equal(byReceipt.entries[0].why, "blocked: not in this room");
  assert.deepEqual(byReceipt.entries[0].answer, { accepted: false, message: "blocked: not in this room" });
  assert.equal(byReceipt.budget.spent, 1, "it was signed: the place is spent");

  const byStatus = setup(answer(403, "restricted: agent grant does not cover kind 9", "Forbidden"));
  const second = await gatedPublish(byStatus.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!second.ok && !second.held);
  assert.equal(second.error, "relay HTTP 403 Forbidden: restricted: agent grant does not cover kind 9");
  assert.equal(byStatus.entries[0].outcome, "refused");
  // A body that is not JSON is logged as its status and text.
  assert.deepEqual(byStatus.entries[0].answer, {
    status: 403,
    body: "restricted: agent grant does not cover kind 9",
  });
});

Deno.test("not sent: nothing published, safe to publish again, said so", async () => {
  const s = setup({ ok: false, unsent: true, detail: "cannot reach 127.0.0.1:7777: connection refused" });
  const published = await gatedPublish(s.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!published.ok && !published.held);
  const id = published.event!.id;
  assert.equal(
    published.error,
    `cannot reach 127.0.0.1:7777: connection refused. The signed event ${id} did not reach the relay, so ` +
      `nothing was published; publishing it again is safe.`,
  );
  assert.match(s.logs[0], /: not sent: cannot reach 127\.0\.0\.1:7777: connection refused$/);
  assert.deepEqual(
    [s.entries[0].outcome, s.entries[0].why, s.entries[0].answer],
    ["not sent", "cannot reach 127.0.0.1:7777: connection refused", {
      error: "cannot reach 127.0.0.1:7777: connection refused",
    }],
  );
  assert.equal(s.sent.length, 1, "sent once, never again");
});

Deno.test("unknown: a lost answer or an unreadable receipt; never sent again, and how to look", async () => {
  const lost = setup({ ok: false, unsent: false, detail: "the connection was reset" });
  const first = await gatedPublish(lost.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!first.ok && !first.held);
  const id = first.event!.id;
  assert.equal(
    first.error,
    `the connection was reset. The signed event ${id} (kind 9) was sent, but the relay's answer was lost, ` +
      `so whether it was published is unknown; tinyagent did not send it again. Query {"ids":["${id}"]} ` +
      `to see whether it is there before publishing the same thing again.`,
  );
  assert.equal(lost.sent.length, 1);
  assert.match(lost.logs[0], /: outcome unknown: the connection was reset$/);
  assert.deepEqual([lost.entries[0].outcome, lost.entries[0].why], ["unknown", "the connection was reset"]);

  const unreadable = setup(answer(200, "<html>ok</html>"));
  const second = await gatedPublish(unreadable.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!second.ok && !second.held);
  assert.match(
    second.error,
    /^relay returned an invalid publish receipt\. The signed event [0-9a-f]{64} \(kind 9\) was sent/,
  );
  assert.equal(unreadable.entries[0].outcome, "unknown");
});

Deno.test("the call's own bound: its words, not the transport's", async () => {
  const controller = new AbortController();
  controller.abort(new Error("no answer within 30 s"));
  const s = setup(() => ({ ok: false, unsent: false, detail: "aborted" }));
  const published = await gatedPublish(s.deps, "post_message", ARGS, TEMPLATE, controller.signal);
  assert.ok(!published.ok);
  assert.match(published.error, /^no answer within 30 s\. The signed event/);
  assert.equal(s.entries[0].why, "no answer within 30 s");
  // failureDetail alone: the transport's words unless the signal ended it with an Error.
  const outcome = { ok: false as const, unsent: true, detail: "reset" };
  assert.equal(failureDetail(outcome, never()), "reset");
  const bare = new AbortController();
  bare.abort("a string");
  assert.equal(failureDetail(outcome, bare.signal), "reset");
  assert.equal(failureDetail(outcome, controller.signal), "no answer within 30 s");
});

Deno.test("held back: the budget spent, or the person declining: nothing signed, nothing sent", async () => {
  const spent = setup(answer(200, '{"accepted":true}'), { limit: 1 });
  assert.ok((await gatedPublish(spent.deps, "post_message", ARGS, TEMPLATE, never())).ok);
  const second = await gatedPublish(spent.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!second.ok && second.held);
  assert.match(second.error, /^permission: write budget spent: 1 event signed/);
  assert.equal(second.event, undefined);
  assert.deepEqual([spent.signed, spent.sent.length], [1, 1]);
  assert.deepEqual(spent.entries.map((entry) => entry.outcome), ["accepted", "held"]);

  const declined = setup(answer(200, '{"accepted":true}'), { answers: [{ action: "decline" }] });
  const third = await gatedPublish(declined.deps, "post_message", ARGS, TEMPLATE, never());
  assert.ok(!third.ok && third.held);
  assert.equal(third.error, DECLINED_AT_HOST);
  assert.deepEqual([declined.signed, declined.sent.length, declined.budget.spent], [0, 0, 0]);
  assert.equal(declined.entries[0].outcome, "held");
  assert.deepEqual(declined.entries[0].template, { ...TEMPLATE });
});

Deno.test("signing fails: the place is given back, nothing sent, held with what failed", async () => {
  const s = setup(answer(200, '{"accepted":true}'), {
    limit: 1,
    sign: () => Promise.reject(new Error("nostr-wasm: Out of memory (resizing 1155072)")),
  });
  const published = await gatedPublish(s.deps, "post_message", ARGS, TEMPLATE, never());
  const text = "tinyagent could not sign the event post_message asked for (nostr-wasm: Out of memory " +
    "(resizing 1155072)), so nothing was published; calling post_message again will try once more.";
  assert.deepEqual(published, { ok: false, held: true, error: text });
  assert.deepEqual([s.sent.length, s.budget.spent], [0, 0]);
  assert.equal(s.entries.length, 1, "the write is in the log, held");
  assert.equal(s.entries[0].outcome, "held");
  // The one place of --max-writes 1 is free again.
  assert.equal(s.budget.refusal(), undefined);
  const reserved = s.budget.reserve();
  assert.ok("spend" in reserved);
});

Deno.test("signing code that cannot load: the caller's error, nothing sent, the place given back", async () => {
  const s = setup(answer(200, '{"accepted":true}'), {
    limit: 1,
    sign: () => Promise.reject(new PackageLoadError("the signing stack failed to load")),
  });
  await assert.rejects(
    gatedPublish(s.deps, "post_message", ARGS, TEMPLATE, never()),
    /the signing stack failed to load/,
  );
  assert.deepEqual([s.sent.length, s.budget.spent, s.entries.length], [0, 0, 0]);
  assert.equal(s.budget.refusal(), undefined);
});
