// A query's REQ (lib/stream/stream_query.ts) driven by hand, as its connection would: events matched
// against every filter, each id once, in arrival order, until EOSE; bounded in count and in size; the
// relay's closing and refusals in words; one more connection after a lost one, and no more.

import assert from "node:assert/strict";
import type { SignedEvent } from "../../lib/key/signer.ts";
import type { RelayConnection } from "../../lib/stream/relay_connection.ts";
import { MAX_QUERY_BYTES, MAX_QUERY_EVENTS, QueryReq } from "../../lib/stream/stream_query.ts";
import { within } from "../support/waits.ts";

/** Only a connection's identity matters to a query. */
const connection = (name: string) => ({ name }) as unknown as RelayConnection;

/** The signature check a query makes at its end (key/verify_batch.ts), here one that every event passes. */
const allHold = (events: readonly SignedEvent[]) => Promise.resolve(events.map(() => true));

/**
 * An event as the connection passes it on: its shape was checked there (relay_connection_test), its
 * signature is the query's to check (allHold here; the last tests check it for real), so here only the
 * members the filters read matter.
 */
function event(n: number, fields: Partial<SignedEvent> = {}): SignedEvent {
  return {
    id: n.toString(16).padStart(64, "0"),
    pubkey: "a".repeat(64),
    created_at: 1_700_000_000 + n,
    kind: 1,
    tags: [],
    content: `event ${n}`,
    sig: "b".repeat(128),
    ...fields,
  };
}

/** Whether `promise` has settled (a macrotask later: every reaction to what was done has run). */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => done = true, () => done = true);
  await new Promise((resolve) => setTimeout(resolve, 0));
  return done;
}

Deno.test("events matched against every filter are kept, each id once, in arrival order", async () => {
  const query = new QueryReq(
    "q1",
    [{ kinds: [1], authors: ["a".repeat(64)] }, { "#h": ["general"] }],
    allHold,
  );
  query.sent(connection("c1"));
  const first = event(3);
  const second = event(1, { kind: 9, pubkey: "c".repeat(64), tags: [["h", "general"]] });
  query.event(first, 100);
  query.event(event(2, { kind: 7 }), 100); // matches neither filter
  query.event(second, 100); // matches the second filter only
  query.event(event(4, { kind: 9, tags: [["h", "other"]] }), 100); // neither
  query.event({ ...first, content: "sent again" }, 100); // the same id: kept once, as first seen
  query.event(event(0), 100);
  assert.equal(await settled(query.done), false, "no answer before EOSE");
  query.eose();
  assert.deepEqual(await within(1000, "the answer", query.done), [first, second, event(0)]);
  assert.equal(query.settled, true);
});

Deno.test("EOSE with nothing kept answers an empty list", async () => {
  const query = new QueryReq("q1", [{ kinds: [1] }], allHold);
  query.event(event(1, { kind: 2 }), 10);
  query.eose();
  assert.deepEqual(await within(1000, "the answer", query.done), []);
});

Deno.test("checks that cannot load fail the query with their reason, rather than leave it unanswered", async () => {
  const cannot = () => Promise.reject(new Error("cannot load tinyagent's own signing code"));
  const query = new QueryReq("q1", [{ kinds: [1] }], cannot);
  query.event(event(1), 10);
  query.eose();
  await assert.rejects(within(1000, "the failure", query.done), {
    message: "cannot load tinyagent's own signing code",
  });
});

Deno.test(`at most ${MAX_QUERY_EVENTS} events: one more fails the query once checked, duplicates and misses not counted`, async () => {
  const query = new QueryReq("q1", [{ kinds: [1] }], allHold);
  for (let n = 1; n <= MAX_QUERY_EVENTS; n++) query.event(event(n), 10);
  // What is not kept does not count: a duplicate, an event no filter names.
  query.event(event(1), 10);
  query.event(event(MAX_QUERY_EVENTS + 5, { kind: 2 }), 10);
  assert.equal(await settled(query.done), false, `${MAX_QUERY_EVENTS} events are within the bound`);
  query.event(event(MAX_QUERY_EVENTS + 1), 10);
  await assert.rejects(within(1000, "the failure", query.done), {
    message: `query exceeds ${MAX_QUERY_EVENTS} events`,
  });
  assert.equal(query.settled, true);
});

