// `tinyagent call NAME [JSON]` (lib/cli/call_args.ts), rpc-facts.md 5.1 and 8.14: a method name runs
// that method with its params text kept as typed (default `{}`), `subscribe` points to rpc, each kind
// of call refuses the other's flags, a tool name is a tool call, and no usage error echoes a key.

import assert from "node:assert/strict";
import { type Command, parseCommand, UsageError } from "../../lib/cli/args.ts";
import { callCommand } from "../../lib/cli/call_args.ts";
import { RPC_METHODS } from "../../lib/rpc/method_names.ts";
import { sharedRun } from "../support/tinyagent.ts";

const RELAY = "https://relay.example.test/r/acme";
const METHODS = RPC_METHODS.filter((method) => method !== "subscribe");

function method(...argv: string[]): Extract<Command, { command: "method" }> {
  const command = parseCommand(["call", ...argv]);
  assert.equal(command.command, "method", JSON.stringify(command));
  return command as Extract<Command, { command: "method" }>;
}

function usageError(argv: string[], message: RegExp): UsageError {
  let caught: unknown;
  try {
    parseCommand(argv);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof UsageError, `expected a UsageError for ${JSON.stringify(argv)}, got ${caught}`);
  assert.equal(caught.topic, "call", JSON.stringify(argv));
  assert.match(caught.message, message, JSON.stringify(argv));
  return caught;
}

Deno.test("the method names", () => {
  assert.deepEqual(
    [...RPC_METHODS].sort(),
    ["diagnose", "download", "identity", "publish", "query", "request", "subscribe", "unsubscribe", "upload"],
  );
});

Deno.test("call METHOD: the method, its params as typed", async (t) => {
  for (const name of METHODS) {
    await t.step(`${name}, params {} by default`, () => {
      const command = method("--relay", RELAY, name);
      assert.deepEqual(command, {
        command: "method",
        method: name,
        params: "{}",
        json: false,
        relay: command.relay,
        keyEnv: "TINY_PRIVATE_KEY",
        oversight: { confirmWrites: false, confirmTimeoutMs: 300_000 },
        timeoutMs: 120_000,
      });
      assert.equal(command.relay.base, RELAY);
    });
  }
  const texts = [
    '{ "a" : 1.0 }',
    '{"event":{"kind":9,"content":"<&>","tags":[["h","general"]]}}',
    '{"path":"/manage/rpc","method":"POST","body":{ "method" : "browsegrant" , "params" : [ 12345678901234567890 ] }}',
    " {}\t",
    '{"a":1,"a":2}',
  ];
  for (const text of texts) {
    await t.step(`the params text is kept byte for byte: ${JSON.stringify(text)}`, () => {
      assert.equal(method("--relay", RELAY, "request", text).params, text);
    });
  }
  await t.step("flags before, between and after the names", () => {
    const command = method("publish", "--relay", RELAY, '{"event":{"kind":9}}', "--json", "--kinds", "9,12");
    assert.equal(command.method, "publish");
    assert.equal(command.params, '{"event":{"kind":9}}');
    assert.equal(command.json, true);
    assert.deepEqual(command.kinds, [9, 12]);
  });
  await t.step("rpc's flags, and the terminal's confirmation (a person can be asked here)", () => {
    const command = method(
      "--relay=wss://relay.example.test/",
      "--key-env",
      "AGENT_KEY",
      "--max-writes",
      "3",
      "--audit-log",
      "/tmp/a.jsonl",
      "--confirm-writes",
      "--confirm-timeout",
      "20",
      "--timeout",
      "5",
      "publish",
    );
    assert.equal(command.relay.base, "https://relay.example.test");
    assert.equal(command.keyEnv, "AGENT_KEY");
    assert.deepEqual(command.oversight, {
      auditLog: "/tmp/a.jsonl",
      maxWrites: 3,
      confirmWrites: true,
      confirmTimeoutMs: 20_000,
    });
    assert.equal(command.timeoutMs, 5_000);
  });
  await t.step("the params must be one JSON object", () => {
    usageError(["call", "--relay", RELAY, "identity", "{not json"], /^call: the arguments are not JSON/);
    for (const text of ["[1]", '"x"', "5", "null"]) {
      usageError(
        ["call", "--relay", RELAY, "identity", text],
        /^call: the arguments must be one JSON object/,
      );
    }
  });
  await t.step(
    "--relay is required",
    () => void usageError(["call", "identity"], /^--relay URL is required$/),
  );
  await t.step("a third positional argument is refused", () => {
    usageError(["call", "--relay", RELAY, "identity", "{}", "extra"], /^unexpected argument 'extra'$/);
  });
  await t.step("the module's own entry agrees", () => {
    assert.deepEqual(
      callCommand(["--relay", RELAY, "identity"]),
      parseCommand(["call", "--relay", RELAY, "identity"]),
    );
  });
});

