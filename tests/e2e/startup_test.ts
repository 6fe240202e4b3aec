// Startup through the real entry point: the key, the flags, the permissions.
// Every refusal is one clear line, names the variable or flag, never the key.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { assertNoSecret, narrowFlags, newKey, ROOT, runOnce } from "../support/tinyagent.ts";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import denoConfig from "../../deno.json" with { type: "json" };
import { CONTRACT_READ, USAGE_EXIT } from "../support/contract.ts";

const HOST = "127.0.0.1:9"; // Never contacted: startup touches no network.

Deno.test("key refusals name the variable and never its value", async (t) => {
  const key = newKey();
  const cases: [string, Record<string, string>, RegExp][] = [
    ["unset", {}, /TINY_PRIVATE_KEY is not set/],
    ["empty", { TINY_PRIVATE_KEY: "" }, /TINY_PRIVATE_KEY is empty/],
    [
      "placeholder left by Hermes",
      { TINY_PRIVATE_KEY: "${TINY_PRIVATE_KEY}" },
      /TINY_PRIVATE_KEY holds a literal/,
    ],
    ["63 hex characters", { TINY_PRIVATE_KEY: key.hex.slice(1) }, /TINY_PRIVATE_KEY is not a private key/],
    ["an npub", { TINY_PRIVATE_KEY: key.npub }, /TINY_PRIVATE_KEY is not a private key/],
  ];
  for (const [name, env, expected] of cases) {
    await t.step(name, async () => {
      const run = await runOnce({
        flags: narrowFlags(HOST),
        args: ["mcp", "--relay", `http://${HOST}`],
        env,
        stdin: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
      });
      assert.equal(run.code, 1);
      assert.equal(run.stdout, "", "nothing on stdout");
      assert.match(run.stderr, expected);
      assert.equal(run.stderr.trim().split("\n").length, 1, "one line");
      assertNoSecret(key, run.stderr, "stderr");
      if (env.TINY_PRIVATE_KEY) {
        assert.ok(!run.stderr.includes(env.TINY_PRIVATE_KEY), "the value is not echoed");
      }
    });
  }
  await t.step(
    "the key pasted as --key-env's value is refused and never printed, whatever the flags",
    async () => {
      for (const value of [key.hex, key.hex.toUpperCase(), key.nsec]) {
        for (const flags of [narrowFlags(HOST, value), narrowFlags(HOST)]) {
          const run = await runOnce({
            flags,
            args: ["mcp", "--relay", `http://${HOST}`, "--key-env", value],
            env: { TINY_PRIVATE_KEY: key.hex },
          });
          assert.equal(run.code, USAGE_EXIT);
          assert.match(run.stderr, /--key-env takes the name of the variable that holds the key/);
          assertNoSecret(key, run.stdout + run.stderr, "the output");
          assert.ok(!run.stderr.includes(value.slice(0, 12)), run.stderr);
        }
      }
    },
  );
  await t.step("--key-env names another variable", async () => {
    const run = await runOnce({
      flags: narrowFlags(HOST, "AGENT_KEY"),
      args: ["mcp", "--relay", `http://${HOST}`, "--key-env", "AGENT_KEY"],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /AGENT_KEY is not set/);
  });
  await t.step("an nsec key is accepted", async () => {
    const run = await runOnce({
      flags: narrowFlags(HOST),
      args: ["mcp", "--relay", `http://${HOST}`],
      env: { TINY_PRIVATE_KEY: key.nsec },
      stdin: '{"jsonrpc":"2.0","id":1,"method":"ping"}\n',
    });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { jsonrpc: "2.0", id: 1, result: {} });
    assert.match(run.stderr, new RegExp(key.npub));
    assertNoSecret(key, run.stdout + run.stderr, "output");
  });
});

