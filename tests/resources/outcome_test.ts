// A relay call made for a resource, read back (lib/resources/outcome.ts): the structured answer,
// or the failure sorted into what it becomes, and the JSON-RPC error a failure is.

import assert from "node:assert/strict";
import { failureError, readOutcome, RELAY_FAILED } from "../../lib/resources/outcome.ts";
import type { CallOutcome } from "../../lib/wire/mcp.ts";

const result = (fields: Record<string, unknown>): CallOutcome => ({ result: { content: [], ...fields } });
const failed = (text: string, retryAfter?: number): CallOutcome => ({
  result: { content: [{ type: "text", text }], isError: true },
  ...(retryAfter === undefined ? {} : { retryAfter }),
});

Deno.test("a structured answer is the answer; one mirrored in the text block alone is too", () => {
  const answer = { room: { id: "general" }, messages: [] };
  assert.deepEqual(readOutcome("read_room", result({ structuredContent: answer })), { ok: true, answer });
  const mirrored = result({ content: [{ type: "text", text: JSON.stringify(answer) }] });
  assert.deepEqual(readOutcome("read_room", mirrored), { ok: true, answer });
});

Deno.test("an answer tinyagent cannot read is said so, naming the tool", () => {
  const garbage: CallOutcome[] = [
    result({ content: [{ type: "text", text: "<html>garbage</html>" }] }),
    result({ structuredContent: "garbage" }),
    result({ structuredContent: [1, 2, 3] }),
    result({ structuredContent: null, content: [{ type: "text", text: "{}" }] }),
    result({ content: [{ type: "text", text: "[1]" }] }),
    result({}),
  ];
  for (const outcome of garbage) {
    assert.deepEqual(readOutcome("read_room", outcome), {
      ok: false,
      failure: {
        kind: "unreadable",
        text: "the relay's answer to read_room carries no structured answer tinyagent can read",
      },
    }, JSON.stringify(outcome));
  }
});

Deno.test("failures are sorted by their words, and a rate limit by the wait the facade carries", () => {
  const table: [string, string, number?][] = [
    ["not found: room", "unknown-id"],
    ["not found: collaboration event", "unknown-id"],
    ["file does not exist", "unknown-id"],
    ["relay: not found: job request", "unknown-id"],
    ["attachment unavailable: not found: file", "unknown-id"],
    ["relay: attachment unavailable: not found: blob", "unknown-id"],
    ["attachment unavailable: restricted: this file is members-only", "refused"],
    ["relay: rate-limited: slow down; retry after 7 s", "rate-limited", 7],
    ["transport: no answer from http://x/mcp within 30 s", "transport"],
    ["permission: restricted: this room is members-only", "refused"],
    ["relay: invalid: room cursor", "refused"],
    ["the room was not found", "refused"],
  ];
  for (const [text, kind, retryAfter] of table) {
    const reading = readOutcome("read_room", failed(text, retryAfter));
    assert.deepEqual(reading, {
      ok: false,
      failure: retryAfter === undefined ? { kind, text } : { kind, text, retryAfter },
    }, text);
  }
});

Deno.test("a wait is never read back from words: without the number, a rate limit's text is a refusal", () => {
  const text = "relay: rate-limited: slow down; retry after 7 s";
  assert.deepEqual(readOutcome("read_room", failed(text)), { ok: false, failure: { kind: "refused", text } });
});

Deno.test("a failure's words are one bounded line; a silent one says the tool failed", () => {
  const reading = readOutcome("read_room", failed(`not found:\nroom ${"x".repeat(5000)}`));
  assert.equal(reading.ok, false);
  if (reading.ok) return;
  assert.equal(reading.failure.text.includes("\n"), false);
  assert.equal(reading.failure.text.length, 2000);
  const silent = readOutcome("read_room", result({ isError: true }));
  assert.deepEqual(silent, {
    ok: false,
    failure: { kind: "refused", text: "read_room failed, saying nothing" },
  });
});

Deno.test("a JSON-RPC error from the facade (a tool it does not reach) is a refusal in its words", () => {
  const outcome: CallOutcome = {
    error: { code: -32602, message: "Unknown tool: read_room (the relay does not list it)" },
  };
  assert.deepEqual(readOutcome("read_room", outcome), {
    ok: false,
    failure: { kind: "refused", text: "Unknown tool: read_room (the relay does not list it)" },
  });
});

Deno.test("a failure as a JSON-RPC error: the words, the URI and the reason; retryAfter when rate-limited", () => {
  const uri = "tiny://relay.example/room/general";
  assert.deepEqual(
    failureError(uri, {
      kind: "rate-limited",
      text: "relay: rate-limited: slow; retry after 9 s",
      retryAfter: 9,
    }),
    {
      code: RELAY_FAILED,
      message:
        "The relay is rate-limiting this key: retry after 9 s (relay: rate-limited: slow; retry after 9 s)",
      data: { uri, reason: "rate-limited", retryAfter: 9 },
    },
  );
  assert.deepEqual(failureError(uri, { kind: "refused", text: "permission: restricted: members only" }), {
    code: RELAY_FAILED,
    message: `Cannot read "${uri}": permission: restricted: members only`,
    data: { uri, reason: "refused" },
  });
  const listing = failureError("", { kind: "transport", text: "transport: cannot reach" }, "list");
  assert.equal(listing.message, "Cannot list: transport: cannot reach");
  const long = failureError(`tiny://${"x".repeat(100_000)}`, { kind: "refused", text: "no" });
  assert.ok(JSON.stringify(long).length < 1000, "a long URI is echoed cut");
});
