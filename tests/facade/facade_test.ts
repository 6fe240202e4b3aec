// The facade in process (facade.md, "Exposed tools", "Sign and resubmit",
// "Errors"): a scripted relay port in place of the relay, a real Signer, and
// every signature checked with nostr-tools. The e2e suite proves the wiring.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { Facade, type FacadeOptions, type RelayPort } from "../../lib/facade/facade.ts";
import type { CallOutcome, CallToolResult, JsonObject, LocalTool, Tool } from "../../lib/wire/mcp.ts";
import type { RelayAnswer, RelayFailure } from "../../lib/relay/answer.ts";
import { Signer } from "../../lib/key/signer.ts";
import { PackageLoadError } from "../../lib/key/stack.ts";
import { WriteBudget } from "../../lib/oversight/write_budget.ts";
import { WriteGate, type WriteNote } from "../../lib/oversight/write_gate.ts";
import type { AuditEntry } from "../../lib/oversight/audit_record.ts";
import type { ConfirmAnswer } from "../../lib/oversight/confirmation.ts";
import type { Scheduler } from "../../lib/facade/table.ts";
import { budgetSpentText, DECLINED_AT_HOST } from "../support/oversight.ts";
import {
  AUTHORIZATION_KINDS,
  authorizationRefusalText,
  CONTRACT_KINDS,
  CONTRACT_READ,
  CONTRACT_WRITE,
  GRANT_KIND,
  INVALID_PARAMS,
  PERMISSION_PREFIX,
  RELAY_PREFIX,
  TEXT_LIMIT_BYTES,
  TINY_DIAGNOSE,
  TRANSPORT_PREFIX,
  truncationMarker,
  truncationMarkerPattern,
  unexpectedKindText as unexpected,
  UNKNOWN_TOOL,
} from "../support/contract.ts";

const DIAGNOSE: LocalTool = {
  entry: { name: TINY_DIAGNOSE, inputSchema: { type: "object" } },
  call: (args) =>
    Promise.resolve({ content: [{ type: "text", text: `ok: ${JSON.stringify(args)}` }], isError: false }),
};

function relayTool(name: string): JsonObject {
  return { name, description: `the relay's ${name}`, inputSchema: { type: "object", properties: {} } };
}

/** Every tool the relay could list: the curated ones, hidden ones and an impostor `tiny_diagnose`. */
const RELAY_TABLE = [
  ...[...CONTRACT_READ, ...CONTRACT_WRITE].map(relayTool),
  ...["publish_event", "read_management", "set_status", TINY_DIAGNOSE].map(relayTool),
];

type CallAnswer = RelayAnswer | ((name: string, args: JsonObject) => RelayAnswer);

/** A relay port that answers from a script and records every call. */
class ScriptedRelay implements RelayPort {
  lists = 0;
  calls: { name: string; args: JsonObject }[] = [];
  listAnswers: RelayAnswer[] = [];
  callAnswers: CallAnswer[] = [];
  table: unknown[] = RELAY_TABLE;

  listTools(): Promise<RelayAnswer> {
    this.lists++;
    return Promise.resolve(this.listAnswers.shift() ?? { ok: true, result: { tools: this.table } });
  }

  callTool(name: string, args: JsonObject): Promise<RelayAnswer> {
    this.calls.push({ name, args });
    const next = this.callAnswers.shift() ?? ok({ content: [{ type: "text", text: `${name} done` }] });
    return Promise.resolve(typeof next === "function" ? next(name, args) : next);
  }
}

function ok(result: JsonObject): RelayAnswer {
  return { ok: true, result };
}

function failed(failure: RelayFailure): RelayAnswer {
  return { ok: false, failure };
}

const signer = await (async () => {
  const made = await Signer.generate();
  return made.signer;
})();
const PUBKEY = (await signer.identity()).pubkey;

interface Setup {
  relay: ScriptedRelay;
  facade: Facade;
  logs: string[];
}

function setup(options: Partial<Omit<FacadeOptions, "relay" | "signer" | "log" | "diagnose">> = {}): Setup {
  const relay = new ScriptedRelay();
  const logs: string[] = [];
  const facade = new Facade({
    relay,
    signer,
    exposed: options.exposed ?? [...CONTRACT_READ],
    allowWrites: options.allowWrites ?? false,
    diagnose: DIAGNOSE,
    log: (line) => logs.push(line),
    // The background fetches never run here (tests/facade/table_test.ts drives them with a clock).
    schedule: options.schedule ?? (() => () => {}),
    gate: options.gate,
    programTools: options.programTools,
    answered: options.answered,
  });
  return { relay, facade, logs };
}

function resultOf(outcome: CallOutcome): CallToolResult {
  assert.ok("result" in outcome, `expected a result, got ${JSON.stringify(outcome)}`);
  return outcome.result;
}

function textOf(result: CallToolResult): string {
  return String(result.content[0]?.text);
}

function names(tools: Tool[]): string[] {
  return tools.map((tool) => tool.name);
}

