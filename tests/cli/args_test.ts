// The command line: `tinyagent mcp`, `diagnose`, `keygen`, `whoami`, help
// and version. Pure argv in, a command or a UsageError out.

import assert from "node:assert/strict";
import { type Command, parseCommand, UsageError } from "../../lib/cli/args.ts";
import { CONTRACT_READ, CONTRACT_WRITE } from "../support/contract.ts";
import { sharedRun } from "../support/tinyagent.ts";

const RELAY = "https://relay.example.test/r/acme";

function mcp(...flags: string[]): Extract<Command, { command: "mcp" }> {
  const command = parseCommand(["mcp", ...flags]);
  assert.equal(command.command, "mcp");
  return command as Extract<Command, { command: "mcp" }>;
}

function diagnose(...flags: string[]): Extract<Command, { command: "diagnose" }> {
  const command = parseCommand(["diagnose", ...flags]);
  assert.equal(command.command, "diagnose");
  return command as Extract<Command, { command: "diagnose" }>;
}

/** Asserts argv is a usage error for `topic` whose message matches `message`. */
function usageError(argv: string[], topic: string, message: RegExp): UsageError {
  let caught: unknown;
  try {
    parseCommand(argv);
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof UsageError, `expected a UsageError for ${JSON.stringify(argv)}, got ${caught}`);
  assert.equal(caught.topic, topic, JSON.stringify(argv));
  assert.match(caught.message, message, JSON.stringify(argv));
  return caught;
}

Deno.test("mcp: defaults", () => {
  const command = mcp("--relay", RELAY);
  assert.equal(command.relay.base, RELAY);
  assert.equal(command.relay.mcpUrl, `${RELAY}/mcp`);
  assert.equal(command.keyEnv, "TINY_PRIVATE_KEY");
  assert.deepEqual(command.exposed, CONTRACT_READ);
  assert.equal(command.allowWrites, false);
  assert.equal(command.timeoutMs, 120_000);
});

Deno.test("mcp: each flag", async (t) => {
  await t.step("--relay with = and a trailing slash", () => {
    assert.equal(mcp(`--relay=${RELAY}/`).relay.base, RELAY);
  });
  await t.step("--key-env", () => {
    assert.equal(mcp("--relay", RELAY, "--key-env", "MY_AGENT_KEY").keyEnv, "MY_AGENT_KEY");
    assert.equal(mcp("--relay", RELAY, "--key-env=_k2").keyEnv, "_k2");
  });
  await t.step("--allow-writes adds the write tools after the read tools", () => {
    const command = mcp("--relay", RELAY, "--allow-writes");
    assert.equal(command.allowWrites, true);
    assert.deepEqual(command.exposed, [...CONTRACT_READ, ...CONTRACT_WRITE]);
  });
  await t.step("--tools keeps the order, drops duplicates and blanks", () => {
    const command = mcp("--relay", RELAY, "--tools", " read_status, list_rooms,,read_status ,read_room");
    assert.deepEqual(command.exposed, ["read_status", "list_rooms", "read_room"]);
  });
  await t.step("--tools with a write tool needs --allow-writes, in either order", () => {
    assert.deepEqual(
      mcp("--allow-writes", "--tools", "post_message,read_room", "--relay", RELAY).exposed,
      ["post_message", "read_room"],
    );
    usageError(["mcp", "--relay", RELAY, "--tools", "read_room,post_message"], "mcp", /post_message/);
  });
  await t.step("--tools with an unknown tool names it", () => {
    usageError(["mcp", "--relay", RELAY, "--tools", "read_room,publish_event"], "mcp", /publish_event/);
    usageError(["mcp", "--relay", RELAY, "--tools", "frobnicate", "--allow-writes"], "mcp", /frobnicate/);
  });
  await t.step("--tools naming nothing is an error", () => {
    usageError(["mcp", "--relay", RELAY, "--tools", ""], "mcp", /--tools/);
    usageError(["mcp", "--relay", RELAY, "--tools", " , ,"], "mcp", /--tools/);
  });
});

