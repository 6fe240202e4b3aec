// The sandbox, proved from inside: under the shipped flags the facade works
// end to end, while code running where it runs reaches nothing but the
// relay's host:port and the key variable. Narrower and broader launches
// behave as docs/security.md says.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { startStrictRelay } from "../support/strict_relay/mod.ts";
import { narrowFlags, newKey, runOnce, withFacade } from "../support/tinyagent.ts";
import {
  CONTRACT_READ,
  CONTRACT_WRITE,
  HANDSHAKE_VERSIONS,
  TINY_DIAGNOSE,
  VERDICT_EXIT,
} from "../support/contract.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";

const NOT_ACTIVE = /the sandbox is not active/;

Deno.test("under the shipped flags the facade works end to end, sandboxed", async () => {
  const session = { flags: shippedFlags(), args: ["--allow-writes"] };
  const { stderr } = await withFacade(session, async (facade, relay) => {
    const init = await facade.request("initialize", { protocolVersion: HANDSHAKE_VERSIONS[0] });
    assert.equal((init.result as { serverInfo: { name: string } }).serverInfo.name, "tinyagent");
    const list = await facade.request("tools/list", {});
    assert.deepEqual(
      (list.result as { tools: { name: string }[] }).tools.map((tool) => tool.name),
      [...CONTRACT_READ, ...CONTRACT_WRITE, TINY_DIAGNOSE],
    );
    const read = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
    assert.equal((read.result as { isError: boolean }).isError, false);
    const write = await facade.request("tools/call", {
      name: "post_message",
      arguments: { room: "general", content: "hi" },
    });
    assert.equal((write.result as { isError: boolean }).isError, false);
    assert.ok(verifyEvent(relay.published.at(-1)!));
    const diagnose = await facade.request("tools/call", { name: TINY_DIAGNOSE, arguments: {} });
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
    assert.equal(run.code, VERDICT_EXIT["needs-grant"], run.stderr);
    const report = JSON.parse(run.stdout);
    assert.equal(report.verdict, "needs-grant");
    assert.deepEqual(report.checks.coverage.missing.rooms, ["ops"]);
    assert.equal(report.pubkey, key.pubkey);
    assert.doesNotMatch(run.stderr, NOT_ACTIVE);
  } finally {
    await relay.close();
  }
});

/** What `tinyagent sandbox-check` must find, check by check: the same probe the release runs on each binary. */
const EXPECTED_CHECKS: [RegExp, "allowed" | "denied"][] = [
  [/^connect to the relay 127\.0\.0\.1:\d+$/, "allowed"],
  [/^read TINY_PRIVATE_KEY$/, "allowed"],
  [/^connect to another port 127\.0\.0\.1:\d+$/, "denied"],
  [/^connect to another host /, "denied"],
  [/^fetch another host$/, "denied"],
  [/^read another variable/, "denied"],
  [/^read the whole environment$/, "denied"],
  [/^read a file$/, "denied"],
  [/^write a file$/, "denied"],
  [/^start a process$/, "denied"],
  [/^load a native library \(FFI\)$/, "denied"],
  [/^read system information$/, "denied"],
  [/^import code from the network$/, "denied"],
];

Deno.test("sandbox-check: code where the facade runs reaches only the relay's host:port and the key variable", async (t) => {
  const relay = await startStrictRelay();
  try {
    const launches: [string, string[], string][] = [
      ["under the shipped flags, in the worker", shippedFlags(), "worker"],
      ["started confined (--allow-net=HOST --allow-env=VAR)", narrowFlags(relay.host), "confined process"],
    ];
    for (const [name, flags, ran] of launches) {
      await t.step(name, async () => {
        const run = await runOnce({ flags, args: ["sandbox-check", "--relay", relay.url, "--json"] });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const report = JSON.parse(run.stdout);
        assert.equal(report.ran, ran);
        assert.equal(report.checks.length, EXPECTED_CHECKS.length);
        EXPECTED_CHECKS.forEach(([pattern, expect], i) => {
          const check = report.checks[i];
          assert.match(check.name, pattern);
          assert.equal(check.expect, expect, check.name);
          if (expect === "denied") assert.equal(check.outcome, "NotCapable", check.name);
          else assert.notEqual(check.outcome, "NotCapable", check.name);
          assert.equal(check.pass, true, check.name);
        });
        assert.deepEqual(report.main_thread_holds, [], "the main thread gave up every permission");
        assert.equal(report.pass, true);
      });
    }
    await t.step("the readable report ends with the verdict", async () => {
      const run = await runOnce({ flags: shippedFlags(), args: ["sandbox-check", "--relay", relay.url] });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stdout.trim().split("\n").at(-1), "sandbox: confined");
      assert.equal(run.stdout.match(/^✓ /gm)?.length, EXPECTED_CHECKS.length + 1);
    });
    await t.step("without a sandbox (broad flags, no way to start the worker) it fails", async () => {
      const run = await runOnce({
        flags: ["--allow-net", "--allow-env"],
        args: ["sandbox-check", "--relay", relay.url, "--json"],
      });
      assert.equal(run.code, 1);
      assert.match(run.stderr, /sandbox-check: no sandbox/);
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