Deno.test(`usage errors: one line naming the problem, the usage, exit ${USAGE_EXIT}`, async (t) => {
  const key = newKey();
  const cases: [string, string[], RegExp][] = [
    ["no --relay", ["mcp"], /--relay URL is required/],
    [
      "unknown tool in --tools",
      ["mcp", "--relay", `http://${HOST}`, "--tools", "list_rooms,publish_event"],
      /publish_event/,
    ],
    [
      "write tool without --allow-writes",
      ["mcp", "--relay", `http://${HOST}`, "--tools", "post_message"],
      /post_message.*--allow-writes/,
    ],
    ["relay URL with a query", ["mcp", "--relay", `http://${HOST}/?x=1`], /query/],
    ["relay URL not http", ["mcp", "--relay", "ftp://relay.example"], /http or https/],
    ["unknown flag", ["mcp", "--relay", `http://${HOST}`, "--frobnicate"], /frobnicate/],
    ["unknown command", ["serve"], /unknown command "serve"/],
    ["bad --timeout", ["mcp", "--relay", `http://${HOST}`, "--timeout", "soon"], /--timeout/],
  ];
  for (const [name, args, expected] of cases) {
    await t.step(name, async () => {
      const run = await runOnce({ flags: narrowFlags(HOST), args, env: { TINY_PRIVATE_KEY: key.hex } });
      assert.equal(run.code, USAGE_EXIT);
      assert.equal(run.stdout, "");
      const [first] = run.stderr.split("\n");
      assert.match(first, /^tinyagent: /);
      assert.match(first, expected);
      assert.match(run.stderr, /Usage: tinyagent/);
    });
  }
});

Deno.test("--version and --help", async (t) => {
  await t.step("--version: deno.json's version, then the target, Deno and commit", async () => {
    const run = await runOnce({ args: ["--version"] });
    assert.equal(run.code, 0);
    assert.deepEqual(run.stdout.trimEnd().split("\n"), [
      `tinyagent ${denoConfig.version}`,
      `target ${Deno.build.target}`,
      `deno ${Deno.version.deno}`,
      "commit unknown (run from source)",
    ]);
  });
  for (const command of ["mcp", "diagnose", "keygen", "whoami"]) {
    await t.step(`${command} --help`, async () => {
      const run = await runOnce({ args: [command, "--help"] });
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`Usage: tinyagent ${command}`));
    });
  }
});

Deno.test("a missing permission is one line naming the flag to add", async (t) => {
  const key = newKey();
  const relay = await startStrictRelay();
  try {
    await t.step("no env permission", async () => {
      const run = await runOnce({
        flags: [`--allow-net=${relay.host}`],
        args: ["mcp", "--relay", relay.url],
        env: { TINY_PRIVATE_KEY: key.hex },
      });
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr.trim(),
        "tinyagent: no permission to read TINY_PRIVATE_KEY; run with --allow-env=TINY_PRIVATE_KEY",
      );
    });
    await t.step("no net permission for the relay's host and port", async () => {
      const run = await runOnce({
        flags: ["--allow-net=127.0.0.1:1", "--allow-env=TINY_PRIVATE_KEY"],
        args: ["mcp", "--relay", relay.url],
        env: { TINY_PRIVATE_KEY: key.hex },
      });
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr.trim(),
        `tinyagent: no permission to reach ${relay.host}; run with --allow-net=${relay.host}`,
      );
      assert.equal(relay.requests.length, 0);
    });
  } finally {
    await relay.close();
  }
});

