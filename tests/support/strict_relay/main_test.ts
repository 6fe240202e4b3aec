// `deno task relay` started as a user starts it: what it prints is ready to paste, the printed
// diagnose and mcp lines work against it as printed, and SIGTERM stops it cleanly.

import assert from "node:assert/strict";
import { getPublicKey } from "nostr-tools/pure";
import { hexToBytes } from "@noble/hashes/utils.js";
import { findOnPath, npmDeno } from "../npm_deno.ts";
import { command, newKey, runOnce, Tinyagent } from "../tinyagent.ts";
import { parseRelayArgs, UsageError } from "./main.ts";
import { expectOk, newKey as newNostrKey, signed, withSocket } from "./nostr_test_kit.ts";

const LAST_LINE = "# Ctrl-C stops the relay.";
// Deno's own "Task relay …" line goes to stderr too; without colour it is easy to set apart.
const ENV = { NO_COLOR: "1" };

interface RunningTask {
  lines: string[];
  /** The process started: `deno task`, or what runs it. */
  pid: number;
  /** Waits for the exit, sending nothing. */
  exited(): Promise<{ code: number; stderr: string }>;
  /** Sends SIGTERM (deno task passes it on) and waits for the exit. */
  stop(): Promise<{ code: number; stderr: string }>;
}

/** `<deno> task relay <args>`, read up to the last line of what it prints on start. */
async function startTask(args: string[], deno = Deno.execPath()): Promise<RunningTask> {
  const child = command({ bin: deno, args: ["task", "relay", ...args], env: ENV }).spawn();
  await child.stdin.close();
  const stderr = new Response(child.stderr).text();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes(`${LAST_LINE}\n`)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += value;
  }
  const rest = (async () => {
    while (!(await reader.read()).done) {
      // nothing more is expected; read to the end so the pipe closes
    }
  })();
  const exit = (async () => {
    const status = await child.status;
    await rest;
    return { code: status.code, stderr: await stderr };
  })();
  let stopped: Promise<{ code: number; stderr: string }> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // already ended
      }
      return await exit;
    })();
  if (!text.includes(LAST_LINE)) {
    const { code, stderr } = await stop();
    assert.fail(`deno task relay ended (${code}) before printing its lines:\n${text}\n${stderr}`);
  }
  return { lines: text.split("\n"), pid: child.pid, exited: () => exit, stop };
}

/** The printed line starting with `start`, as words. */
function printed(lines: string[], start: string): string[] {
  const line = lines.find((l) => l.startsWith(start));
  assert.ok(line, `a line starting with "${start}" in:\n${lines.join("\n")}`);
  return line.trim().split(/\s+/);
}

/** Runs a printed `deno task start …` line (with --json when asked) under `key`. */
function runPrinted(words: string[], key: string, extra: string[] = []) {
  assert.equal(words[0], "deno");
  return runOnce({
    bin: Deno.execPath(),
    args: [...words.slice(1), ...extra],
    env: { TINY_PRIVATE_KEY: key },
  });
}

/**
 * The `# ws` line names the tenant's websocket, where the printed key can AUTH and read: a member,
 * as main.ts makes it, and an agent whose grant covers room general and the write tools' kinds, so a
 * post outside the grant is refused; another key reads nothing and posts nothing.
 */
async function checkPrintedWebSocket(lines: string[], hex: string): Promise<void> {
  const wsUrl = printed(lines, "# ws ")[2];
  assert.equal(wsUrl, printed(lines, "# relay ")[2].replace(/^http/, "ws"));
  const agent = { sk: hexToBytes(hex), pk: getPublicKey(hexToBytes(hex)) };
  await withSocket(wsUrl, async (ws) => {
    await ws.auth(agent, wsUrl);
    assert.deepEqual((await ws.req("r", { kinds: [9] })).end, ["EOSE", "r", ["finish"]]);
    const post = signed(agent, { content: "in general" });
    await expectOk(ws, ["EVENT", post], true, "");
    assert.deepEqual(await ws.next("the post, live"), ["EVENT", "r", post]);
    const lab = signed(agent, { tags: [["h", "lab"]] });
    await expectOk(ws, ["EVENT", lab], false, "restricted: agent grant does not allow room lab");
    const note = signed(agent, { kind: 1, tags: [] });
    await expectOk(ws, ["EVENT", note], false, "restricted: agent grant does not allow kind 1");
  });
  const stranger = newNostrKey();
  await withSocket(wsUrl, async (ws) => {
    await ws.auth(stranger, wsUrl);
    assert.deepEqual((await ws.req("r", { kinds: [9] })).end, [
      "CLOSED",
      "r",
      "auth-required: this relay is members-only",
    ]);
    await expectOk(ws, ["EVENT", signed(stranger)], false, "restricted: not a member of room general");
    const note = signed(stranger, { kind: 1, tags: [] });
    await expectOk(
      ws,
      ["EVENT", note],
      false,
      "blocked: this event is not allowed by the relay write policy",
    );
  });
}

