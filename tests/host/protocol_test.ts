// Host protocol (facade.md, "Host protocol"): one JSON-RPC 2.0 message per
// line, answered by answerLine with a fake tool provider.

import assert from "node:assert/strict";
import config from "../../deno.json" with { type: "json" };
import type { CallOutcome, Tool } from "../../lib/wire/mcp.ts";
import {
  answerLine,
  encodeAnswer,
  type MethodHandler,
  negotiateVersion,
  parseLine,
  serve,
  type ToolProvider,
} from "../../lib/host/protocol.ts";
import { HostChannel } from "../../lib/host/channel.ts";

import {
  ANNOUNCED_CAPABILITIES,
  FALLBACK_VERSION as FALLBACK,
  HANDSHAKE_VERSIONS as VERSIONS,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  RELAY_PROTOCOL_VERSION,
  TINY_DIAGNOSE,
  UNKNOWN_TOOL,
} from "../support/contract.ts";

class FakeTools implements ToolProvider {
  listCalls = 0;
  callParams: unknown[] = [];
  constructor(
    readonly table: Tool[] = [{ name: "read_room", inputSchema: { type: "object" } }],
    readonly outcome: CallOutcome = { result: { content: [{ type: "text", text: "done" }], isError: false } },
  ) {}
  listTools(): Promise<Tool[]> {
    this.listCalls++;
    return Promise.resolve(this.table);
  }
  callTool(params: unknown): Promise<CallOutcome> {
    this.callParams.push(params);
    return Promise.resolve(this.outcome);
  }
}

function line(message: unknown): string {
  return JSON.stringify(message);
}

type Answer = {
  jsonrpc: string;
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
};

async function answer(text: string, tools: ToolProvider = new FakeTools()): Promise<Answer> {
  const out = await answerLine(text, tools);
  assert.notEqual(out, undefined, `expected an answer to ${text}`);
  // Whatever is answered must survive the trip to stdout as JSON.
  assert.deepEqual(JSON.parse(JSON.stringify(out)), out);
  return out as Answer;
}

function initialize(params?: unknown, id: unknown = 1): string {
  const message: Record<string, unknown> = { jsonrpc: "2.0", id, method: "initialize" };
  if (params !== undefined) message.params = params;
  return line(message);
}

Deno.test("initialize", async (t) => {
  for (const version of VERSIONS) {
    await t.step(`echoes ${version}`, async () => {
      const out = await answer(initialize({ protocolVersion: version, capabilities: {}, clientInfo: {} }));
      assert.deepEqual(out, {
        jsonrpc: "2.0",
        id: 1,
        result: {
          protocolVersion: version,
          capabilities: ANNOUNCED_CAPABILITIES,
          serverInfo: { name: "tinyagent", version: config.version },
        },
      });
    });
  }
  const others: [string, unknown][] = [
    ["the relay's own revision", { protocolVersion: RELAY_PROTOCOL_VERSION }],
    ["an unknown date", { protocolVersion: "2099-01-01" }],
    ["an empty string", { protocolVersion: "" }],
    ["a near miss", { protocolVersion: `${VERSIONS[0]} ` }],
    ["a number", { protocolVersion: 20250618 }],
    ["null", { protocolVersion: null }],
    ["an array of versions", { protocolVersion: [VERSIONS[0]] }],
    ["missing", { capabilities: {} }],
    ["no params", undefined],
    ["params as an array", [VERSIONS[0]]],
  ];
  for (const [name, params] of others) {
    await t.step(`answers ${FALLBACK} when protocolVersion is ${name}`, async () => {
      const out = await answer(initialize(params));
      assert.equal(out.result?.protocolVersion, FALLBACK);
      assert.deepEqual(out.result?.capabilities, ANNOUNCED_CAPABILITIES);
      assert.deepEqual(out.result?.serverInfo, { name: "tinyagent", version: config.version });
    });
  }
  await t.step("negotiateVersion directly", () => {
    for (const version of VERSIONS) assert.equal(negotiateVersion(version), version);
    for (const other of [undefined, null, 1, RELAY_PROTOCOL_VERSION, {}, "2024-11-5"]) {
      assert.equal(negotiateVersion(other), FALLBACK);
    }
  });
  await t.step("does not touch the relay", async () => {
    const tools = new FakeTools();
    await answer(initialize({ protocolVersion: VERSIONS[0] }), tools);
    assert.equal(tools.listCalls, 0);
    assert.equal(tools.callParams.length, 0);
  });
});

