// The pieces every command's flags are made of (lib/cli/flags.ts): the strict parser, the comma
// list, --kinds, --key-env, the seconds and --max-writes numbers, --audit-log, --relay with --key-env,
// and the usage error that never echoes a key. (args_test covers them through `mcp`.)

import assert from "node:assert/strict";
import {
  auditLogFlag,
  DEFAULT_KEY_ENV,
  DEFAULT_TIMEOUT_SECONDS,
  type Flags,
  keyEnvName,
  kindsFlag,
  list,
  MAX_WRITES_LIMIT,
  maxWritesFlag,
  parse,
  redactKeys,
  relayAndKey,
  secondsFlag,
  timeoutFlag,
  UsageError,
} from "../../lib/cli/flags.ts";

const OPTIONS: Flags = { relay: { type: "string" }, json: { type: "boolean" }, kinds: { type: "string" } };

function refused(fn: () => unknown, message: RegExp, topic = "rpc"): UsageError {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof UsageError, `expected a UsageError, got ${caught}`);
  assert.equal(caught.topic, topic);
  assert.match(caught.message, message);
  return caught;
}

Deno.test("the defaults", () => {
  assert.equal(DEFAULT_KEY_ENV, "TINY_PRIVATE_KEY");
  assert.equal(DEFAULT_TIMEOUT_SECONDS, 120);
  assert.equal(MAX_WRITES_LIMIT, 1_000_000);
});

Deno.test("parse: the strict flag parser", async (t) => {
  const good: [string, string[], number, Record<string, unknown>, string[]][] = [
    ["nothing", [], 0, {}, []],
    ["--name value", ["--relay", "https://r"], 0, { relay: "https://r" }, []],
    ["--name=value", ["--relay=https://r"], 0, { relay: "https://r" }, []],
    ["--name= (empty)", ["--relay="], 0, { relay: "" }, []],
    ["a value holding =", ["--relay=a=b"], 0, { relay: "a=b" }, []],
    ["a bare boolean", ["--json"], 0, { json: true }, []],
    ["--flag=true", ["--json=true"], 0, { json: true }, []],
    ["--flag=false", ["--json=false"], 0, { json: false }, []],
    ["the last of a repeated flag", ["--kinds", "1", "--kinds=2"], 0, { kinds: "2" }, []],
    ["-h", ["-h"], 0, { help: true }, []],
    ["--help among others", ["--relay", "x", "--help"], 0, { relay: "x", help: true }, []],
    ["positionals up to the limit, flags anywhere", ["a", "--json", "b"], 2, { json: true }, ["a", "b"]],
    ["a positional that looks like JSON", ['{"a":1}'], 1, {}, ['{"a":1}']],
  ];
  for (const [name, args, max, values, positionals] of good) {
    await t.step(name, () => assert.deepEqual(parse("rpc", args, OPTIONS, max), { values, positionals }));
  }
  const bad: [string, string[], number, RegExp][] = [
    ["an unknown flag", ["--nope"], 0, /^unknown flag '--nope'$/],
    ["an unknown flag with a value", ["--nope=1"], 0, /^unknown flag '--nope'$/],
    ["a name from Object's prototype", ["--constructor"], 0, /^unknown flag '--constructor'$/],
    ["__proto__", ["--__proto__=x"], 0, /^unknown flag '--__proto__'$/],
    ["a single dash", ["-relay"], 0, /^unexpected argument '-relay'$/],
    ["a bare --", ["--"], 0, /^unexpected argument '--'$/],
    ["a bare -", ["-"], 0, /^unexpected argument '-'$/],
    ["a positional past the limit", ["a", "b"], 1, /^unexpected argument 'b'$/],
    ["a positional where none is taken", ["a"], 0, /^unexpected argument 'a'$/],
    ["a value missing", ["--relay"], 0, /^flag '--relay <value>' needs a value$/],
    [
      "a value that looks like a flag",
      ["--relay", "--json"],
      0,
      /^flag '--relay <value>' argument is ambiguous: use --relay=--json$/,
    ],
    [
      "a boolean with another value",
      ["--json=yes"],
      0,
      /^flag '--json' is given bare, or as --json=true or --json=false$/,
    ],
    ["a boolean with an empty value", ["--json="], 0, /^flag '--json' is given bare/],
  ];
  for (const [name, args, max, message] of bad) {
    await t.step(`refused: ${name}`, () => void refused(() => parse("rpc", args, OPTIONS, max), message));
  }
  await t.step("a boolean does not take the next argument", () => {
    assert.deepEqual(parse("rpc", ["--json", "false"], OPTIONS, 1), {
      values: { json: true },
      positionals: ["false"],
    });
  });
});

