// The person's hold on writes (lib/oversight/write_gate.ts), with its ports faked: the budget,
// the question and its answers, the receipts on stderr and the audit entries, in the order a
// write meets them.

import assert from "node:assert/strict";
import type { AuditEntry } from "../../lib/oversight/audit_record.ts";
import type { ConfirmAnswer } from "../../lib/oversight/confirmation.ts";
import { WriteBudget } from "../../lib/oversight/write_budget.ts";
import { WriteGate } from "../../lib/oversight/write_gate.ts";
import { budgetSpentText, DECLINED_AT_HOST } from "../support/oversight.ts";

const TEMPLATE = { kind: 9, created_at: 1_700_000_000, tags: [["h", "general"]], content: "hello" };
const EVENT = { ...TEMPLATE, id: "ab".repeat(32), pubkey: "cd".repeat(32), sig: "ef".repeat(64) };
const PUBLISHED = { content: [], structuredContent: { event_id: EVENT.id, accepted: true, message: "" } };

interface Setup {
  gate: WriteGate;
  budget: WriteBudget;
  entries: AuditEntry[];
  logs: string[];
  questions: string[];
}

function setup(options: { limit?: number; answers?: ConfirmAnswer[] } = {}): Setup {
  const entries: AuditEntry[] = [];
  const logs: string[] = [];
  const questions: string[] = [];
  const budget = new WriteBudget(options.limit);
  const answers = options.answers;
  const gate = new WriteGate({
    relay: "https://relay.example.test",
    session: "42@start",
    budget,
    ask: answers && ((question) => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? { action: "decline" });
    }),
    where: "host",
    audit: { append: (entry) => Promise.resolve(void entries.push(entry)) },
    signerName: () => Promise.resolve("npub1who"),
    log: (line) => logs.push(line),
    now: () => new Date(Date.UTC(2026, 11, 1)),
  });
  return { gate, budget, entries, logs, questions };
}

Deno.test("without a budget or a question, a write is cleared at once and only counted", async () => {
  const { gate, budget, entries, logs } = setup();
  assert.equal(await gate.admit("post_message", {}), undefined);
  const clearance = await gate.clear("post_message", { room: "general" }, TEMPLATE);
  assert.ok(clearance.ok);
  clearance.reservation.spend();
  assert.equal(budget.spent, 1);
  assert.deepEqual([entries, logs], [[], []]);
});

Deno.test("a spent budget: refused before the relay (admit) and before signing (clear), said and recorded", async () => {
  const { gate, entries, logs, questions } = setup({ limit: 1, answers: [{ action: "accept" }] });
  const first = await gate.clear("post_message", { room: "general" }, TEMPLATE);
  assert.ok(first.ok);
  first.reservation.spend();
  assert.equal(
    await gate.admit("post_message", { room: "general", content: "again" }),
    budgetSpentText(1, 1),
  );
  assert.deepEqual(await gate.clear("post_message", {}, TEMPLATE), {
    ok: false,
    text: budgetSpentText(1, 1),
  });
  assert.equal(questions.length, 1, "a write the budget refuses is never put to the person");
  assert.deepEqual(entries.map((entry) => [entry.outcome, entry.why]), [
    ["held", "write budget spent"],
    ["held", "write budget spent"],
  ]);
  assert.deepEqual(entries[0], {
    time: "2026-12-01T00:00:00.000Z",
    session: "42@start",
    relay: "https://relay.example.test",
    tool: "post_message",
    arguments: { room: "general", content: "again" },
    outcome: "held",
    why: "write budget spent",
  });
  assert.deepEqual(entries[1].template, TEMPLATE);
  assert.deepEqual(logs, [
    `held: post_message: a write: ${budgetSpentText(1, 1)}`,
    `held: post_message: a message in room "general" (kind 9): ${budgetSpentText(1, 1)}`,
  ]);
});

Deno.test("the person is asked before signing; a decline gives the place back and is recorded", async () => {
  const { gate, budget, entries, questions } = setup({
    limit: 2,
    answers: [{ action: "decline" }, { action: "accept" }],
  });
  assert.deepEqual(await gate.clear("post_message", { room: "general" }, TEMPLATE), {
    ok: false,
    text: DECLINED_AT_HOST,
  });
  assert.match(questions[0], /^Sign and publish this event as npub1who on https:\/\/relay\.example\.test\?/);
  assert.match(questions[0], /Writes so far: 0 of 2 \(--max-writes\)\./);
  assert.equal(budget.refusal(), undefined, "the declined write's place is free again");
  assert.deepEqual([entries[0].outcome, entries[0].why, entries[0].template], [
    "held",
    "declined at the host",
    TEMPLATE,
  ]);
  const approved = await gate.clear("post_message", {}, TEMPLATE);
  assert.ok(approved.ok);
  assert.equal(entries.length, 1, "an approval alone is not an entry: the signed event's is");
});