Deno.test("ping answers {}", async () => {
  assert.deepEqual(await answer(line({ jsonrpc: "2.0", id: 9, method: "ping" })), {
    jsonrpc: "2.0",
    id: 9,
    result: {},
  });
  assert.deepEqual(
    (await answer(line({ jsonrpc: "2.0", id: "p", method: "ping", params: {} }))).result,
    {},
  );
});

Deno.test("notifications get no answer, whatever the method", async () => {
  const tools = new FakeTools();
  for (
    const method of [
      "notifications/initialized",
      "notifications/cancelled",
      "notifications/progress",
      "notifications/roots/list_changed",
      "notifications/unknown",
      "initialize",
      "ping",
      "tools/list",
      "tools/call",
      "no/such/method",
    ]
  ) {
    const out = await answerLine(
      line({ jsonrpc: "2.0", method, params: { requestId: 1, name: "read_room" } }),
      tools,
    );
    assert.equal(out, undefined, method);
  }
  assert.equal(tools.listCalls, 0, "a notification never reaches the tool provider");
  assert.equal(tools.callParams.length, 0, "a notification never reaches the tool provider");
});

Deno.test(`an unknown method is ${METHOD_NOT_FOUND}`, async () => {
  for (const method of ["resources/list", "prompts/list", "initialized", "tools/invoke", "server/discover"]) {
    const out = await answer(line({ jsonrpc: "2.0", id: 4, method }));
    assert.equal(out.id, 4);
    assert.equal(out.error?.code, METHOD_NOT_FOUND, method);
    assert.equal(out.result, undefined);
  }
});

Deno.test(`a line that is not one JSON object is ${PARSE_ERROR} with id null`, async () => {
  for (
    const text of [
      "garbage",
      "{",
      '{"jsonrpc":"2.0","id":1,"method":"ping"',
      '{"jsonrpc":"2.0","id":1,"method":"ping"} trailing',
      "[]",
      "[1]",
      line([{ jsonrpc: "2.0", id: 1, method: "ping" }]),
      "1",
      "-5",
      '"a string"',
      "null",
      "true",
    ]
  ) {
    const out = await answer(text);
    assert.equal(out.jsonrpc, "2.0");
    assert.equal(out.id, null, text);
    assert.equal(out.error?.code, PARSE_ERROR, text);
  }
});

Deno.test(`an invalid request is ${INVALID_REQUEST}`, async (t) => {
  await t.step('jsonrpc missing or not "2.0"', async () => {
    for (const jsonrpc of [undefined, "1.0", "2", 2, 2.0, null]) {
      const message: Record<string, unknown> = { id: 3, method: "ping" };
      if (jsonrpc !== undefined) message.jsonrpc = jsonrpc;
      const out = await answer(line(message));
      assert.equal(out.error?.code, INVALID_REQUEST, JSON.stringify(jsonrpc));
      assert.equal(out.id, 3);
    }
  });
  await t.step("method missing or not a string", async () => {
    for (const method of [undefined, 5, null, ["ping"], { name: "ping" }]) {
      const message: Record<string, unknown> = { jsonrpc: "2.0", id: 3 };
      if (method !== undefined) message.method = method;
      const out = await answer(line(message));
      assert.equal(out.error?.code, INVALID_REQUEST, JSON.stringify(method));
      assert.equal(out.id, 3);
    }
  });
  await t.step("params that are neither object nor array", async () => {
    for (const params of [5, "x", true, null]) {
      const out = await answer(line({ jsonrpc: "2.0", id: 3, method: "ping", params }));
      assert.equal(out.error?.code, INVALID_REQUEST, JSON.stringify(params));
    }
  });
  await t.step("an id that is neither string nor number answers with id null", async () => {
    for (const id of [null, true, { a: 1 }, [1]]) {
      const out = await answer(line({ jsonrpc: "2.0", id, method: "ping" }));
      assert.equal(out.error?.code, INVALID_REQUEST, JSON.stringify(id));
      assert.equal(out.id, null);
    }
  });
});

