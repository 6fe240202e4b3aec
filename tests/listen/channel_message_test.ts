// An admitted event as the model meets it (lib/listen/channel_message.ts): meta keys Claude Code
// keeps (`^[a-zA-Z_][a-zA-Z0-9_]*$`) and string values only, always; the text cut at its bound with
// the cut said; a job's subject; the thread and reply_to rules; a job cancel's job.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import type { SignedEvent } from "../../lib/key/signer.ts";
import { CONTENT_LIMIT, listenedEvent } from "../../lib/listen/channel_message.ts";

const authorKey = generateSecretKey();
const AUTHOR = getPublicKey(authorKey);
const ROOT = "a1".repeat(32);
const PARENT = "b2".repeat(32);
const OTHER = "c3".repeat(32);
const META_KEY = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const npubOf = (hex: string) => nip19.npubEncode(hex);

function signed(kind: number, tags: string[][], content = "hello"): SignedEvent {
  return JSON.parse(
    JSON.stringify(finalizeEvent({ kind, created_at: 1_700_000_123, tags, content }, authorKey)),
  );
}

/** The channel contract (channels-facts 2a): keys Claude Code keeps, values that are strings. */
function assertContract(meta: Record<string, unknown>, what: string): void {
  for (const [key, value] of Object.entries(meta)) {
    assert.match(key, META_KEY, `${what}: key ${key}`);
    assert.equal(typeof value, "string", `${what}: ${key} is ${typeof value}`);
  }
}

const VARIED: [string, SignedEvent][] = [
  ["a kind 9 mention", signed(9, [["h", "general"], ["p", AUTHOR]])],
  ["a kind 11 thread", signed(11, [["h", "general"], ["title", "T"]])],
  ["a kind 12 reply", signed(12, [["h", "general"], ["e", ROOT, "", "root"], ["e", PARENT, "", "reply"]])],
  ["a kind 1111 comment", signed(1111, [["h", "ops"], ["E", ROOT, "", AUTHOR], ["e", PARENT]])],
  ["a job request", signed(43001, [["h", "general"], ["p", AUTHOR], ["subject", "S"]])],
  ["a job cancel", signed(43005, [["h", "general"], ["e", ROOT], ["p", AUTHOR]])],
  ["no room, no tags", signed(9, [])],
  ["odd tags", signed(9, [["h"], ["e"], ["E"], ["subject"], ["x-y", "1"], ["1h", "2"]])],
];

Deno.test("meta: keys Claude Code keeps and string values, whatever the event", () => {
  for (const [what, event] of VARIED) {
    const { content, meta } = listenedEvent(event, npubOf);
    assert.equal(typeof content, "string", what);
    assertContract(meta, what);
    // The values survive JSON as they are (no undefined dropped on the way to the host).
    assert.deepEqual(JSON.parse(JSON.stringify(meta)), meta, what);
  }
});

Deno.test("meta: room, thread, event_id, kind, author (an npub), author_pubkey, created_at", () => {
  const event = signed(9, [["h", "general"], ["p", AUTHOR]]);
  assert.deepEqual(listenedEvent(event, npubOf), {
    content: "hello",
    meta: {
      room: "general",
      thread: event.id,
      event_id: event.id,
      kind: "9",
      author: npubOf(AUTHOR),
      author_pubkey: AUTHOR,
      created_at: "1700000123",
    },
  });
  assert.equal(nip19.decode(listenedEvent(event, npubOf).meta.author).data, AUTHOR);
  assert.equal(listenedEvent(signed(9, []), npubOf).meta.room, "");
});

