// tiny_execute (lib/code/execute_tool.ts): its arguments refused in words; each relay call of a program
// made on the session's call path as the program's (its intent, its signal, its clock's pause), answered
// with structuredContent or text, failing with the facade's own words; every call and every write in
// the answer; the host's cancellation reaching the program. The programs here run in the real sandbox.

import assert from "node:assert/strict";
import { EXECUTE_ENTRY, executeTool, MAX_INTENT, parseExecuteArgs } from "../../lib/code/execute_tool.ts";
import type { ExecutePorts } from "../../lib/code/execute_tool.ts";
import { runProgram } from "../../lib/code/sandbox.ts";
import type { WriteOrigin } from "../../lib/oversight/write_gate.ts";
import type { CallOutcome, CallToolResult, JsonObject } from "../../lib/wire/mcp.ts";
import { within } from "../support/waits.ts";

const EVENT = "cd".repeat(32);

interface Made {
  tool: string;
  args: JsonObject;
  origin: WriteOrigin;
}

/** Ports whose relay answers from `answers` by tool name, recording each call and its origin. */
function ports(
  answers: Record<string, (args: JsonObject, origin: WriteOrigin) => CallOutcome | Promise<CallOutcome>>,
) {
  const made: Made[] = [];
  const port: ExecutePorts = {
    call: (tool, args, origin) => {
      made.push({ tool, args, origin });
      const answer = answers[tool];
      return Promise.resolve(
        answer ? answer(args, origin) : { error: { code: -32602, message: `Unknown tool: ${tool}` } },
      );
    },
    run: runProgram,
    limits: { wallMs: 5_000 },
  };
  return { made, port };
}

const text = (result: CallToolResult) => String(result.content[0].text);
const structured = (result: CallToolResult) => result.structuredContent as Record<string, unknown>;