Deno.test("ids are echoed exactly", async (t) => {
  for (const id of [0, -5, "abc", 1.5, "", "0", 9007199254740991, "ünïcødé 😀", 1e-7]) {
    await t.step(JSON.stringify(id), async () => {
      const tools = new FakeTools();
      for (
        const method of [
          "ping",
          "initialize",
          "tools/list",
          "tools/call",
          "no/such",
        ]
      ) {
        const out = await answer(line({ jsonrpc: "2.0", id, method, params: { name: "read_room" } }), tools);
        assert.ok(Object.is(out.id, id), `${method}: ${JSON.stringify(out.id)} for ${JSON.stringify(id)}`);
      }
      // And the text written to stdout carries the same id.
      const written = JSON.stringify(await answerLine(line({ jsonrpc: "2.0", id, method: "ping" }), tools));
      assert.ok(Object.is(JSON.parse(written).id, id));
    });
  }
});

Deno.test("blank lines and stray responses get no answer", async () => {
  const tools = new FakeTools();
  for (const text of ["", " ", "\t", "\r", "  \r"]) {
    assert.equal(await answerLine(text, tools), undefined, JSON.stringify(text));
  }
  for (
    const message of [
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "x", result: { roots: [] } },
      { jsonrpc: "2.0", id: 2, error: { code: METHOD_NOT_FOUND, message: "no" } },
      { jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message: "parse" } },
    ]
  ) {
    assert.equal(await answerLine(line(message), tools), undefined, line(message));
  }
  assert.equal(tools.callParams.length + tools.listCalls, 0);
});

Deno.test("tools/list and tools/call go to the provider", async (t) => {
  await t.step("tools/list answers the provider's table", async () => {
    const table: Tool[] = [
      { name: "read_room", inputSchema: { type: "object" } },
      { name: TINY_DIAGNOSE, inputSchema: { type: "object" } },
    ];
    const tools = new FakeTools(table);
    const out = await answer(line({ jsonrpc: "2.0", id: 2, method: "tools/list" }), tools);
    assert.deepEqual(out, { jsonrpc: "2.0", id: 2, result: { tools: table } });
    assert.equal(tools.listCalls, 1);
  });
  await t.step("a result outcome becomes a JSON-RPC result", async () => {
    const result = { content: [{ type: "text", text: "relay: boom" }], isError: true };
    const tools = new FakeTools(undefined, { result });
    const params = { name: "read_room", arguments: { room: "general" }, _meta: { progressToken: 1 } };
    const out = await answer(line({ jsonrpc: "2.0", id: 5, method: "tools/call", params }), tools);
    assert.deepEqual(out, { jsonrpc: "2.0", id: 5, result });
    assert.deepEqual(tools.callParams, [params], "the provider receives the params as sent");
  });
  await t.step("an error outcome becomes a JSON-RPC error", async () => {
    const error = { code: INVALID_PARAMS, message: `${UNKNOWN_TOOL}: publish_event` };
    const tools = new FakeTools(undefined, { error });
    const out = await answer(
      line({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "publish_event" } }),
      tools,
    );
    assert.ok(!("result" in out));
    assert.deepEqual(out, { jsonrpc: "2.0", id: "c", error });
  });
});