Deno.test("call subscribe points to rpc", () => {
  for (
    const argv of [["call", "--relay", RELAY, "subscribe"], [
      "call",
      "subscribe",
      '{"subscription":"s","filter":{}}',
    ]]
  ) {
    usageError(argv, /^call: subscribe streams events until it is stopped: run it under 'tinyagent rpc'$/);
  }
});

Deno.test("each kind of call refuses the other's flags", async (t) => {
  for (const flag of ["--tools=list_rooms", "--tools", "--allow-writes", "--allow-writes=false"]) {
    await t.step(`${flag} with a method`, () => {
      const argv = flag === "--tools" ? [flag, "list_rooms"] : [flag];
      const name = flag.replace(/=.*/, "").slice(2);
      usageError(
        ["call", "--relay", RELAY, ...argv, "publish"],
        new RegExp(`^call: --${name} is for the relay's MCP tools; publish is a method of rpc$`),
      );
    });
  }
  await t.step("--kinds with a tool", () => {
    usageError(
      ["call", "--relay", RELAY, "--kinds", "9", "post_message"],
      /^call: --kinds narrows what the method publish signs; post_message is an MCP tool$/,
    );
  });
});

Deno.test("call TOOL is unchanged: a tool call with parsed arguments", () => {
  const command = parseCommand(["call", "--relay", RELAY, "list_rooms", '{ "limit" : 5 }']);
  assert.equal(command.command, "call");
  assert.ok(command.command === "call");
  assert.equal(command.tool, "list_rooms");
  assert.deepEqual(command.arguments, { limit: 5 });
  assert.equal(command.allowWrites, false);
  // Names close to a method are tools, not methods.
  for (const name of ["Identity", "identity ", "publish_event", "tiny_diagnose"]) {
    assert.equal(parseCommand(["call", "--relay", RELAY, name]).command, "call", name);
  }
});

Deno.test("call --help", () => {
  for (const argv of [["call", "--help"], ["call", "identity", "--help"], ["call", "-h", "subscribe"]]) {
    assert.deepEqual(parseCommand(argv), { command: "help", topic: "call" }, JSON.stringify(argv));
  }
});

Deno.test("no usage error of call echoes a key typed anywhere", () => {
  // Keys that start with a letter: a JSON parser's message may quote the text from there on.
  const hex = "d" + "0f".repeat(31) + "e";
  const nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
  for (const key of [hex, hex.toUpperCase(), nsec]) {
    const cases: string[][] = [];
    for (const name of ["identity", "publish", "list_rooms"]) {
      cases.push(
        ["call", "--relay", RELAY, name, key],
        ["call", "--relay", RELAY, name, `{"key": ${key}}`],
        ["call", "--relay", RELAY, name, `{"key":"${key}"`],
        ["call", "--relay", RELAY, name, `[${key}]`],
        ["call", "--relay", RELAY, name, `x${key}`],
        ["call", "--relay", RELAY, name, "{}", key],
        ["call", "--relay", key, name],
        ["call", "--relay", RELAY, "--key-env", key, name],
        ["call", "--relay", RELAY, "--kinds", key, name],
        ["call", "--relay", RELAY, "--max-writes", key, name],
        ["call", "--relay", RELAY, `--${key}`, name],
      );
    }
    for (const argv of cases) {
      let message = "";
      try {
        parseCommand(argv);
      } catch (error) {
        assert.ok(error instanceof UsageError, String(error));
        message = error.message;
      }
      assert.ok(message !== "", `refused: ${argv.join(" ")}`);
      assert.equal(sharedRun(key, message), undefined, `${argv.join(" ")}: ${message}`);
    }
  }
});
