/**
 * Tests for install.sh against a loopback fake of the GitHub releases (tests/support/fake_releases.ts).
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/install_test.ts
 *
 * Each installer run gets a fresh sandbox: HOME, TINYAGENT_INSTALL_DIR=<sandbox>/bin and an empty
 * TMPDIR (checked to be empty again afterwards), with a cleared environment and stdin closed.
 */
import assert from "node:assert/strict";
import {
  assetName,
  BROKEN_VERSION,
  buildFakeReleases,
  FAKE_LATEST,
  type FakeReleases,
  type FakeReleaseServer,
  serveFakeReleases,
} from "./support/fake_releases.ts";

const INSTALL_SH = new URL("../install.sh", import.meta.url).pathname;
const REPO_ROOT = new URL("..", import.meta.url).pathname;
const HOST_PATH = Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
const decoder = new TextDecoder();

function findOnPath(name: string, path = HOST_PATH): string | null {
  for (const dir of path.split(":")) {
    if (!dir) continue;
    try {
      const info = Deno.statSync(`${dir}/${name}`);
      if (info.isFile && info.mode !== null && (info.mode & 0o111) !== 0) return `${dir}/${name}`;
    } catch {
      // not in this directory
    }
  }
  return null;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return false;
    throw e;
  }
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names.sort();
}

interface Sandbox {
  home: string;
  bin: string;
  tmp: string;
}

interface RunOptions {
  args?: string[];
  /** Extra variables; `undefined` removes one of the defaults. */
  env?: Record<string, string | undefined>;
  /** The shell command to run the script with (default `sh`). */
  shell?: string[];
  /** Feed this to the shell's stdin and run `sh -s -- args` (the `curl … | sh` form). */
  stdinScript?: string;
  sandbox?: Sandbox;
}

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  sandbox: Sandbox;
}

const ESC = "\x1b";

