// `tinyagent rpc`'s flags (lib/cli/rpc_args.ts), rpc-facts.md 1.2, 1.3 and 8.14: --relay required
// (ws/wss stored as http/https), --key-env, --kinds, --max-writes, --audit-log, --timeout; the
// confirmation flags refused under rpc with the reason; unknown flags and positionals refused;
// `keygen --json`, the Go peer's key line (5.2); and no usage error echoing a key.

import assert from "node:assert/strict";
import { type Command, parseCommand, UsageError } from "../../lib/cli/args.ts";
import { RPC_FLAGS, rpcCommand, rpcSession } from "../../lib/cli/rpc_args.ts";
import { sharedRun } from "../support/tinyagent.ts";

const RELAY = "https://relay.example.test/r/acme";

function rpc(...flags: string[]): Extract<Command, { command: "rpc" }> {
  const command = parseCommand(["rpc", ...flags]);
  assert.equal(command.command, "rpc", JSON.stringify(command));
  return command as Extract<Command, { command: "rpc" }>;
}

function usageError(argv: string[], message: RegExp, topic = argv[0]): UsageError {
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

Deno.test("rpc: the defaults", () => {
  const command = rpc("--relay", RELAY);
  assert.deepEqual(command, {
    command: "rpc",
    relay: {
      base: RELAY,
      mcpUrl: `${RELAY}/mcp`,
      manageUrl: `${RELAY}/manage/rpc`,
      netHost: "relay.example.test:443",
      origin: "https://relay.example.test",
    },
    keyEnv: "TINY_PRIVATE_KEY",
    oversight: { confirmWrites: false, confirmTimeoutMs: 300_000 },
    timeoutMs: 120_000,
  });
  assert.ok(!Object.hasOwn(command, "kinds"), "no --kinds: any kind but the refused ones");
  assert.deepEqual(rpcCommand(["--relay", RELAY]), command, "the module's own entry agrees");
});

Deno.test("rpc: --relay", async (t) => {
  await t.step("required", () => void usageError(["rpc"], /^--relay URL is required$/));
  await t.step("required, whatever else is given", () => {
    usageError(["rpc", "--key-env", "K", "--kinds", "9"], /^--relay URL is required$/);
  });
  const forms: [string, string][] = [
    ["wss://relay.example.test/r/acme/", "https://relay.example.test/r/acme"],
    ["ws://127.0.0.1:7777", "http://127.0.0.1:7777"],
    ["https://relay.example.test", "https://relay.example.test"],
    ["http://127.0.0.1:7777/r/acme", "http://127.0.0.1:7777/r/acme"],
  ];
  for (const [given, base] of forms) {
    await t.step(`${given} is stored as ${base}`, () => {
      assert.equal(rpc("--relay", given).relay.base, base);
      assert.equal(rpc(`--relay=${given}`).relay.base, base);
    });
  }
  await t.step("an invalid URL is refused with the endpoint's reason", () => {
    usageError(["rpc", "--relay", "ftp://relay.example.test"], /http or https URL \(or ws or wss/);
    usageError(["rpc", "--relay", "wss://relay.example.test/#x"], /query or fragment/);
  });
});

Deno.test("rpc: --key-env names the variable", () => {
  assert.equal(rpc("--relay", RELAY, "--key-env", "TINY_AGENT_KEY").keyEnv, "TINY_AGENT_KEY");
  usageError(["rpc", "--relay", RELAY, "--key-env", "1BAD"], /not an environment variable name/);
});

Deno.test("rpc: --kinds, what publish may sign", async (t) => {
  const good: [string, number[]][] = [
    ["9", [9]],
    ["9,12", [9, 12]],
    [" 9 , 12 ,", [9, 12]],
    ["0,65535", [0, 65535]],
    ["9,9", [9, 9]],
  ];
  for (const [given, kinds] of good) {
    await t.step(JSON.stringify(given), () => {
      assert.deepEqual(rpc("--relay", RELAY, "--kinds", given).kinds, kinds);
      assert.deepEqual(rpc("--relay", RELAY, `--kinds=${given}`).kinds, kinds);
    });
  }
  for (const given of ["", ",", " , "]) {
    await t.step(`an empty --kinds is refused: ${JSON.stringify(given)}`, () => {
      usageError(["rpc", "--relay", RELAY, `--kinds=${given}`], /^--kinds: name the kinds publish may sign/);
    });
  }
  for (const given of ["x", "9,x", "65536", "9.0", "+9", "0x10", "1e3", "9 12"]) {
    await t.step(`not a kind: ${JSON.stringify(given)}`, () => {
      usageError(
        ["rpc", "--relay", RELAY, `--kinds=${given}`],
        /^--kinds: ".*" is not an event kind \(0-65535\)$/,
      );
    });
  }
  await t.step("a negative kind reads as a flag", () => {
    usageError(["rpc", "--relay", RELAY, "--kinds", "-1"], /argument is ambiguous/);
    usageError(["rpc", "--relay", RELAY, "--kinds=-1"], /is not an event kind/);
  });
});

Deno.test("rpc: --max-writes, --audit-log, --timeout", async (t) => {
  await t.step("each given", () => {
    const command = rpc(
      "--relay",
      RELAY,
      "--max-writes",
      "50",
      "--audit-log=/var/log/tiny.jsonl",
      "--timeout",
      "30",
    );
    assert.deepEqual(command.oversight, {
      auditLog: "/var/log/tiny.jsonl",
      maxWrites: 50,
      confirmWrites: false,
      confirmTimeoutMs: 300_000,
    });
    assert.equal(command.timeoutMs, 30_000);
  });
  await t.step("--max-writes 0 says how to allow none under rpc: a grant, not a flag", () => {
    usageError(
      ["rpc", "--relay", RELAY, "--max-writes", "0"],
      /^--max-writes: give a whole number of writes from 1 to 1000000 \(to allow none, give the key a grant that allows no kind, at the relay\)$/,
    );
  });
  await t.step("--audit-log under ~ is refused", () => {
    usageError(["rpc", "--relay", RELAY, "--audit-log", "~/a.jsonl"], /starting with ~ is not expanded/);
  });
  await t.step("--timeout bounds", () => {
    assert.equal(rpc("--relay", RELAY, "--timeout", "0.5").timeoutMs, 500);
    assert.equal(rpc("--relay", RELAY, "--timeout", "3600").timeoutMs, 3_600_000);
    for (const value of ["0", "3601", "x", ""]) {
      usageError(["rpc", "--relay", RELAY, `--timeout=${value}`], /^--timeout: give a number of seconds/);
    }
  });
});

Deno.test("rpc: the confirmation flags are usage errors that say why", async (t) => {
  await t.step("--confirm-writes: no person to ask", () => {
    for (const flag of ["--confirm-writes", "--confirm-writes=true"]) {
      const error = usageError(["rpc", "--relay", RELAY, flag], /^--confirm-writes cannot work with rpc: /);
      assert.match(error.message, /no person to ask/);
      assert.match(error.message, /--max-writes, --kinds and --audit-log/);
      assert.match(error.message, /'tinyagent call' asks at the terminal/);
    }
  });
  await t.step("--confirm-timeout: nothing to time", () => {
    for (
      const argv of [["--confirm-timeout", "30"], ["--confirm-timeout=30"], [
        "--confirm-writes=false",
        "--confirm-timeout=30",
      ]]
    ) {
      usageError(
        ["rpc", "--relay", RELAY, ...argv],
        /^--confirm-timeout has nothing to time under rpc, which never asks a person$/,
      );
    }
  });
  await t.step("--confirm-writes=false is accepted (a bundle passes every setting)", () => {
    assert.equal(rpc("--relay", RELAY, "--confirm-writes=false").oversight.confirmWrites, false);
  });
  await t.step("rpcSession asks only when a person can be asked", () => {
    const values = { relay: RELAY, "confirm-writes": true, "confirm-timeout": "30" };
    assert.throws(() => rpcSession(values, "rpc", false), UsageError);
    const session = rpcSession(values, "call", true);
    assert.equal(session.oversight.confirmWrites, true);
    assert.equal(session.oversight.confirmTimeoutMs, 30_000);
  });
});

Deno.test("rpc: what is not its own is refused", async (t) => {
  await t.step("its flags, and no others", () => {
    assert.deepEqual(Object.keys(RPC_FLAGS).sort(), [
      "audit-log",
      "confirm-timeout",
      "confirm-writes",
      "key-env",
      "kinds",
      "max-writes",
      "relay",
      "timeout",
    ]);
  });
  for (
    const flag of [
      "--tools=list_rooms",
      "--allow-writes",
      "--json",
      "--rooms=general",
      "--key=x",
      "--relay-url=x",
    ]
  ) {
    await t.step(`unknown: ${flag}`, () => {
      usageError(["rpc", "--relay", RELAY, flag], new RegExp(`^unknown flag '${flag.split("=")[0]}'$`));
    });
  }
  await t.step(
    "a single-dash flag",
    () => void usageError(["rpc", "-relay", RELAY], /^unexpected argument '-relay'$/),
  );
  await t.step("a positional argument", () => {
    usageError(["rpc", "--relay", RELAY, "extra"], /^unexpected argument 'extra'$/);
    usageError(["rpc", "serve", "--relay", RELAY], /^unexpected argument 'serve'$/);
  });
  await t.step(
    "a flag without its value",
    () => void usageError(["rpc", "--relay"], /^flag '--relay <value>' needs a value$/),
  );
});

Deno.test("rpc --help, with or without other flags", () => {
  for (
    const argv of [["rpc", "--help"], ["rpc", "-h"], ["rpc", "--relay", RELAY, "--help"], [
      "rpc",
      "--help",
      "--confirm-writes",
    ]]
  ) {
    assert.deepEqual(parseCommand(argv), { command: "help", topic: "rpc" }, JSON.stringify(argv));
  }
});

Deno.test("keygen --json: the Go peer's key line; plain keygen keeps the .env line", () => {
  const cases: [string[], boolean][] = [
    [["keygen", "--json"], true],
    [["keygen", "--json=true"], true],
    [["keygen", "--json=false"], false],
    [["keygen"], false],
  ];
  for (const [argv, json] of cases) {
    const command = parseCommand(argv);
    assert.equal(command.command, "keygen", argv.join(" "));
    assert.equal((command as { json?: boolean }).json === true, json, argv.join(" "));
  }
  usageError(["keygen", "--json=yes"], /^flag '--json' is given bare/);
  usageError(["keygen", "json"], /^unexpected argument 'json'$/);
});

Deno.test("no usage error of rpc echoes a key typed anywhere", () => {
  const hex = "d" + "0f".repeat(31) + "e";
  const nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
  for (const key of [hex, hex.toUpperCase(), nsec]) {
    const cases: string[][] = [
      ["rpc", "--relay", key],
      ["rpc", `--relay=https://relay.example.test/${key}?x`],
      ["rpc", "--relay", RELAY, "--key-env", key],
      ["rpc", "--relay", RELAY, "--kinds", key],
      ["rpc", "--relay", RELAY, "--kinds", `9,${key}`],
      ["rpc", "--relay", RELAY, "--max-writes", key],
      ["rpc", "--relay", RELAY, "--timeout", key],
      ["rpc", "--relay", RELAY, "--audit-log", `/tmp/${key}`],
      ["rpc", "--relay", RELAY, "--confirm-timeout", key],
      ["rpc", "--relay", RELAY, `--confirm-writes=${key}`],
      ["rpc", "--relay", RELAY, key],
      ["rpc", `--${key}`],
      ["rpc", `--${key}=1`],
      ["rpc", "--relay", RELAY, "--kinds", `-${key}`],
    ];
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
