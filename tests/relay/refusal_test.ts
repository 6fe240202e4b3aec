// A relay's refusal read for its cause and what to do (lib/relay/refusal.ts): the relay's own words,
// as its read gate, write gates and uploads say them, each to its cause and advice.

import assert from "node:assert/strict";
import { refusalOf, withAdvice } from "../../lib/relay/refusal.ts";

Deno.test("refusal: each of the relay's words to its cause", () => {
  const cases: [string, string | undefined][] = [
    ["auth-required: this relay is members-only", "not-a-member"],
    ["attachment unavailable: auth-required: this relay is members-only", "not-a-member"],
    ["upload failed: restricted: file upload is not allowed", "not-a-member"],
    [
      "The relay rejected the event: blocked: this event is not allowed by the relay write policy",
      "not-a-member",
    ],
    [
      "The relay rejected the event: restricted: long tasks are accepted from members and agents",
      "not-a-member",
    ],
    [
      "The relay rejected the event: restricted: agent grant does not allow more than 60 events per minute",
      "grant-rate",
    ],
    ["The relay rejected the event: restricted: agent grant does not allow room ops", "grant-room"],
    ["The relay rejected the event: restricted: agent grant does not allow kind 30023", "grant-kind"],
    ["The relay rejected the event: restricted: agent grant is paused", "grant-paused"],
    [`restricted: agent grant does not allow repository ${"a".repeat(64)}:r`, "grant-repository"],
    [
      `restricted: agent grant does not allow status changes in repository ${"a".repeat(64)}:r`,
      "grant-repository",
    ],
    ["The relay rejected the event: restricted: agent grant is revoked", "grant-revoked"],
    ["The relay rejected the event: restricted: agent grant has expired", "grant-expired"],
    ["The relay rejected the event: restricted: not a member of room staff", "room-members"],
    ["upload failed: restricted: this room is members-only", "room-members"],
    ["The relay rejected the event: invalid: unknown room nowhere", "unknown-room"],
    ["upload failed: not found: room", "unknown-room"],
    ["limit must be at most 100", undefined],
    ["not found: thread", undefined],
    ["", undefined],
  ];
  for (const [text, cause] of cases) assert.equal(refusalOf(text)?.cause, cause, text);
});

Deno.test("refusal: the rate says the window is a minute, and that nothing was published", () => {
  const advice = refusalOf("restricted: agent grant does not allow more than 5 events per minute")!.advice;
  assert.match(advice, /5 events in any 60 seconds/);
  assert.match(advice, /nothing was published/);
  assert.match(advice, /wait a minute/);
});

Deno.test("refusal: a grant's missing room or kind names the request_grant change that asks for it", () => {
  assert.match(
    refusalOf("restricted: agent grant does not allow room ops")!.advice,
    /request_grant .*"rooms": \["ops"\]/,
  );
  assert.match(refusalOf("restricted: agent grant does not allow kind 7")!.advice, /"kinds": \[7\]/);
  assert.match(refusalOf("auth-required: this relay is members-only")!.advice, /not a member.*operator/);
});

Deno.test("refusal: the advice is one more text block of an error, found in the text or the message", () => {
  const refused = {
    content: [{
      type: "text",
      text: "The relay rejected the event: restricted: agent grant does not allow room ops",
    }],
    structuredContent: {
      accepted: false,
      event_id: "e",
      message: "restricted: agent grant does not allow room ops",
    },
    isError: true,
  };
  const advised = withAdvice(refused);
  assert.equal((advised.content as unknown[]).length, 2);
  assert.match(
    (advised.content as { text: string }[])[1].text,
    /^tinyagent: the agent grant does not cover room ops/,
  );
  assert.deepEqual(advised.structuredContent, refused.structuredContent);
  const byMessage = withAdvice({
    content: [],
    structuredContent: { message: "auth-required: this relay is members-only" },
    isError: true,
  });
  assert.equal((byMessage.content as unknown[]).length, 1);
  const ok = { content: [{ type: "text", text: "restricted: agent grant is paused" }], isError: false };
  assert.equal(withAdvice(ok), ok, "a result that is not an error is left alone");
  const other = { content: [{ type: "text", text: "limit must be at most 100" }], isError: true };
  assert.equal(withAdvice(other), other, "words tinyagent does not know are left alone");
});