Deno.test("encodeAnswer: the id as the host wrote it, and an answer that cannot be encoded is an error", async (t) => {
  await t.step("a numeric id keeps the host's own text", () => {
    const answer = { jsonrpc: "2.0" as const, id: 9007199254740992, result: {} };
    assert.equal(
      encodeAnswer(answer, "9007199254740993"),
      '{"jsonrpc":"2.0","id":9007199254740993,"result":{}}',
    );
    assert.equal(encodeAnswer({ ...answer, id: 1 }, "1.0"), '{"jsonrpc":"2.0","id":1.0,"result":{}}');
  });
  await t.step("text that is not the id's is never spliced in", () => {
    const answer = { jsonrpc: "2.0" as const, id: 5, result: {} };
    assert.equal(encodeAnswer(answer, "6"), '{"jsonrpc":"2.0","id":5,"result":{}}');
    assert.equal(encodeAnswer({ ...answer, id: "5" }, "5"), '{"jsonrpc":"2.0","id":"5","result":{}}');
    assert.equal(encodeAnswer({ ...answer, id: null }), '{"jsonrpc":"2.0","id":null,"result":{}}');
  });
  await t.step("an answer that cannot be written becomes an internal error for its id", () => {
    // As JSON.stringify fails on a value nested past the stack's depth.
    const unwritable = {
      toJSON() {
        throw new RangeError("Maximum call stack size exceeded");
      },
    };
    const logs: string[] = [];
    const line = encodeAnswer(
      { jsonrpc: "2.0", id: 3, result: { unwritable } },
      undefined,
      (l) => logs.push(l),
    );
    assert.deepEqual(JSON.parse(line), {
      jsonrpc: "2.0",
      id: 3,
      error: { code: INTERNAL_ERROR, message: "Internal error: the answer could not be encoded" },
    });
    assert.match(logs[0], /could not be encoded/);
  });
});

/**
 * A serve() session in process: lines pushed in, lines written out, the provider's listener kept;
 * with a channel and a tools/call of the test's own when given.
 */
function session(
  options: {
    channel?: HostChannel;
    callTool?: ToolProvider["callTool"];
    methods?: ReadonlyMap<string, MethodHandler>;
  } = {},
) {
  const queue: Uint8Array[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const input: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        if (queue.length > 0) yield queue.shift()!;
        else if (ended) return;
        else await new Promise<void>((resolve) => wake = resolve);
      }
    },
  };
  const written: string[] = [];
  let closedOutput = false;
  let changed: (() => void) | undefined;
  const tools: ToolProvider = {
    listTools: () => Promise.resolve([]),
    callTool: options.callTool ?? (() => Promise.resolve({ result: { content: [] } })),
    onToolsChanged: (listener) => changed = listener,
  };
  const done = serve({
    input,
    output: {
      write(bytes) {
        if (closedOutput) return Promise.reject(new Deno.errors.BrokenPipe("closed"));
        written.push(...new TextDecoder().decode(bytes).split("\n").filter(Boolean));
        return Promise.resolve();
      },
    },
    tools,
    log: () => {},
    channel: options.channel,
    methods: options.methods,
  });
  const send = async (text: string) => {
    queue.push(new TextEncoder().encode(`${text}\n`));
    wake?.();
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setTimeout(resolve, 0));
  };
  return {
    written,
    send,
    changed: () => changed!(),
    closeOutput: () => closedOutput = true,
    end: async () => {
      ended = true;
      wake?.();
      await done;
    },
  };
}

Deno.test("notifications/tools/list_changed: only after the handshake's answer, once per change", async (t) => {
  const notification = { jsonrpc: "2.0", method: "notifications/tools/list_changed" };
  await t.step("told before initialize: held, then written once right after its answer", async () => {
    const s = session();
    s.changed();
    s.changed();
    await s.send(line({ jsonrpc: "2.0", id: 1, method: "ping" }));
    assert.equal(s.written.length, 1, "nothing but the ping's answer before the handshake");
    await s.send(initialize({ protocolVersion: "2025-06-18" }, 2));
    assert.equal(s.written.length, 3);
    assert.equal(JSON.parse(s.written[1]).id, 2);
    assert.deepEqual(JSON.parse(s.written[2]), notification);
    await s.end();
  });
  await t.step("held before the handshake: written once, never again at a later initialize", async () => {
    const s = session();
    s.changed();
    for (const id of [1, 2, 3]) await s.send(initialize({ protocolVersion: "2025-06-18" }, id));
    await s.end();
    assert.deepEqual(s.written.map((text) => JSON.parse(text).id ?? "notification"), [
      1,
      "notification",
      2,
      3,
    ]);
  });
  await t.step("after the handshake: one line per change, a notification (no id, no params)", async () => {
    const s = session();
    await s.send(initialize({ protocolVersion: "2025-06-18" }));
    s.changed();
    await s.send(line({ jsonrpc: "2.0", id: 2, method: "ping" }));
    s.changed();
    await s.end();
    assert.deepEqual(s.written.slice(1).map((text) => JSON.parse(text)), [notification, {
      jsonrpc: "2.0",
      id: 2,
      result: {},
    }, notification]);
  });
  await t.step("with the host gone (stdout closed), nothing is written and nothing throws", async () => {
    const s = session();
    await s.send(initialize({ protocolVersion: "2025-06-18" }));
    s.closeOutput();
    await s.send(line({ jsonrpc: "2.0", id: 2, method: "ping" }));
    s.changed();
    await s.end();
    assert.equal(s.written.length, 1);
  });
});