Deno.test("thread: a kind 11 is its own; a reply names its root; else the event starts one", async (t) => {
  const threadOf = (event: SignedEvent) => listenedEvent(event, npubOf).meta.thread;
  await t.step("a kind 11 is its own thread, whatever it tags", () => {
    const thread = signed(11, [["h", "general"], ["e", OTHER, "", "root"]]);
    assert.equal(threadOf(thread), thread.id);
  });
  await t.step("the e tag marked root, wherever it is", () => {
    assert.equal(
      threadOf(signed(12, [["h", "g"], ["e", PARENT, "", "reply"], ["e", ROOT, "", "root"]])),
      ROOT,
    );
  });
  await t.step("no root marker: the first E (NIP-22), then the first e", () => {
    assert.equal(threadOf(signed(1111, [["e", PARENT], ["E", ROOT]])), ROOT);
    assert.equal(threadOf(signed(9, [["e", PARENT], ["e", OTHER]])), PARENT);
  });
  await t.step("none: the event starts its own", () => {
    const event = signed(9, [["h", "general"]]);
    assert.equal(threadOf(event), event.id);
  });
});

Deno.test("reply_to: the e tag marked reply, else the first e; never on a job cancel", () => {
  const replyTo = (event: SignedEvent) => listenedEvent(event, npubOf).meta.reply_to;
  assert.equal(replyTo(signed(12, [["e", ROOT, "", "root"], ["e", PARENT, "", "reply"]])), PARENT);
  assert.equal(replyTo(signed(12, [["e", ROOT, "", "root"]])), ROOT);
  assert.equal(replyTo(signed(9, [["e", OTHER], ["e", PARENT]])), OTHER);
  assert.equal(replyTo(signed(9, [["h", "general"]])), undefined);
  assert.ok(!("reply_to" in listenedEvent(signed(9, [["h", "general"]]), npubOf).meta));
  // An E alone (a NIP-22 root) names the thread, not the event answered.
  assert.equal(replyTo(signed(1111, [["E", ROOT]])), undefined);
  assert.equal(replyTo(signed(43005, [["e", ROOT]])), undefined);
});

Deno.test("jobs: a request is its own job, with its subject first; a cancel names the job", () => {
  const request = signed(43001, [["h", "general"], ["p", AUTHOR], ["subject", "Summarise"]], "the notes");
  const listened = listenedEvent(request, npubOf);
  assert.equal(listened.meta.job, request.id);
  assert.equal(listened.content, "Summarise\n\nthe notes");
  assert.equal(listenedEvent(signed(43001, [["h", "general"]], "plain"), npubOf).content, "plain");
  // Only a job request shows a subject.
  assert.equal(listenedEvent(signed(9, [["subject", "S"]], "text"), npubOf).content, "text");
  const cancel = listenedEvent(signed(43005, [["h", "general"], ["e", ROOT]]), npubOf);
  assert.equal(cancel.meta.job, ROOT);
  assert.equal(listenedEvent(signed(43005, [["h", "general"]]), npubOf).meta.job, "");
  assert.ok(!("job" in listenedEvent(signed(9, [["e", ROOT]]), npubOf).meta));
});

Deno.test("the text: whole up to the bound; past it cut, in characters, with the cut said", () => {
  const exact = signed(9, [], "x".repeat(CONTENT_LIMIT));
  assert.equal(listenedEvent(exact, npubOf).content, "x".repeat(CONTENT_LIMIT));
  // Characters, not UTF-16 units: an astral character is never split.
  const long = "😀".repeat(CONTENT_LIMIT + 5);
  const event = signed(9, [], long);
  const { content } = listenedEvent(event, npubOf);
  assert.equal(
    content,
    `${
      "😀".repeat(CONTENT_LIMIT)
    }\n[cut: 8,000 of 8,005 characters shown; the whole text is event ${event.id}]`,
  );
  assert.equal(CONTENT_LIMIT, 8_000);
  // A job's subject counts toward the bound.
  const job = signed(43001, [["subject", "S"]], "y".repeat(CONTENT_LIMIT));
  assert.match(listenedEvent(job, npubOf).content, /\[cut: 8,000 of 8,003 characters shown/);
});