Deno.test("--timeout", async (t) => {
  const valid: [string, number][] = [["30", 30_000], ["0.5", 500], ["1", 1000], ["3600", 3_600_000], [
    "2.25",
    2250,
  ]];
  for (const [value, ms] of valid) {
    await t.step(`valid: ${value}`, () => {
      assert.equal(mcp("--relay", RELAY, "--timeout", value).timeoutMs, ms);
      assert.equal(diagnose("--relay", RELAY, `--timeout=${value}`).timeoutMs, ms);
    });
  }
  for (const value of ["0", "0.0", "3601", "-1", "abc", "", "10s", "Infinity", "NaN"]) {
    await t.step(`invalid: ${JSON.stringify(value)}`, () => {
      usageError(["mcp", "--relay", RELAY, `--timeout=${value}`], "mcp", /--timeout/);
      usageError(["diagnose", "--relay", RELAY, `--timeout=${value}`], "diagnose", /--timeout/);
    });
  }
  await t.step("a value that looks like a flag is refused", () => {
    usageError(["mcp", "--relay", RELAY, "--timeout", "-1"], "mcp", /--timeout/);
  });
});

Deno.test("usage errors", async (t) => {
  await t.step("an unknown flag names it", () => {
    usageError(["mcp", "--relay", RELAY, "--bogus"], "mcp", /--bogus/);
    usageError(["diagnose", "--relay", RELAY, "--allow-writes"], "diagnose", /--allow-writes/);
    usageError(["keygen", "--relay", RELAY], "keygen", /--relay/);
    usageError(["whoami", "--json"], "whoami", /--json/);
  });
  await t.step("an extra positional argument is refused", () => {
    usageError(["mcp", "--relay", RELAY, "extra"], "mcp", /extra/);
    usageError(["diagnose", "--relay", RELAY, "extra"], "diagnose", /extra/);
    usageError(["keygen", "extra"], "keygen", /extra/);
    usageError(["whoami", "extra"], "whoami", /extra/);
  });
  await t.step("the private key is never a flag", () => {
    usageError(["mcp", "--relay", RELAY, "--key", "a".repeat(64)], "mcp", /--key/);
  });
  await t.step("--relay is required", () => {
    usageError(["mcp"], "mcp", /--relay/);
    usageError(["mcp", "--allow-writes"], "mcp", /--relay/);
    usageError(["diagnose"], "diagnose", /--relay/);
  });
  await t.step("an invalid --relay is refused with the endpoint's reason", () => {
    usageError(["mcp", "--relay", "ftp://relay.example.test"], "mcp", /--relay/);
    usageError(["diagnose", "--relay", "https://relay.example.test/?x=1"], "diagnose", /query/);
  });
  await t.step("--key-env must be an environment variable name", () => {
    for (const name of ["1KEY", "MY-KEY", "MY KEY", "", "KEY=x", "$KEY", "${KEY}"]) {
      usageError(["mcp", "--relay", RELAY, `--key-env=${name}`], "mcp", /--key-env/);
      usageError(["diagnose", "--relay", RELAY, `--key-env=${name}`], "diagnose", /--key-env/);
      usageError(["whoami", `--key-env=${name}`], "whoami", /--key-env/);
    }
  });
  await t.step("a key given as --key-env is refused without echoing it", () => {
    const hex = "ab".repeat(32);
    const nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
    const keys = [hex, `9${hex.slice(1)}`, hex.toUpperCase(), nsec, ` ${hex} `, `"${hex}"`, `${hex}\n`];
    for (const key of keys) {
      for (const argv of [["mcp", "--relay", RELAY, "--key-env", key], ["whoami", `--key-env=${key}`]]) {
        const error = usageError(
          argv,
          argv[0],
          /--key-env takes the name of the variable|not an environment variable/,
        );
        assert.ok(!error.message.includes(key.trim().replace(/"/g, "")), error.message);
        for (const secret of [hex, nsec]) {
          assert.equal(sharedRun(secret, error.message), undefined, error.message);
        }
      }
    }
  });
  await t.step("no usage error echoes a key typed where another value belongs", () => {
    const hex = "cd".repeat(32);
    const nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
    for (const key of [hex, nsec]) {
      const cases: string[][] = [
        ["mcp", "--relay", key],
        ["mcp", "--relay", `https://relay.example.test/${key}?x`],
        ["mcp", "--relay", RELAY, "--tools", key],
        ["mcp", "--relay", RELAY, key],
        ["mcp", `--${key}`],
        [key],
        ["diagnose", "--relay", RELAY, "--kinds", key],
      ];
      for (const argv of cases) {
        let message = "";
        try {
          parseCommand(argv);
        } catch (error) {
          message = (error as Error).message;
        }
        assert.ok(message !== "", `refused: ${argv.join(" ")}`);
        assert.ok(!message.includes(key) && !message.includes(key.slice(6, 26)), message);
      }
    }
  });
  await t.step("an unknown command names it", () => {
    usageError(["serve"], "main", /serve/);
  });
});

Deno.test("help and version", async (t) => {
  await t.step("top-level help", () => {
    for (const argv of [["--help"], ["-h"], ["help"]]) {
      assert.deepEqual(parseCommand(argv), { command: "help", topic: "main" }, JSON.stringify(argv));
    }
  });
  await t.step("no command at all is a usage error (a script sees its mistake)", () => {
    usageError([], "main", /no command given/);
  });
  await t.step("--help for each command, even without --relay", () => {
    for (const topic of ["mcp", "tools", "call", "diagnose", "keygen", "whoami", "sandbox-check"] as const) {
      for (const flag of ["--help", "-h"]) {
        assert.deepEqual(parseCommand([topic, flag]), { command: "help", topic }, `${topic} ${flag}`);
      }
    }
    assert.deepEqual(parseCommand(["mcp", "--relay", RELAY, "--help"]), { command: "help", topic: "mcp" });
  });
  await t.step("--version, -v and -V", () => {
    for (const argv of [["--version"], ["-v"], ["-V"], ["version"]]) {
      assert.deepEqual(parseCommand(argv), { command: "version" });
    }
  });
  await t.step("keygen and whoami", () => {
    assert.deepEqual(parseCommand(["keygen"]), { command: "keygen" });
    assert.deepEqual(parseCommand(["whoami"]), { command: "whoami", keyEnv: "TINY_PRIVATE_KEY" });
    assert.deepEqual(parseCommand(["whoami", "--key-env", "AGENT_KEY"]), {
      command: "whoami",
      keyEnv: "AGENT_KEY",
    });
  });
});

Deno.test("diagnose", async (t) => {
  await t.step("defaults", () => {
    const command = diagnose("--relay", RELAY);
    assert.equal(command.relay.manageUrl, `${RELAY}/manage/rpc`);
    assert.equal(command.keyEnv, "TINY_PRIVATE_KEY");
    assert.deepEqual(command.rooms, []);
    assert.deepEqual(command.kinds, []);
    assert.equal(command.json, false);
    assert.equal(command.timeoutMs, 120_000);
  });
  await t.step("--rooms, --kinds, --json, --key-env", () => {
    const command = diagnose(
      "--relay",
      RELAY,
      "--rooms",
      "general, ops,,",
      "--kinds",
      "9, 11,0,65535",
      "--json",
      "--key-env",
      "AGENT",
    );
    assert.deepEqual(command.rooms, ["general", "ops"]);
    assert.deepEqual(command.kinds, [9, 11, 0, 65535]);
    assert.equal(command.json, true);
    assert.equal(command.keyEnv, "AGENT");
  });
  await t.step("--kinds validation names the flag and the bad value", () => {
    for (const bad of ["70000", "65536", "-1", "x", "9.5", "1e3", "0x10"]) {
      const error = usageError(["diagnose", "--relay", RELAY, `--kinds=9,${bad}`], "diagnose", /--kinds/);
      assert.ok(error.message.includes(bad), `${bad}: ${error.message}`);
    }
  });
});

Deno.test("tools and call: the session's flags, and call's tool and arguments", async (t) => {
  await t.step("tools takes mcp's flags and --json", () => {
    const command = parseCommand(["tools", "--relay", RELAY, "--allow-writes", "--json"]);
    assert.equal(command.command, "tools");
    if (command.command !== "tools") return;
    assert.deepEqual(command.exposed, [...CONTRACT_READ, ...CONTRACT_WRITE]);
    assert.equal(command.allowWrites, true);
    assert.equal(command.json, true);
    assert.equal(command.timeoutMs, 120_000);
  });
  await t.step("tools --tools with an unknown name lists the valid ones", () => {
    const error = usageError(
      ["tools", "--relay", RELAY, "--tools", "bogus"],
      "tools",
      /unknown tool "bogus"/,
    );
    for (const name of [...CONTRACT_READ, ...CONTRACT_WRITE]) assert.ok(error.message.includes(name), name);
  });
  await t.step("call: the tool, then one JSON object of arguments, flags anywhere", () => {
    const command = parseCommand([
      "call",
      "--relay",
      RELAY,
      "read_room",
      '{"id":"general","limit":5}',
      "--json",
    ]);
    assert.equal(command.command, "call");
    if (command.command !== "call") return;
    assert.equal(command.tool, "read_room");
    assert.deepEqual(command.arguments, { id: "general", limit: 5 });
    assert.equal(command.json, true);
    assert.deepEqual(command.exposed, [...CONTRACT_READ]);
  });
  await t.step("call without arguments sends {}", () => {
    const command = parseCommand(["call", "list_rooms", "--relay", RELAY]);
    assert.ok(command.command === "call");
    assert.deepEqual(command.arguments, {});
  });
  await t.step("call's usage errors", () => {
    usageError(["call", "--relay", RELAY], "call", /name the tool/);
    usageError(["call", "--relay", RELAY, "list_rooms", "{not json"], "call", /not JSON/);
    for (const args of ["[1,2]", '"text"', "5", "null"]) {
      usageError(["call", "--relay", RELAY, "list_rooms", args], "call", /one JSON object/);
    }
    usageError(
      ["call", "--relay", RELAY, "list_rooms", "{}", "extra"],
      "call",
      /unexpected argument 'extra'/,
    );
  });
  await t.step("a key pasted as call's arguments is never echoed", () => {
    const hex = "0f".repeat(32);
    const error = usageError(["call", "--relay", RELAY, "list_rooms", `{${hex}`], "call", /not JSON/);
    assert.ok(!error.message.includes(hex), error.message);
  });
});

Deno.test("the oversight flags: --audit-log, --max-writes, --confirm-writes, --confirm-timeout", async (t) => {
  await t.step("none given: no log, no budget, no question, five minutes to answer", () => {
    assert.deepEqual(mcp("--relay", RELAY, "--allow-writes").oversight, {
      confirmWrites: false,
      confirmTimeoutMs: 300_000,
    });
  });
  await t.step("each given, on mcp, tools and call alike", () => {
    const flags = [
      "--relay",
      RELAY,
      "--allow-writes",
      "--audit-log",
      "/home/you/audit.jsonl",
      "--max-writes=10",
      "--confirm-writes",
      "--confirm-timeout",
      "45",
    ];
    const want = {
      auditLog: "/home/you/audit.jsonl",
      maxWrites: 10,
      confirmWrites: true,
      confirmTimeoutMs: 45_000,
    };
    assert.deepEqual(mcp(...flags).oversight, want);
    for (const command of ["tools", "call"]) {
      const parsed = parseCommand(
        command === "call" ? ["call", "post_message", ...flags] : [command, ...flags],
      );
      assert.deepEqual((parsed as { oversight: unknown }).oversight, want, command);
    }
    // The log alone needs no writes: it records the templates tinyagent refuses too.
    assert.equal(mcp("--relay", RELAY, "--audit-log", "a.jsonl").oversight.auditLog, "a.jsonl");
  });
  await t.step("sandbox-check takes --audit-log, to prove the one file it may write", () => {
    const command = parseCommand(["sandbox-check", "--relay", RELAY, "--audit-log", "/tmp/a.jsonl"]);
    assert.equal((command as { auditLog?: string }).auditLog, "/tmp/a.jsonl");
  });
  const mistakes: [string, string[], RegExp][] = [
    [
      "--max-writes 0",
      ["--allow-writes", "--max-writes", "0"],
      /^--max-writes: give a whole number of writes from 1 to 1000000 \(to allow none, leave out --allow-writes\)$/,
    ],
    ["--max-writes 2.5", ["--allow-writes", "--max-writes", "2.5"], /^--max-writes: give a whole number/],
    [
      "--max-writes past the limit",
      ["--allow-writes", "--max-writes", "1000001"],
      /^--max-writes: give a whole number/,
    ],
    [
      "--confirm-timeout 0",
      ["--allow-writes", "--confirm-writes", "--confirm-timeout", "0"],
      /^--confirm-timeout: give a number of seconds above 0 and at most 3600$/,
    ],
    ["an empty --audit-log", ["--audit-log="], /^--audit-log: give the path of the file to append to$/],
    [
      "an --audit-log under ~",
      ["--audit-log", "~/audit.jsonl"],
      /^--audit-log: a path starting with ~ is not expanded when a host starts tinyagent; give the full path/,
    ],
    [
      "an --audit-log path holding something shaped like a key",
      ["--audit-log", `/tmp/${"ab".repeat(32)}.jsonl`],
      /^--audit-log: the path looks like it holds a private key, and is not shown$/,
    ],
    [
      "--confirm-writes with another value",
      ["--allow-writes", "--confirm-writes=yes"],
      /^flag '--confirm-writes' is given bare, or as --confirm-writes=true or --confirm-writes=false$/,
    ],
  ];
  for (const [name, flags, message] of mistakes) {
    await t.step(name, () => {
      usageError(["mcp", "--relay", RELAY, ...flags], "mcp", message);
    });
  }
});

Deno.test("the forms a bundle or a catalog passes: boolean values, --tools=default, every setting at once", async (t) => {
  await t.step("--allow-writes=true and =false, --confirm-writes=false", () => {
    assert.equal(mcp("--relay", RELAY, "--allow-writes=true").allowWrites, true);
    const off = mcp("--relay", RELAY, "--allow-writes=false", "--confirm-writes=false");
    assert.equal(off.allowWrites, false);
    assert.deepEqual(off.exposed, CONTRACT_READ);
    assert.equal(off.oversight.confirmWrites, false);
    usageError(
      ["mcp", "--relay", RELAY, "--allow-writes=1"],
      "mcp",
      /^flag '--allow-writes' is given bare, or as/,
    );
  });
  await t.step("--tools=default is the default set, with or without writes", () => {
    assert.deepEqual(mcp("--relay", RELAY, "--tools=default").exposed, CONTRACT_READ);
    assert.deepEqual(mcp("--relay", RELAY, "--allow-writes=true", "--tools=default").exposed, [
      ...CONTRACT_READ,
      ...CONTRACT_WRITE,
    ]);
  });
  await t.step("the oversight settings with writes off are accepted: they have nothing to act on", () => {
    const command = mcp("--relay", RELAY, "--allow-writes=false", "--confirm-writes=true", "--max-writes=50");
    assert.equal(command.allowWrites, false);
    assert.deepEqual(command.oversight, { maxWrites: 50, confirmWrites: true, confirmTimeoutMs: 300_000 });
    assert.equal(mcp("--relay", RELAY, "--confirm-timeout", "9").oversight.confirmTimeoutMs, 9_000);
  });
  await t.step("a ${user_config.…} the host left in place names the setting to fill in", () => {
    usageError(
      ["mcp", "--relay", "${user_config.relay_url}", "--allow-writes=true"],
      "main",
      /^the host passed \$\{user_config\.relay_url\} as it is: that setting of the tinyagent extension has no value; fill it in the host's settings for the extension$/,
    );
    usageError(
      ["mcp", "--relay", RELAY, "--max-writes=${user_config.max_writes}"],
      "main",
      /user_config\.max_writes/,
    );
  });
});