/** A tools/call that asks the host through `channel` and answers with the reply it got, as JSON. */
function asking(channel: HostChannel): ToolProvider["callTool"] {
  return async () => {
    const reply = await channel.request("elicitation/create", { message: "ok?" }, 60_000);
    return { result: { content: [{ type: "text", text: JSON.stringify(reply) }] } };
  };
}

Deno.test("responses to tinyagent's own requests: handed to the channel, never answered", async (t) => {
  await t.step("a response, a result or an error, is parsed as one; a request still is a request", () => {
    assert.deepEqual(parseLine(line({ jsonrpc: "2.0", id: "tinyagent-1", result: { action: "accept" } })), {
      response: { id: "tinyagent-1", result: { action: "accept" }, error: undefined },
    });
    assert.deepEqual(parseLine(line({ jsonrpc: "2.0", id: 7, error: { code: -1, message: "no" } })), {
      response: { id: 7, result: undefined, error: { code: -1, message: "no" } },
    });
    assert.ok("request" in parseLine(line({ jsonrpc: "2.0", id: "tinyagent-1", method: "ping" })));
  });
  await t.step("initialize tells the channel what the host can be asked", async () => {
    const channel = new HostChannel();
    const s = session({ channel });
    assert.equal(channel.capabilities, undefined);
    await s.send(initialize({ protocolVersion: "2025-06-18", capabilities: { elicitation: {} } }));
    assert.deepEqual(channel.capabilities, { elicitation: {} });
    await s.send(initialize({ protocolVersion: "2025-06-18" }, 2));
    assert.deepEqual(channel.capabilities, {}, "the latest handshake counts");
    await s.end();
  });
  await t.step("a call waits for the host's answer to our request; ping is answered meanwhile", async () => {
    const channel = new HostChannel();
    const s = session({
      channel,
      callTool: asking(channel),
    });
    await s.send(line({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "x" } }));
    assert.deepEqual(JSON.parse(s.written[0]), {
      jsonrpc: "2.0",
      id: "tinyagent-1",
      method: "elicitation/create",
      params: { message: "ok?" },
    });
    await s.send(line({ jsonrpc: "2.0", id: "p", method: "ping" }));
    assert.deepEqual(JSON.parse(s.written[1]), { jsonrpc: "2.0", id: "p", result: {} });
    // A response to an id of the host's own space, and one to nothing pending: no answer, no effect.
    await s.send(line({ jsonrpc: "2.0", id: 1, result: { action: "accept" } }));
    await s.send(line({ jsonrpc: "2.0", id: "tinyagent-9", result: { action: "accept" } }));
    assert.equal(s.written.length, 2);
    await s.send(line({ jsonrpc: "2.0", id: "tinyagent-1", result: { action: "decline" } }));
    assert.equal(s.written.length, 3);
    const answer = JSON.parse(s.written[2]);
    assert.equal(answer.id, "c");
    assert.deepEqual(JSON.parse(answer.result.content[0].text), { ok: true, result: { action: "decline" } });
    await s.end();
  });
  await t.step("at end of input a question still waiting is given up, and its call answered", async () => {
    const channel = new HostChannel();
    const s = session({
      channel,
      callTool: asking(channel),
    });
    await s.send(line({ jsonrpc: "2.0", id: "c", method: "tools/call", params: { name: "x" } }));
    await s.end();
    const answer = JSON.parse(s.written[1]);
    assert.deepEqual(JSON.parse(answer.result.content[0].text), {
      ok: false,
      gone: "the host's input ended",
    });
  });
});