Deno.test("tools/list: the exposed set in exposure order, then tiny_diagnose", async (t) => {
  const cases: [string, Partial<FacadeOptions>, string[]][] = [
    ["the default: every read tool", {}, [...CONTRACT_READ]],
    ["--allow-writes: read then write tools", {
      exposed: [...CONTRACT_READ, ...CONTRACT_WRITE],
      allowWrites: true,
    }, [...CONTRACT_READ, ...CONTRACT_WRITE]],
    ["--tools order is kept", { exposed: ["read_room", "list_rooms"] }, ["read_room", "list_rooms"]],
  ];
  for (const [name, options, expected] of cases) {
    await t.step(name, async () => {
      const { facade } = setup(options);
      const tools = await facade.listTools();
      assert.deepEqual(names(tools), [...expected, TINY_DIAGNOSE]);
      assert.equal(tools.at(-1), DIAGNOSE.entry, "the facade's own tiny_diagnose, not the relay's");
      assert.equal(tools[0].description, `the relay's ${expected[0]}`);
    });
  }
  await t.step("a name the relay does not serve is simply absent", async () => {
    const { facade, relay } = setup({ exposed: ["read_room", "list_jobs"] });
    relay.table = [relayTool("read_room")];
    assert.deepEqual(names(await facade.listTools()), ["read_room", TINY_DIAGNOSE]);
  });
});

Deno.test("the tool table: fetched once, again after a failure or an unknown tool", async (t) => {
  await t.step("fetched once for many lists and calls", async () => {
    const { facade, relay } = setup();
    await facade.listTools();
    await facade.callTool({ name: "read_room", arguments: {} });
    await facade.listTools();
    assert.equal(relay.lists, 1);
  });
  await t.step("concurrent first requests share one fetch", async () => {
    const { facade, relay } = setup();
    await Promise.all([facade.listTools(), facade.listTools(), facade.callTool({ name: "list_rooms" })]);
    assert.equal(relay.lists, 1);
  });
  const failures: [string, RelayFailure][] = [
    ["transport", { class: "transport", detail: "cannot reach the relay" }],
    ["permission", { class: "permission", detail: "auth-required: token expired" }],
    ["relay", { class: "relay", detail: "something broke" }],
  ];
  for (const [name, failure] of failures) {
    await t.step(
      `a ${name} failure: tiny_diagnose alone, the reason on stderr, fetched again next time`,
      async () => {
        const { facade, relay, logs } = setup();
        relay.listAnswers.push(failed(failure));
        assert.deepEqual(names(await facade.listTools()), [TINY_DIAGNOSE]);
        assert.equal(logs.length, 1);
        assert.ok(logs[0].includes(`${name}: ${failure.detail}`), logs[0]);
        assert.deepEqual(names(await facade.listTools()), [...CONTRACT_READ, TINY_DIAGNOSE]);
        assert.equal(relay.lists, 2);
      },
    );
  }
  await t.step("an answer without a tools list is a transport failure", async () => {
    const { facade, relay, logs } = setup();
    relay.listAnswers.push(ok({ tools: "nope" }));
    assert.deepEqual(names(await facade.listTools()), [TINY_DIAGNOSE]);
    assert.ok(logs[0].includes(TRANSPORT_PREFIX), logs[0]);
  });
  await t.step(
    "the relay reporting an unknown tool drops the table; the next request fetches it",
    async () => {
      const { facade, relay } = setup();
      await facade.listTools();
      relay.callAnswers.push(
        failed({ class: "relay", detail: `${UNKNOWN_TOOL}: read_room`, unknownTool: true }),
      );
      const result = resultOf(await facade.callTool({ name: "read_room" }));
      assert.equal(result.isError, true);
      assert.equal(textOf(result), `${RELAY_PREFIX}${UNKNOWN_TOOL}: read_room`);
      assert.equal(relay.lists, 1, "not fetched until it is needed");
      relay.table = [relayTool("list_rooms")];
      assert.deepEqual(names(await facade.listTools()), ["list_rooms", TINY_DIAGNOSE]);
      assert.equal(relay.lists, 2);
    },
  );
});

