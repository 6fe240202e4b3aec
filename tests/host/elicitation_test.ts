// Asking the host's person (lib/host/elicitation.ts): which hosts can be asked, the request as the
// official SDK parses it, and every kind of reply turned into the person's answer.

import assert from "node:assert/strict";
import { ElicitRequestSchema, ElicitResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { HostChannel } from "../../lib/host/channel.ts";
import {
  askThroughHost,
  canElicitForm,
  ELICIT_METHOD,
  elicitAction,
  elicitationParams,
} from "../../lib/host/elicitation.ts";
import { NO_ELICITATION_PATTERN } from "../support/oversight.ts";
import { within } from "../support/waits.ts";
import { heldText } from "../../lib/oversight/confirmation.ts";

Deno.test("who can be asked: form mode, declared as {} or with form; not URL mode alone, not nothing", () => {
  const yes = [{ elicitation: {} }, { elicitation: { form: {} } }, { elicitation: { form: {}, url: {} } }];
  const no = [undefined, {}, { elicitation: true }, { elicitation: { url: {} } }, {
    elicitation: { form: true },
  }, {
    roots: {},
  }];
  for (const capabilities of yes) assert.ok(canElicitForm(capabilities), JSON.stringify(capabilities));
  for (const capabilities of no) assert.ok(!canElicitForm(capabilities), JSON.stringify(capabilities));
});

Deno.test("the request is one the SDK parses: the question as message, a form with nothing to fill", () => {
  const request = {
    jsonrpc: "2.0",
    id: "tinyagent-1",
    method: ELICIT_METHOD,
    params: elicitationParams("May I?"),
  };
  assert.ok(ElicitRequestSchema.safeParse(request).success);
  assert.deepEqual(request.params, {
    message: "May I?",
    requestedSchema: { type: "object", properties: {} },
  });
});

Deno.test("the host's answer: accept, decline, cancel; anything else is not an answer", () => {
  for (const action of ["accept", "decline", "cancel"] as const) {
    assert.ok(ElicitResultSchema.safeParse({ action }).success);
    assert.equal(elicitAction({ action, content: {} }), action);
  }
  for (const result of [undefined, null, {}, { action: "yes" }, { action: "ACCEPT" }, "accept"]) {
    assert.equal(elicitAction(result), undefined, JSON.stringify(result));
  }
});

function host(capabilities: unknown) {
  const lines: { id: string; params: { message: string } }[] = [];
  const channel = new HostChannel();
  channel.bind((line) => lines.push(JSON.parse(line)));
  channel.capabilities = capabilities as Record<string, unknown>;
  return { channel, lines, ask: askThroughHost(channel, 50) };
}

Deno.test("asking through the host, reply by reply", async () => {
  const { channel, lines, ask } = host({ elicitation: {} });
  const accepted = ask("Sign?");
  assert.equal(lines[0].params.message, "Sign?");
  channel.settle({ id: lines[0].id, result: { action: "accept", content: {} } });
  assert.deepEqual(await accepted, { action: "accept" });

  const declined = ask("Sign?");
  channel.settle({ id: lines[1].id, result: { action: "decline" } });
  assert.deepEqual(await declined, { action: "decline" });

  const odd = ask("Sign?");
  channel.settle({ id: lines[2].id, result: { action: "sure" } });
  assert.deepEqual(await odd, {
    action: "unable",
    why: "the host's answer to the question was not an elicitation result",
  });

  const refused = ask("Sign?");
  channel.settle({ id: lines[3].id, error: { code: -32601, message: "Method not found" } });
  assert.deepEqual(await refused, {
    action: "unable",
    why: "the host could not ask its person (error -32601: Method not found)",
  });

  // Bounded: a timeout defaulted to minutes fails here rather than hangs the suite.
  assert.deepEqual(await within(2_000, "the 0.05 s timeout", ask("Sign?")), {
    action: "timeout",
    seconds: 0.05,
  });
  channel.close("the host is gone");
  assert.deepEqual(await ask("Sign?"), {
    action: "unable",
    why: "the host cannot answer any more (the host is gone)",
  });
});

Deno.test("a host that declared no elicitation is never sent the question", async () => {
  for (const capabilities of [undefined, {}, { elicitation: { url: {} } }]) {
    const { lines, ask } = host(capabilities);
    const answer = await ask("Sign?");
    assert.equal(lines.length, 0);
    assert.match(heldText(answer, "host")!, NO_ELICITATION_PATTERN);
  }
});

Deno.test("too many questions waiting: the next is refused unsent, saying why", async () => {
  const channel = new HostChannel(undefined, 0);
  channel.bind(() => assert.fail("nothing is sent"));
  channel.capabilities = { elicitation: {} };
  assert.deepEqual(await askThroughHost(channel, 1_000)("Sign?"), {
    action: "unable",
    why: "0 writes already wait for the person's answer; try again once they are answered",
  });
});

/** A channel that records the timeout each request is given, then sends it as the real one does. */
class RecordingChannel extends HostChannel {
  timeouts: number[] = [];
  override request(method: string, params: Record<string, unknown>, timeoutMs: number) {
    this.timeouts.push(timeoutMs);
    return super.request(method, params, timeoutMs);
  }
}

// Only the 10 s end-to-end test saw --confirm-timeout reach the host; an odd value fails fast here.
Deno.test("the confirmation timeout bounds each host request unchanged: not rounded, defaulted or doubled", async () => {
  const channel = new RecordingChannel();
  const lines: { id: string }[] = [];
  channel.bind((line) => lines.push(JSON.parse(line)));
  channel.capabilities = { elicitation: {} };
  const ask = askThroughHost(channel, 137);
  try {
    const answered = ask("Sign?");
    channel.settle({ id: lines[0].id, result: { action: "accept" } });
    assert.deepEqual(await answered, { action: "accept" });
    const unanswered = ask("Sign?");
    // Checked before the wait, so a bound changed to minutes fails now rather than hangs.
    assert.deepEqual(channel.timeouts, [137, 137]);
    assert.deepEqual(await within(2_000, "the 0.137 s timeout", unanswered), {
      action: "timeout",
      seconds: 0.137,
    });
  } finally {
    channel.close("test over");
  }
});

Deno.test("a question whose call was cancelled is withdrawn, and the write cannot go ahead", async () => {
  const { channel, lines } = host({ elicitation: {} });
  const ask = askThroughHost(channel, 60_000);
  const cancel = new AbortController();
  const asked = ask("Sign?", cancel.signal);
  assert.equal(lines.length, 1);
  cancel.abort();
  assert.deepEqual(await within(1_000, "the withdrawn question", asked), {
    action: "unable",
    why: "the call that asked was cancelled before the person answered",
  });
  assert.equal((lines[1] as unknown as { method: string }).method, "notifications/cancelled");
});
