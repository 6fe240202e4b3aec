// Requests tinyagent sends the host (lib/host/channel.ts): ids of its own, responses matched to
// them, unknown and late responses ignored, every wait bounded, a bounded number pending, and
// nothing left waiting once the host can no longer answer.

import assert from "node:assert/strict";
import { HostChannel, MAX_PENDING } from "../../lib/host/channel.ts";
import { HOST_REQUEST_ID } from "../support/oversight.ts";
import { within } from "../support/waits.ts";

function channel(limit?: number) {
  const lines: Record<string, unknown>[] = [];
  const logs: string[] = [];
  const made = new HostChannel((line) => logs.push(line), limit);
  made.bind((line) => lines.push(JSON.parse(line)));
  return { channel: made, lines, logs };
}

Deno.test("each request gets an id of tinyagent's own, and its response resolves it", async () => {
  const { channel: c, lines } = channel();
  const first = c.request("elicitation/create", { message: "a" }, 60_000);
  const second = c.request("elicitation/create", { message: "b" }, 60_000);
  assert.deepEqual(lines.map((line) => line.id), ["tinyagent-1", "tinyagent-2"]);
  for (const line of lines) assert.match(String(line.id), HOST_REQUEST_ID);
  assert.deepEqual(lines[0], {
    jsonrpc: "2.0",
    id: "tinyagent-1",
    method: "elicitation/create",
    params: { message: "a" },
  });
  assert.equal(c.pending, 2);
  // Answered out of order: each to its own request.
  assert.ok(c.settle({ id: "tinyagent-2", result: { action: "decline" } }));
  assert.ok(c.settle({ id: "tinyagent-1", error: { code: -32601, message: "Method not found" } }));
  assert.deepEqual(await second, { ok: true, result: { action: "decline" } });
  assert.deepEqual(await first, { ok: false, error: { code: -32601, message: "Method not found" } });
  assert.equal(c.pending, 0);
});

Deno.test("a response nobody waits for is ignored: an id of ours said, any other quietly", async () => {
  const { channel: c, logs } = channel();
  const asked = c.request("elicitation/create", {}, 60_000);
  for (const id of ["tinyagent-7", 1, "1", null, { id: 1 }, "x".repeat(500)]) {
    assert.equal(c.settle({ id, result: {} }), false);
  }
  assert.equal(c.settle({ id: "tinyagent-1", result: { action: "accept" } }), true);
  assert.equal(c.settle({ id: "tinyagent-1", result: { action: "decline" } }), false, "answered once");
  assert.deepEqual(await asked, { ok: true, result: { action: "accept" } });
  assert.deepEqual(logs, [
    'ignored a response from the host to "tinyagent-7": no request of ours waits for it',
    'ignored a response from the host to "tinyagent-1": no request of ours waits for it',
  ]);
});

Deno.test("no answer in time: the host is told the request is cancelled, and a late answer is ignored", async () => {
  const { channel: c, lines } = channel();
  // Bounded: a timer defaulted to minutes fails here rather than hangs the suite.
  assert.deepEqual(await within(2_000, "the 0.02 s timeout", c.request("elicitation/create", {}, 20)), {
    ok: false,
    timedOut: true,
  });
  assert.deepEqual(lines[1], {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "tinyagent-1", reason: "no answer within 0.02 s" },
  });
  assert.equal(c.settle({ id: "tinyagent-1", result: { action: "accept" } }), false);
});

// The request's own timer is the bound the person is promised (--confirm-timeout): exactly the ms given.
Deno.test("a request waits exactly the timeout it is given: not rounded, defaulted or doubled", async () => {
  const { channel: c, lines } = channel();
  const delays: unknown[] = [];
  const realSetTimeout = globalThis.setTimeout;
  globalThis.setTimeout = ((handler: () => void, ms?: number) => {
    delays.push(ms);
    return realSetTimeout(handler, ms);
  }) as typeof setTimeout;
  let reply;
  try {
    reply = c.request("elicitation/create", {}, 137);
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  try {
    assert.deepEqual(delays, [137]);
    assert.deepEqual(await within(2_000, "the 0.137 s timeout", reply), { ok: false, timedOut: true });
  } finally {
    c.close("test over");
  }
  assert.equal((lines[1].params as { reason: string }).reason, "no answer within 0.137 s");
});

Deno.test(`at most ${MAX_PENDING} wait at once; the next is refused unsent`, async () => {
  const { channel: c, lines } = channel();
  const waiting = Array.from({ length: MAX_PENDING }, () => c.request("elicitation/create", {}, 60_000));
  assert.deepEqual(await c.request("elicitation/create", {}, 60_000), { ok: false, busy: MAX_PENDING });
  assert.equal(lines.length, MAX_PENDING);
  c.settle({ id: "tinyagent-1", result: {} });
  const next = c.request("elicitation/create", {}, 60_000);
  assert.equal(lines.length, MAX_PENDING + 1, "a freed place takes the next");
  c.close("test over");
  for (const reply of await Promise.all([...waiting.slice(1), next])) {
    assert.deepEqual(reply, { ok: false, gone: "test over" });
  }
});

Deno.test("once the host cannot answer, nothing waits and nothing more is sent", async () => {
  const { channel: c, lines } = channel();
  const asked = c.request("elicitation/create", {}, 60_000);
  c.close("the host's input ended");
  assert.deepEqual(await asked, { ok: false, gone: "the host's input ended" });
  assert.deepEqual(await c.request("elicitation/create", {}, 60_000), {
    ok: false,
    gone: "the host's input ended",
  });
  assert.equal(lines.length, 1);
  assert.deepEqual(await new HostChannel().request("x", {}, 10), { ok: false, gone: "no host is connected" });
});

Deno.test("a malformed error is named as such", async () => {
  const { channel: c } = channel();
  const asked = c.request("elicitation/create", {}, 60_000);
  c.settle({ id: "tinyagent-1", error: "nope" });
  assert.deepEqual(await asked, { ok: false, error: { code: 0, message: "a malformed error" } });
});

Deno.test("the call that asked is cancelled: the host is told to close its question, a late answer ignored", async (t) => {
  await t.step("cancelled while waiting", async () => {
    const { channel: c, lines } = channel();
    const cancel = new AbortController();
    const asked = c.request("elicitation/create", { message: "a" }, 60_000, cancel.signal);
    cancel.abort();
    assert.deepEqual(await within(1_000, "the cancelled request", asked), { ok: false, cancelled: true });
    assert.equal(c.pending, 0);
    assert.deepEqual(lines[1], {
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: "tinyagent-1", reason: "the call that asked was cancelled" },
    });
    assert.equal(c.settle({ id: "tinyagent-1", result: { action: "accept" } }), false, "too late");
  });
  await t.step("cancelled before asking: nothing is sent", async () => {
    const { channel: c, lines } = channel();
    const cancel = new AbortController();
    cancel.abort();
    assert.deepEqual(await c.request("elicitation/create", {}, 60_000, cancel.signal), {
      ok: false,
      cancelled: true,
    });
    assert.deepEqual(lines, []);
  });
  await t.step("answered first: a later cancel changes nothing and sends nothing", async () => {
    const { channel: c, lines } = channel();
    const cancel = new AbortController();
    const asked = c.request("elicitation/create", {}, 60_000, cancel.signal);
    c.settle({ id: "tinyagent-1", result: { action: "decline" } });
    cancel.abort();
    assert.deepEqual(await asked, { ok: true, result: { action: "decline" } });
    assert.equal(lines.length, 1, "the request alone");
  });
});