Deno.test("tools/call: what is refused before the relay is contacted", async (t) => {
  const cases: [string, unknown, string][] = [
    ["no params", undefined, "Invalid params: params.name must name a tool"],
    ["no name", { arguments: {} }, "Invalid params: params.name must name a tool"],
    ["an empty name", { name: "" }, "Invalid params: params.name must name a tool"],
    ["a name that is not a string", { name: 7 }, "Invalid params: params.name must name a tool"],
    [
      "arguments that are not an object",
      { name: "read_room", arguments: [1] },
      "Invalid params: params.arguments must be an object",
    ],
    [
      "a read tool outside --tools",
      { name: "list_wiki" },
      `${UNKNOWN_TOOL}: list_wiki (a read tool left out by --tools)`,
    ],
    [
      "a write tool without --allow-writes, with the flag that exposes it",
      { name: "post_message" },
      `${UNKNOWN_TOOL}: post_message (a write tool: --allow-writes exposes it)`,
    ],
    [
      "a hidden tool, with why it is never offered",
      { name: "publish_event" },
      `${UNKNOWN_TOOL}: publish_event (never offered: it publishes any signed event, and tinyagent signs only ` +
      "the kinds each curated write tool publishes)",
    ],
    [
      "a management tool",
      { name: "set_policy" },
      `${UNKNOWN_TOOL}: set_policy (never offered: it is a management tool, for the relay's operator, not an agent)`,
    ],
  ];
  for (const [name, params, message] of cases) {
    await t.step(name, async () => {
      const { facade, relay } = setup({ exposed: ["read_room", "list_rooms"] });
      assert.deepEqual(await facade.callTool(params), { error: { code: INVALID_PARAMS, message } });
      assert.equal(relay.calls.length, 0);
      assert.equal(relay.lists, 0, "the table is not even fetched");
    });
  }
  const unknown: [string, string, string[]][] = [
    ["a name tinyagent does not know", "nope", []],
    ["a name from Object.prototype", "constructor", []],
    ["a misspelt exposed tool: the nearest named", "read_rom", ["read_room"]],
    ["a plural dropped", "list_room", ["list_rooms"]],
    ["tinyagent's own, misspelt", "tiny_diagnos", [TINY_DIAGNOSE]],
  ];
  for (const [name, tool, near] of unknown) {
    await t.step(name, async () => {
      const { facade, relay } = setup({ exposed: ["read_room", "list_rooms"] });
      const message = `${UNKNOWN_TOOL}: ${tool}${near.length > 0 ? ` (nearest: ${near.join(", ")})` : ""}`;
      assert.deepEqual(await facade.callTool({ name: tool }), {
        error: { code: INVALID_PARAMS, message, data: { tool, nearest: near } },
      });
      assert.equal(relay.calls.length, 0);
    });
  }
  await t.step("a 100 KB name: cut in the message, compared on its first characters", async () => {
    const { facade } = setup();
    const outcome = await facade.callTool({ name: "x".repeat(100_000) });
    assert.ok("error" in outcome);
    assert.ok(outcome.error.message.length < 300);
  });
  await t.step("an exposed tool the loaded table does not list", async () => {
    const { facade, relay } = setup({ exposed: ["read_room", "list_jobs"] });
    relay.table = [relayTool("read_room")];
    assert.deepEqual(await facade.callTool({ name: "list_jobs" }), {
      error: { code: INVALID_PARAMS, message: `${UNKNOWN_TOOL}: list_jobs (the relay does not list it)` },
    });
    assert.equal(relay.calls.length, 0);
  });
});

