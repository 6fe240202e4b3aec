/**
 * bin/tinyagent, the from-source launcher: it runs launch.ts under exactly the flags the binary is
 * compiled with, with Deno's update check off (the binary never checks), and works when linked
 * onto PATH and started from any directory. With npm's deno on PATH (a Node script that runs the
 * real binary as its child), it runs that binary itself, so a host's signal reaches the process
 * that serves it.
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/wrapper_test.ts
 */
import assert from "node:assert/strict";
import { getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { shippedFlags } from "../scripts/shipped_flags.ts";
import { USAGE_EXIT } from "./support/contract.ts";
import { findOnPath, npmDeno } from "./support/npm_deno.ts";
import { shellcheckTest } from "./support/shellcheck.ts";
import { newKey, ROOT, Tinyagent } from "./support/tinyagent.ts";

const WRAPPER = `${ROOT}bin/tinyagent`;
const decoder = new TextDecoder();
const posix = Deno.build.os !== "windows";

/** The flags of the wrapper's `exec "$deno" run <flags> "$root/launch.ts" "$@"` line. */
function wrapperFlags(script: string): string[] {
  const lines = script.split("\n").filter((line) => line.startsWith("exec "));
  assert.equal(lines.length, 1, "the wrapper has one exec line");
  const match = lines[0].match(/^exec "\$deno" run (.*) "\$root\/launch\.ts" "\$@"$/);
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
    env: {
      ...env,
      PATH: `${deno.slice(0, deno.lastIndexOf("/"))}:${Deno.env.get("PATH") ?? ""}`,
      DENO_NO_UPDATE_CHECK: "1",
    },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

Deno.test("bin/tinyagent runs launch.ts with exactly the shipped flags", async () => {
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

      await t.step("arguments reach launch.ts as given: a bad flag gets its usage error", async () => {
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

shellcheckTest("bin/tinyagent", ROOT);

/** Runs the launcher with `pathDirs` as the whole PATH, from a temporary directory. */
async function runWithPath(pathDirs: string[], args: string[], cwd: string) {
  const { code, stdout, stderr } = await new Deno.Command(WRAPPER, {
    args,
    cwd,
    env: { PATH: pathDirs.join(":"), DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** The PATH of this test with `dir` first. */
function pathWith(dir: string): string[] {
  return [dir, ...(Deno.env.get("PATH") ?? "").split(":")];
}

Deno.test({
  name: "bin/tinyagent without deno on PATH: one line naming the installers, exit 127",
  ignore: !posix,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tinyagent-wrapper-" });
    try {
      const { code, stdout, stderr } = await runWithPath([dir], ["--version"], dir);
      assert.equal(code, 127);
      assert.equal(stdout, "");
      assert.equal(stderr.split("\n").length, 2, `one line: ${stderr}`);
      assert.match(stderr, /^tinyagent: deno is not on PATH \(/);
      const installer = stderr.indexOf("https://deno.land/install.sh");
      const npm = stderr.indexOf("npm install -g deno");
      assert.ok(installer > 0 && npm > installer, `Deno's installer first, npm second: ${stderr}`);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test({
  name: "bin/tinyagent starts deno with DENO_NO_UPDATE_CHECK=1 when its caller's environment has none",
  ignore: !posix,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tinyagent-wrapper-" });
    try {
      await Deno.mkdir(`${dir}/bin`);
      // A deno that writes down the environment and the arguments it was started with, and ends.
      await Deno.writeTextFile(
        `${dir}/bin/deno`,
        `#!/bin/sh\nenv >'${dir}/env'\nprintf '%s\\n' "$@" >'${dir}/args'\n`,
        { mode: 0o755 },
      );
      const { code, stderr } = await new Deno.Command(WRAPPER, {
        args: ["--version"],
        cwd: dir,
        clearEnv: true,
        env: { PATH: `${dir}/bin:/usr/bin:/bin` },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.equal(code, 0, decoder.decode(stderr));
      const args = (await Deno.readTextFile(`${dir}/args`)).trimEnd().split("\n");
      assert.deepEqual([args[0], args.at(-1)], ["run", "--version"], "the launcher ran this deno");
      const env = (await Deno.readTextFile(`${dir}/env`)).split("\n");
      assert.deepEqual(env.filter((line) => line.startsWith("DENO_NO_UPDATE_CHECK=")), [
        "DENO_NO_UPDATE_CHECK=1",
      ]);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

const node = posix ? findOnPath("node") : null;
if (posix && node === null) {
  console.warn("note: node is not on PATH, so the tests with npm's deno are ignored");
}

Deno.test({
  name: "bin/tinyagent with npm's deno on PATH runs the real binary it ships, wherever npm put it",
  ignore: node === null,
  fn: async (t) => {
    const places = ["beside bin.cjs", "in the platform package", "in the hoisted platform package"] as const;
    for (const place of places) {
      await t.step(`the binary ${place}: --version, and bin.cjs never runs`, async () => {
        const dir = await Deno.makeTempDir({ prefix: "tinyagent-npm-deno-" });
        try {
          const npm = await npmDeno(dir, place);
          const { code, stdout, stderr } = await runWithPath(pathWith(npm.binDir), ["--version"], dir);
          assert.equal(code, 0, stderr);
          assert.match(stdout, /^tinyagent 0\.\d+\.\d+/);
          assert.match(stdout, /from source/);
          assert.equal(await npm.ran(), false, "bin.cjs (node) ran: the launcher did not run the binary");
        } finally {
          await Deno.remove(dir, { recursive: true });
        }
      });
    }

    await t.step("a bin.cjs whose package.json names another package is run as it is", async () => {
      const dir = await Deno.makeTempDir({ prefix: "tinyagent-npm-deno-" });
      try {
        const other = await npmDeno(dir, "beside bin.cjs", "deno-tools");
        const { code, stdout, stderr } = await runWithPath(pathWith(other.binDir), ["--version"], dir);
        assert.equal(code, 0, stderr);
        assert.match(stdout, /^tinyagent 0\.\d+\.\d+/);
        assert.equal(await other.ran(), true, "the launcher went around a bin.cjs that is not npm's deno");
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    });
  },
});

/** The pids of every process under `pid` (`ps` lists each process with its parent). */
async function descendants(pid: number): Promise<number[]> {
  const out = await new Deno.Command("ps", { args: ["-A", "-o", "pid=", "-o", "ppid="], stderr: "inherit" })
    .output();
  const parents = new Map<number, number[]>();
  for (const line of decoder.decode(out.stdout).trim().split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    parents.set(parent, [...(parents.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const visit = (p: number) => (parents.get(p) ?? []).forEach((c) => (found.push(c), visit(c)));
  visit(pid);
  return found;
}

/** Those of `pids` that are still processes. */
async function alive(pids: number[]): Promise<number[]> {
  const out = await new Deno.Command("ps", { args: ["-A", "-o", "pid="] }).output();
  const running = new Set(decoder.decode(out.stdout).trim().split(/\s+/).map(Number));
  return pids.filter((pid) => running.has(pid));
}

Deno.test({
  name: "bin/tinyagent mcp with npm's deno on PATH: SIGTERM to the launched pid ends it all, status 0",
  ignore: node === null,
  fn: async () => {
    const dir = await Deno.makeTempDir({ prefix: "tinyagent-npm-deno-" });
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    const npm = await npmDeno(dir, "beside bin.cjs");
    const facade = new Tinyagent({
      bin: WRAPPER,
      args: ["mcp", "--relay", `http://127.0.0.1:${port}`],
      env: { PATH: pathWith(npm.binDir).join(":"), TINY_PRIVATE_KEY: newKey().hex },
    });
    let below: number[] = [];
    try {
      const answer = await facade.request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "wrapper_test", version: "0" },
      });
      assert.ok(answer.result, JSON.stringify(answer));
      below = await descendants(facade.child.pid);
      facade.child.kill("SIGTERM");
      let timer: ReturnType<typeof setTimeout> | undefined;
      const status = await Promise.race([
        facade.child.status,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error("still running 5 s after SIGTERM")), 5000);
        }),
      ]).finally(() => clearTimeout(timer));
      // Nothing the launch started outlives it, and it ended as tinyagent ends at SIGTERM.
      const left = await alive([facade.child.pid, ...below]);
      assert.deepEqual(
        { left, code: status.code, signal: status.signal },
        { left: [], code: 0, signal: null },
        facade.stderr,
      );
      assert.equal(await npm.ran(), false, "bin.cjs (node) ran: the launched process was not the real deno");
    } finally {
      for (const pid of await alive(below)) Deno.kill(pid, "SIGKILL");
      await facade.kill();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