Deno.test("deno task relay: the printed lines work as printed", async (t) => {
  const task = await startTask(["--port", "0", "--prefix", "/r/try"]);
  try {
    const keyLine = task.lines.find((line) => /^TINY_PRIVATE_KEY=[0-9a-f]{64}$/.test(line));
    assert.ok(keyLine, "a generated key, on a TINY_PRIVATE_KEY=<hex> line");
    const hex = keyLine.slice("TINY_PRIVATE_KEY=".length);
    const diagnose = printed(task.lines, "deno task start diagnose ");
    const mcp = printed(task.lines, "deno task start mcp ");

    await t.step("both forms of each line, on the tenant's URL", () => {
      const url = diagnose[diagnose.indexOf("--relay") + 1];
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/r\/try$/);
      assert.deepEqual(printed(task.lines, "tinyagent diagnose "), ["tinyagent", ...diagnose.slice(3)]);
      assert.deepEqual(printed(task.lines, "tinyagent mcp "), ["tinyagent", ...mcp.slice(3)]);
      assert.ok(
        task.lines.some((line) => /throwaway test key/.test(line)),
        "the key is marked as a test key",
      );
    });

    await t.step(
      "the printed websocket URL: the tenant's, members-only, the printed key a member with its grant",
      () => checkPrintedWebSocket(task.lines, hex),
    );

    await t.step("the from-source diagnose line: exit 0, verdict ok, for the printed key", async () => {
      const run = await runPrinted(diagnose, hex, ["--json"]);
      assert.equal(run.code, 0, run.stderr);
      const report = JSON.parse(run.stdout);
      assert.equal(report.verdict, "ok");
      assert.equal(report.pubkey, getPublicKey(hexToBytes(hex)));
      assert.equal(report.checks.grant.status, "pass");
    });

    await t.step("another key is refused: the relay is members-only", async () => {
      const run = await runPrinted(diagnose, newKey().hex, ["--json"]);
      assert.equal(run.code, 2, run.stderr);
      assert.equal(JSON.parse(run.stdout).verdict, "not-a-member");
    });

    await t.step("the from-source mcp line serves a host", async () => {
      assert.equal(mcp[0], "deno");
      const facade = new Tinyagent({
        bin: Deno.execPath(),
        args: mcp.slice(1),
        env: { TINY_PRIVATE_KEY: hex },
      });
      try {
        const answer = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
        assert.equal((answer.result as { isError: boolean }).isError, false, JSON.stringify(answer));
        const { code, stderr } = await facade.finish();
        assert.equal(code, 0, stderr);
      } finally {
        await facade.kill();
      }
    });
  } finally {
    const { code, stderr } = await task.stop();
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^relay: stopped$/m);
  }
});

