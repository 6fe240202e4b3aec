// Approvals signed in the room (lib/listen/approvals.ts, card_board.ts), in process against the
// strict relay with a real RelayStream, SignedHttp, Signer and WriteGate (an in-memory audit log):
// a permission request's card and its one verdict; answers that change nothing (another key, a wrong
// card id, after expiry, a second answer) and how they are counted; the agent among its approvers;
// the relay refusing a card; the budget (a card counts); the bound on open cards; an answer that
// comes before the card's receipt; --confirm-via relay through the write gate; close() with asks open.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { bytesToHex } from "@noble/hashes/utils.js";
import { Signer } from "../../lib/key/signer.ts";
import { Approvals, MAX_OPEN_CARDS } from "../../lib/listen/approvals.ts";
import type { AuditEntry } from "../../lib/oversight/audit_record.ts";
import type { AskPerson, ConfirmAnswer } from "../../lib/oversight/confirmation.ts";
import { WriteBudget } from "../../lib/oversight/write_budget.ts";
import { WriteGate } from "../../lib/oversight/write_gate.ts";
import { parseRelayUrl, webSocketUrl } from "../../lib/relay/endpoint.ts";
import { SignedHttp } from "../../lib/relay/signed_http.ts";
import { RelayStream } from "../../lib/stream/relay_stream.ts";
import { type NostrEvent, startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { within } from "../support/waits.ts";

const agentKey = generateSecretKey();
const agent = getPublicKey(agentKey);
const approverKey = generateSecretKey();
const approver = getPublicKey(approverKey);
const strangerKey = generateSecretKey();
const signerResult = await Signer.fromValue(bytesToHex(agentKey), "TINY_PRIVATE_KEY");
assert.ok(signerResult.ok);
const signer = signerResult.signer;

const REQUEST = {
  request_id: "abcde",
  tool_name: "Bash",
  description: "List files",
  input_preview: "ls -la",
};

interface Ctx {
  relay: StrictRelay;
  approvals: Approvals;
  verdicts: [string, string][];
  logs: string[];
  entries: AuditEntry[];
  owned: string[];
  budget: WriteBudget;
  /** The write gate a --confirm-via relay session's facade would hold: it asks with approvals.ask. */
  writes: WriteGate;
}

async function withApprovals(
  options: {
    lifetimeMs?: number;
    approvers?: string[];
    maxWrites?: number;
    /** Stands between the cards and the relay's /events (to hold a receipt back). */
    http?: (http: SignedHttp, relay: StrictRelay) => Pick<SignedHttp, "send">;
  },
  fn: (ctx: Ctx) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay();
  const parsed = parseRelayUrl(relay.url);
  assert.ok(parsed.ok);
  const { endpoint } = parsed;
  const logs: string[] = [];
  const entries: AuditEntry[] = [];
  const log = (line: string) => logs.push(line);
  const audit = { append: (entry: AuditEntry) => (entries.push(entry), Promise.resolve()) };
  const budget = new WriteBudget(options.maxWrites);
  const cards = new WriteGate({ relay: endpoint.base, session: "test", budget, where: "host", audit, log });
  const http = new SignedHttp({ endpoint, signer, timeoutMs: 10_000 });
  const stream = new RelayStream({ url: webSocketUrl(endpoint), signer, log });
  const verdicts: [string, string][] = [];
  const owned: string[] = [];
  const approvals = new Approvals({
    settings: { approvers: options.approvers ?? [approver], homeRoom: "general", confirmViaRelay: true },
    agent,
    stream,
    publish: { endpoint, signer, http: options.http?.(http, relay) ?? http, gate: cards },
    lifetimeMs: options.lifetimeMs ?? 60_000,
    verdict: (id, behavior) => verdicts.push([id, behavior]),
    ownEvent: (id) => owned.push(id),
    log,
  });
  const ask: AskPerson = approvals.ask;
  const writes = new WriteGate({
    relay: endpoint.base,
    session: "test",
    budget,
    ask,
    where: "room",
    audit,
    log,
  });
  try {
    await fn({ relay, approvals, verdicts, logs, entries, owned, budget, writes });
  } finally {
    approvals.close();
    stream.close();
    http.close();
    await relay.close();
  }
}

const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));

