// Idempotency keys (lib/code/idempotency.ts): a key used for a sent write answers a re-run from it, the
// same key with other arguments or another tool is refused naming the write, a held write leaves no trace,
// a key on its way is busy, keys expire and at most 1,000 are kept, each drop said; keyedCall's flow.

import assert from "node:assert/strict";
import {
  ANSWER_MAX_CHARS,
  argsDigest,
  type Claim,
  droppedText,
  IdempotencyKeys,
  KEY_TTL_MS,
  keyedCall,
  MAX_KEYS,
  refusalText,
  settle,
} from "../../lib/code/idempotency.ts";
import type { CallReport } from "../../lib/code/report.ts";

const EVENT = "ef".repeat(32);

function clock() {
  let now = 1_000_000;
  return { now: () => now, pass: (ms: number) => void (now += ms) };
}

function claimed(claim: Claim) {
  assert.equal(claim.kind, "new", JSON.stringify(claim));
  return claim as Extract<Claim, { kind: "new" }>;
}

Deno.test("a key: new, then its sent write answers the same call; other arguments or tool refused", () => {
  const keys = new IdempotencyKeys();
  const first = claimed(keys.claim("k", "post_message", "d1"));
  assert.deepEqual(first.dropped, []);
  assert.deepEqual(keys.claim("k", "post_message", "d1"), { kind: "busy", tool: "post_message" });
  first.ticket.sent({ outcome: "accepted", event: EVENT, answer: '{"event_id":"x"}' });
  const replay = keys.claim("k", "post_message", "d1");
  assert.equal(replay.kind, "replay");
  assert.deepEqual((replay as { write: unknown }).write, {
    tool: "post_message",
    digest: "d1",
    at: (replay as { write: { at: number } }).write.at,
    outcome: "accepted",
    event: EVENT,
    answer: '{"event_id":"x"}',
  });
  assert.equal(keys.claim("k", "post_message", "d2").kind, "conflict", "other arguments");
  assert.equal(keys.claim("k", "react", "d1").kind, "conflict", "another tool");
  first.ticket.release();
  assert.equal(keys.claim("k", "post_message", "d1").kind, "replay", "a ticket ends once");
});

Deno.test("a held write leaves no trace: its key is free again", () => {
  const keys = new IdempotencyKeys();
  const held = claimed(keys.claim("k", "post_message", "d1"));
  held.ticket.release();
  assert.equal(keys.size, 0);
  const again = claimed(keys.claim("k", "post_message", "d2"));
  again.ticket.sent({ outcome: "refused", event: EVENT, why: "blocked", error: "relay: blocked" });
  assert.equal(keys.claim("k", "post_message", "d2").kind, "replay", "a refused write was sent: kept");
});

Deno.test("expiry and the bound: an expired key dropped and said; past MAX_KEYS the oldest, said", () => {
  const time = clock();
  const keys = new IdempotencyKeys(time.now);
  claimed(keys.claim("old", "post_message", "d")).ticket.sent({ outcome: "accepted", event: EVENT });
  time.pass(KEY_TTL_MS + 1);
  const renewed = claimed(keys.claim("old", "post_message", "d"));
  assert.deepEqual(renewed.dropped.map((dropped) => [dropped.key, dropped.why]), [["old", "expired"]]);
  assert.match(
    droppedText(renewed.dropped[0]),
    /^idempotency key "old" had expired \(kept 24 hours; it was used for post_message event (ef)+ \(accepted by the relay\)\): dropped, so this write was sent anew$/,
  );
  renewed.ticket.release();

  const full = new IdempotencyKeys(time.now);
  for (let i = 0; i < MAX_KEYS; i++) {
    claimed(full.claim(`k${i}`, "react", "d")).ticket.sent({ outcome: "accepted", event: EVENT });
  }
  const pending = claimed(full.claim("pending", "react", "d"));
  assert.equal(full.size, MAX_KEYS, "the 1,001st dropped the oldest");
  assert.deepEqual(pending.dropped.map((dropped) => [dropped.key, dropped.why]), [["k0", "full"]]);
  assert.match(
    droppedText(pending.dropped[0]),
    /at most 1000 are kept, so running its program again would send that write again$/,
  );
  assert.equal(full.claim("k0", "react", "d").kind, "new", "k0 is gone");
  assert.equal(full.claim("k1", "react", "d").kind, "new", "and the next oldest made room for it");
  assert.equal(full.claim("pending", "react", "d").kind, "busy", "a key on its way is never dropped");
});