/** A check under which the events whose content says "bad" fail, as forged ones would. */
const badFail = (events: readonly SignedEvent[]) =>
  Promise.resolve(events.map((e) => !e.content.startsWith("bad")));

Deno.test(`bad events never end a query early: ${MAX_QUERY_EVENTS} that hold among many that do not answer whole`, async () => {
  const dropped: number[] = [];
  const query = new QueryReq("q1", [{}], badFail, (n) => dropped.push(n));
  const bad = MAX_QUERY_EVENTS / 2;
  for (let n = 1; n <= MAX_QUERY_EVENTS + bad; n++) {
    query.event(event(n, n % 3 === 0 && n / 3 <= bad ? { content: `bad ${n}` } : {}), 10);
    if (n % 1000 === 0) await settled(query.done); // the relay's pace: a check may finish meanwhile
  }
  query.eose();
  const answer = await within(5000, "the answer", query.done);
  assert.equal(answer.length, MAX_QUERY_EVENTS);
  assert.ok(
    answer.every((e, i) => i === 0 || e.created_at > answer[i - 1].created_at),
    "in the order they came",
  );
  assert.deepEqual(dropped, [bad]);
});

Deno.test("a flood of bad events ends at the size bound, saying how many failed their check", async () => {
  const query = new QueryReq("q1", [{}], (events) => Promise.resolve(events.map(() => false)));
  for (let n = 1; n <= MAX_QUERY_EVENTS + 1; n++) query.event(event(n), 10);
  assert.equal(await settled(query.done), false, "none held: no count bound reached");
  query.event(event(MAX_QUERY_EVENTS + 2), MAX_QUERY_BYTES);
  await assert.rejects(query.done, {
    message:
      `query exceeds 48 MiB of events (${MAX_QUERY_EVENTS + 1} of them failed their signature check): ` +
      "narrow the filter (limit, since)",
  });
});

Deno.test("exactly the count bound answers whole", async () => {
  const query = new QueryReq("q1", [{}], allHold);
  for (let n = 1; n <= MAX_QUERY_EVENTS; n++) query.event(event(n), 10);
  query.eose();
  assert.equal((await within(1000, "the answer", query.done)).length, MAX_QUERY_EVENTS);
});

Deno.test("at most 48 MiB of events: one byte more fails the query and says how to narrow it", async () => {
  assert.equal(MAX_QUERY_BYTES, 48 * 1024 * 1024);
  const query = new QueryReq("q1", [{}], allHold);
  query.event(event(1), MAX_QUERY_BYTES - 10);
  query.event(event(2), 10); // exactly the bound: still kept
  query.event(event(2), 10); // a duplicate's size is not counted
  assert.equal(query.settled, false);
  query.event(event(3), 1);
  await assert.rejects(query.done, {
    message: "query exceeds 48 MiB of events: narrow the filter (limit, since)",
  });
});

Deno.test("a size counted only for events kept: misses of any size are free", async () => {
  const query = new QueryReq("q1", [{ kinds: [1] }], allHold);
  query.event(event(1, { kind: 2 }), MAX_QUERY_BYTES * 2);
  query.event(event(2), 10);
  query.eose();
  assert.deepEqual(await within(1000, "the answer", query.done), [event(2)]);
});

Deno.test("the relay's CLOSED fails the query with its reason", async () => {
  const query = new QueryReq("q1", [{}], allHold);
  query.event(event(1), 10);
  query.closed("restricted: not a member of room general");
  await assert.rejects(query.done, {
    message: "query closed by the relay: restricted: not a member of room general",
  });
});

Deno.test("a refused AUTH fails the query, with the relay's reason when it gave one", async () => {
  const bare = new QueryReq("q1", [{}], allHold);
  bare.refused("");
  await assert.rejects(bare.done, { message: "relay rejected AUTH" });
  const said = new QueryReq("q2", [{}], allHold);
  said.refused("blocked: this pubkey is banned");
  await assert.rejects(said.done, { message: "relay rejected AUTH: blocked: this pubkey is banned" });
});

Deno.test("a lost first connection keeps the query waiting; losing the second fails it with the why", async () => {
  const query = new QueryReq("q1", [{}], allHold);
  assert.equal(query.retries, true);
  const first = connection("c1");
  query.sent(first);
  query.sent(first); // sent again on the same connection (after AUTH): still one connection
  assert.equal(query.retries, true, "sent on one connection: one more is allowed");
  query.event(event(1), 10);
  query.lost("the connection to ws://relay ended: reset");
  assert.equal(query.settled, false);
  assert.equal(await settled(query.done), false, "still waiting after the first loss");
  query.sent(connection("c2"));
  assert.equal(query.retries, false, "sent on two connections: none more");
  query.lost("the connection to ws://relay ended: reset again");
  await assert.rejects(query.done, { message: "the connection to ws://relay ended: reset again" });
});

