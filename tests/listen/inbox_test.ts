// The admitted events not yet taken (lib/listen/inbox.ts): oldest first, bounded per take; past
// its bound the oldest go and the next take says how many; a taker waits for one, at most its
// bound, and is woken by an event, an abort or the session's end.

import assert from "node:assert/strict";
import type { ListenedEvent } from "../../lib/listen/channel_message.ts";
import { Inbox, INBOX_LIMIT } from "../../lib/listen/inbox.ts";
import { within } from "../support/waits.ts";

const event = (n: number): ListenedEvent => ({ content: `event ${n}`, meta: { event_id: String(n) } });
const contents = (events: ListenedEvent[]) => events.map((e) => e.content);

Deno.test("oldest first, at most `max` a take, each once", () => {
  const inbox = new Inbox();
  for (let n = 1; n <= 5; n++) inbox.push(event(n));
  assert.equal(inbox.size, 5);
  assert.deepEqual(contents(inbox.take(2).events), ["event 1", "event 2"]);
  assert.equal(inbox.size, 3);
  assert.deepEqual(inbox.take(10), { events: [event(3), event(4), event(5)], dropped: 0 });
  assert.deepEqual(inbox.take(10), { events: [], dropped: 0 });
});

Deno.test("past the bound the oldest go; the next take says how many, once", () => {
  assert.equal(INBOX_LIMIT, 1000);
  assert.equal(new Inbox().limit, INBOX_LIMIT);
  const inbox = new Inbox(3);
  for (let n = 1; n <= 7; n++) {
    inbox.push(event(n));
    assert.ok(inbox.size <= 3, `never above the bound (${inbox.size})`);
  }
  const first = inbox.take(1);
  assert.deepEqual(first, { events: [event(5)], dropped: 4 });
  // Said once: the next take counts only what was dropped since.
  assert.deepEqual(inbox.take(1), { events: [event(6)], dropped: 0 });
  inbox.push(event(8));
  inbox.push(event(9));
  inbox.push(event(10));
  assert.deepEqual(inbox.take(5), { events: [event(8), event(9), event(10)], dropped: 1 });
});

Deno.test("a taker waits for one: woken by the event, long before its bound", async () => {
  const inbox = new Inbox();
  let woken = false;
  const waiting = inbox.waitForOne(60_000).then(() => woken = true);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(woken, false, "nothing waiting: it holds");
  inbox.push(event(1));
  await within(2000, "the wake-up", waiting);
  assert.deepEqual(contents(inbox.take(5).events), ["event 1"]);
});

Deno.test("a taker with one waiting, or no wait, is answered at once", async () => {
  const inbox = new Inbox();
  await within(500, "no wait", inbox.waitForOne(0));
  inbox.push(event(1));
  await within(500, "one waiting", inbox.waitForOne(60_000));
});

Deno.test("with none coming, the wait ends at its bound", async () => {
  const inbox = new Inbox();
  const started = performance.now();
  await within(5000, "the bound", inbox.waitForOne(150));
  assert.ok(performance.now() - started >= 140, "it held until the bound");
  assert.equal(inbox.take(5).events.length, 0);
});

Deno.test("an abort or close wakes every waiter, and an aborted signal waits for nothing", async () => {
  const inbox = new Inbox();
  const controller = new AbortController();
  const aborted = inbox.waitForOne(60_000, controller.signal);
  controller.abort();
  await within(2000, "the abort", aborted);
  await within(500, "an aborted signal", inbox.waitForOne(60_000, controller.signal));
  const first = inbox.waitForOne(60_000);
  const second = inbox.waitForOne(60_000, new AbortController().signal);
  inbox.close();
  await within(2000, "the close", Promise.all([first, second]));
});
