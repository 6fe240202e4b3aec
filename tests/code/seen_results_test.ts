// The session's seen result shapes (lib/code/seen_results.ts): each tool's answers merged after the
// current turn or when a search asks, failures left out, text answers as strings, the tools and the
// waiting answers bounded.

import assert from "node:assert/strict";
import { MAX_TOOLS, MAX_WAITING, SeenResults } from "../../lib/code/seen_results.ts";
import type { CallToolResult } from "../../lib/wire/mcp.ts";

const structured = (value: Record<string, unknown>): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(value) }],
  structuredContent: value,
});

/** A store whose "later" runs only when the test says. */
function store() {
  const tasks: (() => void)[] = [];
  const seen = new SeenResults((task) => void tasks.push(task));
  return { seen, runLater: () => tasks.splice(0).forEach((task) => task()), tasks };
}

Deno.test("answers are merged after the turn, or at once when a search asks", () => {
  const { seen, runLater, tasks } = store();
  seen.record("list_rooms", structured({ items: [{ id: "a" }], next_cursor: "a" }));
  seen.record("list_rooms", structured({ items: [], next_cursor: "" }));
  assert.equal(tasks.length, 1, "one merge scheduled for both");
  runLater();
  assert.deepEqual(seen.typeOf("list_rooms", 500), {
    type: "{ items: { id: string }[]; next_cursor: string }",
    answers: 2,
  });
  seen.record("read_room", structured({ messages: [] }));
  assert.deepEqual(seen.typeOf("read_room", 500), { type: "{ messages: unknown[] }", answers: 1 });
  assert.equal(seen.typeOf("list_issues", 500), undefined, "never seen");
});

Deno.test("what counts: a failure says nothing; a text answer is a string", () => {
  const { seen } = store();
  seen.record("read_room", { content: [{ type: "text", text: "relay: not found" }], isError: true });
  assert.equal(seen.typeOf("read_room", 500), undefined);
  seen.record("read_status", { content: [{ type: "text", text: "all good" }] });
  assert.deepEqual(seen.typeOf("read_status", 500), { type: "string", answers: 1 });
});

Deno.test("bounds: at most MAX_TOOLS tools, at most MAX_WAITING answers waiting", () => {
  const { seen, tasks } = store();
  for (let i = 0; i < MAX_TOOLS + 10; i++) seen.record(`tool_${i}`, structured({ n: i }));
  assert.equal(tasks.length, 1);
  assert.ok(seen.typeOf(`tool_${MAX_TOOLS - 1}`, 100));
  assert.equal(seen.typeOf(`tool_${MAX_TOOLS}`, 100), undefined);
  const { seen: busy } = store();
  for (let i = 0; i < MAX_WAITING * 3; i++) busy.record("list_rooms", structured({ n: i }));
  assert.equal(busy.typeOf("list_rooms", 100)?.answers, MAX_WAITING * 3, "none lost while waiting");
});

Deno.test("the default later: a timer run once the turn is done, none left behind (the sanitizer checks)", async () => {
  const seen = new SeenResults();
  seen.record("list_rooms", structured({ items: [] }));
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(seen.typeOf("list_rooms", 100)?.answers, 1);
});

Deno.test("a tool's shipped type: answers that fit it change nothing shown; one that does not is told how", () => {
  const tasks: (() => void)[] = [];
  const shipped = (tool: string) =>
    tool === "list_rooms"
      ? { object: { items: { array: { object: { id: "string" } } }, next_cursor: "string" } } as const
      : undefined;
  const seen = new SeenResults((task) => void tasks.push(task), shipped);
  const before = seen.version;
  seen.record("list_rooms", structured({ items: [{ id: "a" }], next_cursor: "" }));
  assert.equal(seen.version, before, "an answer that fits the shipped type changes nothing shown");
  assert.equal(seen.typeOf("list_rooms", 500)?.differs, undefined);
  assert.deepEqual(seen.shownAsSeen(500), {}, "shown as shipped, not as seen");
  seen.record("list_rooms", structured({ items: [{ id: "a", member_count: 2 }], next_cursor: "" }));
  assert.equal(seen.version, before + 1, "the answer that did not fit changes what is shown");
  assert.equal(
    seen.typeOf("list_rooms", 500)?.differs,
    "answer.items[0].member_count is a field the shipped type does not have",
  );
  assert.deepEqual(Object.keys(seen.shownAsSeen(500)), ["list_rooms"]);
  seen.record("read_room", structured({ messages: [] }));
  assert.equal(
    seen.version,
    before + 2,
    "a tool without a shipped type is shown as seen: each answer counts",
  );
  seen.record("list_rooms", structured({ items: [], next_cursor: "" }));
  assert.equal(seen.version, before + 3, "once it differs, its seen type is what is shown");
});