Deno.test("methods beyond the tools: each answered by its handler, a result or an error with its data", async () => {
  const seen: unknown[] = [];
  const methods = new Map<string, MethodHandler>([
    ["resources/list", (params) => (seen.push(params), Promise.resolve({ result: { resources: [] } }))],
    [
      "resources/read",
      () =>
        Promise.resolve({
          error: {
            code: INVALID_PARAMS,
            message: "Unknown resource",
            data: { uri: "tiny://x", nearest: [] },
          },
        }),
    ],
  ]);
  const s = session({ methods });
  await s.send(line({ jsonrpc: "2.0", id: 1, method: "resources/list", params: { cursor: "c" } }));
  await s.send(line({ jsonrpc: "2.0", id: 2, method: "resources/read", params: { uri: "tiny://x" } }));
  await s.send(line({ jsonrpc: "2.0", id: 3, method: "resources/subscribe", params: {} }));
  await s.end();
  assert.deepEqual(seen, [{ cursor: "c" }]);
  assert.deepEqual(s.written.map((text) => JSON.parse(text)), [
    { jsonrpc: "2.0", id: 1, result: { resources: [] } },
    {
      jsonrpc: "2.0",
      id: 2,
      error: { code: INVALID_PARAMS, message: "Unknown resource", data: { uri: "tiny://x", nearest: [] } },
    },
    {
      jsonrpc: "2.0",
      id: 3,
      error: { code: METHOD_NOT_FOUND, message: "Method not found: resources/subscribe" },
    },
  ]);
});

Deno.test("notifications/cancelled reaches the request it names, which is still answered once", async (t) => {
  const started: { id: unknown; signal: AbortSignal; release: () => void }[] = [];
  const callTool: ToolProvider["callTool"] = (params, context) => {
    const done = Promise.withResolvers<void>();
    started.push({ id: (params as { name: string }).name, signal: context!.signal, release: done.resolve });
    return done.promise.then(() => ({ result: { content: [{ type: "text", text: "ended" }] } }));
  };
  const s = session({ callTool });
  const call = (id: unknown, name: string) =>
    s.send(line({ jsonrpc: "2.0", id, method: "tools/call", params: { name } }));
  await call(7, "seven");
  await call("7", "string seven");
  await call(8, "eight");
  await t.step('only the named request\'s signal aborts; the number 7 is not the string "7"', async () => {
    await s.send(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7 } }));
    assert.deepEqual(started.map((one) => [one.id, one.signal.aborted]), [
      ["seven", true],
      ["string seven", false],
      ["eight", false],
    ]);
  });
  await t.step("an unknown id, a malformed cancellation: nothing happens", async () => {
    await s.send(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } }));
    await s.send(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: "7" }));
    assert.deepEqual(started.map((one) => one.signal.aborted), [true, false, false]);
  });
  await t.step("every request is answered once, the cancelled one too", async () => {
    for (const one of started) one.release();
    await s.end();
    assert.deepEqual(s.written.map((text) => JSON.parse(text).id).sort(), [7, 8, "7"].sort());
  });
  await t.step("a finished request's id reused: the new request has a signal of its own", async () => {
    const again = session({ callTool });
    await again.send(line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "first" } }));
    started.at(-1)!.release();
    await again.send(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }));
    await again.send(line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "second" } }));
    assert.equal(started.at(-1)!.signal.aborted, false);
    started.at(-1)!.release();
    await again.end();
  });
});

Deno.test("a tools/call answer carries the result alone: a 429's wait beside it stays in tinyagent", async () => {
  const result = {
    content: [{ type: "text", text: "relay: rate-limited: x; retry after 5 s" }],
    isError: true,
  };
  const s = session({ callTool: () => Promise.resolve({ result, retryAfter: 5 }) });
  await s.send(initialize({ protocolVersion: "2025-06-18" }, 1));
  await s.send(line({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "read_room" } }));
  await s.end();
  assert.deepEqual(JSON.parse(s.written[1]), { jsonrpc: "2.0", id: 2, result });
});
