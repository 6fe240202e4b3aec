// What crosses the sandbox's boundary (lib/code/bridge.ts), checked on tinyagent's side: tool names,
// arguments as JSON text of an object, answers, log lines and the program's end, each bounded.

import assert from "node:assert/strict";
import {
  ANSWER_MAX_BYTES,
  answerText,
  ARGS_MAX_BYTES,
  checkCall,
  checkEnd,
  checkKey,
  checkLog,
  isToolName,
  KEY_MAX_CHARS,
  MESSAGE_MAX_CHARS,
  messageOf,
  Oversized,
  programValue,
  textOf,
} from "../../lib/code/bridge.ts";

Deno.test("isToolName: the tool grammar, bar the reserved names", async (t) => {
  const cases: [string, boolean][] = [
    ["list_rooms", true],
    ["a", true],
    ["send_message2", true],
    ["a".repeat(64), true],
    ["a".repeat(65), false],
    ["", false],
    ["List_rooms", false],
    ["_private", false],
    ["2fa", false],
    ["send-message", false],
    ["toString", false],
    ["__proto__", false],
    ["then", false],
    ["catch", false],
    ["finally", false],
    ["constructor", false],
    ["prototype", false],
    ["call", true],
    ["apply", true],
  ];
  for (const [name, expected] of cases) {
    await t.step(
      `${JSON.stringify(name.length > 20 ? `${name.slice(0, 8)}…(${name.length})` : name)}`,
      () => {
        assert.equal(isToolName(name), expected);
      },
    );
  }
});

