// One audit log entry (lib/oversight/audit_record.ts): long argument strings and huge answers kept
// out, everything else as it was.

import assert from "node:assert/strict";
import {
  ANSWER_LIMIT,
  ARGUMENT_DEPTH_LIMIT,
  ARGUMENT_STRING_LIMIT,
  auditLine,
  loggedAnswer,
  loggedArguments,
  outcomeWhy,
} from "../../lib/oversight/audit_record.ts";

Deno.test("arguments: strings over the limit, at any depth, become a note of their length", () => {
  const long = "A".repeat(ARGUMENT_STRING_LIMIT + 1);
  assert.deepEqual(
    loggedArguments({ room: "general", data: long, nested: [{ text: long, n: 3, ok: true, none: null }] }),
    {
      room: "general",
      data: "[not logged: 4,097 characters]",
      nested: [{ text: "[not logged: 4,097 characters]", n: 3, ok: true, none: null }],
    },
  );
  const exact = "B".repeat(ARGUMENT_STRING_LIMIT);
  assert.deepEqual(loggedArguments({ content: exact }), { content: exact });
  // A key named __proto__ stays an ordinary key.
  assert.deepEqual(Object.keys(loggedArguments(JSON.parse('{"__proto__": {"x": 1}}'))), ["__proto__"]);
});

Deno.test("arguments nested past the depth limit are kept as a note, so the line can be written", () => {
  let deep: unknown = "bottom";
  for (let i = 0; i < 100_000; i++) deep = [deep];
  const logged = loggedArguments({ deep });
  let depth = 0;
  let at: unknown = logged.deep;
  while (Array.isArray(at)) {
    at = at[0];
    depth++;
  }
  assert.equal(depth, ARGUMENT_DEPTH_LIMIT - 1);
  assert.equal(at, `[not logged: nested over ${ARGUMENT_DEPTH_LIMIT} deep]`);
  assert.doesNotThrow(() => JSON.stringify(logged));
});

Deno.test("answers: whole up to the limit, then only their size", () => {
  const small = { content: [{ type: "text", text: "ok" }] };
  assert.deepEqual(loggedAnswer(small), small);
  const big = { text: "é".repeat(ANSWER_LIMIT) };
  assert.deepEqual(loggedAnswer(big), {
    truncated: true,
    bytes: new TextEncoder().encode(JSON.stringify(big)).length,
  });
  assert.equal(loggedAnswer(undefined), null);
  // An answer nested far deeper than a stack allows still serializes, and is bounded like any other.
  let deep: unknown = 0;
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.deepEqual(loggedAnswer(deep), { truncated: true, bytes: 200_001 });
});

Deno.test("why: the refusal's message or the lost answer's detail; nothing for an accepted write", () => {
  assert.equal(outcomeWhy({ status: "accepted" }), undefined);
  assert.equal(outcomeWhy({ status: "refused", message: "blocked" }), "blocked");
  assert.equal(outcomeWhy({ status: "unknown", detail: "transport: lost" }), "transport: lost");
  assert.equal(outcomeWhy({ status: "not sent", detail: "transport: down" }), "transport: down");
});

Deno.test("a line is one JSON object, with no newline inside", () => {
  const line = auditLine({
    time: "2026-12-01T00:00:00.000Z",
    session: "1@2026-12-01T00:00:00.000Z",
    relay: "https://r",
    tool: "post_message",
    arguments: { content: "a\nb" },
    outcome: "held",
    why: "declined at the host",
  });
  assert.ok(!line.includes("\n"));
  assert.equal(JSON.parse(line).arguments.content, "a\nb");
});