Deno.test("refusals name the earlier write; nothing was sent", () => {
  const write = { tool: "post_message", digest: "d", at: 0, outcome: "accepted" as const, event: EVENT };
  assert.equal(
    refusalText("greet", { kind: "conflict", write }),
    `idempotency key "greet" was used for post_message event ${EVENT} (accepted by the relay) with other ` +
      "arguments; nothing was sent: give another write another key",
  );
  assert.equal(
    refusalText("k".repeat(200), { kind: "busy", tool: "react" }),
    `idempotency key "${"k".repeat(60)}…" is in use by a react still on its way; nothing was sent (await ` +
      "that write first)",
  );
});

Deno.test("settle: kept for a write that left (accepted, refused, lost), freed for one that did not", () => {
  const outcomes: [CallReport["write"], "kept" | "freed"][] = [
    [{ outcome: "accepted", event: EVENT }, "kept"],
    [{ outcome: "refused", event: EVENT, why: "blocked" }, "kept"],
    [{ outcome: "unknown", event: EVENT }, "kept"],
    [{ outcome: "held", why: "declined at the host" }, "freed"],
    [{ outcome: "not sent", event: EVENT }, "freed"],
    [undefined, "freed"],
  ];
  for (const [write, expected] of outcomes) {
    const keys = new IdempotencyKeys();
    const { ticket } = claimed(keys.claim("k", "post_message", "d"));
    settle(ticket, { tool: "post_message", state: "ok", write }, { event_id: EVENT });
    assert.equal(keys.size === 1 ? "kept" : "freed", expected, JSON.stringify(write));
  }
  const keys = new IdempotencyKeys();
  const { ticket } = claimed(keys.claim("big", "post_message", "d"));
  settle(ticket, { tool: "post_message", state: "ok", write: { outcome: "accepted", event: EVENT } }, {
    blob: "x".repeat(ANSWER_MAX_CHARS),
  });
  const replay = keys.claim("big", "post_message", "d") as { write: { answer: string } };
  assert.equal(replay.write.answer, JSON.stringify({ event_id: EVENT }), "a large answer kept as its event");
});

Deno.test("argsDigest: key order aside, the same arguments the same; JSON's limits said", async () => {
  assert.equal(await argsDigest({ room: "r", content: "c" }), await argsDigest({ content: "c", room: "r" }));
  assert.notEqual(await argsDigest({ room: "r" }), await argsDigest({ room: "s" }));
  assert.equal(await argsDigest({ n: 1n }), undefined);
});

Deno.test("keyedCall: made once and kept; a re-run answered as the first call ended; refusals thrown", async () => {
  const keys = new IdempotencyKeys();
  let made = 0;
  const send =
    (write: CallReport["write"], answer: unknown, fails?: string) => (record: CallReport) => () => {
      made++;
      record.write = write;
      if (fails) return Promise.reject(new Error(fails));
      record.state = "ok";
      return Promise.resolve(answer);
    };
  const call = (key: string, args: unknown, make: (record: CallReport) => () => Promise<unknown>) => {
    const record: CallReport = { tool: "post_message", state: "unknown" };
    return { record, result: keyedCall(keys, key, record, args, make(record)) };
  };
  const accepted = send({ outcome: "accepted", event: EVENT }, { event_id: EVENT, accepted: true });
  const first = call("k1", { room: "r" }, accepted);
  assert.deepEqual(await first.result, { event_id: EVENT, accepted: true });
  assert.equal(first.record.key, "k1");
  const second = call("k1", { room: "r" }, accepted);
  assert.deepEqual(await second.result, { event_id: EVENT, accepted: true });
  assert.equal(made, 1, "not made again");
  assert.deepEqual(second.record, {
    tool: "post_message",
    state: "ok",
    key: "k1",
    replayed: true,
    write: { outcome: "accepted", event: EVENT },
  });
  const other = call("k1", { room: "other" }, accepted);
  await assert.rejects(
    other.result,
    /idempotency key "k1" was used for post_message event (ef)+ \(accepted by the relay\) with other arguments/,
  );
  assert.equal(other.record.state, "error");
  // A lost answer is kept: the re-run throws what the first call threw, and says it was not sent again.
  const lost = send({ outcome: "unknown", event: EVENT }, undefined, "transport: the answer was lost");
  await assert.rejects(call("k2", {}, lost).result, /^Error: transport: the answer was lost$/);
  await assert.rejects(
    call("k2", {}, lost).result,
    /^Error: transport: the answer was lost \[answered by idempotency key "k2": the write was sent earlier/,
  );
  // A held write: the key works again, and this time the write is made.
  const held = send({ outcome: "held", why: "declined at the host" }, undefined, "permission: declined");
  await assert.rejects(call("k3", {}, held).result, /permission: declined/);
  assert.deepEqual(await call("k3", {}, accepted).result, { event_id: EVENT, accepted: true });
  assert.equal(made, 4);
});