Deno.test("checkCall: a tool name and the JSON text of an object, or a clear refusal", async (t) => {
  const ok: [string, unknown, unknown, Record<string, unknown>][] = [
    ["arguments as JSON", "list_rooms", '{"limit":5}', { limit: 5 }],
    ["no arguments: {}", "whoami", undefined, {}],
    ["nested values", "send", '{"a":[1,{"b":null}],"c":"é"}', { a: [1, { b: null }], c: "é" }],
  ];
  for (const [name, tool, args, expected] of ok) {
    await t.step(name, () => {
      assert.deepEqual(checkCall(tool, args), { ok: true, value: { tool, args: expected } });
    });
  }
  const refused: [string, unknown, unknown, RegExp][] = [
    ["a name that is not a string", 42, "{}", /^not a tool name: number/],
    ["a name outside the grammar", "Send", "{}", /^not a tool name: "Send" \(a tool name matches/],
    ["a reserved name", "then", "{}", /^not a tool name: "then"/],
    ["a name too long to copy out", new Oversized(5000), "{}", /^not a tool name: a name of 5000 characters/],
    ["arguments that are not JSON", "send", "{nope", /^relay\.send: the arguments are not JSON$/],
    ["arguments that are an array", "send", "[1]", /must be an object, not an array$/],
    ["arguments that are null", "send", "null", /must be an object, not null$/],
    ["arguments that are a string", "send", '"x"', /must be an object, not string$/],
    ["arguments that are a number", "send", "3", /must be an object, not number$/],
    ["arguments of another type", "send", 3, /^relay\.send: the arguments must be an object$/],
    ["arguments too long to copy out", "send", new Oversized(9_000_000), /too large \(9000000 characters/],
    [
      "arguments over the byte bound",
      "send",
      JSON.stringify({ text: "é".repeat(ARGS_MAX_BYTES / 2) }),
      new RegExp(`too large \\(\\d+ bytes of JSON, at most ${ARGS_MAX_BYTES}\\)`),
    ],
  ];
  for (const [name, tool, args, message] of refused) {
    await t.step(name, () => {
      const checked = checkCall(tool, args);
      assert.equal(checked.ok, false);
      assert.match((checked as { message: string }).message, message);
    });
  }
  await t.step("a 1,000,000-byte message's arguments pass: the relay takes such a call", () => {
    const args = JSON.stringify({ room: "general", content: "z".repeat(1_000_000) });
    assert.equal(checkCall("post_message", args).ok, true);
  });
  await t.step("arguments just within the bound pass", () => {
    const args = JSON.stringify({ text: "x".repeat(ARGS_MAX_BYTES - 20) });
    assert.equal(checkCall("send", args).ok, true);
  });
});

Deno.test("answerText: the bridge's answer as JSON text for the program, bounded", async (t) => {
  await t.step(
    "a JSON value",
    () => assert.deepEqual(answerText("t", { a: [1] }), { ok: true, value: '{"a":[1]}' }),
  );
  await t.step(
    "undefined stays undefined",
    () => assert.deepEqual(answerText("t", undefined), { ok: true, value: undefined }),
  );
  await t.step("not JSON: said", () => {
    const checked = answerText("t", { big: 1n });
    assert.equal(checked.ok, false);
    assert.match((checked as { message: string }).message, /^relay\.t: its answer is not JSON/);
  });
  await t.step("too large: said, with the bound", () => {
    const checked = answerText("t", "x".repeat(ANSWER_MAX_BYTES));
    assert.equal(checked.ok, false);
    assert.match((checked as { message: string }).message, new RegExp(`at most ${ANSWER_MAX_BYTES}\\)$`));
  });
});

Deno.test("messageOf: an error's own message, bounded", () => {
  assert.equal(messageOf(new Error("denied by the person")), "denied by the person");
  assert.equal(messageOf("plain"), "plain");
  assert.equal(messageOf(new Error("x".repeat(MESSAGE_MAX_CHARS * 2))).length, MESSAGE_MAX_CHARS + 1);
});

Deno.test("checkLog: a known level and a bounded string", async (t) => {
  for (const level of ["log", "info", "warn", "error", "debug"]) {
    await t.step(
      level,
      () => assert.deepEqual(checkLog(level, "hi", 10), { ok: true, value: { level, text: "hi" } }),
    );
  }
  const refused: [string, unknown, unknown][] = [
    ["an unknown level", "trace", "hi"],
    ["a level that is not a string", 1, "hi"],
    ["a line that is not a string", "log", 5],
    ["a line over the bound", "log", "x".repeat(11)],
    ["a line too long to copy out", "log", new Oversized(99)],
  ];
  for (const [name, level, text] of refused) {
    await t.step(name, () => assert.equal(checkLog(level, text, 10).ok, false));
  }
});

Deno.test("checkEnd: the guest's record of run()'s end", async (t) => {
  const cases: [string, Record<string, unknown>, unknown][] = [
    ["a value", { kind: "value", json: "[1]", length: 3 }, { kind: "value", json: "[1]", length: 3 }],
    ["a value cut in the guest", { kind: "value", json: "[1", length: 9 }, {
      kind: "value",
      json: "[1",
      length: 9,
    }],
    ["undefined", { kind: "undefined" }, { kind: "undefined" }],
    ["not JSON", { kind: "unserializable", message: "cyclic" }, {
      kind: "unserializable",
      message: "cyclic",
    }],
    [
      "a throw",
      { kind: "threw", name: "Error", message: "boom", text: "Error: boom" },
      { kind: "threw", name: "Error", message: "boom", text: "Error: boom" },
    ],
    ["a throw with fields missing", { kind: "threw" }, { kind: "threw", name: "", message: "", text: "" }],
  ];
  for (const [name, fields, expected] of cases) {
    await t.step(name, () => assert.deepEqual(checkEnd(fields), { ok: true, value: expected }));
  }
  const malformed: [string, Record<string, unknown>][] = [
    ["an unknown kind", { kind: "other" }],
    ["a value without its text", { kind: "value", length: 3 }],
    ["a value longer than its length says", { kind: "value", json: "[1,2]", length: 2 }],
    ["a value too long to copy out", { kind: "value", json: new Oversized(9), length: 9 }],
  ];
  for (const [name, fields] of malformed) {
    await t.step(name, () => assert.equal(checkEnd(fields).ok, false));
  }
});

Deno.test("checkKey and checkCall: a write's key, a non-empty string of at most 200 characters", () => {
  assert.equal(KEY_MAX_CHARS, 200);
  const rows: [string, unknown, string | undefined | { error: string }][] = [
    ["post_message", undefined, undefined],
    ["post_message", "k", "k"],
    ["react", "é".repeat(KEY_MAX_CHARS), "é".repeat(KEY_MAX_CHARS)],
    ["upload_attachment", "files-1", "files-1"],
    ["post_message", "", { error: "relay.post_message: the idempotencyKey must be a non-empty string" }],
    ["post_message", 7, { error: "relay.post_message: the idempotencyKey must be a non-empty string" }],
    ["post_message", new Oversized(10 * 1024 * 1024), {
      error: "relay.post_message: the idempotencyKey is 10485760 characters, at most 200",
    }],
    ["list_rooms", "k", {
      error: "relay.list_rooms: the idempotencyKey is for a write, and list_rooms is not one",
    }],
    ["publish_event", "k", {
      error: "relay.publish_event: the idempotencyKey is for a write, and publish_event is not one",
    }],
  ];
  for (const [tool, key, expected] of rows) {
    const checked = checkKey(tool, key);
    if (typeof expected === "object") assert.deepEqual(checked, { ok: false, message: expected.error });
    else assert.deepEqual(checked, { ok: true, value: expected }, `${tool} ${String(key).slice(0, 20)}`);
  }
  assert.deepEqual(checkCall("post_message", '{"room":"r"}', "k1"), {
    ok: true,
    value: { tool: "post_message", args: { room: "r" }, key: "k1" },
  });
  assert.deepEqual(checkCall("post_message", undefined, "k1"), {
    ok: true,
    value: { tool: "post_message", args: {}, key: "k1" },
  });
  assert.deepEqual(checkCall("post_message", '{"room":"r"}'), {
    ok: true,
    value: { tool: "post_message", args: { room: "r" } },
  });
  assert.equal(checkCall("list_rooms", "{}", "k").ok, false);
});

Deno.test("programValue: the structuredContent, else the text blocks joined", () => {
  assert.deepEqual(programValue({ content: [{ type: "text", text: "{}" }], structuredContent: { a: 1 } }), {
    a: 1,
  });
  const text = {
    content: [{ type: "text", text: "one" }, { type: "image", data: "" }, { type: "text", text: "two" }],
  };
  assert.equal(programValue(text), "one\ntwo");
  assert.equal(textOf(text), "one\ntwo");
});
