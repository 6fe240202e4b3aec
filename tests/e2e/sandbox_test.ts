// The sandbox, proved from inside: under the shipped flags the facade works
// end to end, while code running where it runs reaches nothing but the
// relay's host:port and the key variable. Narrower and broader launches
// behave as the README says.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { narrowFlags, newKey, ROOT, runOnce, withFacade } from "../support/tinyagent.ts";
import { CONTRACT_READ, CONTRACT_WRITE } from "../support/contract.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";

const NOT_ACTIVE = /the sandbox is not active/;

Deno.test("under the shipped flags the facade works end to end, sandboxed", async () => {
  const session = { flags: shippedFlags(), args: ["--allow-writes"] };
  const { stderr } = await withFacade(session, async (facade, relay) => {
    const init = await facade.request("initialize", { protocolVersion: "2025-06-18" });
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, "tinyagent");
    const list = await facade.request("tools/list", {});
    assert.deepEqual(
      (list.result as { tools: { name: string }[] }).tools.map((tool) => tool.name),
      [...CONTRACT_READ, ...CONTRACT_WRITE, "tiny_diagnose"],
    );
    const read = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
    assert.equal((read.result as { isError: boolean }).isError, false);
    const write = await facade.request("tools/call", {
      name: "post_message",
      arguments: { room: "general", content: "hi" },
    });
    assert.equal((write.result as { isError: boolean }).isError, false);
    assert.ok(verifyEvent(relay.published.at(-1)!));
    const diagnose = await facade.request("tools/call", { name: "tiny_diagnose", arguments: {} });
    assert.match((diagnose.result as { content: { text: string }[] }).content[0].text, /^ok: /);
  });
  assert.doesNotMatch(stderr, NOT_ACTIVE);
});

Deno.test("under the shipped flags, a startup failure in the sandbox still reaches the host as one line", async () => {
  const run = await runOnce({
    flags: shippedFlags(),
    args: ["mcp", "--relay", "http://127.0.0.1:9"],
    env: { TINY_PRIVATE_KEY: "${TINY_PRIVATE_KEY}" },
  });
  assert.equal(run.code, 1);
  assert.equal(run.stderr.trim().split("\n").length, 1);
  assert.match(run.stderr, /^tinyagent: TINY_PRIVATE_KEY holds a literal/);
});

Deno.test("under the shipped flags, diagnose's exit status and report reach the caller from the sandbox", async () => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    const run = await runOnce({
      flags: shippedFlags(),
      args: ["diagnose", "--relay", relay.url, "--rooms", "general,ops", "--json"],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    assert.equal(run.code, 2, run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.verdict, "needs-grant");
    assert.deepEqual(report.checks.coverage.missing.rooms, ["ops"]);
    assert.equal(report.pubkey, key.pubkey);
    assert.doesNotMatch(run.stderr, NOT_ACTIVE);
  } finally {
    await relay.close();
  }
});

Deno.test("code where the facade runs reaches only the relay's host:port and the key variable", async (t) => {
  const relay = await startStrictRelay();
  try {
    const output = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--quiet",
        ...shippedFlags(),
        "tests/support/sandbox_probe.ts",
        "mcp",
        "--relay",
        relay.url,
      ],
      cwd: ROOT,
      env: { TINY_PRIVATE_KEY: newKey().hex },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assert.equal(output.code, 0, stderr);
    const lines = new TextDecoder().decode(output.stdout).trim().split("\n").map((line) => JSON.parse(line));
    const worker = lines.find((line) => line.worker).worker as Record<string, string>;
    const main = lines.find((line) => line.main);
    await t.step("the relay's host and port, and the key variable: allowed", () => {
      assert.equal(worker.relayHost, "ok");
      assert.equal(worker.keyVariable, "ok");
    });
    const refused: [string, string][] = [
      ["otherPort", "another port on the relay's host"],
      ["otherHost", "another host"],
      ["otherVariable", "another environment variable"],
      ["allVariables", "the whole environment"],
      ["readFile", "a file"],
      ["readOwnSource", "its own source"],
      ["writeFile", "writing a file"],
      ["startProcess", "starting a process"],
      ["systemInfo", "system information"],
    ];
    for (const [probe, what] of refused) {
      await t.step(`${what}: NotCapable`, () => assert.equal(worker[probe], "NotCapable"));
    }
    await t.step("the main thread gave up every permission it started with", () => {
      assert.deepEqual(main.outcome, { started: true, code: 0 });
      for (const [name, state] of Object.entries(main.main as Record<string, string>)) {
        assert.notEqual(state, "granted", `main thread still holds ${name}`);
      }
    });
  } finally {
    await relay.close();
  }
});

Deno.test("launches other than the shipped flags", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  const ping =
    '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"list_rooms"}}\n';
  const check = async (flags: string[], active: boolean) => {
    const run = await runOnce({
      flags,
      args: ["mcp", "--relay", relay.url],
      env: { TINY_PRIVATE_KEY: key.hex },
      stdin: ping,
    });
    assert.equal(run.code, 0, run.stderr);
    const answers = run.stdout.trim().split("\n").map((line) => JSON.parse(line));
    assert.deepEqual(answers.map((a) => a.id).sort(), [1, 2]);
    assert.equal(answers.find((a) => a.id === 2).result.isError, false);
    if (active) assert.doesNotMatch(run.stderr, NOT_ACTIVE);
    else assert.equal(run.stderr.split("\n").filter((line) => NOT_ACTIVE.test(line)).length, 1, "said once");
  };
  try {
    await t.step(
      "already confined (--allow-net=HOST --allow-env=VAR): runs as it is, no warning",
      async () => {
        await check(narrowFlags(relay.host), true);
      },
    );
    await t.step("-A: deno.json enables worker options, so it still narrows itself", async () => {
      await check(["-A"], true);
    });
    await t.step(
      "broad net and env but no way to load the worker: works, and says once the sandbox is off",
      async () => {
        await check(["--allow-net", "--allow-env"], false);
      },
    );
  } finally {
    await relay.close();
  }
});