Deno.test("the entry: code required, intent bounded, nothing else", () => {
  const schema = EXECUTE_ENTRY.inputSchema as { required: string[]; properties: Record<string, unknown> };
  assert.deepEqual(schema.required, ["code"]);
  assert.deepEqual(Object.keys(schema.properties), ["code", "intent"]);
  assert.match(EXECUTE_ENTRY.description!, /async function run\(relay\)/);
  assert.match(EXECUTE_ENTRY.description!, /types are stripped, not checked/);
  assert.match(
    EXECUTE_ENTRY.description!,
    /Pass every write a key of its own, `await relay\.<write>\(args, \{ idempotencyKey/,
  );
  assert.match(EXECUTE_ENTRY.description!, /next_cursor has getNextPage\(\) and `for await`/);
  assert.match(EXECUTE_ENTRY.description!, /the hash of the functions' table/);
});

Deno.test("arguments refused in words", () => {
  const refused: [JsonObject, RegExp][] = [
    [{}, /needs code/],
    [{ code: "  " }, /needs code/],
    [{ code: 5 }, /needs code/],
    [{ code: "x", intent: 5 }, /intent must be a string/],
    [{ code: "x", intent: "i".repeat(MAX_INTENT + 1) }, /intent is 501 characters, at most 500/],
    [{ code: "x", script: "y" }, /takes code and intent, not script/],
  ];
  for (const [args, words] of refused) {
    const parsed = parseExecuteArgs(args);
    assert.equal(parsed.ok, false);
    assert.match((parsed as { error: string }).error, words);
  }
  assert.deepEqual(parseExecuteArgs({ code: "c", intent: "  triage  " }), {
    ok: true,
    code: "c",
    intent: "triage",
  });
  assert.deepEqual(parseExecuteArgs({ code: "c", intent: " " }), { ok: true, code: "c" });
});

Deno.test("a program's calls: structuredContent, or the text; a failure thrown with the facade's words", async () => {
  const { made, port } = ports({
    list_rooms: () => ({
      result: { content: [{ type: "text", text: "{}" }], structuredContent: { items: ["a"] } },
    }),
    read_room: () => ({ result: { content: [{ type: "text", text: "just text" }] } }),
    read_job: () => ({
      result: { content: [{ type: "text", text: "relay: not found: job request" }], isError: true },
    }),
  });
  const tool = executeTool(port);
  const result = await tool.call({
    code: `async function run(relay) {
      const rooms = await relay.list_rooms({ limit: 1 });
      const room = await relay.read_room({ id: "a" });
      let job, unknown;
      try { await relay.read_job({ id: "x" }); } catch (e) { job = e.message; }
      try { await relay.publish_event({}); } catch (e) { unknown = e.message; }
      return { rooms, room, job, unknown };
    }`,
    intent: "look around",
  });
  assert.equal(result.isError, false, text(result));
  assert.deepEqual(structured(result).value, {
    rooms: { items: ["a"] },
    room: "just text",
    job: "relay: not found: job request",
    unknown: "Unknown tool: publish_event",
  });
  assert.deepEqual(made.map((call) => [call.tool, call.args]), [
    ["list_rooms", { limit: 1 }],
    ["read_room", { id: "a" }],
    ["read_job", { id: "x" }],
    ["publish_event", {}],
  ]);
  for (const call of made) {
    assert.equal(call.origin.via, "tiny_execute");
    assert.equal(call.origin.intent, "look around");
    assert.ok(call.origin.signal instanceof AbortSignal);
    assert.equal(typeof call.origin.pause, "function");
  }
  assert.deepEqual(
    (structured(result).calls as { tool: string; state: string }[]).map((c) => [c.tool, c.state]),
    [
      ["list_rooms", "ok"],
      ["read_room", "ok"],
      ["read_job", "error"],
      ["publish_event", "error"],
    ],
  );
  assert.match(text(result), /No write was sent\.\nRelay calls: 4 \(2 answered, 2 failed\)\./);
});

Deno.test("each write's fate, as the gate notes it, is in the answer with its call", async () => {
  const { port } = ports({
    post_message: (args, origin) => {
      if (args.content === "held") {
        origin.noted?.({ tool: "post_message", outcome: "held", why: "write budget spent" });
        return {
          result: {
            content: [{ type: "text", text: "permission: the write budget is spent" }],
            isError: true,
          },
        };
      }
      origin.noted?.({ tool: "post_message", outcome: "accepted", event: EVENT });
      return { result: { content: [], structuredContent: { event_id: EVENT, accepted: true } } };
    },
  });
  const result = await executeTool(port).call({
    code: `async function run(relay) {
      const sent = await relay.post_message({ room: "general", content: "one" });
      try { await relay.post_message({ room: "general", content: "held" }); } catch (e) { return [sent.event_id, e.message]; }
    }`,
  });
  assert.deepEqual(structured(result).value, [EVENT, "permission: the write budget is spent"]);
  assert.equal(structured(result).writesSent, 1);
  assert.deepEqual((structured(result).calls as unknown[])[0], {
    tool: "post_message",
    state: "ok",
    write: { outcome: "accepted", event: EVENT },
  });
  assert.match(
    text(result),
    new RegExp(
      `1 write was sent:\\n- post_message event ${EVENT}: accepted by the relay\\nNot sent: post_message \\(write budget spent\\)\\.`,
    ),
  );
});

Deno.test("the host cancels: the program stops, calls not yet made are never made, the answer says so", async () => {
  const started = Promise.withResolvers<void>();
  const { made, port } = ports({
    slow: (_args, origin) => {
      started.resolve();
      return new Promise((resolve) =>
        origin.signal!.addEventListener(
          "abort",
          () => resolve({ result: { content: [{ type: "text", text: "late" }] } }),
        )
      );
    },
  });
  const cancel = new AbortController();
  const answer = executeTool(port).call({
    code: `async function run(relay) { await relay.slow({}); await relay.slow({}); return "never"; }`,
  }, { signal: cancel.signal });
  await within(10_000, "the first call", started.promise);
  cancel.abort();
  const result = await within(10_000, "the cancelled program's answer", answer);
  assert.equal(result.isError, true);
  assert.equal(structured(result).end, "cancelled");
  assert.equal(made.length, 1, "the second call was never made");
  assert.match(text(result), /^The program did not finish \(cancelled\)/);
});

/** A post_message the gate would note accepted (or held, for content "held"), counting what was made. */
function poster() {
  return ports({
    post_message: (args, origin) => {
      if (args.content === "held") {
        origin.noted?.({ tool: "post_message", outcome: "held", why: "declined at the host" });
        return {
          result: { content: [{ type: "text", text: "permission: declined at the host" }], isError: true },
        };
      }
      origin.noted?.({ tool: "post_message", outcome: "accepted", event: EVENT });
      return { result: { content: [], structuredContent: { event_id: EVENT, accepted: true } } };
    },
  });
}

const keyed = (content: string, key = "greet-1") =>
  `async function run(relay) {
    try { return await relay.post_message({ room: "general", content: ${JSON.stringify(content)} },
      { idempotencyKey: ${JSON.stringify(key)} }); }
    catch (error) { return { error: error.message }; }
  }`;

Deno.test("idempotency keys: a re-run answered from the write sent, never sent twice; the answer says so", async () => {
  const { made, port } = poster();
  const tool = executeTool(port);
  const first = await tool.call({ code: keyed("hello") });
  assert.equal(structured(first).writesSent, 1);
  assert.equal(made[0].origin.idempotencyKey, "greet-1", "the key goes with the write, to the audit log");
  const second = await tool.call({ code: keyed("hello") });
  assert.equal(made.length, 1, "nothing made the second time: nothing signed, asked or counted");
  assert.deepEqual(structured(second).value, structured(first).value, "the same answer");
  assert.equal(structured(second).writesSent, 0);
  assert.equal(structured(second).writesReplayed, 1);
  assert.match(
    text(second),
    new RegExp(
      `^The program returned\\.\\nNo write was sent\\.\\nNot sent again, answered by an idempotency key from ` +
        `earlier in this session:\\n- post_message event ${EVENT} \\(key "greet-1"\\): accepted by the relay\\n`,
    ),
  );
  const other = await tool.call({ code: keyed("something else") });
  assert.equal(made.length, 1);
  assert.match(
    String((structured(other).value as { error: string }).error),
    new RegExp(
      `^idempotency key "greet-1" was used for post_message event ${EVENT} \\(accepted by the relay\\) ` +
        "with other arguments; nothing was sent",
    ),
  );
  // Another session: a store of its own.
  const { made: elsewhere, port: fresh } = poster();
  await executeTool(fresh).call({ code: keyed("hello") });
  assert.equal(elsewhere.length, 1);
});

Deno.test("idempotency keys: a held write's key works again", async () => {
  const { made, port } = poster();
  const tool = executeTool(port);
  const held = await tool.call({ code: keyed("held", "k") });
  assert.deepEqual(structured(held).value, { error: "permission: declined at the host" });
  const again = await tool.call({ code: keyed("held", "k") });
  assert.equal(made.length, 2, "held, so made again");
  assert.deepEqual(structured(again).value, { error: "permission: declined at the host" });
  const sent = await tool.call({ code: keyed("now accepted", "k") });
  assert.equal(made.length, 3, "other arguments: free, since nothing was sent under it");
  assert.equal(structured(sent).writesSent, 1);
});

Deno.test("a write cut off in flight after it left: reported sent; its key busy, then kept once it answers", async () => {
  const left = Promise.withResolvers<void>();
  const answer = Promise.withResolvers<CallOutcome>();
  const { made, port } = ports({
    post_message: (_args, origin) => {
      // As the facade does once the event is signed: the program is told before the relay answers.
      origin.noted?.({ tool: "post_message", outcome: "unknown", event: EVENT, why: "sent; no answer yet" });
      left.resolve();
      return answer.promise.then((outcome) => {
        origin.noted?.({ tool: "post_message", outcome: "accepted", event: EVENT });
        return outcome;
      });
    },
  });
  const tool = executeTool(port);
  const cancel = new AbortController();
  const running = tool.call({ code: keyed("hello") }, { signal: cancel.signal });
  await within(10_000, "the write on its way", left.promise);
  cancel.abort();
  const cut = await within(10_000, "the cancelled program's answer", running);
  assert.equal(structured(cut).end, "cancelled");
  assert.equal(structured(cut).writesSent, 1, "it left: it may be published");
  assert.match(
    text(cut),
    new RegExp(`\\n1 write was sent:\\n- post_message event ${EVENT}: its answer was lost`),
  );
  const busy = await tool.call({ code: keyed("hello") });
  assert.match(
    String((structured(busy).value as { error: string }).error),
    /is in use by a post_message still on its way/,
  );
  answer.resolve({ result: { content: [], structuredContent: { event_id: EVENT, accepted: true } } });
  await within(
    10_000,
    "the key kept",
    (async () => {
      while (structured(await tool.call({ code: keyed("hello") })).writesReplayed !== 1) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })(),
  );
  assert.equal(made.length, 1, "sent once, whatever was asked after");
});

Deno.test("the answer carries the table's hash when the session gives it", async () => {
  const { port } = ports({});
  const hashed = await executeTool({ ...port, tableHash: () => Promise.resolve("0123456789ab") }).call({
    code: "async function run() { return 1; }",
  });
  assert.equal(structured(hashed).tableHash, "0123456789ab");
  assert.match(text(hashed), /\nTable hash: 0123456789ab\.\n/);
  const failing = await executeTool({ ...port, tableHash: () => Promise.reject(new Error("down")) }).call({
    code: "async function run() { return 1; }",
  });
  assert.equal(structured(failing).tableHash, undefined, "no table, no hash; never a failure");
  // Read again at the end only when a table held at the start is gone (it changed under the program).
  for (
    const [start, end, fetched] of [["h1", "h2", [false, true]], [undefined, undefined, [
      false,
      false,
    ]]] as const
  ) {
    const asked: boolean[] = [];
    const tool = executeTool({
      ...port,
      tableHash: (fetch) => (asked.push(fetch), Promise.resolve(asked.length === 1 ? start : end)),
    });
    const result = await tool.call({ code: "async function run() { return 1; }" });
    assert.deepEqual(asked, fetched);
    assert.equal(structured(result).tableHash, end);
  }
});