Deno.test("list: a comma list, items trimmed, blanks dropped", () => {
  assert.equal(list(undefined), undefined);
  assert.deepEqual(list(""), []);
  assert.deepEqual(list(" a, b ,,c ,"), ["a", "b", "c"]);
  assert.deepEqual(list("one"), ["one"]);
});

Deno.test("kindsFlag", async (t) => {
  await t.step("absent", () => assert.equal(kindsFlag(undefined, "rpc"), undefined));
  await t.step("empty is an empty list (the caller decides what that means)", () => {
    assert.deepEqual(kindsFlag("", "rpc"), []);
  });
  await t.step("kinds 0 to 65535", () => assert.deepEqual(kindsFlag("0, 9,65535", "rpc"), [0, 9, 65535]));
  for (const item of ["65536", "-1", "9.0", "+9", "0x10", "1e3", "nine", "9 9"]) {
    await t.step(`refused: ${item}`, () => {
      refused(
        () => kindsFlag(`1,${item}`, "diagnose"),
        /^--kinds: ".*" is not an event kind \(0-65535\)$/,
        "diagnose",
      );
    });
  }
});

Deno.test("keyEnvName", async (t) => {
  await t.step("the default", () => assert.equal(keyEnvName(undefined, "rpc"), "TINY_PRIVATE_KEY"));
  for (const name of ["TINY_PRIVATE_KEY", "_K", "a1", "K".repeat(128)]) {
    await t.step(`a name: ${name.slice(0, 20)}`, () => assert.equal(keyEnvName(name, "rpc"), name));
  }
  for (const name of ["", "1KEY", "MY-KEY", "MY KEY", "K".repeat(129), "KEY=1", "$KEY"]) {
    await t.step(`not a name: ${JSON.stringify(name.slice(0, 20))}`, () => {
      const error = refused(() => keyEnvName(name, "rpc"), /^--key-env: not an environment variable name/);
      if (name.length > 2) assert.ok(!error.message.includes(name), "the value is not shown");
    });
  }
  for (
    const key of ["ab".repeat(32), "AB".repeat(16), ` ${"ab".repeat(32)} `, "nsec1abc", `X${"ab".repeat(32)}`]
  ) {
    await t.step(`a key given instead of its variable: ${key.slice(0, 12)}…`, () => {
      const error = refused(() => keyEnvName(key, "rpc"), /^--key-env takes the name of the variable/);
      assert.ok(!error.message.includes(key.trim()), error.message);
    });
  }
});

Deno.test("secondsFlag and timeoutFlag", async (t) => {
  await t.step("absent: the fallback", () => {
    assert.equal(secondsFlag("--x", undefined, 7, "rpc"), 7_000);
    assert.equal(timeoutFlag(undefined, "rpc"), 120_000);
  });
  const good: [string, number][] = [["1", 1_000], ["0.5", 500], ["0.0005", 1], ["3600", 3_600_000], [
    "90.25",
    90_250,
  ]];
  for (const [value, ms] of good) {
    await t.step(value, () => assert.equal(timeoutFlag(value, "rpc"), ms));
  }
  for (const value of ["0", "0.0", "3600.5", "3601", "-1", "1e3", " 5", "5s", "", ".5", "Infinity", "NaN"]) {
    await t.step(`refused: ${JSON.stringify(value)}`, () => {
      refused(
        () => secondsFlag("--confirm-timeout", value, 1, "call"),
        /^--confirm-timeout: give a number of seconds above 0 and at most 3600$/,
        "call",
      );
    });
  }
});