Deno.test("a query answered on its second connection keeps what the first brought, each once", async () => {
  const query = new QueryReq("q1", [{}], allHold);
  query.sent(connection("c1"));
  query.event(event(1), 10);
  query.lost("dropped");
  query.sent(connection("c2"));
  query.event(event(1), 10); // the replay
  query.event(event(2), 10);
  query.eose();
  assert.deepEqual(await within(1000, "the answer", query.done), [event(1), event(2)]);
});

Deno.test("nothing after settling changes the result", async (t) => {
  await t.step("after EOSE: more events, a closing, a refusal, a loss, a failure", async () => {
    const query = new QueryReq("q1", [{}], allHold);
    query.sent(connection("c1"));
    query.event(event(1), 10);
    query.eose();
    query.event(event(2), 10);
    query.closed("error: late");
    query.refused("late");
    query.sent(connection("c2"));
    query.lost("late");
    query.fail("late");
    query.eose();
    assert.deepEqual(await within(1000, "the answer", query.done), [event(1)]);
  });
  await t.step("after a failure: EOSE, events and other failures", async () => {
    const query = new QueryReq("q1", [{}], allHold);
    query.fail("the query was given up");
    query.event(event(1), 10);
    query.eose();
    query.closed("late");
    await assert.rejects(query.done, { message: "the query was given up" });
    assert.equal(query.settled, true);
  });
  await t.step("the count bound's failure stands against a later EOSE", async () => {
    const query = new QueryReq("q1", [{}], allHold);
    for (let n = 1; n <= MAX_QUERY_EVENTS + 1; n++) query.event(event(n), 1);
    query.eose();
    await assert.rejects(query.done, { message: `query exceeds ${MAX_QUERY_EVENTS} events` });
  });
  await t.step("the size bound's failure stands against checks that end after it", async () => {
    const held = Promise.withResolvers<boolean[]>();
    const query = new QueryReq("q1", [{}], () => held.promise);
    for (let n = 1; n <= MAX_QUERY_EVENTS + 1; n++) query.event(event(n), 1);
    query.event(event(MAX_QUERY_EVENTS + 2), MAX_QUERY_BYTES);
    held.resolve(Array.from({ length: MAX_QUERY_EVENTS + 1 }, () => true));
    await assert.rejects(query.done, { message: /^query exceeds 48 MiB of events: narrow/ });
  });
});

Deno.test("the answer holds only the events whose signatures hold, the others counted as dropped", async () => {
  const dropped: number[] = [];
  const verdicts = [true, false, true, false];
  const query = new QueryReq(
    "q1",
    [{}],
    (events) => Promise.resolve(events.map((_, i) => verdicts[i])),
    (n) => dropped.push(n),
  );
  query.sent(connection("c1"));
  for (let n = 1; n <= 4; n++) query.event(event(n), 100);
  query.eose();
  assert.equal(query.settled, true, "nothing counts after EOSE, while the checks run");
  query.event(event(5), 100);
  query.fail("too late");
  assert.deepEqual((await within(1_000, "the answer", query.done)).map((e) => e.content), [
    "event 1",
    "event 3",
  ]);
  assert.deepEqual(dropped, [2]);
});

Deno.test("the real check at the end: a forged event is left out of the answer", async () => {
  const { finalizeEvent, generateSecretKey } = await import("nostr-tools/pure");
  const { verifyBatch } = await import("../../lib/key/verify_batch.ts");
  const good = finalizeEvent(
    { kind: 1, created_at: 1_700_000_000, tags: [], content: "real" },
    generateSecretKey(),
  );
  const plain = JSON.parse(JSON.stringify(good)) as SignedEvent;
  const forged = { ...plain, id: "f".repeat(64), content: "forged" };
  const query = new QueryReq("q1", [{}], verifyBatch);
  query.sent(connection("c1"));
  query.event(forged, 100);
  query.event(plain, 100);
  query.eose();
  assert.deepEqual((await within(5_000, "the answer", query.done)).map((e) => e.content), ["real"]);
});