Deno.test("install.sh", async (t) => {
  const root = await Deno.makeTempDir({ prefix: "tinyagent-install-test-" });
  let releases: FakeReleases;
  try {
    releases = await buildFakeReleases();
  } catch (e) {
    await Deno.remove(root, { recursive: true });
    throw e;
  }
  let sandboxCount = 0;

  async function newSandbox(): Promise<Sandbox> {
    const dir = `${root}/run-${++sandboxCount}`;
    const sandbox = { home: dir, bin: `${dir}/bin`, tmp: `${dir}/tmp` };
    await Deno.mkdir(sandbox.tmp, { recursive: true });
    return sandbox;
  }

  /** A directory of symlinks to the given host tools, for a PATH without some others. */
  async function toolDir(name: string, tools: string[]): Promise<string> {
    const dir = `${root}/tools-${name}`;
    await Deno.mkdir(dir);
    for (const tool of tools) {
      const found = findOnPath(tool);
      if (found) await Deno.symlink(found, `${dir}/${tool}`);
    }
    return dir;
  }

  async function install(server: FakeReleaseServer, opts: RunOptions = {}): Promise<RunResult> {
    const sandbox = opts.sandbox ?? await newSandbox();
    const env: Record<string, string> = {};
    const vars: Record<string, string | undefined> = {
      PATH: HOST_PATH,
      HOME: sandbox.home,
      TMPDIR: sandbox.tmp,
      TINYAGENT_DOWNLOAD_URL: server.url,
      TINYAGENT_INSTALL_DIR: sandbox.bin,
      TINYAGENT_UNAME_S: "Linux",
      TINYAGENT_UNAME_M: "x86_64",
      CI: "true",
      ...opts.env,
    };
    for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;

    const [shellName, ...shellArgs] = opts.shell ?? ["sh"];
    // Resolved on the host PATH, so a run's own PATH may leave out whatever it likes.
    const shell = findOnPath(shellName);
    assert.ok(shell, `${shellName} not found`);
    const piped = opts.stdinScript !== undefined;
    const args = piped
      ? [...shellArgs, "-s", "--", ...(opts.args ?? [])]
      : [...shellArgs, INSTALL_SH, ...(opts.args ?? [])];
    const child = new Deno.Command(shell, {
      args,
      env,
      clearEnv: true,
      cwd: sandbox.home,
      stdin: piped ? "piped" : "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    if (piped) {
      const writer = child.stdin.getWriter();
      await writer.write(new TextEncoder().encode(opts.stdinScript));
      await writer.close();
    }
    const out = await child.output();
    const result = {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
      sandbox,
    };
    // The download directory is always removed, whatever happened.
    assert.deepEqual(await listDir(sandbox.tmp), [], `temp files left behind:\n${result.stderr}`);
    return result;
  }

  function describe(r: RunResult): string {
    return `exit ${r.code}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
  }

  function assertOk(r: RunResult) {
    assert.equal(r.code, 0, describe(r));
  }

  async function assertFailedCleanly(r: RunResult, message: RegExp) {
    assert.notEqual(r.code, 0, describe(r));
    assert.match(r.stderr, message, describe(r));
    assert.equal(await exists(`${r.sandbox.bin}/tinyagent`), false, "nothing may be installed");
    if (await exists(r.sandbox.bin)) assert.deepEqual(await listDir(r.sandbox.bin), []);
  }

  async function installedVersion(bin: string): Promise<string> {
    const out = await new Deno.Command(`${bin}/tinyagent`, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      clearEnv: true,
    }).output();
    assert.ok(out.success, `${bin}/tinyagent --version failed`);
    return decoder.decode(out.stdout).trim();
  }

  function assetRequests(server: FakeReleaseServer): string[] {
    return server.requests.filter((r) => r.endsWith(".tar.gz"));
  }

  try {
    await t.step("installs the latest release", async () => {
      await using server = serveFakeReleases(releases);
      const r = await install(server);
      assertOk(r);
      assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
      const info = await Deno.stat(`${r.sandbox.bin}/tinyagent`);
      assert.equal(info.mode! & 0o777, 0o755);
      assert.deepEqual(server.requests.filter((r) => !r.startsWith("/tag/")), [
        "/latest",
        `/download/v${FAKE_LATEST}/${assetName(FAKE_LATEST, "x86_64-unknown-linux-gnu")}`,
        `/download/v${FAKE_LATEST}/SHA256SUMS`,
      ]);

      const path = `${r.sandbox.bin}/tinyagent`;
      // PATH advice: the install dir is not on PATH.
      assert.match(r.stdout, /is not on your PATH/);
      assert.ok(r.stdout.includes('export PATH="$HOME/bin:$PATH"'), r.stdout);
      // Hermes config.
      assert.ok(
        r.stdout.includes(
          [
            "mcp_servers:",
            "  tiny:",
            `    command: ${path}`,
            '    args: ["mcp", "--relay", "https://relay.example.test"]',
            "    env:",
            '      TINY_PRIVATE_KEY: "${TINY_PRIVATE_KEY}"',
          ].join("\n"),
        ),
        r.stdout,
      );
      assert.ok(r.stdout.includes(`${path} keygen >> ~/.hermes/.env`), r.stdout);
      // Finishes with the installed binary's --version.
      assert.equal(r.stdout.trimEnd().split("\n").at(-1), `tinyagent ${FAKE_LATEST}`);
      // Progress goes to stderr, and no colour without a terminal.
      assert.match(r.stderr, /checksum verified/);
      assert.ok(!r.stdout.includes("checksum verified"));
      assert.ok(!r.stdout.includes(ESC) && !r.stderr.includes(ESC), "no colour codes");
    });

    await t.step("no PATH advice when the install dir is already on PATH", async () => {
      await using server = serveFakeReleases(releases);
      const sandbox = await newSandbox();
      const r = await install(server, { sandbox, env: { PATH: `${sandbox.bin}:${HOST_PATH}` } });
      assertOk(r);
      assert.ok(!r.stdout.includes("is not on your PATH"), r.stdout);
      assert.match(r.stdout, /mcp_servers:/);
    });

    await t.step("defaults to $HOME/.local/bin", async () => {
      await using server = serveFakeReleases(releases);
      const r = await install(server, { env: { TINYAGENT_INSTALL_DIR: undefined } });
      assertOk(r);
      assert.equal(await installedVersion(`${r.sandbox.home}/.local/bin`), `tinyagent ${FAKE_LATEST}`);
      assert.ok(r.stdout.includes('export PATH="$HOME/.local/bin:$PATH"'), r.stdout);
    });

    await t.step("pins a version given as an argument (v1.2.3 and 1.2.3)", async () => {
      for (const arg of ["v1.2.3", "1.2.3"]) {
        await using server = serveFakeReleases(releases);
        const r = await install(server, { args: [arg], env: { TINYAGENT_VERSION: "1.3.0" } });
        assertOk(r);
        assert.equal(await installedVersion(r.sandbox.bin), "tinyagent 1.2.3");
        assert.ok(!server.requests.includes("/latest"), "no latest lookup for a pinned version");
        assert.deepEqual(assetRequests(server), [
          `/download/v1.2.3/${assetName("1.2.3", "x86_64-unknown-linux-gnu")}`,
        ]);
      }
    });

    await t.step("pins a version from TINYAGENT_VERSION", async () => {
      for (const version of ["v1.2.3", "1.2.3"]) {
        await using server = serveFakeReleases(releases);
        const r = await install(server, { env: { TINYAGENT_VERSION: version } });
        assertOk(r);
        assert.equal(await installedVersion(r.sandbox.bin), "tinyagent 1.2.3");
        assert.ok(!server.requests.includes("/latest"));
      }
    });

    await t.step("rejects something that is not a version", async () => {
      await using server = serveFakeReleases(releases);
      for (const bad of ["1.2", "latest", "v1.2.3/../x", "1.2.3; true"]) {
        const r = await install(server, { args: [bad] });
        await assertFailedCleanly(r, /not a version/);
      }
      assert.deepEqual(server.requests, []);
    });

    await t.step("works piped into `sh -s -- v1.2.3`, as with curl | sh", async () => {
      const script = await Deno.readTextFile(INSTALL_SH);
      await using server = serveFakeReleases(releases);
      const pinned = await install(server, { stdinScript: script, args: ["v1.2.3"] });
      assertOk(pinned);
      assert.equal(await installedVersion(pinned.sandbox.bin), "tinyagent 1.2.3");
      const latest = await install(server, { stdinScript: script });
      assertOk(latest);
      assert.equal(await installedVersion(latest.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
    });

    await t.step("a cut-off download of the script does nothing", async () => {
      const script = await Deno.readTextFile(INSTALL_SH);
      const lastLine = script.lastIndexOf('main "$@"');
      assert.ok(lastLine > 0);
      const cuts = [0.1, 0.3, 0.5, 0.7, 0.9].map((f) => Math.floor(script.length * f));
      cuts.push(lastLine, lastLine + 3);
      await using server = serveFakeReleases(releases);
      for (const cut of cuts) {
        const r = await install(server, { stdinScript: script.slice(0, cut) });
        assert.equal(await exists(r.sandbox.bin), false, `cut at ${cut}: ${describe(r)}`);
      }
      assert.deepEqual(server.requests, []);
    });

    await t.step("a checksum mismatch installs nothing", async () => {
      await using server = serveFakeReleases(releases, { corruptChecksum: true });
      const r = await install(server);
      await assertFailedCleanly(r, /checksum mismatch/);
      assert.match(r.stderr, new RegExp(assetName(FAKE_LATEST, "x86_64-unknown-linux-gnu")));
    });

    await t.step("a missing SHA256SUMS installs nothing", async () => {
      await using server = serveFakeReleases(releases, { dropSums: true });
      const r = await install(server);
      await assertFailedCleanly(r, /SHA256SUMS/);
      assert.match(r.stderr, /cannot be checked/);
    });

    await t.step("a SHA256SUMS without the asset's line installs nothing", async () => {
      await using server = serveFakeReleases(releases, { dropLines: true });
      const r = await install(server, { args: ["1.2.3"] });
      await assertFailedCleanly(r, /no checksum for tinyagent-1\.2\.3-x86_64-unknown-linux-gnu\.tar\.gz/);
    });

    await t.step("a failing `tinyagent --version` after installing is an error", async () => {
      await using server = serveFakeReleases(releases);
      const r = await install(server, { args: [`v${BROKEN_VERSION}`] });
      assert.notEqual(r.code, 0, describe(r));
      assert.match(r.stderr, /--version' failed: tinyagent: cannot start \(fake failure\)/);
      assert.ok(!r.stdout.includes("mcp_servers:"), "no success summary after a failed check");
    });

    await t.step("no sha256sum or shasum: aborts before downloading", async () => {
      const tools = await toolDir("no-sha", [
        ...["mktemp", "rm", "mkdir", "cp", "chmod", "mv", "tar", "gzip", "awk", "grep", "sed"],
        ...["tail", "tr", "cat", "curl"],
      ]);
      await using server = serveFakeReleases(releases);
      const r = await install(server, { env: { PATH: tools } });
      await assertFailedCleanly(r, /neither sha256sum nor shasum/);
      assert.deepEqual(server.requests, []);
    });

    await t.step({
      name: "falls back to wget when curl is missing",
      ignore: findOnPath("wget") === null,
      fn: async () => {
        const tools = await toolDir("wget", [
          ...["mktemp", "rm", "mkdir", "cp", "chmod", "mv", "tar", "gzip", "awk", "grep", "sed"],
          ...["tail", "tr", "cat", "sha256sum", "wget"],
        ]);
        await using server = serveFakeReleases(releases);
        const r = await install(server, { env: { PATH: tools } });
        assertOk(r);
        assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
        assert.ok(server.requests.includes("/latest"));
        assert.ok(server.userAgents.length > 0 && server.userAgents.every((ua) => /wget/i.test(ua)));

        await using broken = serveFakeReleases(releases, { corruptChecksum: true });
        await assertFailedCleanly(await install(broken, { env: { PATH: tools } }), /checksum mismatch/);
      },
    });

    await t.step("an unsupported platform is refused with the releases page", async () => {
      await using server = serveFakeReleases(releases);
      for (
        const [os, arch] of [["FreeBSD", "amd64"], ["Linux", "riscv64"], ["MINGW64_NT-10.0", "x86_64"]]
      ) {
        const r = await install(server, { env: { TINYAGENT_UNAME_S: os, TINYAGENT_UNAME_M: arch } });
        await assertFailedCleanly(r, new RegExp(`unsupported platform: ${os}/${arch}`));
        assert.ok(r.stderr.includes(server.url), r.stderr);
      }
      assert.deepEqual(server.requests, []);
    });

    await t.step("picks the asset for each OS and architecture", async () => {
      const cases: [Record<string, string>, string][] = [
        [{ TINYAGENT_UNAME_S: "Linux", TINYAGENT_UNAME_M: "x86_64" }, "x86_64-unknown-linux-gnu"],
        [{ TINYAGENT_UNAME_S: "Linux", TINYAGENT_UNAME_M: "amd64" }, "x86_64-unknown-linux-gnu"],
        [{ TINYAGENT_UNAME_S: "Linux", TINYAGENT_UNAME_M: "aarch64" }, "aarch64-unknown-linux-gnu"],
        [{ TINYAGENT_UNAME_S: "Linux", TINYAGENT_UNAME_M: "arm64" }, "aarch64-unknown-linux-gnu"],
        [{ TINYAGENT_UNAME_S: "Darwin", TINYAGENT_UNAME_M: "arm64" }, "aarch64-apple-darwin"],
        [
          { TINYAGENT_UNAME_S: "Darwin", TINYAGENT_UNAME_M: "x86_64", TINYAGENT_PROC_TRANSLATED: "0" },
          "x86_64-apple-darwin",
        ],
      ];
      for (const [env, target] of cases) {
        await using server = serveFakeReleases(releases);
        const r = await install(server, { args: ["1.2.3"], env });
        assertOk(r);
        assert.deepEqual(assetRequests(server), [`/download/v1.2.3/${assetName("1.2.3", target)}`]);
        const installed = await Deno.readTextFile(`${r.sandbox.bin}/tinyagent`);
        assert.ok(installed.includes(`for ${target}`), `${JSON.stringify(env)}: ${installed}`);
      }
    });

    await t.step("Darwin x86_64 under Rosetta installs the arm64 build", async () => {
      await using server = serveFakeReleases(releases);
      const r = await install(server, {
        env: { TINYAGENT_UNAME_S: "Darwin", TINYAGENT_UNAME_M: "x86_64", TINYAGENT_PROC_TRANSLATED: "1" },
      });
      assertOk(r);
      assert.deepEqual(assetRequests(server), [
        `/download/v${FAKE_LATEST}/${assetName(FAKE_LATEST, "aarch64-apple-darwin")}`,
      ]);
      assert.match(r.stderr, /Rosetta/);
    });

    await t.step("reinstalling replaces the old copy atomically", async () => {
      await using server = serveFakeReleases(releases);
      const sandbox = await newSandbox();
      await Deno.mkdir(sandbox.bin);
      await Deno.writeTextFile(`${sandbox.bin}/tinyagent`, "#!/bin/sh\necho old\n", { mode: 0o555 });
      await Deno.writeTextFile(`${sandbox.bin}/other-tool`, "keep me\n");

      const old = await install(server, { sandbox, args: ["v1.2.3"] });
      assertOk(old);
      assert.equal(await installedVersion(sandbox.bin), "tinyagent 1.2.3");
      const upgrade = await install(server, { sandbox });
      assertOk(upgrade);
      assert.equal(await installedVersion(sandbox.bin), `tinyagent ${FAKE_LATEST}`);
      assert.ok((await Deno.readTextFile(`${sandbox.bin}/tinyagent`)).includes(FAKE_LATEST));
      assert.equal((await Deno.stat(`${sandbox.bin}/tinyagent`)).mode! & 0o777, 0o755);
      // No temp copies left next to it, and other files untouched.
      assert.deepEqual(await listDir(sandbox.bin), ["other-tool", "tinyagent"]);
      assert.equal(await Deno.readTextFile(`${sandbox.bin}/other-tool`), "keep me\n");
    });

    await t.step("an interrupted download (SIGTERM) leaves no temp files", async () => {
      await using server = serveFakeReleases(releases, { stallAssets: true });
      const sandbox = await newSandbox();
      const child = new Deno.Command("sh", {
        args: [INSTALL_SH],
        clearEnv: true,
        env: {
          PATH: HOST_PATH,
          HOME: sandbox.home,
          TMPDIR: sandbox.tmp,
          TINYAGENT_DOWNLOAD_URL: server.url,
          TINYAGENT_INSTALL_DIR: sandbox.bin,
          TINYAGENT_UNAME_S: "Linux",
          TINYAGENT_UNAME_M: "x86_64",
          CI: "true",
        },
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
      await server.waitForRequest(".tar.gz");
      assert.equal((await listDir(sandbox.tmp)).length, 1, "the download dir exists mid-download");
      child.kill("SIGTERM");
      // The shell runs its trap once the foreground download returns.
      server.release();
      const out = await child.output();
      // install.sh's TERM trap exits with 128 + 15.
      assert.equal(out.code, 143, decoder.decode(out.stderr));
      assert.deepEqual(await listDir(sandbox.tmp), []);
      assert.equal(await exists(`${sandbox.bin}/tinyagent`), false);
    });

    await t.step("runs under every POSIX shell available (dash, sh, bash --posix, busybox sh)", async () => {
      const shells: string[][] = [["dash"], ["sh"], ["bash", "--posix"], ["busybox", "sh"]]
        .filter(([cmd]) => findOnPath(cmd) !== null);
      assert.ok(shells.length > 0);
      await using server = serveFakeReleases(releases);
      for (const shell of shells) {
        const r = await install(server, { shell });
        assert.equal(r.code, 0, `${shell.join(" ")}: ${describe(r)}`);
        assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
        const bad = await install(server, { shell, env: { TINYAGENT_UNAME_S: "FreeBSD" } });
        await assertFailedCleanly(bad, /unsupported platform: FreeBSD\/x86_64/);
      }
    });

    const shellcheck = findOnPath("shellcheck");
    const inCI = Boolean(Deno.env.get("CI"));
    if (shellcheck === null && !inCI) {
      console.warn("note: shellcheck is not installed, so the shellcheck step is ignored");
    }
    await t.step({
      name: "shellcheck install.sh reports nothing",
      ignore: shellcheck === null && !inCI,
      fn: async () => {
        assert.ok(
          shellcheck !== null,
          "shellcheck is not installed but CI is set; install it (apt-get install -y shellcheck)",
        );
        const out = await new Deno.Command(shellcheck, {
          args: ["install.sh"],
          cwd: REPO_ROOT,
          stdin: "null",
          stdout: "piped",
          stderr: "piped",
        }).output();
        const report = decoder.decode(out.stdout) + decoder.decode(out.stderr);
        assert.equal(out.code, 0, report);
        assert.equal(report, "");
      },
    });
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