Deno.test("tools/call: forwarding and the errors the host sees", async (t) => {
  await t.step("the call reaches the relay with its arguments; the result comes back", async () => {
    const { facade, relay } = setup();
    relay.callAnswers.push(ok({ content: [{ type: "text", text: "3 rooms" }], structuredContent: { n: 3 } }));
    const result = resultOf(await facade.callTool({ name: "list_rooms", arguments: { limit: 3 } }));
    assert.deepEqual(relay.calls, [{ name: "list_rooms", args: { limit: 3 } }]);
    assert.deepEqual(result, { content: [{ type: "text", text: "3 rooms" }], structuredContent: { n: 3 } });
  });
  await t.step("missing and null arguments are sent as {}", async () => {
    const { facade, relay } = setup();
    await facade.callTool({ name: "list_rooms" });
    await facade.callTool({ name: "list_rooms", arguments: null });
    assert.deepEqual(relay.calls.map((call) => call.args), [{}, {}]);
  });
  const failures: [RelayFailure, string][] = [
    [
      { class: "permission", detail: "restricted: not in the grant" },
      `${PERMISSION_PREFIX}restricted: not in the grant`,
    ],
    [{ class: "transport", detail: "no answer within 120 s" }, `${TRANSPORT_PREFIX}no answer within 120 s`],
    [{ class: "relay", detail: "Invalid params: room" }, `${RELAY_PREFIX}Invalid params: room`],
  ];
  for (const [failure, text] of failures) {
    await t.step(`a ${failure.class} failure is a tool error "${text}"`, async () => {
      const { facade, relay } = setup();
      relay.callAnswers.push(failed(failure));
      const result = resultOf(await facade.callTool({ name: "read_room" }));
      assert.deepEqual(result, { content: [{ type: "text", text }], isError: true });
    });
  }
  await t.step("a 429's wait travels beside the result as a number; other failures carry none", async () => {
    const { facade, relay } = setup();
    const detail = "rate-limited: slow down; retry after 7 s";
    relay.callAnswers.push(failed({ class: "relay", detail, retryAfter: 7 }));
    const limited = await facade.callTool({ name: "read_room" });
    assert.deepEqual(limited, {
      result: { content: [{ type: "text", text: `${RELAY_PREFIX}${detail}` }], isError: true },
      retryAfter: 7,
    });
    relay.callAnswers.push(failed({ class: "relay", detail: "rate-limited: x; retry after 9 s" }));
    assert.equal(
      "retryAfter" in await facade.callTool({ name: "read_room" }),
      false,
      "never read from words",
    );
  });
  await t.step("a relay refusal inside a result is marked permission:", async () => {
    const { facade, relay } = setup();
    relay.callAnswers.push(ok({
      content: [{ type: "text", text: "restricted: this room is private" }],
      structuredContent: { message: "auth-required: sign in" },
      isError: true,
    }));
    const result = resultOf(await facade.callTool({ name: "read_room" }));
    assert.equal(textOf(result), `${PERMISSION_PREFIX}restricted: this room is private`);
    assert.deepEqual(result.structuredContent, { message: `${PERMISSION_PREFIX}auth-required: sign in` });
  });
  await t.step("text over 64 KiB reaching the host is cut with the marker", async () => {
    const { facade, relay } = setup();
    relay.callAnswers.push(ok({ content: [{ type: "text", text: "x".repeat(70_000) }] }));
    const result = resultOf(await facade.callTool({ name: "read_room" }));
    assert.equal(
      textOf(result),
      `${"x".repeat(TEXT_LIMIT_BYTES)}\n${truncationMarker(TEXT_LIMIT_BYTES, 70_000)}`,
    );
  });
  await t.step(
    "while the table is down a curated call still reaches the relay; its answer brings the table back",
    async () => {
      const { facade, relay, logs } = setup();
      relay.listAnswers.push(failed({ class: "transport", detail: "connection refused" }));
      const result = resultOf(await facade.callTool({ name: "read_room" }));
      assert.equal(textOf(result), "read_room done");
      assert.deepEqual(relay.calls.map((call) => call.name), ["read_room"]);
      assert.equal(relay.lists, 2, "fetched before the call, and again once the relay answered");
      assert.match(logs.join("\n"), /transport: connection refused/);
      assert.deepEqual(names(await facade.listTools()), [...CONTRACT_READ, TINY_DIAGNOSE]);
      assert.equal(relay.lists, 2);
    },
  );
  await t.step(
    "after a failed fetch, the next call does not fetch first; a transport failure fetches nothing",
    async () => {
      const { facade, relay } = setup();
      relay.listAnswers.push(failed({ class: "transport", detail: "down" }));
      await facade.listTools();
      relay.callAnswers.push(failed({ class: "transport", detail: "still down" }));
      const result = resultOf(await facade.callTool({ name: "read_room" }));
      assert.equal(textOf(result), `${TRANSPORT_PREFIX}still down`);
      assert.equal(relay.lists, 1, "the relay did not answer, so the table is not fetched again yet");
      relay.callAnswers.push(failed({ class: "permission", detail: "restricted: no" }));
      await facade.callTool({ name: "read_room" });
      assert.equal(relay.lists, 2, "the relay answered (a refusal is an answer)");
    },
  );
  await t.step("an error about the table while it is down is bounded like any text", async () => {
    const { facade, relay } = setup();
    relay.listAnswers.push(failed({ class: "relay", detail: "x".repeat(1 << 20) }));
    relay.callAnswers.push(failed({ class: "relay", detail: "y".repeat(1 << 20) }));
    const result = resultOf(await facade.callTool({ name: "read_room" }));
    assert.ok(textOf(result).length < 70_000);
    assert.match(textOf(result), truncationMarkerPattern(TEXT_LIMIT_BYTES));
  });
  await t.step("tiny_diagnose is answered by the facade, never by the relay", async () => {
    const { facade, relay } = setup();
    const result = resultOf(await facade.callTool({ name: TINY_DIAGNOSE, arguments: { rooms: ["a"] } }));
    assert.equal(textOf(result), 'ok: {"rooms":["a"]}');
    assert.equal(relay.calls.length, 0);
    assert.equal(relay.lists, 0);
  });
});

/** A relay result carrying an unsigned template, as a write tool answers a call with plain fields. */
function templateAnswer(kind: number, extra: JsonObject = {}): RelayAnswer {
  return ok({
    content: [{ type: "text", text: "sign and resubmit" }],
    structuredContent: {
      unsigned: { kind, created_at: 1_700_000_000, tags: [["h", "general"]], content: "hello", ...extra },
      next: "sign this event and call the tool again with event",
    },
  });
}

const PUBLISHED = ok({
  content: [{ type: "text", text: "published" }],
  structuredContent: { event_id: "ab".repeat(32), accepted: true, message: "" },
});