// A budget of 1 is the one where a place kept by a decline refuses every later write.
Deno.test("--max-writes 1: a declined write gives its only place back; the next is cleared and signable", async () => {
  const { gate, budget, questions } = setup({
    limit: 1,
    answers: [{ action: "decline" }, { action: "accept" }],
  });
  assert.deepEqual(await gate.clear("post_message", { room: "general" }, TEMPLATE), {
    ok: false,
    text: DECLINED_AT_HOST,
  });
  assert.equal(await gate.admit("post_message", {}), undefined, "the relay may be contacted again");
  const next = await gate.clear("post_message", { room: "general" }, TEMPLATE);
  assert.ok(next.ok, next.ok ? "" : next.text);
  assert.match(questions[1], /Writes so far: 0 of 1 \(--max-writes\)\./);
  next.reservation.spend();
  assert.equal(budget.spent, 1);
  assert.equal(budget.refusal(), budgetSpentText(1, 1), "the signed write, not the declined one, spent it");
});

Deno.test("an upload is asked about and counted like a write", async () => {
  const { gate, questions, entries } = setup({ answers: [{ action: "cancel" }] });
  const args = { room: "general", data: "AAAA", type: "text/plain" };
  assert.deepEqual(await gate.clear("upload_attachment", args, undefined), {
    ok: false,
    text: "permission: declined at the host: nothing was uploaded",
  });
  assert.match(questions[0], /^Upload this file as npub1who/);
  assert.equal(entries[0].why, "cancelled at the host");
});

Deno.test("after the relay's answer: the receipt, the whole event in the log, the result as it was", async () => {
  const { gate, entries, logs } = setup();
  const result = await gate.signed("post_message", { room: "general" }, EVENT, {
    ok: true,
    result: PUBLISHED,
  }, PUBLISHED);
  assert.equal(result, PUBLISHED);
  assert.deepEqual(logs, [
    `receipt: post_message signed kind 9 event ${EVENT.id} in room "general": "hello": accepted`,
  ]);
  assert.deepEqual(entries[0], {
    time: "2026-12-01T00:00:00.000Z",
    session: "42@start",
    relay: "https://relay.example.test",
    tool: "post_message",
    arguments: { room: "general" },
    event: EVENT,
    answer: PUBLISHED,
    outcome: "accepted",
  });
});

Deno.test("an answer lost after the event went out: unknown, and the host told the id and where to look", async () => {
  const { gate, entries, logs } = setup();
  const failure = { class: "transport" as const, detail: "no answer from https://r/mcp: reset" };
  const result = await gate.signed("post_message", {}, EVENT, { ok: false, failure }, {
    content: [],
    isError: true,
  });
  const text = String((result.content as { text: string }[])[0].text);
  assert.match(
    text,
    new RegExp(
      `^transport: no answer from https://r/mcp: reset\\. The signed event ${EVENT.id} \\(kind 9\\) was sent`,
    ),
  );
  assert.match(text, /tinyagent did not send it again.*read_room \{"id":"general"\}/);
  assert.equal(result.isError, true);
  assert.match(logs[0], /: outcome unknown: transport: no answer from https:\/\/r\/mcp: reset$/);
  assert.deepEqual([entries[0].outcome, entries[0].why, entries[0].answer], [
    "unknown",
    "transport: no answer from https://r/mcp: reset",
    { error: "transport: no answer from https://r/mcp: reset" },
  ]);
  const unsent = await gate.signed("post_message", {}, EVENT, {
    ok: false,
    failure: { ...failure, detail: "cannot reach https://r/mcp: refused", unsent: true },
  }, { content: [], isError: true });
  assert.match(
    String((unsent.content as { text: string }[])[0].text),
    /did not reach the relay, so nothing was published/,
  );
  assert.equal(entries[1].outcome, "not sent");
});