function until(ms: number, what: string, check: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!check()) await tick();
    })(),
  );
}

/** The cards the agent posted, in order. */
function cards(relay: StrictRelay): NostrEvent[] {
  return relay.events.filter((e) => e.pubkey === agent && e.kind === 9);
}

async function nthCard(relay: StrictRelay, n = 1): Promise<NostrEvent> {
  await until(5_000, `card ${n} in the room`, () => cards(relay).length >= n);
  return cards(relay)[n - 1];
}

/** An answer to `card` as a client writes it: valid unless `change` breaks it. */
function answer(
  card: NostrEvent,
  content: string,
  key = approverKey,
  change: (tags: string[][]) => string[][] = (tags) => tags,
): NostrEvent {
  const tags = [
    ["h", "general"],
    ["E", card.id, "", agent],
    ["K", "9"],
    ["P", agent],
    ["e", card.id, "", agent],
    ["k", "9"],
    ["p", agent],
  ];
  return finalizeEvent(
    { kind: 1111, created_at: Math.floor(Date.now() / 1000), tags: change(tags), content },
    key,
  );
}

/** The line close() says with what changed nothing, counted. */
function ignoredLine(logs: string[]): string {
  return logs.find((line) => line.includes("in answer to cards changed nothing")) ?? "(none)";
}

Deno.test("a permission request: one card; the approver's allow answers allow once", async () => {
  await withApprovals({}, async ({ relay, approvals, verdicts, entries, owned, logs }) => {
    approvals.permissionRequest(REQUEST);
    const card = await nthCard(relay);
    assert.ok(verifyEvent(card));
    assert.deepEqual(card.tags.slice(0, 5), [
      ["h", "general"],
      ["tinyagent", "1"],
      ["request", "question"],
      ["interaction", "approval"],
      ["p", approver],
    ]);
    assert.match(card.content, /Tool: Bash/);
    relay.inject(answer(card, "allow"));
    await until(5_000, "the verdict", () => verdicts.length > 0);
    assert.deepEqual(verdicts, [["abcde", "allow"]]);
    assert.deepEqual(owned, [card.id]);
    assert.equal(cards(relay).length, 1);
    const entry = entries.find((e) => e.tool === "approval_card")!;
    assert.equal(entry.outcome, "accepted");
    assert.deepEqual(entry.arguments, { room: "general", asks: "permission", request_id: "abcde" });
    assert.equal((entry.event as { id: string }).id, card.id);
    assert.ok(logs.some((line) => line.includes(`allow, answered by ${approver}`)));
    // The same request again, answered: a new card is fine; the first is settled.
    approvals.permissionRequest(REQUEST);
    await nthCard(relay, 2);
    relay.inject(answer(card, "deny"));
    await tick(300);
    assert.deepEqual(verdicts, [["abcde", "allow"]], "the second answer to the first card changed nothing");
    approvals.close();
    // The first allow may come again with the second card's history (the same second): not counted.
    assert.match(ignoredLine(logs), /: 1 for a card answered already$/);
  });
});

Deno.test("a deny answers deny", async () => {
  await withApprovals({}, async ({ relay, approvals, verdicts }) => {
    approvals.permissionRequest(REQUEST);
    relay.inject(answer(await nthCard(relay), " deny\n"));
    await until(5_000, "the verdict", () => verdicts.length > 0);
    assert.deepEqual(verdicts, [["abcde", "deny"]]);
  });
});