Deno.test("sign and resubmit: every write tool and each kind it publishes", async (t) => {
  for (const tool of CONTRACT_WRITE) {
    for (const kind of CONTRACT_KINDS[tool]) {
      await t.step(
        `${tool} signs kind ${kind} and resubmits with the original arguments plus event`,
        async () => {
          const { facade, relay } = setup({ exposed: [tool], allowWrites: true });
          relay.callAnswers.push(templateAnswer(kind), PUBLISHED);
          const result = resultOf(await facade.callTool({ name: tool, arguments: { room: "general" } }));
          assert.deepEqual(result.structuredContent, {
            event_id: "ab".repeat(32),
            accepted: true,
            message: "",
          });
          assert.equal(relay.calls.length, 2);
          const [first, second] = relay.calls;
          assert.deepEqual(first, { name: tool, args: { room: "general" } });
          const { event, ...rest } = second.args as { event: Record<string, unknown> };
          assert.deepEqual(rest, { room: "general" });
          assert.equal(second.name, tool);
          assert.ok(
            verifyEvent({ ...event } as Parameters<typeof verifyEvent>[0]),
            "nostr-tools verifies it",
          );
          assert.equal(event.pubkey, PUBKEY);
          assert.deepEqual(
            { kind: event.kind, created_at: event.created_at, tags: event.tags, content: event.content },
            { kind, created_at: 1_700_000_000, tags: [["h", "general"]], content: "hello" },
            "signed exactly as returned",
          );
        },
      );
    }
  }
  await t.step("a missing created_at is the one field filled, with the current time", async () => {
    const { facade, relay } = setup({ exposed: ["post_message"], allowWrites: true });
    const unsigned = { kind: 9, tags: [["h", "general"]], content: "hello" };
    relay.callAnswers.push(ok({ structuredContent: { unsigned } }), PUBLISHED);
    const before = Math.floor(Date.now() / 1000);
    await facade.callTool({ name: "post_message", arguments: {} });
    const event = relay.calls[1].args.event as { created_at: number; kind: number; content: string };
    assert.ok(event.created_at >= before && event.created_at <= Math.floor(Date.now() / 1000) + 1);
    assert.equal(event.kind, 9);
  });
  await t.step("the second answer is never signed again, even when it carries a template", async () => {
    const { facade, relay } = setup({ exposed: ["post_message"], allowWrites: true });
    relay.callAnswers.push(templateAnswer(9), templateAnswer(9));
    const result = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
    assert.equal(relay.calls.length, 2);
    assert.ok((result.structuredContent as { unsigned: unknown }).unsigned);
  });
});

Deno.test("sign and resubmit: what is never signed", async (t) => {
  const cases: [string, string, boolean, number, string, boolean][] = [
    ["another kind from a write tool", "post_message", true, 1, unexpected(1, "post_message"), true],
    ["an agent grant", "request_grant", true, GRANT_KIND, unexpected(GRANT_KIND, "request_grant"), true],
    ["a template from a read tool", "read_room", true, 9, unexpected(9, "read_room"), true],
    ["any template without --allow-writes", "read_room", false, 9, unexpected(9, "read_room"), true],
    [
      "upload_attachment publishes nothing",
      "upload_attachment",
      true,
      9,
      unexpected(9, "upload_attachment"),
      true,
    ],
    // Each authorization kind from a different write tool.
    ...AUTHORIZATION_KINDS.map((kind, i): [string, string, boolean, number, string, boolean] => {
      const tool = ["comment", "react", "post_message"][i];
      return [`an authorization kind ${kind}`, tool, true, kind, authorizationRefusalText(kind, tool), false];
    }),
  ];
  for (const [name, tool, allowWrites, kind, text, carriesResult] of cases) {
    await t.step(name, async () => {
      const { facade, relay } = setup({ exposed: [tool], allowWrites });
      const answer = templateAnswer(kind);
      relay.callAnswers.push(answer);
      const result = resultOf(await facade.callTool({ name: tool, arguments: {} }));
      assert.equal(relay.calls.length, 1, "the relay is not called a second time");
      assert.equal(result.isError, true);
      assert.equal(textOf(result), text);
      const relayResult = (answer as { result: JsonObject }).result;
      assert.deepEqual(result.structuredContent, carriesResult ? relayResult.structuredContent : undefined);
    });
  }
  await t.step("a result with isError is never signed", async () => {
    const { facade, relay } = setup({ exposed: ["post_message"], allowWrites: true });
    const answer = templateAnswer(9);
    (answer as { result: JsonObject }).result.isError = true;
    relay.callAnswers.push(answer);
    const result = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
    assert.equal(relay.calls.length, 1);
    assert.ok((result.structuredContent as { unsigned: unknown }).unsigned, "passed through as it is");
  });
  await t.step("a template that is not recognized is passed through unchanged", async () => {
    const { facade, relay } = setup({ exposed: ["post_message"], allowWrites: true });
    relay.callAnswers.push(templateAnswer(9, { tags: [["h", 1]] }));
    const result = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
    assert.equal(relay.calls.length, 1);
    assert.equal(result.isError, undefined);
    assert.deepEqual((result.structuredContent as { unsigned: { tags: unknown } }).unsigned.tags, [["h", 1]]);
  });
});

Deno.test("the facade closed: its table's background fetches are cancelled, none runs after", async () => {
  const tasks = new Set<() => void>();
  const schedule: Scheduler = (_ms, task) => {
    tasks.add(task);
    return () => tasks.delete(task);
  };
  const { facade, relay } = setup({ schedule });
  relay.listAnswers.push(failed({ class: "transport", detail: "cannot reach the relay" }));
  await facade.listTools();
  assert.equal(tasks.size, 1, "a background fetch is scheduled");
  facade.close();
  assert.equal(tasks.size, 0, "and cancelled when the facade closes");
  assert.equal(relay.lists, 1);
});

/** A gate with a budget, scripted answers from the person, and its entries and questions kept. */
function gated(limit?: number, answers?: ConfirmAnswer[]) {
  const entries: AuditEntry[] = [];
  const questions: string[] = [];
  const gate = new WriteGate({
    relay: "https://relay.example.test",
    session: "test",
    budget: new WriteBudget(limit),
    ask: answers && ((question) => {
      questions.push(question);
      return Promise.resolve(answers.shift() ?? { action: "decline" });
    }),
    where: "host",
    audit: { append: (entry) => Promise.resolve(void entries.push(entry)) },
    log: () => {},
  });
  return { gate, entries, questions };
}