Deno.test("keygen output round-trips through whoami", async () => {
  const generated = await runOnce({ args: ["keygen"] });
  assert.equal(generated.code, 0);
  const line = generated.stdout.split("\n").find((l) => l.startsWith("TINY_PRIVATE_KEY="));
  assert.ok(line, "a TINY_PRIVATE_KEY= line");
  const hex = line.slice("TINY_PRIVATE_KEY=".length);
  assert.match(hex, /^[0-9a-f]{64}$/);
  const pubkey = generated.stdout.match(/public key \(hex\):\s+([0-9a-f]{64})/)?.[1];
  const npub = generated.stdout.match(/public key \(npub\):\s+(npub1\w+)/)?.[1];
  assert.ok(pubkey && npub);
  for (const l of generated.stdout.trim().split("\n")) {
    assert.ok(l.startsWith("#") || l === line, `only comments and the key line: ${l}`);
  }
  const who = await runOnce({
    flags: ["--allow-env=TINY_PRIVATE_KEY"],
    args: ["whoami"],
    env: { TINY_PRIVATE_KEY: hex },
  });
  assert.equal(who.code, 0, who.stderr);
  assert.match(who.stdout, new RegExp(`hex:\\s+${pubkey}`));
  assert.match(who.stdout, new RegExp(`npub:\\s+${npub}`));
  assert.ok(!who.stdout.includes(hex) && !who.stderr.includes(hex), "whoami never prints the key");

  // The generated key signs requests that nostr-tools verifies (the strict relay checks each one).
  const relay = await startStrictRelay();
  try {
    const call = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["mcp", "--relay", relay.url],
      env: { TINY_PRIVATE_KEY: hex },
      stdin: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_rooms"}}\n',
    });
    assert.equal(call.code, 0, call.stderr);
    assert.equal(JSON.parse(call.stdout).result.isError, false);
    assert.ok(relay.requests.length > 0);
    for (const request of relay.requests) {
      assert.ok(verifyEvent(request.auth!), "the token verifies with nostr-tools");
      assert.equal(request.auth!.pubkey, pubkey);
    }
  } finally {
    await relay.close();
  }
});

/** Runs a tinyagent command line at a terminal: `script` gives it a pseudo-terminal for stdin and stdout. */
async function atTerminal(args: string[], env: Record<string, string>, input = "\x04"): Promise<string> {
  const line = [Deno.execPath(), "run", "--quiet", ...narrowFlags(HOST), `${ROOT}main.ts`, ...args]
    .map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
  const child = new Deno.Command("script", {
    args: ["-qec", line, "/dev/null"],
    env: { ...env, NO_COLOR: env.NO_COLOR ?? "", DENO_NO_UPDATE_CHECK: "1" },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  if (input) {
    await new Promise((resolve) => setTimeout(resolve, 1500)); // let it start before the terminal's EOF
    await writer.write(new TextEncoder().encode(input)).catch(() => {}); // it may have ended already
  }
  await writer.close().catch(() => {});
  const output = await child.output();
  return new TextDecoder().decode(output.stdout);
}

Deno.test("at a terminal: mcp says what it waits for; diagnose colours its marks unless NO_COLOR", async (t) => {
  const key = newKey();
  await t.step(
    "mcp started by hand says on stderr it waits for an MCP host, and what it is configured for",
    async () => {
      const text = await atTerminal(["mcp", "--relay", `http://${HOST}`], { TINY_PRIVATE_KEY: key.hex });
      assert.match(text, /tinyagent: mcp: waiting for an MCP host on stdin .*deno task demo/);
      assert.match(
        text,
        new RegExp(
          String.raw`mcp: configured for relay http://127\.0\.0\.1:9 as npub1\w+: ` +
            `the ${CONTRACT_READ.length} read tools, offered when the relay lists them`,
        ),
      );
      assertNoSecret(key, text, "the terminal");
    },
  );
  await t.step("on a pipe (as a host runs it) there is no such line", async () => {
    const run = await runOnce({
      flags: narrowFlags(HOST),
      args: ["mcp", "--relay", `http://${HOST}`],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    assert.doesNotMatch(run.stderr, /waiting for an MCP host/);
  });
  await t.step("diagnose colours its marks at a terminal, and not with NO_COLOR", async () => {
    const args = ["diagnose", "--relay", `http://${HOST}`];
    const coloured = await atTerminal(args, { TINY_PRIVATE_KEY: key.hex }, "");
    const ESC = "\x1b";
    assert.ok(coloured.includes(`${ESC}[31m✗${ESC}[0m reachability`), coloured);
    const plain = await atTerminal(args, { TINY_PRIVATE_KEY: key.hex, NO_COLOR: "1" }, "");
    assert.match(plain, /✗ reachability/);
    assert.ok(!plain.includes(`${ESC}[`), plain);
  });
});
