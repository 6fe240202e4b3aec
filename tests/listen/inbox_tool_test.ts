// `tiny_inbox` (lib/listen/inbox_tool.ts): its entry, its arguments and each refusal's words, the
// result's text and structure (the official SDK's schemas check both), and the call: at most
// `limit`, oldest first, `wait` holding until an event comes or its bound, the session's end
// waking it.

import assert from "node:assert/strict";
import { CallToolResultSchema, ToolSchema } from "@modelcontextprotocol/sdk/types.js";
import type { ListenedEvent } from "../../lib/listen/channel_message.ts";
import { Inbox } from "../../lib/listen/inbox.ts";
import {
  DEFAULT_TAKE,
  INBOX_ENTRY,
  INBOX_TOOL,
  inboxResult,
  inboxTool,
  MAX_TAKE,
  MAX_WAIT_SECONDS,
  parseInboxArgs,
} from "../../lib/listen/inbox_tool.ts";
import { within } from "../support/waits.ts";

const event = (n: number, meta: Record<string, string> = {}): ListenedEvent => ({
  content: `text ${n}`,
  meta: { room: "general", event_id: `id${n}`, ...meta },
});
type Structured = { events: ListenedEvent[]; dropped: number; remaining: number };
const textOf = (result: { content: unknown[] }) => (result.content[0] as { text: string }).text;

Deno.test("the entry: a valid MCP tool, read-only, its two bounded arguments", () => {
  assert.equal(INBOX_TOOL, "tiny_inbox");
  assert.equal(INBOX_ENTRY.name, INBOX_TOOL);
  assert.ok(ToolSchema.safeParse(INBOX_ENTRY).success);
  assert.deepEqual(Object.keys(INBOX_ENTRY.inputSchema.properties as object), ["limit", "wait"]);
  const { limit, wait } = INBOX_ENTRY.inputSchema.properties as Record<string, Record<string, unknown>>;
  assert.deepEqual([limit.minimum, limit.maximum, wait.minimum, wait.maximum], [
    1,
    MAX_TAKE,
    0,
    MAX_WAIT_SECONDS,
  ]);
  assert.equal(INBOX_ENTRY.annotations?.readOnlyHint, true);
  assert.match(INBOX_ENTRY.description!, /not from your user/);
  assert.deepEqual([DEFAULT_TAKE, MAX_TAKE, MAX_WAIT_SECONDS], [20, 100, 60]);
});

Deno.test("parseInboxArgs: the defaults, the bounds, and every refusal in its words", () => {
  assert.deepEqual(parseInboxArgs({}), { ok: true, limit: DEFAULT_TAKE, waitMs: 0 });
  assert.deepEqual(parseInboxArgs({ limit: 1, wait: 0 }), { ok: true, limit: 1, waitMs: 0 });
  assert.deepEqual(parseInboxArgs({ limit: MAX_TAKE, wait: MAX_WAIT_SECONDS }), {
    ok: true,
    limit: MAX_TAKE,
    waitMs: 60_000,
  });
  assert.deepEqual(parseInboxArgs({ wait: 0.25 }), { ok: true, limit: DEFAULT_TAKE, waitMs: 250 });
  const limitError = `invalid arguments: limit must be a whole number from 1 to ${MAX_TAKE}`;
  for (const limit of [0, -1, MAX_TAKE + 1, 2.5, "5", true, [], {}]) {
    assert.deepEqual(parseInboxArgs({ limit }), { ok: false, error: limitError }, JSON.stringify(limit));
  }
  const waitError = `invalid arguments: wait must be a number of seconds from 0 to ${MAX_WAIT_SECONDS}`;
  for (const wait of [-0.5, MAX_WAIT_SECONDS + 0.001, "1", true, [], {}]) {
    assert.deepEqual(parseInboxArgs({ wait }), { ok: false, error: waitError }, JSON.stringify(wait));
  }
  assert.deepEqual(parseInboxArgs({ limit: 1, since: 3 }), {
    ok: false,
    error: "invalid arguments: unknown field since",
  });
});

Deno.test("inboxResult: the head, each event's attributes and text, and the same as structure", () => {
  const taken = { events: [event(1), event(2, { thread: 'a "b"' })], dropped: 0 };
  const result = inboxResult(taken, 0);
  assert.ok(CallToolResultSchema.safeParse(result).success);
  assert.equal(result.isError, false);
  assert.equal(
    textOf(result),
    '2 events\n\n[room="general" event_id="id1"]\ntext 1\n\n[room="general" event_id="id2" thread="a \\"b\\""]\ntext 2',
  );
  assert.deepEqual(result.structuredContent, { events: taken.events, dropped: 0, remaining: 0 });
  assert.equal(textOf(inboxResult({ events: [event(1)], dropped: 0 }, 0)).split("\n")[0], "1 event");
  assert.equal(textOf(inboxResult({ events: [], dropped: 0 }, 0)), "0 events");
  assert.equal(
    textOf(inboxResult({ events: [event(1)], dropped: 0 }, 4)).split("\n")[0],
    "1 event, 4 more waiting",
  );
  const dropped = inboxResult({ events: [event(1)], dropped: 7 }, 2);
  assert.equal(
    textOf(dropped).split("\n")[0],
    "1 event, 2 more waiting; 7 older ones were dropped before they were taken (the inbox keeps the newest)",
  );
  assert.deepEqual(dropped.structuredContent, { events: [event(1)], dropped: 7, remaining: 2 });
});

Deno.test("the call: at most `limit`, oldest first, what remains said, each event given once", async () => {
  const inbox = new Inbox();
  const tool = inboxTool(inbox);
  for (let n = 1; n <= 5; n++) inbox.push(event(n));
  const first = await tool.call({ limit: 2 });
  assert.deepEqual(first.structuredContent, { events: [event(1), event(2)], dropped: 0, remaining: 3 });
  const rest = await tool.call({});
  assert.deepEqual((rest.structuredContent as Structured).events, [event(3), event(4), event(5)]);
  assert.deepEqual((await tool.call({})).structuredContent, { events: [], dropped: 0, remaining: 0 });
});

Deno.test("the call: a bad argument is a tool error, nothing taken", async () => {
  const inbox = new Inbox();
  inbox.push(event(1));
  const result = await inboxTool(inbox).call({ limit: 0 });
  assert.equal(result.isError, true);
  assert.equal(textOf(result), `invalid arguments: limit must be a whole number from 1 to ${MAX_TAKE}`);
  assert.equal(inbox.size, 1);
});

Deno.test("the call with wait: held until an event arrives, or answered empty at its bound", async () => {
  const inbox = new Inbox();
  const tool = inboxTool(inbox);
  let answered = false;
  const call = tool.call({ wait: 30 }).then((result) => (answered = true, result));
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(answered, false, "held while none is waiting");
  inbox.push(event(9));
  const result = await within(3000, "the held call", call);
  assert.deepEqual((result.structuredContent as Structured).events, [event(9)]);
  const started = performance.now();
  const empty = await within(5000, "the bound", tool.call({ wait: 0.2 }));
  assert.ok(performance.now() - started >= 190);
  assert.deepEqual(empty.structuredContent, { events: [], dropped: 0, remaining: 0 });
});

Deno.test("the call with wait: the session's end answers it at once", async () => {
  const controller = new AbortController();
  const tool = inboxTool(new Inbox(), controller.signal);
  const call = tool.call({ wait: 60 });
  controller.abort();
  assert.equal(textOf(await within(2000, "the end", call)), "0 events");
});