/** Answers that must change nothing, each sent before the approver's valid allow. */
const NOT_ANSWERS: [string, (card: NostrEvent) => NostrEvent, RegExp][] = [
  ["signed by another key", (card) => answer(card, "deny", strangerKey), /1 not signed by an approver/],
  [
    "naming another card",
    (card) =>
      answer(
        card,
        "deny",
        approverKey,
        (tags) => tags.map((t) => t[1] === card.id ? [t[0], "f".repeat(64)] : t),
      ),
    /1 for no open card/,
  ],
  [
    "with a wrong e tag",
    (card) =>
      answer(card, "deny", approverKey, (tags) => tags.map((t) => t[0] === "e" ? ["e", "f".repeat(64)] : t)),
    /1 its e tag does not name the card/,
  ],
  ["naming no option", (card) => answer(card, "no"), /1 names no option of the card/],
];

for (const [what, make, counted] of NOT_ANSWERS) {
  Deno.test(`an answer ${what} changes nothing, and is counted`, async () => {
    await withApprovals({}, async ({ relay, approvals, verdicts, logs, owned }) => {
      approvals.permissionRequest(REQUEST);
      const card = await nthCard(relay);
      // Live and the card open: the two answers come in the order sent (a REQ's history comes newest first).
      await until(
        5_000,
        "the card open, answers awaited",
        () => owned.includes(card.id) && logs.some((line) => line.startsWith("approvals: awaiting answers")),
      );
      relay.inject(make(card));
      relay.inject(answer(card, "allow"));
      await until(5_000, "the verdict", () => verdicts.length > 0);
      assert.deepEqual(verdicts, [["abcde", "allow"]]);
      approvals.close();
      assert.match(ignoredLine(logs), counted);
    });
  });
}

Deno.test("the agent's own events in a card's thread (its expiry replies) are not counted", async () => {
  await withApprovals({}, async ({ relay, approvals, verdicts, logs, owned }) => {
    approvals.permissionRequest(REQUEST);
    const card = await nthCard(relay);
    await until(
      5_000,
      "the card open, answers awaited",
      () => owned.includes(card.id) && logs.some((line) => line.startsWith("approvals: awaiting answers")),
    );
    relay.inject(answer(card, "allow", agentKey));
    relay.inject(answer(card, "deny"));
    await until(5_000, "the verdict", () => verdicts.length > 0);
    assert.deepEqual(verdicts, [["abcde", "deny"]]);
    approvals.close();
    assert.equal(ignoredLine(logs), "(none)");
  });
});

Deno.test("a card expires: said in its thread; a late answer changes nothing", async () => {
  await withApprovals({ lifetimeMs: 1_000 }, async ({ relay, approvals, verdicts, logs, entries }) => {
    approvals.permissionRequest(REQUEST);
    const card = await nthCard(relay);
    const expiration = Number(card.tags.find((t) => t[0] === "expiration")![1]);
    assert.ok(expiration - card.created_at >= 1 && expiration - card.created_at <= 2);
    await until(
      5_000,
      "the expiry reply",
      () => relay.events.some((e) => e.kind === 1111 && e.pubkey === agent),
    );
    const reply = relay.events.find((e) => e.kind === 1111 && e.pubkey === agent)!;
    assert.ok(verifyEvent(reply));
    assert.ok(Date.now() >= expiration * 1000, "not before the card's expiration");
    assert.deepEqual(reply.tags.find((t) => t[0] === "e"), ["e", card.id, "", agent]);
    assert.match(reply.content, /expired .* nothing was done/);
    assert.ok(logs.some((line) => line.includes("abcde (Bash): its card expired unanswered")));
    await until(5_000, "the reply's entry", () => entries.some((e) => e.tool === "approval_expired"));
    assert.equal(entries.filter((e) => e.tool === "approval_expired" && e.outcome === "accepted").length, 1);
    relay.inject(answer(card, "allow"));
    await tick(500);
    assert.deepEqual(verdicts, []);
  });
});