Deno.test("maxWritesFlag", async (t) => {
  await t.step("absent", () => assert.equal(maxWritesFlag(undefined, "rpc", "x"), undefined));
  for (const [value, max] of [["1", 1], ["50", 50], ["1000000", 1_000_000], ["007", 7]] as const) {
    await t.step(value, () => assert.equal(maxWritesFlag(value, "rpc", "x"), max));
  }
  for (const value of ["0", "1000001", "2.5", "-1", "", "1e3", "ten"]) {
    await t.step(`refused: ${JSON.stringify(value)}`, () => {
      refused(
        () => maxWritesFlag(value, "rpc", "say how"),
        /^--max-writes: give a whole number of writes from 1 to 1000000 \(to allow none, say how\)$/,
      );
    });
  }
});

Deno.test("auditLogFlag", async (t) => {
  await t.step("absent", () => assert.equal(auditLogFlag(undefined, "rpc"), undefined));
  for (const path of ["/var/log/tiny.jsonl", "audit.jsonl", "./a/b.jsonl", "/home/~you/a", "a~"]) {
    await t.step(`a path: ${path}`, () => assert.equal(auditLogFlag(path, "rpc"), path));
  }
  const bad: [string, RegExp][] = [
    ["", /^--audit-log: give the path of the file to append to$/],
    ["  ", /^--audit-log: give the path of the file to append to$/],
    ["/tmp/a\0b", /^--audit-log: the path holds a NUL character$/],
    [
      `/tmp/${"ab".repeat(32)}.jsonl`,
      /^--audit-log: the path looks like it holds a private key, and is not shown$/,
    ],
    ["~", /^--audit-log: a path starting with ~ is not expanded/],
    ["~/audit.jsonl", /^--audit-log: a path starting with ~ is not expanded/],
    ["~\\audit.jsonl", /^--audit-log: a path starting with ~ is not expanded/],
  ];
  for (const [path, message] of bad) {
    await t.step(
      `refused: ${JSON.stringify(path.slice(0, 20))}`,
      () => void refused(() => auditLogFlag(path, "rpc"), message),
    );
  }
});

Deno.test("relayAndKey: --relay required and checked, then --key-env", async (t) => {
  await t.step("both", () => {
    const { relay, keyEnv } = relayAndKey(
      { relay: "wss://relay.example.test/r/acme/", "key-env": "K" },
      "rpc",
    );
    assert.equal(relay.base, "https://relay.example.test/r/acme");
    assert.equal(keyEnv, "K");
  });
  await t.step(
    "--relay missing",
    () => void refused(() => relayAndKey({}, "call"), /^--relay URL is required$/, "call"),
  );
  await t.step(
    "--relay invalid",
    () => void refused(() => relayAndKey({ relay: "nope" }, "rpc"), /^--relay: "nope" is not a URL$/),
  );
  await t.step("--relay is checked before --key-env", () => {
    refused(() => relayAndKey({ "key-env": "1BAD" }, "rpc"), /^--relay URL is required$/);
  });
});

Deno.test("redactKeys and UsageError: nothing shaped like a key is ever said", async (t) => {
  const hex = "ab".repeat(32);
  const nsec = "nsec1vl029mgpspedva04g90vltkh6fvh240zqtv9k0t9af8935ke9laqsnlfe5";
  const cases: [string, string][] = [
    [hex, "<a private key, not shown>"],
    [hex.toUpperCase(), "<a private key, not shown>"],
    [`key=${hex}!`, "key=<a private key, not shown>!"],
    [nsec, "<a private key, not shown>"],
    [nsec.toUpperCase(), "<a private key, not shown>"],
    [`${hex}${hex}`, "<a private key, not shown><a private key, not shown>"],
    ["ab".repeat(31) + "a", "ab".repeat(31) + "a"],
    ["no key here", "no key here"],
  ];
  for (const [text, redacted] of cases) {
    await t.step(text.slice(0, 16), () => {
      assert.equal(redactKeys(text), redacted);
      const error = new UsageError(`bad: ${text}`, "keygen");
      assert.equal(error.message, `bad: ${redacted}`);
      assert.equal(error.topic, "keygen");
      assert.ok(error instanceof Error);
    });
  }
});