const WRITES = [...CONTRACT_READ, ...CONTRACT_WRITE];

Deno.test("writes under the person's hold", async (t) => {
  await t.step(
    "arguments holding the key go nowhere: refused before the relay, whatever the tool",
    async () => {
      const made = await Signer.generate();
      const own = new Facade({
        relay: new ScriptedRelay(),
        signer: made.signer,
        exposed: WRITES,
        allowWrites: true,
        diagnose: DIAGNOSE,
        log: () => {},
        schedule: () => () => {},
      });
      for (
        const args of [
          { content: made.privateKeyHex },
          { content: `my key is ${made.privateKeyHex.toUpperCase()}!` },
          { nested: [{ deep: made.privateKeyHex }] },
          { [made.privateKeyHex]: "as a key" },
        ]
      ) {
        for (const name of ["post_message", "read_room", TINY_DIAGNOSE]) {
          const result = resultOf(await own.callTool({ name, arguments: args }));
          assert.equal(result.isError, true);
          assert.match(
            textOf(result),
            /^permission: the arguments hold this agent's private key; nothing was sent/,
          );
        }
      }
    },
  );
  await t.step("--max-writes 2: the third write is refused without contacting the relay", async () => {
    const { gate, entries } = gated(2);
    const { facade, relay } = setup({ exposed: WRITES, allowWrites: true, gate });
    for (let i = 0; i < 2; i++) {
      relay.callAnswers.push(templateAnswer(9), ok({ content: [], structuredContent: { accepted: true } }));
      assert.equal(
        resultOf(await facade.callTool({ name: "post_message", arguments: { room: "general" } })).isError,
        undefined,
      );
    }
    const calls = relay.calls.length;
    const lists = relay.lists;
    const third = resultOf(await facade.callTool({ name: "post_message", arguments: { room: "general" } }));
    assert.deepEqual(third, { content: [{ type: "text", text: budgetSpentText(2, 2) }], isError: true });
    assert.equal(relay.calls.length, calls, "the relay was not called");
    assert.equal(relay.lists, lists, "not even for its table");
    // Reads go on.
    assert.equal(resultOf(await facade.callTool({ name: "read_room", arguments: {} })).isError, undefined);
    assert.deepEqual(entries.map((entry) => entry.outcome), ["accepted", "accepted", "held"]);
  });
  await t.step("an upload counts as one write, and a template it returns is still refused", async () => {
    const { gate } = gated(1);
    const { facade, relay } = setup({ exposed: WRITES, allowWrites: true, gate });
    relay.callAnswers.push(
      ok({ content: [], structuredContent: { url: "https://relay.example.test/media/a" } }),
    );
    assert.equal(
      resultOf(await facade.callTool({ name: "upload_attachment", arguments: { room: "g", data: "AA==" } }))
        .isError,
      undefined,
    );
    const next = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
    assert.equal(textOf(next), budgetSpentText(1, 1));
    const { gate: other } = gated();
    const second = setup({ exposed: WRITES, allowWrites: true, gate: other });
    second.relay.callAnswers.push(templateAnswer(9));
    const refused = resultOf(await second.facade.callTool({ name: "upload_attachment", arguments: {} }));
    assert.equal(textOf(refused), unexpected(9, "upload_attachment"));
    assert.equal(second.relay.calls.length, 1);
  });
  await t.step(
    "a declined write: nothing signed, the relay called once; an approved one is signed",
    async () => {
      const { gate, questions } = gated(undefined, [{ action: "decline" }, { action: "accept" }]);
      const { facade, relay } = setup({ exposed: WRITES, allowWrites: true, gate });
      relay.callAnswers.push(templateAnswer(9));
      const declined = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
      assert.equal(textOf(declined), DECLINED_AT_HOST);
      assert.equal(relay.calls.length, 1);
      relay.callAnswers.push(templateAnswer(9), ok({ content: [], structuredContent: { accepted: true } }));
      await facade.callTool({ name: "post_message", arguments: {} });
      assert.equal(relay.calls.length, 3);
      assert.ok(verifyEvent(relay.calls[2].args.event as Parameters<typeof verifyEvent>[0]));
      assert.equal(questions.length, 2);
    },
  );
  await t.step("a signature that fails: a tool error saying so, and its budget place back", async () => {
    const { gate } = gated(1);
    let fail: Error | undefined = new Error(
      `nostr-wasm: Out of memory (resizing 1146880) ${"ab".repeat(32)}`,
    );
    const flaky = {
      sign: (template: Parameters<typeof signer.sign>[0]) =>
        fail ? Promise.reject(fail) : signer.sign(template),
      mentionsKey: (value: unknown) => signer.mentionsKey(value),
    };
    const relay = new ScriptedRelay();
    const facade = new Facade({
      relay,
      signer: flaky,
      exposed: WRITES,
      allowWrites: true,
      diagnose: DIAGNOSE,
      log: () => {},
      schedule: () => () => {},
      gate,
    });
    relay.callAnswers.push(templateAnswer(9));
    const failed = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
    assert.equal(failed.isError, true);
    assert.equal(
      textOf(failed),
      "tinyagent could not sign the event post_message asked for (nostr-wasm: Out of memory (resizing " +
        "1146880) [hex]), so nothing was published; calling post_message again will try once more.",
      "what failed, with nothing shaped like a key",
    );
    assert.equal(relay.calls.length, 1, "nothing resubmitted");
    fail = new PackageLoadError("cannot load tinyagent's own signing code");
    relay.callAnswers.push(templateAnswer(9));
    await assert.rejects(facade.callTool({ name: "post_message", arguments: {} }), PackageLoadError);
    fail = undefined;
    relay.callAnswers.push(templateAnswer(9), ok({ content: [], structuredContent: { accepted: true } }));
    const result = resultOf(await facade.callTool({ name: "post_message", arguments: {} }));
    assert.equal(result.isError, undefined, "the one write the budget allows was not used up by the failure");
  });
  await t.step("the facade closed while the person decides: nothing is signed or sent", async () => {
    const decided = Promise.withResolvers<ConfirmAnswer>();
    const gate = new WriteGate({
      relay: "r",
      session: "s",
      budget: new WriteBudget(1),
      ask: () => decided.promise,
      where: "host",
      log: () => {},
    });
    const { facade, relay } = setup({ exposed: WRITES, allowWrites: true, gate });
    relay.callAnswers.push(templateAnswer(9));
    const pending = facade.callTool({ name: "post_message", arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 10));
    facade.close();
    decided.resolve({ action: "accept" });
    assert.match(textOf(resultOf(await pending)), /^transport: the host is gone/);
    assert.equal(relay.calls.length, 1);
  });
});

