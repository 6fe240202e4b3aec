// `tinyagent config HOST` as a person runs it: every host's configuration names this tinyagent by
// its absolute path and never holds the key, and the line printed for Claude Code, run as printed,
// gives a server the real Claude Code connects to.

import assert from "node:assert/strict";
import { HOSTS } from "../../lib/cli/args.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { claudeEnv, claudeShim, denoDir, OFFLINE } from "../support/claude_code.ts";
import { assertNoSecret, newKey, ROOT, runOnce } from "../support/tinyagent.ts";

const RELAY = "https://relay.example.test";
const FLAGS = ["--allow-writes", "--confirm-writes", "--max-writes", "20"];

Deno.test("tinyagent config: each host's configuration, this tinyagent's absolute path, never the key", async (t) => {
  const key = newKey();
  for (const host of HOSTS) {
    await t.step(host, async () => {
      const { code, stdout, stderr } = await runOnce({
        flags: shippedFlags(),
        args: ["config", host, "--relay", RELAY, ...FLAGS],
        // The key is right there in the environment: it must not be read, let alone printed.
        env: { TINY_PRIVATE_KEY: key.hex },
      });
      assert.equal(code, 0, stderr);
      assert.ok(stdout.includes(`${ROOT}bin/tinyagent`), stdout);
      assert.ok(stdout.includes(RELAY) && stdout.includes("--max-writes"), stdout);
      // Cursor shows no resources: its configuration reads them through tiny_read; the others' do not.
      assert.equal(stdout.includes("--read-tool"), host === "cursor", `${host}: --read-tool`);
      assert.match(stderr, /^tinyagent: config: /);
      assertNoSecret(key, stdout + stderr, `config ${host}`);
    });
  }
  await t.step("a usage error names the hosts", async () => {
    const { code, stderr } = await runOnce({
      flags: shippedFlags(),
      args: ["config", "vscode", "--relay", RELAY],
    });
    assert.equal(code, 1);
    assert.match(stderr, /unknown host "vscode"; the hosts are hermes, claude-code, claude-desktop, cursor/);
  });
});

Deno.test({
  name: "tinyagent config claude-code: the printed line, run as printed, connects in the real Claude Code",
  ignore: OFFLINE || Deno.build.os === "windows",
  fn: async () => {
    const key = newKey();
    const printed = await runOnce({
      flags: shippedFlags(),
      args: ["config", "claude-code", "--relay", RELAY, ...FLAGS],
    });
    assert.equal(printed.code, 0, printed.stderr);
    const line = printed.stdout.trim();
    assert.ok(!line.includes("\n"), "one line");
    const home = await Deno.makeTempDir({ prefix: "tinyagent-config-" });
    try {
      const shims = await claudeShim(`${home}/shims`);
      const denoBin = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
      const { code, stdout, stderr } = await new Deno.Command("sh", {
        args: ["-c", `set -e\n${line}\nclaude mcp list`],
        cwd: home,
        clearEnv: true,
        env: {
          HOME: home,
          PATH: `${shims}:${denoBin}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
          DENO_DIR: await denoDir(),
          DENO_NO_UPDATE_CHECK: "1",
          TINY_PRIVATE_KEY: key.hex,
          ...claudeEnv(),
        },
        stdout: "piped",
        stderr: "piped",
        signal: AbortSignal.timeout(240_000),
      }).output();
      const out = new TextDecoder().decode(stdout);
      assert.equal(code, 0, `${out}\n${new TextDecoder().decode(stderr)}`);
      assert.ok(
        out.includes(`tiny: ${ROOT}bin/tinyagent mcp --relay ${RELAY} ${FLAGS.join(" ")} - ✔ Connected`),
        out,
      );
      const stored = await Deno.readTextFile(`${home}/.claude.json`);
      assert.ok(stored.includes('"TINY_PRIVATE_KEY": "${TINY_PRIVATE_KEY}"'), "the placeholder, as printed");
      assertNoSecret(key, stored + out, "Claude Code's configuration and output");
    } finally {
      await Deno.remove(home, { recursive: true });
    }
  },
});
