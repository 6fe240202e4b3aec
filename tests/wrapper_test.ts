/**
 * bin/tinyagent, the from-source launcher: it runs main.ts under exactly the flags the binary is
 * compiled with, and works when linked onto PATH and started from any directory.
 *
 * Run: deno test --allow-env --allow-run --allow-read --allow-write tests/wrapper_test.ts
 */
import assert from "node:assert/strict";
import { getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { shippedFlags } from "../scripts/shipped_flags.ts";
import { USAGE_EXIT } from "./support/contract.ts";
import { newKey, ROOT } from "./support/tinyagent.ts";

const WRAPPER = `${ROOT}bin/tinyagent`;
const decoder = new TextDecoder();
const posix = Deno.build.os !== "windows";

/** The flags of the wrapper's `exec deno run <flags> "$root/main.ts" "$@"` line. */
function wrapperFlags(script: string): string[] {
  const lines = script.split("\n").filter((line) => line.startsWith("exec "));
  assert.equal(lines.length, 1, "the wrapper has one exec line");
  const match = lines[0].match(/^exec deno run (.*) "\$root\/main\.ts" "\$@"$/);
  assert.ok(match, `unexpected exec line: ${lines[0]}`);
  return match[1].split(/\s+/);
}

async function runLinked(link: string, args: string[], cwd: string, env: Record<string, string>) {
  const deno = Deno.execPath();
  const { code, stdout, stderr } = await new Deno.Command(link, {
    args,
    cwd,
    // The wrapper runs whichever deno is on PATH: this test's own, first.
    // This test's environment (its Deno cache and registry settings) is kept.
    env: { ...env, PATH: `${deno.slice(0, deno.lastIndexOf("/"))}:${Deno.env.get("PATH") ?? ""}` },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

Deno.test("bin/tinyagent runs main.ts with exactly the shipped flags", async () => {
  assert.deepEqual(wrapperFlags(await Deno.readTextFile(WRAPPER)), shippedFlags());
});

Deno.test({
  name: "bin/tinyagent works linked onto PATH, through a chain of links, from another directory",
  ignore: !posix,
  fn: async (t) => {
    const dir = await Deno.makeTempDir({ prefix: "tinyagent-wrapper-" });
    try {
      await Deno.mkdir(`${dir}/bin`);
      await Deno.mkdir(`${dir}/elsewhere`);
      // An absolute link, and a relative link to that link: the wrapper resolves both to the checkout.
      await Deno.symlink(WRAPPER, `${dir}/bin/tinyagent-abs`);
      await Deno.symlink("tinyagent-abs", `${dir}/bin/tinyagent`);
      const key = newKey();
      const env = { TINY_PRIVATE_KEY: key.hex };

      await t.step("--version says it runs from source", async () => {
        const { code, stdout } = await runLinked(
          `${dir}/bin/tinyagent`,
          ["--version"],
          `${dir}/elsewhere`,
          env,
        );
        assert.equal(code, 0);
        assert.match(stdout, /^tinyagent 0\.\d+\.\d+/);
        assert.match(stdout, /from source/);
      });

      await t.step("whoami reads the key variable and names its public key", async () => {
        const { code, stdout, stderr } = await runLinked(
          `${dir}/bin/tinyagent`,
          ["whoami"],
          `${dir}/elsewhere`,
          env,
        );
        assert.equal(code, 0, stderr);
        const pubkey = getPublicKey(key.secretKey);
        assert.equal(stdout, `hex:  ${pubkey}\nnpub: ${nip19.npubEncode(pubkey)}\n`);
        assert.ok(!(stdout + stderr).includes(key.hex));
      });

      await t.step("arguments reach main.ts as given: a bad flag gets its usage error", async () => {
        const { code, stdout, stderr } = await runLinked(
          `${dir}/bin/tinyagent`,
          ["mcp", "--relay", "https://relay.example", "--no-such-flag"],
          `${dir}/elsewhere`,
          env,
        );
        assert.equal(code, USAGE_EXIT);
        assert.equal(stdout, "");
        assert.match(stderr, /unknown flag .--no-such-flag./);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