Deno.test("a program's calls (an origin with a signal) stop when it does; the host's own calls never do", async (t) => {
  const writes = [...CONTRACT_READ, ...CONTRACT_WRITE];
  await t.step("cancelled before the call: nothing reaches the relay", async () => {
    const { relay, facade } = setup({ exposed: writes, allowWrites: true });
    const stopped = new AbortController();
    stopped.abort();
    const origin = { via: "tiny_execute", signal: stopped.signal };
    const result = resultOf(await facade.callTool({ name: "list_rooms", arguments: {} }, { origin }));
    assert.equal(result.isError, true);
    assert.match(textOf(result), /^transport: the call was cancelled before it was sent/);
    assert.deepEqual(relay.calls, []);
  });
  await t.step("cancelled while the person is asked: the template is never signed or sent", async () => {
    const stopped = new AbortController();
    const gate = new WriteGate({
      relay: "r",
      session: "s",
      budget: new WriteBudget(),
      where: "host",
      ask: () => (stopped.abort(), Promise.resolve({ action: "accept" })),
      log: () => {},
    });
    const { relay, facade } = setup({ exposed: writes, allowWrites: true, gate });
    relay.callAnswers.push(ok({
      content: [],
      structuredContent: { unsigned: { kind: 9, created_at: 1, tags: [["h", "general"]], content: "x" } },
    }));
    const origin = { via: "tiny_execute", signal: stopped.signal };
    const result = resultOf(
      await facade.callTool({ name: "post_message", arguments: { room: "general" } }, { origin }),
    );
    assert.equal(result.isError, true);
    assert.equal(relay.calls.length, 1, "the template's call only; no resubmission");
  });
  await t.step(
    "a write is told to the program as it leaves: one cut off meanwhile reports it sent",
    async () => {
      const { relay, facade } = setup({ exposed: writes, allowWrites: true });
      const notes: WriteNote[] = [];
      const origin = { via: "tiny_execute", noted: (note: WriteNote) => void notes.push(note) };
      relay.callAnswers.push(templateAnswer(9), (_name, args) => {
        assert.deepEqual(notes.map((note) => note.outcome), ["unknown"], "noted before the relay has it");
        assert.equal(notes[0].event, (args.event as { id: string }).id);
        return ok({ content: [{ type: "text", text: "published" }], structuredContent: { accepted: true } });
      });
      await facade.callTool({ name: "post_message", arguments: { room: "general", content: "x" } }, {
        origin,
      });
      assert.deepEqual(notes.map((note) => note.outcome), ["unknown", "accepted"], "then its receipt");
      notes.length = 0;
      relay.callAnswers.push(() => {
        assert.deepEqual(notes, [{ tool: "upload_attachment", outcome: "unknown", why: notes[0]?.why }]);
        return ok({ content: [{ type: "text", text: "stored" }], structuredContent: { url: "u" } });
      });
      await facade.callTool({ name: "upload_attachment", arguments: { room: "general" } }, { origin });
      assert.deepEqual(notes.map((note) => note.outcome), ["unknown", "accepted"]);
    },
  );
  await t.step("the host cancelled its own call: it still runs (facade.md)", async () => {
    const { relay, facade } = setup();
    const cancelled = new AbortController();
    cancelled.abort();
    const result = resultOf(
      await facade.callTool({ name: "list_rooms", arguments: {} }, { signal: cancelled.signal }),
    );
    assert.equal(textOf(result), "list_rooms done");
    assert.equal(relay.calls.length, 1);
  });
});

