// The question the person is asked before a write, and what each answer becomes
// (lib/oversight/confirmation.ts).

import assert from "node:assert/strict";
import {
  confirmationQuestion,
  heldReason,
  heldText,
  QUESTION_CONTENT_CHARS,
} from "../../lib/oversight/confirmation.ts";
import { DECLINED_AT_HOST, timedOutAtHost } from "../support/oversight.ts";

const RELAY = "https://relay.example.test";

Deno.test("the question: the tool, what it means, the kind, the content, the tags, where, as whom", () => {
  const question = confirmationQuestion(
    {
      tool: "post_message",
      event: { kind: 9, tags: [["h", "general"], ["p", "ab".repeat(32)]], content: "hello\nthere" },
      args: {},
    },
    { relay: RELAY, signer: "npub1example", budget: { spent: 1, limit: 3 } },
  );
  assert.equal(
    question,
    [
      `Sign and publish this event as npub1example on ${RELAY}?`,
      "",
      'post_message: a message in room "general" (kind 9)',
      "",
      "Content (11 characters):",
      "hello",
      "there",
      "",
      "Tags:",
      "h: general",
      `p: ${"ab".repeat(32)}`,
      "",
      "Writes so far: 1 of 3 (--max-writes).",
      "",
      "Accept signs it and sends it to the relay; decline or cancel signs nothing.",
    ].join("\n"),
  );
});

// One tag is the edge a `length > 1` would hide: the room it names is what the person approves.
Deno.test("the question shows the tag of an event with exactly one tag", () => {
  const question = confirmationQuestion(
    { tool: "post_message", event: { kind: 9, tags: [["h", "general"]], content: "hi" }, args: {} },
    { relay: RELAY },
  );
  assert.equal(
    question,
    [
      `Sign and publish this event on ${RELAY}?`,
      "",
      'post_message: a message in room "general" (kind 9)',
      "",
      "Content (2 characters):",
      "hi",
      "",
      "Tags:",
      "h: general",
      "",
      "Accept signs it and sends it to the relay; decline or cancel signs nothing.",
    ].join("\n"),
  );
});

Deno.test("the question bounds the content visibly and shows what could hide", () => {
  const content = `${"a".repeat(QUESTION_CONTENT_CHARS)}\u202Ehidden tail`;
  const question = confirmationQuestion(
    { tool: "post_message", event: { kind: 9, tags: [], content }, args: {} },
    { relay: RELAY },
  );
  assert.ok(question.includes(`[cut: 12 more characters not shown]`), question.slice(-200));
  assert.ok(!question.includes("hidden tail"));
  const escaped = confirmationQuestion(
    { tool: "post_message", event: { kind: 9, tags: [], content: "ok\u001b[2Jgone\u202E" }, args: {} },
    { relay: RELAY },
  );
  assert.ok(escaped.includes("ok\\u001b[2Jgone\\u202e"), escaped);
  assert.ok(!escaped.includes("\u001b") && !escaped.includes("\u202E"));
  assert.match(
    confirmationQuestion({ tool: "react", event: { kind: 7, tags: [], content: "" }, args: {} }, {
      relay: RELAY,
    }),
    /\nContent: none\n/,
  );
});

Deno.test("an upload's question: what is stored, that it publishes nothing and counts", () => {
  const question = confirmationQuestion(
    { tool: "upload_attachment", args: { room: "general", data: "AAAA", type: "text/plain" } },
    { relay: RELAY },
  );
  assert.match(question, /^Upload this file to https:\/\/relay\.example\.test\?\n/);
  assert.match(
    question,
    /upload_attachment: a file stored in room "general", text\/plain, about 3 bytes; it publishes no event and counts as one write/,
  );
  assert.match(question, /Accept sends it to the relay; decline or cancel sends nothing\.$/);
});

Deno.test("answers: accept holds nothing; the rest refuse in the issue's words", () => {
  assert.equal(heldText({ action: "accept" }, "host"), undefined);
  assert.equal(heldText({ action: "decline" }, "host"), DECLINED_AT_HOST);
  assert.equal(heldText({ action: "cancel" }, "host"), DECLINED_AT_HOST);
  assert.equal(heldText({ action: "timeout", seconds: 300 }, "host"), timedOutAtHost(300));
  assert.equal(
    heldText({ action: "decline" }, "terminal"),
    "permission: declined at the terminal: nothing was signed",
  );
  assert.equal(
    heldText({ action: "decline" }, "host", true),
    "permission: declined at the host: nothing was uploaded",
  );
  assert.equal(
    heldText({ action: "unable", why: "no one here" }, "host"),
    "permission: no one here; nothing was signed",
  );
  assert.equal(heldReason({ action: "cancel" }), "cancelled");
  assert.equal(heldReason({ action: "timeout", seconds: 5 }), "no answer within 5 s");
  assert.equal(heldReason({ action: "unable", why: "x" }), "could not ask: x");
});