Deno.test("deno task relay --pubkey: that key is the member, and no private key is printed", async () => {
  const key = newKey();
  const task = await startTask(["--port", "0", "--pubkey", key.npub]);
  try {
    assert.ok(!task.lines.some((line) => line.includes("TINY_PRIVATE_KEY=")), "no key line");
    assert.ok(task.lines.some((line) => line.includes(key.pubkey)), "the agent's hex key is shown");
    const run = await runPrinted(printed(task.lines, "deno task start diagnose "), key.hex, ["--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).verdict, "ok");
  } finally {
    const { code, stderr } = await task.stop();
    assert.equal(code, 0, stderr);
  }
});

Deno.test("deno task relay: --help, and bad flags in one line with exit 1", async (t) => {
  const run = (args: string[]) =>
    runOnce({ bin: Deno.execPath(), args: ["task", "relay", ...args], env: ENV });
  await t.step("--help prints the usage and exits 0", async () => {
    const help = await run(["--help"]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: deno task relay /);
    for (const flag of ["--port", "--prefix", "--pubkey"]) assert.ok(help.stdout.includes(flag), flag);
  });
  await t.step("a bad flag: one line on stderr, exit 1", async () => {
    const bad = await run(["--port", "http"]);
    assert.equal(bad.code, 1);
    const lines = bad.stderr.trim().split("\n").filter((line) => !line.startsWith("Task "));
    assert.deepEqual(lines, ['relay: --port: "http" is not a port (0 to 65535) (see --help)']);
    assert.equal(bad.stdout, "");
  });
  const cases: [string, string[], RegExp][] = [
    ["a port out of range", ["--port", "65536"], /--port: "65536" is not a port/],
    ["a flag without its value", ["--port"], /--port needs a value/],
    ["a prefix that is not a path", ["--prefix", "r/a b"], /--prefix: "r\/a b" is not a path/],
    ["a pubkey that is not one", ["--pubkey", "abc"], /--pubkey: not a public key/],
    ["a private key as --pubkey", ["--pubkey", newKey().nsec], /--pubkey: that is a private key/],
    ["an unknown flag", ["--tenant", "x"], /unknown argument "--tenant"/],
  ];
  for (const [name, args, message] of cases) {
    await t.step(`parse: ${name}`, () => {
      assert.throws(
        () => parseRelayArgs(args),
        (error: Error) => error instanceof UsageError && message.test(error.message),
      );
    });
  }
  await t.step("parse: defaults, = forms, a prefix normalized, an npub decoded", () => {
    const key = newKey();
    assert.deepEqual(parseRelayArgs([]), { port: 8787, prefix: "", help: false });
    assert.deepEqual(parseRelayArgs(["--port=0", "--prefix", "r/acme/", `--pubkey=${key.npub}`]), {
      port: 0,
      prefix: "/r/acme",
      pubkey: key.pubkey,
      help: false,
    });
  });
});

/** Whether something listens on 127.0.0.1:`port`: binding it fails. */
function portTaken(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return false;
  } catch (error) {
    if (error instanceof Deno.errors.AddrInUse) return true;
    throw error;
  }
}

/** Starts the relay with `deno`, stops it with a SIGTERM to the pid it prints, and checks the port. */
async function stopByPrintedPid(deno: string): Promise<void> {
  const task = await startTask(["--port", "0"], deno);
  let pid: number | undefined;
  let signalled = false;
  try {
    pid = Number(printed(task.lines, "# pid ")[2]);
    assert.ok(Number.isSafeInteger(pid) && pid > 0, `a pid: ${pid}`);
    assert.notEqual(pid, task.pid, "the relay runs under the process started, not as it");
    const port = Number(new URL(printed(task.lines, "# relay ")[2]).port);
    assert.equal(portTaken(port), true, "the relay listens on its port");
    Deno.kill(pid, "SIGTERM");
    signalled = true;
    const { code, stderr } = await task.exited();
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^relay: stopped$/m);
    assert.equal(portTaken(port), false, "the port is free once what was started has ended");
  } finally {
    try {
      if (Number.isSafeInteger(pid) && pid! > 0 && !signalled) Deno.kill(pid!, "SIGTERM");
    } finally {
      await task.stop();
    }
  }
}

const node = Deno.build.os === "windows" ? null : findOnPath("node");

Deno.test({
  name: "deno task relay prints its pid: a SIGTERM to it stops the relay, whichever deno started it",
  ignore: Deno.build.os === "windows",
  fn: async (t) => {
    await t.step("started by deno itself", () => stopByPrintedPid(Deno.execPath()));
    await t.step({
      name: "started by npm's deno, a Node script running deno as its child",
      ignore: node === null,
      fn: async () => {
        const dir = await Deno.makeTempDir({ prefix: "tinyagent-npm-deno-" });
        try {
          const npm = await npmDeno(dir, "beside bin.cjs");
          await stopByPrintedPid(`${npm.binDir}/deno`);
          assert.equal(await npm.ran(), true, "bin.cjs started the relay");
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      },
    });
  },
});