Deno.test("code mode: the program tools in place of the relay's; the relay's tools are a program's to call", async (t) => {
  const program: LocalTool = {
    entry: { name: "tiny_execute", inputSchema: { type: "object" } },
    call: () => Promise.resolve({ content: [{ type: "text", text: "ran" }] }),
  };
  const { facade, relay } = setup({ programTools: [program] });
  await t.step(
    "tools/list: the program tools, then tiny_diagnose; the relay's table is not fetched",
    async () => {
      assert.deepEqual(names(await facade.listTools()), ["tiny_execute", TINY_DIAGNOSE]);
      assert.equal(relay.lists, 0);
    },
  );
  await t.step("the host calling a relay tool itself is refused, saying where it runs", async () => {
    const outcome = await facade.callTool({ name: "list_rooms", arguments: {} });
    assert.deepEqual(outcome, {
      error: {
        code: INVALID_PARAMS,
        message:
          `${UNKNOWN_TOOL}: list_rooms (code mode: a tiny_execute program calls it as relay.list_rooms(args))`,
      },
    });
    assert.equal(relay.calls.length, 0);
  });
  await t.step("a program's call and a resource read go to the relay", async () => {
    const origin = { via: "tiny_execute" };
    assert.equal(
      textOf(resultOf(await facade.callTool({ name: "list_rooms" }, { origin }))),
      "list_rooms done",
    );
    assert.equal(
      textOf(resultOf(await facade.callTool({ name: "read_room" }, { resource: true }))),
      "read_room done",
    );
    assert.deepEqual(relay.calls.map((call) => call.name), ["list_rooms", "read_room"]);
  });
  await t.step("a program may not call tinyagent's own tools", async () => {
    for (const name of ["tiny_execute", TINY_DIAGNOSE]) {
      const outcome = await facade.callTool({ name }, { origin: { via: "tiny_execute" } });
      assert.ok("error" in outcome);
      assert.match(outcome.error.message, /a program calls the relay's tools, not tinyagent's own/);
    }
  });
  await t.step("the relay's table coming back tells the host nothing: its list does not change", async () => {
    const tasks: (() => void)[] = [];
    const told: string[] = [];
    const { facade: own, relay: down } = setup({
      programTools: [program],
      schedule: (_ms, task) => (tasks.push(task), () => {}),
    });
    own.onToolsChanged(() => told.push("changed"));
    down.listAnswers.push({ ok: false, failure: { class: "transport", detail: "down" } });
    assert.equal((await own.exposedTable()).ok, false);
    for (const task of tasks.splice(0)) task();
    await Promise.resolve();
    assert.equal((await own.exposedTable()).ok, true);
    assert.deepEqual(told, []);
  });
  await t.step("the host calls the program tools as any local tool", async () => {
    assert.equal(textOf(resultOf(await facade.callTool({ name: "tiny_execute", arguments: {} }))), "ran");
  });
});

Deno.test("answered: each relay tool's answer, made valid, whoever called; never a local tool's or a refusal's", async () => {
  const seen: [string, CallToolResult][] = [];
  const { facade, relay } = setup({
    exposed: ["list_rooms", "read_room", "post_message"],
    allowWrites: true,
    answered: (tool, result) => void seen.push([tool, result]),
  });
  relay.table = [
    {
      ...relayTool("list_rooms"),
      outputSchema: { type: "object", properties: { items: { type: "array" } } },
    },
    relayTool("read_room"),
    relayTool("post_message"),
  ];
  assert.equal(facade.heldExposedTable(), undefined, "none held before the first fetch; none fetched for it");
  assert.equal(relay.lists, 0);
  relay.callAnswers.push(ok({ content: [{ type: "text", text: "{}" }], structuredContent: { items: [] } }));
  const direct = resultOf(await facade.callTool({ name: "list_rooms", arguments: {} }));
  relay.callAnswers.push(failed({ class: "relay", detail: "not found: room" }));
  await facade.callTool({ name: "read_room", arguments: { id: "x" } }, { resource: true });
  await facade.callTool({ name: "read_room", arguments: {} }, { origin: { via: "tiny_execute" } });
  await facade.callTool({ name: TINY_DIAGNOSE, arguments: {} });
  await facade.callTool({ name: "read_status", arguments: {} });
  assert.deepEqual(seen.map(([tool, result]) => [tool, result.isError === true]), [
    ["list_rooms", false],
    ["read_room", true],
    ["read_room", false],
  ]);
  assert.equal(seen[0][1], direct, "the result the caller gets, once made valid");
  // The program's search reads the relay's output schemas; the host's list never does.
  const searchable = await facade.exposedTable();
  assert.equal(searchable.ok && facade.heldExposedTable(), searchable.ok && searchable.table, "held now");
  assert.ok(searchable.ok && searchable.table[0].outputSchema);
  const listed = await facade.listTools();
  assert.equal(listed[0].outputSchema, undefined);
  // The relay reports a tool it no longer lists: the table is dropped, and nothing is held until read again.
  relay.callAnswers.push(failed({ class: "relay", detail: "Unknown tool: read_room", unknownTool: true }));
  await facade.callTool({ name: "read_room", arguments: {} }, { origin: { via: "tiny_execute" } });
  assert.equal(facade.heldExposedTable(), undefined);
});