Deno.test("the agent's own key among the approvers: every approval refused, said at start", async () => {
  await withApprovals({ approvers: [approver, agent] }, async ({ relay, approvals, verdicts, logs }) => {
    assert.match(logs[0], /approvals: refused for this session: --approvers names this agent's own key/);
    approvals.permissionRequest(REQUEST);
    const asked = await within(5_000, "the ask", approvals.ask("Sign?"));
    assert.equal(asked.action, "unable");
    assert.match((asked as { why: string }).why, /--approvers names this agent's own key/);
    await tick(200);
    assert.equal(cards(relay).length, 0, "no card posted");
    assert.deepEqual(verdicts, []);
    assert.ok(logs.some((line) => /abcde \(Bash\) got no card: --approvers names/.test(line)));
  });
});

Deno.test("the relay refuses the card: its words in the log and in the refused write's error", async () => {
  await withApprovals({}, async ({ relay, approvals, logs, entries, writes }) => {
    relay.setEventGate((event) =>
      event.kind === 9 ? "restricted: agent grant does not cover kind 9" : undefined
    );
    approvals.permissionRequest(REQUEST);
    await until(5_000, "the log line", () => logs.some((line) => line.includes("got no card")));
    const line = logs.find((line) => line.includes("got no card"))!;
    assert.match(line, /the approval card \(kind 9 in room "general"; the agent's grant must allow it\)/);
    assert.match(line, /restricted: agent grant does not cover kind 9/);
    const clearance = await within(5_000, "the write's clearance", writes.clear("post_message", {}, message));
    assert.equal(clearance.ok, false);
    assert.match(
      (clearance as { text: string }).text,
      /^permission: the approval card .*restricted: agent grant does not cover kind 9.*; nothing was signed$/,
    );
    assert.equal(entries.filter((e) => e.tool === "approval_card" && e.outcome === "refused").length, 2);
  });
});

const message = { kind: 9, tags: [["h", "general"]], content: "hello room" };

Deno.test("--confirm-via relay: allow clears the write with the approving event, and the log names it", async () => {
  await withApprovals({}, async ({ relay, entries, writes }) => {
    const clearing = writes.clear("post_message", { room: "general" }, message);
    const card = await nthCard(relay);
    assert.match(card.content, /^tinyagent asks before a write/);
    assert.match(card.content, /> hello room/);
    const yes = answer(card, "allow");
    relay.inject(yes);
    const clearance = await within(5_000, "the clearance", clearing);
    assert.ok(clearance.ok);
    assert.deepEqual(clearance.approval, { event: yes.id, author: approver });
    clearance.reservation.spend();
    const event = await signer.sign({ ...message, created_at: Math.floor(Date.now() / 1000) });
    await writes.signedWith("post_message", {}, event, { status: "accepted" }, {}, clearance.approval);
    const entry = entries.at(-1)!;
    assert.deepEqual(entry.approved_by, { event: yes.id, author: approver });
    assert.equal((entry.event as { id: string }).id, event.id);
  });
});

Deno.test("--confirm-via relay: deny and expiry refuse the write, said as in the room", async () => {
  await withApprovals({ lifetimeMs: 1_000 }, async ({ relay, entries, writes, budget }) => {
    const declined = writes.clear("post_message", {}, message);
    relay.inject(answer(await nthCard(relay), "deny"));
    assert.deepEqual(await within(5_000, "the decline", declined), {
      ok: false,
      text: "permission: declined in the room: nothing was signed",
    });
    assert.equal(entries.at(-1)!.why, "declined in the room");
    const unanswered = await within(5_000, "the timeout", writes.clear("post_message", {}, message));
    assert.deepEqual(unanswered, {
      ok: false,
      text: "permission: declined in the room: no answer within 1 s (--confirm-timeout); nothing was signed",
    });
    await until(
      5_000,
      "the expiry reply",
      () => relay.events.some((e) => e.kind === 1111 && e.pubkey === agent),
    );
    assert.equal(budget.spent, 3, "two cards and the expiry reply; no write");
  });
});

Deno.test("the budget: a card counts as a write, and one with no place left is not posted", async () => {
  await withApprovals({ maxWrites: 1 }, async ({ relay, approvals, logs, writes }) => {
    const clearance = await within(5_000, "the clearance", writes.clear("post_message", {}, message));
    assert.equal(clearance.ok, false);
    assert.match(
      (clearance as { text: string }).text,
      /^permission: no approval card could be posted to room "general" \(a card counts as a write\): write budget spent: 0 events signed by this session and 1 more waiting to be signed \(--max-writes 1\); nothing was signed$/,
    );
    approvals.permissionRequest(REQUEST);
    await nthCard(relay);
    approvals.permissionRequest({ ...REQUEST, request_id: "fghij" });
    await until(5_000, "the refusal", () => logs.some((line) => line.includes("fghij (Bash) got no card")));
    assert.match(
      logs.find((line) => line.includes("fghij (Bash) got no card"))!,
      /write budget spent: 1 event/,
    );
    assert.equal(cards(relay).length, 1);
  });
});

Deno.test(`at most ${MAX_OPEN_CARDS} cards open; more are refused, said`, async () => {
  await withApprovals({}, async ({ relay, approvals, logs }) => {
    const ids = Array.from(
      { length: MAX_OPEN_CARDS + 1 },
      (_, i) => `q${String.fromCharCode(97 + (i % 26))}${"xy"[Math.floor(i / 26)]}`,
    );
    for (const id of ids) approvals.permissionRequest({ ...REQUEST, request_id: id });
    await until(5_000, "the refusal", () => logs.some((line) => line.includes("got no card")));
    assert.match(
      logs.find((line) => line.includes("got no card"))!,
      new RegExp(`${ids.at(-1)} \\(Bash\\) got no card: ${MAX_OPEN_CARDS} approval cards are waiting`),
    );
    await until(10_000, "the cards", () => cards(relay).length === MAX_OPEN_CARDS);
  });
});

Deno.test("an answer that comes before the card's receipt is held for it", async () => {
  // The second card's receipt is held back until its answer has had time to arrive.
  let posts = 0;
  const http = (real: SignedHttp, relay: StrictRelay): Pick<SignedHttp, "send"> => ({
    send: async (request, signal, max) => {
      const sent = await real.send(request, signal, max);
      if (++posts === 2) {
        relay.inject(answer(JSON.parse(new TextDecoder().decode(request.body as Uint8Array)), "allow"));
        await tick(300);
      }
      return sent;
    },
  });
  await withApprovals({ http }, async ({ relay, approvals, verdicts, logs, owned }) => {
    // A first card keeps the subscription live, so the second card's answer comes at once.
    approvals.permissionRequest(REQUEST);
    const first = await nthCard(relay);
    await until(
      5_000,
      "the first card open, answers awaited",
      () => owned.includes(first.id) && logs.some((line) => line.startsWith("approvals: awaiting answers")),
    );
    approvals.permissionRequest({ ...REQUEST, request_id: "fghij" });
    await until(5_000, "the verdict", () => verdicts.length > 0);
    assert.deepEqual(verdicts, [["fghij", "allow"]]);
  });
});

Deno.test("close(): every pending ask is refused, and no ask is taken after", async () => {
  await withApprovals({}, async ({ approvals, owned }) => {
    const asks: Promise<ConfirmAnswer>[] = [approvals.ask("first?"), approvals.ask("second?")];
    await until(5_000, "both cards posted", () => owned.length === 2);
    approvals.close();
    const ended = { action: "unable", why: "the session ended before an approver answered" };
    assert.deepEqual(await within(2_000, "the refusals", Promise.all(asks)), [ended, ended]);
    assert.deepEqual(await approvals.ask("third?"), { action: "unable", why: "the session is ending" });
  });
});

Deno.test("a permission request that is not one is ignored, said", async () => {
  await withApprovals({}, async ({ relay, approvals, logs }) => {
    approvals.permissionRequest({ ...REQUEST, tool_name: 7 });
    approvals.permissionRequest("nope");
    assert.deepEqual(logs, [
      "approvals: a permission request was ignored: its tool_name is not a string",
      "approvals: a permission request was ignored: its params are not an object",
    ]);
    approvals.permissionRequest(REQUEST);
    approvals.permissionRequest(REQUEST);
    assert.match(logs.at(-1)!, /abcde \(Bash\) has a card already; this one was ignored/);
    await nthCard(relay);
    await tick(100);
    assert.equal(cards(relay).length, 1);
  });
});