Deno.test("a refused template and an upload's answer are said and recorded", async () => {
  const { gate, entries, logs } = setup();
  const why =
    "the relay returned an unsigned event this tool is not expected to publish: kind 30392 from post_message";
  await gate.refused("post_message", {}, { kind: 30392, tags: [], content: "" }, why);
  assert.deepEqual([entries[0].outcome, entries[0].why], ["held", why]);
  assert.equal(logs[0], `held: post_message: a kind 30392 event: ${why}`);
  await gate.uploaded("upload_attachment", { room: "general", data: "A".repeat(5_000) }, {
    ok: true,
    result: { content: [], structuredContent: { url: "https://r/media/x.png" } },
  });
  assert.equal(entries[1].arguments.data, "[not logged: 5,000 characters]");
  assert.equal(entries[1].outcome, "accepted");
  assert.match(
    logs[1],
    /^receipt: upload_attachment: a file stored in room "general", about 3,750 bytes: accepted$/,
  );
});

Deno.test("a write from a program (withOrigin): the question names it and its intent, the clock stops while asked", async (t) => {
  const clock: string[] = [];
  const notes: unknown[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const cancel = new AbortController();
  const { gate, entries, questions, budget } = setup({
    answers: [{ action: "accept" }, { action: "decline" }],
  });
  const program = gate.withOrigin({
    via: "tiny_execute",
    intent: "tell the room\u202e the build is green",
    signal: cancel.signal,
    pause: () => (clock.push("paused"), () => void clock.push("resumed")),
    noted: (note) => void notes.push(note),
  });
  await t.step("asked with who asks and what for, its hidden characters shown", async () => {
    const cleared = await program.clear("post_message", { room: "general" }, TEMPLATE);
    assert.ok(cleared.ok);
    cleared.reservation.spend();
    assert.match(questions[0], /A program the agent wrote asks for this write \(tiny_execute\)\./);
    assert.match(questions[0], /Its stated intent: tell the room\\u202e the build is green/);
    assert.deepEqual(clock, ["paused", "resumed"], "paused for the person, resumed after");
  });
  await t.step("the relay's verdict and the entry name the program", async () => {
    await program.signed(
      "post_message",
      { room: "general" },
      EVENT,
      { ok: true, result: PUBLISHED },
      PUBLISHED,
    );
    assert.deepEqual(entries.at(-1)!.via, {
      tool: "tiny_execute",
      intent: "tell the room\u202e the build is green",
    });
    assert.deepEqual(notes.at(-1), { tool: "post_message", outcome: "accepted", event: EVENT.id });
  });
  await t.step("a decline is noted held, nothing signed, and the budget's place given back", async () => {
    const held = await program.clear("post_message", { room: "general" }, TEMPLATE);
    assert.equal(held.ok, false);
    assert.equal(budget.spent, 1);
    const note = notes.at(-1) as { outcome: string; event?: string };
    assert.equal(note.outcome, "held");
    assert.equal(note.event, undefined);
    assert.equal(entries.at(-1)!.via?.tool, "tiny_execute");
  });
  await t.step(
    "the question is asked with the program's signal; the gate it came from is untouched",
    async () => {
      const { gate: plain, entries: plainEntries } = setup({ answers: [{ action: "decline" }] });
      const asking = new WriteGate({
        relay: "r",
        session: "s",
        budget: new WriteBudget(),
        where: "host",
        ask: (_question, signal) => (signals.push(signal), Promise.resolve({ action: "decline" })),
        log: () => {},
      });
      await asking.withOrigin({ via: "tiny_execute", signal: cancel.signal }).clear("react", {}, TEMPLATE);
      await asking.clear("react", {}, TEMPLATE);
      assert.deepEqual(signals, [cancel.signal, undefined]);
      await plain.clear("react", {}, TEMPLATE);
      assert.equal(plainEntries.at(-1)!.via, undefined, "a host's own write names no program");
    },
  );
  await t.step(
    "a write's idempotency key is in its entry; sending() tells the program before the answer",
    async () => {
      const keyed = gate.withOrigin({
        via: "tiny_execute",
        idempotencyKey: "greet-1",
        noted: (note) => void notes.push(note),
      });
      keyed.sending("post_message", EVENT.id);
      assert.deepEqual(notes.at(-1), {
        tool: "post_message",
        outcome: "unknown",
        event: EVENT.id,
        why: "sent; the relay had not answered when this was said",
      });
      const count = entries.length;
      await keyed.signed(
        "post_message",
        { room: "general" },
        EVENT,
        { ok: true, result: PUBLISHED },
        PUBLISHED,
      );
      assert.equal(entries.length, count + 1, "sending() wrote no entry; the answer one");
      assert.deepEqual(entries.at(-1)!.via, { tool: "tiny_execute", idempotency_key: "greet-1" });
      gate.sending("react");
      assert.equal(entries.length, count + 1, "without a program, nobody to tell");
    },
  );
});
