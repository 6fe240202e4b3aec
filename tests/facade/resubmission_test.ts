// The signed event's way back to the relay (lib/facade/resubmission.ts): with the original arguments
// while the call stays within the relay's request bound, alone past it.

import assert from "node:assert/strict";
import { carriesArguments, resubmission } from "../../lib/facade/resubmission.ts";
import { callBodyBytes, RELAY_BODY_BOUND } from "../../lib/relay/request.ts";

const event = (content: string) => ({
  id: "e".repeat(64),
  pubkey: "p".repeat(64),
  created_at: 1_700_000_000,
  kind: 9,
  tags: [["h", "general"]],
  content,
  sig: "s".repeat(128),
});

Deno.test("resubmission: a small write goes back with its arguments and the event", () => {
  const args = { room: "general", content: "hello" };
  assert.deepEqual(resubmission("post_message", args, event("hello")), { ...args, event: event("hello") });
});

Deno.test("resubmission: arguments and event past the bound go as the event alone", () => {
  const content = "x".repeat(600_000);
  const args = { room: "general", content };
  const out = resubmission("post_message", args, event(content));
  assert.deepEqual(out, { event: event(content) });
  assert.ok(callBodyBytes("post_message", out) <= RELAY_BODY_BOUND);
});

Deno.test("resubmission: the bound is the body's bytes on the wire, to the byte", () => {
  const args = { room: "general", content: "" };
  const base = callBodyBytes("post_message", { ...args, event: event("") });
  // Two characters of content add four bytes: two in the arguments, two in the event.
  const room = RELAY_BODY_BOUND - base;
  const fits = "x".repeat(Math.floor(room / 2));
  assert.ok(
    callBodyBytes("post_message", { ...args, content: fits, event: event(fits) }) <= RELAY_BODY_BOUND,
  );
  assert.ok("room" in resubmission("post_message", { ...args, content: fits }, event(fits)));
  const over = `${fits}xx`;
  assert.deepEqual(Object.keys(resubmission("post_message", { ...args, content: over }, event(over))), [
    "event",
  ]);
  // Multi-byte characters count as their bytes, not as characters.
  const wide = "é".repeat(Math.ceil(room / 4) + 1);
  assert.deepEqual(Object.keys(resubmission("post_message", { ...args, content: wide }, event(wide))), [
    "event",
  ]);
});

Deno.test("resubmission: a smaller bound, as an operator's --max-message-bytes sets it", () => {
  const args = { room: "general", content: "x".repeat(2000) };
  assert.deepEqual(Object.keys(resubmission("post_message", args, event(args.content), 4096)), ["event"]);
  assert.equal(Object.keys(resubmission("post_message", args, event(args.content), 8192)).length, 3);
});

Deno.test("resubmission: whether the event could still go alone", () => {
  assert.equal(carriesArguments({ room: "general", event: {} }), true);
  assert.equal(carriesArguments({ event: {} }), false);
});
