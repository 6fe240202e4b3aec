/**
 * Tests for install.sh against a loopback fake of the GitHub releases (tests/support/fake_releases.ts).
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/install_test.ts
 *
 * Each installer run gets a fresh sandbox: HOME, TINYAGENT_INSTALL_DIR=<sandbox>/bin and an empty
 * TMPDIR (checked to be empty again afterwards), with a cleared environment and stdin closed. Its
 * PATH holds only links to the host tools the installer uses, after a directory for the fake `gh`
 * and `ldd` a test asks for, so whether gh is "installed" is the test's choice, not the host's.
 * The same directory takes wrappers that record the arguments of each run of curl or wget.
 */
import { shellcheckTest } from "./support/shellcheck.ts";
import assert from "node:assert/strict";
import {
  assetName,
  attestationApi,
  BROKEN_VERSION,
  buildFakeReleases,
  bundleName,
  FAKE_LATEST,
  FAKE_REPO,
  type FakeGhOptions,
  type FakeReleaseServer,
  fakeVersionOutput,
  serveFakeReleases,
  writeFakeGh,
  writeFakeLdd,
  writeRecorder,
} from "./support/fake_releases.ts";
import { testCertificates } from "./support/tls.ts";

const INSTALL_SH = new URL("../install.sh", import.meta.url).pathname;
const REPO_ROOT = new URL("..", import.meta.url).pathname;
const HOST_PATH = Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
const LINUX_X64 = "x86_64-unknown-linux-gnu";
const ESC = "\x1b";
const decoder = new TextDecoder();

/** The host tools install.sh (and the fakes) may run; a run's PATH links to these and nothing else. */
const BASE_TOOLS = [
  ...["mktemp", "rm", "mkdir", "cp", "chmod", "mv", "tar", "gzip", "awk", "grep", "sed", "tail", "tr"],
  "cat",
];
const HOST_TOOLS = [...BASE_TOOLS, "curl", "sha256sum", "shasum", "ldd", "uname", "sysctl"];

const releases = await buildFakeReleases();

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
  /** First on the default PATH: where the fake gh and ldd go. */
  fakes: string;
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
  /** Put a fake gh on the PATH (see writeFakeGh); without it there is no gh. */
  gh?: Pick<FakeGhOptions, "loggedIn">;
  /** Put a fake ldd on the PATH that answers as this libc's does (default: the host's ldd, if any). */
  ldd?: "musl" | "glibc";
  /** Record the arguments of each run of these tools (the host's, run by a wrapper on the PATH). */
  record?: Downloader[];
}

type Downloader = "curl" | "wget";

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  sandbox: Sandbox;
  /** The arguments of each run of the fake gh. */
  ghCalls: string[];
  /** The arguments of each run of a recorded tool (see RunOptions.record). */
  calls: Record<Downloader, string[][]>;
}

/** One test's temporary directory: sandboxes, tool directories; removed when the test ends. */
class Harness implements AsyncDisposable {
  #sandboxes = 0;
  readonly tools: string;

  private constructor(readonly root: string) {
    this.tools = `${root}/tools-host`;
  }

  static async create(): Promise<Harness> {
    const harness = new Harness(await Deno.makeTempDir({ prefix: "tinyagent-install-test-" }));
    await harness.toolDir("host", HOST_TOOLS);
    return harness;
  }

  async [Symbol.asyncDispose]() {
    await Deno.remove(this.root, { recursive: true });
  }

  async newSandbox(): Promise<Sandbox> {
    const dir = `${this.root}/run-${++this.#sandboxes}`;
    const sandbox = { home: dir, bin: `${dir}/bin`, tmp: `${dir}/tmp`, fakes: `${dir}/fakes` };
    await Deno.mkdir(sandbox.tmp, { recursive: true });
    await Deno.mkdir(sandbox.fakes);
    return sandbox;
  }

  /** A directory of symlinks to the given host tools, for a PATH without some others. */
  async toolDir(name: string, tools: string[]): Promise<string> {
    const dir = `${this.root}/tools-${name}`;
    await Deno.mkdir(dir);
    for (const tool of tools) {
      const found = findOnPath(tool);
      if (found) await Deno.symlink(found, `${dir}/${tool}`);
    }
    return dir;
  }

  defaultPath(sandbox: Sandbox): string {
    return `${sandbox.fakes}:${this.tools}`;
  }

  /** The installer's whole environment for a run against `server`. */
  env(sandbox: Sandbox, server: FakeReleaseServer, extra: RunOptions["env"] = {}): Record<string, string> {
    const vars: Record<string, string | undefined> = {
      PATH: this.defaultPath(sandbox),
      HOME: sandbox.home,
      TMPDIR: sandbox.tmp,
      TINYAGENT_DOWNLOAD_URL: server.url,
      TINYAGENT_INSTALL_DIR: sandbox.bin,
      TINYAGENT_UNAME_S: "Linux",
      TINYAGENT_UNAME_M: "x86_64",
      CI: "true",
      ...extra,
    };
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
    return env;
  }

  async install(server: FakeReleaseServer, opts: RunOptions = {}): Promise<RunResult> {
    const sandbox = opts.sandbox ?? await this.newSandbox();
    const ghLog = `${sandbox.home}/gh-calls.log`;
    if (opts.gh) await writeFakeGh(sandbox.fakes, { ...opts.gh, log: ghLog, api: attestationApi(releases) });
    if (opts.ldd) await writeFakeLdd(sandbox.fakes, opts.ldd);
    const callLog = (tool: Downloader) => `${sandbox.home}/${tool}-calls.log`;
    for (const tool of opts.record ?? []) {
      const real = findOnPath(tool);
      assert.ok(real, `${tool} not found`);
      await writeRecorder(sandbox.fakes, tool, real, callLog(tool));
    }

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
      env: this.env(sandbox, server, opts.env),
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
    const ghCalls = await exists(ghLog) ? (await Deno.readTextFile(ghLog)).trimEnd().split("\n") : [];
    const calls: RunResult["calls"] = { curl: [], wget: [] };
    for (const tool of ["curl", "wget"] as const) {
      if (!await exists(callLog(tool))) continue;
      const lines = (await Deno.readTextFile(callLog(tool))).split("\n").slice(0, -1);
      calls[tool] = lines.map((line) => line.split("\t").slice(0, -1));
    }
    const result = {
      code: out.code,
      stdout: decoder.decode(out.stdout),
      stderr: decoder.decode(out.stderr),
      sandbox,
      ghCalls,
      calls,
    };
    // The download directory is always removed, whatever happened.
    assert.deepEqual(await listDir(sandbox.tmp), [], `temp files left behind:\n${result.stderr}`);
    return result;
  }
}

/** A test with its own Harness, named after the behaviour it checks. */
function installerTest(
  name: string,
  fn: (h: Harness) => Promise<void>,
  options: { ignore?: boolean } = {},
) {
  Deno.test({
    name: `install.sh: ${name}`,
    ignore: options.ignore,
    async fn() {
      await using harness = await Harness.create();
      await fn(harness);
    },
  });
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

/** The first line of the installed binary's --version. */
async function installedVersion(bin: string): Promise<string> {
  const out = await new Deno.Command(`${bin}/tinyagent`, {
    args: ["--version"],
    stdin: "null",
    stdout: "piped",
    clearEnv: true,
  }).output();
  assert.ok(out.success, `${bin}/tinyagent --version failed`);
  return decoder.decode(out.stdout).split("\n")[0];
}

function assetRequests(server: FakeReleaseServer): string[] {
  return server.requests.filter((r) => r.endsWith(".tar.gz"));
}

/** stderr lines that tell how to verify the provenance by hand. */
function byHandLines(r: RunResult): string[] {
  return r.stderr.split("\n").filter((line) => line.includes("gh attestation verify"));
}

// --- what it installs, and where -----------------------------------------------------------------

installerTest("installs the latest release", async (h) => {
  await using server = serveFakeReleases(releases);
  const r = await h.install(server);
  assertOk(r);
  assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
  const info = await Deno.stat(`${r.sandbox.bin}/tinyagent`);
  assert.equal(info.mode! & 0o777, 0o755);
  assert.deepEqual(server.requests.filter((r) => !r.startsWith("/tag/")), [
    "/latest",
    `/download/v${FAKE_LATEST}/${assetName(FAKE_LATEST, LINUX_X64)}`,
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
  // Finishes with the installed binary's --version, all of it.
  assert.ok(r.stdout.endsWith(`\n${fakeVersionOutput(FAKE_LATEST, LINUX_X64)}`), r.stdout);
  // Progress goes to stderr, and no colour without a terminal.
  assert.match(r.stderr, /checksum verified/);
  assert.ok(!r.stdout.includes("checksum verified"));
  assert.ok(!r.stdout.includes(ESC) && !r.stderr.includes(ESC), "no colour codes");
});

installerTest("defaults to $HOME/.local/bin", async (h) => {
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, { env: { TINYAGENT_INSTALL_DIR: undefined } });
  assertOk(r);
  assert.equal(await installedVersion(`${r.sandbox.home}/.local/bin`), `tinyagent ${FAKE_LATEST}`);
  assert.ok(r.stdout.includes('export PATH="$HOME/.local/bin:$PATH"'), r.stdout);
});

installerTest("reinstalling replaces the old copy atomically", async (h) => {
  await using server = serveFakeReleases(releases);
  const sandbox = await h.newSandbox();
  await Deno.mkdir(sandbox.bin);
  await Deno.writeTextFile(`${sandbox.bin}/tinyagent`, "#!/bin/sh\necho old\n", { mode: 0o555 });
  await Deno.writeTextFile(`${sandbox.bin}/other-tool`, "keep me\n");

  const old = await h.install(server, { sandbox, args: ["v1.2.3"] });
  assertOk(old);
  assert.equal(await installedVersion(sandbox.bin), "tinyagent 1.2.3");
  const upgrade = await h.install(server, { sandbox });
  assertOk(upgrade);
  assert.equal(await installedVersion(sandbox.bin), `tinyagent ${FAKE_LATEST}`);
  assert.ok((await Deno.readTextFile(`${sandbox.bin}/tinyagent`)).includes(FAKE_LATEST));
  assert.equal((await Deno.stat(`${sandbox.bin}/tinyagent`)).mode! & 0o777, 0o755);
  // No temp copies left next to it, and other files untouched.
  assert.deepEqual(await listDir(sandbox.bin), ["other-tool", "tinyagent"]);
  assert.equal(await Deno.readTextFile(`${sandbox.bin}/other-tool`), "keep me\n");
});

installerTest("a failing `tinyagent --version` after installing is an error", async (h) => {
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, { args: [`v${BROKEN_VERSION}`] });
  assert.notEqual(r.code, 0, describe(r));
  assert.match(r.stderr, /--version' failed: tinyagent: cannot start \(fake failure\)/);
  assert.ok(!r.stdout.includes("mcp_servers:"), "no success summary after a failed check");
});

// --- PATH advice, and the profile it never edits -------------------------------------------------

installerTest("no PATH advice when the install dir is already on PATH", async (h) => {
  await using server = serveFakeReleases(releases);
  const sandbox = await h.newSandbox();
  const r = await h.install(server, { sandbox, env: { PATH: `${sandbox.bin}:${h.defaultPath(sandbox)}` } });
  assertOk(r);
  assert.ok(!r.stdout.includes("is not on your PATH"), r.stdout);
  assert.match(r.stdout, /mcp_servers:/);
});

installerTest(
  "TINYAGENT_NO_MODIFY_PATH=1 prints no PATH advice; no shell profile is ever edited",
  async (h) => {
    await using server = serveFakeReleases(releases);
    const profiles = [".profile", ".bashrc", ".bash_profile", ".zshrc", ".config/fish/config.fish"];
    for (const [value, advice] of [["1", false], ["yes", false], ["0", true], ["", true]] as const) {
      const sandbox = await h.newSandbox();
      await Deno.mkdir(`${sandbox.home}/.config/fish`, { recursive: true });
      for (const profile of profiles) await Deno.writeTextFile(`${sandbox.home}/${profile}`, "# mine\n");
      const r = await h.install(server, { sandbox, env: { TINYAGENT_NO_MODIFY_PATH: value } });
      assertOk(r);
      assert.equal(r.stdout.includes("is not on your PATH"), advice, `${JSON.stringify(value)}: ${r.stdout}`);
      assert.equal(r.stdout.includes("export PATH="), advice, r.stdout);
      // The rest of the summary is still there.
      assert.match(r.stdout, /mcp_servers:/);
      for (const profile of profiles) {
        assert.equal(await Deno.readTextFile(`${sandbox.home}/${profile}`), "# mine\n", profile);
      }
      // The binary is the one file written.
      assert.deepEqual(await listDir(sandbox.bin), ["tinyagent"]);
    }
  },
);

// --- versions ------------------------------------------------------------------------------------

installerTest("pins a version given as an argument (v1.2.3 and 1.2.3)", async (h) => {
  for (const arg of ["v1.2.3", "1.2.3"]) {
    await using server = serveFakeReleases(releases);
    const r = await h.install(server, { args: [arg], env: { TINYAGENT_VERSION: "1.3.0" } });
    assertOk(r);
    assert.equal(await installedVersion(r.sandbox.bin), "tinyagent 1.2.3");
    assert.ok(!server.requests.includes("/latest"), "no latest lookup for a pinned version");
    assert.deepEqual(assetRequests(server), [`/download/v1.2.3/${assetName("1.2.3", LINUX_X64)}`]);
  }
});

installerTest("pins a version from TINYAGENT_VERSION", async (h) => {
  for (const version of ["v1.2.3", "1.2.3"]) {
    await using server = serveFakeReleases(releases);
    const r = await h.install(server, { env: { TINYAGENT_VERSION: version } });
    assertOk(r);
    assert.equal(await installedVersion(r.sandbox.bin), "tinyagent 1.2.3");
    assert.ok(!server.requests.includes("/latest"));
  }
});

installerTest("rejects something that is not a version, an unknown option, or two arguments", async (h) => {
  await using server = serveFakeReleases(releases);
  for (const bad of ["1.2", "latest", "v1.2.3/../x", "1.2.3; true"]) {
    await assertFailedCleanly(await h.install(server, { args: [bad] }), /not a version/);
  }
  await assertFailedCleanly(await h.install(server, { args: ["--force"] }), /unknown option: --force/);
  await assertFailedCleanly(await h.install(server, { args: ["v1.2.3", "v1.3.0"] }), /at most one argument/);
  assert.deepEqual(server.requests, []);
});

// --- how it is run -------------------------------------------------------------------------------

installerTest("works piped into `sh -s -- v1.2.3`, as with curl | sh", async (h) => {
  const script = await Deno.readTextFile(INSTALL_SH);
  await using server = serveFakeReleases(releases);
  const pinned = await h.install(server, { stdinScript: script, args: ["v1.2.3"] });
  assertOk(pinned);
  assert.equal(await installedVersion(pinned.sandbox.bin), "tinyagent 1.2.3");
  const latest = await h.install(server, { stdinScript: script });
  assertOk(latest);
  assert.equal(await installedVersion(latest.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
});

installerTest("a cut-off download of the script does nothing", async (h) => {
  const script = await Deno.readTextFile(INSTALL_SH);
  const lastLine = script.lastIndexOf('main "$@"');
  assert.ok(lastLine > 0);
  const cuts = [0.1, 0.3, 0.5, 0.7, 0.9].map((f) => Math.floor(script.length * f));
  cuts.push(lastLine, lastLine + 3);
  await using server = serveFakeReleases(releases);
  for (const cut of cuts) {
    const r = await h.install(server, { stdinScript: script.slice(0, cut) });
    assert.equal(await exists(r.sandbox.bin), false, `cut at ${cut}: ${describe(r)}`);
  }
  assert.deepEqual(server.requests, []);
});

installerTest("an interrupted download (SIGTERM) leaves no temp files", async (h) => {
  await using server = serveFakeReleases(releases, { stallAssets: true });
  const sandbox = await h.newSandbox();
  const child = new Deno.Command(findOnPath("sh")!, {
    args: [INSTALL_SH],
    clearEnv: true,
    env: h.env(sandbox, server),
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

installerTest("runs under every POSIX shell available (dash, sh, bash --posix, busybox sh)", async (h) => {
  const shells: string[][] = [["dash"], ["sh"], ["bash", "--posix"], ["busybox", "sh"]]
    .filter(([cmd]) => findOnPath(cmd) !== null);
  assert.ok(shells.length > 0);
  await using server = serveFakeReleases(releases);
  for (const shell of shells) {
    const r = await h.install(server, { shell, gh: {} });
    assert.equal(r.code, 0, `${shell.join(" ")}: ${describe(r)}`);
    assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
    assert.match(r.stderr, /build provenance verified/);
    const bad = await h.install(server, { shell, env: { TINYAGENT_UNAME_S: "FreeBSD" } });
    await assertFailedCleanly(bad, /unsupported platform: FreeBSD\/x86_64/);
    const uninstalled = await h.install(server, { shell, sandbox: r.sandbox, args: ["--uninstall"] });
    assertOk(uninstalled);
    assert.equal(await exists(`${r.sandbox.bin}/tinyagent`), false);
  }
});

// --- the checksum --------------------------------------------------------------------------------

installerTest("a checksum mismatch installs nothing", async (h) => {
  await using server = serveFakeReleases(releases, { corruptChecksum: true });
  const r = await h.install(server, { gh: {} });
  await assertFailedCleanly(r, /checksum mismatch/);
  assert.match(r.stderr, new RegExp(assetName(FAKE_LATEST, LINUX_X64)));
  assert.deepEqual(r.ghCalls, [], "the checksum is checked first");
});

installerTest("a missing SHA256SUMS installs nothing", async (h) => {
  await using server = serveFakeReleases(releases, { dropSums: true });
  const r = await h.install(server);
  await assertFailedCleanly(r, /SHA256SUMS/);
  assert.match(r.stderr, /cannot be checked/);
});

installerTest("a SHA256SUMS without the asset's line installs nothing", async (h) => {
  await using server = serveFakeReleases(releases, { dropLines: true });
  const r = await h.install(server, { args: ["1.2.3"] });
  await assertFailedCleanly(r, /no checksum for tinyagent-1\.2\.3-x86_64-unknown-linux-gnu\.tar\.gz/);
});

// --- build provenance: gh attestation verify -----------------------------------------------------

installerTest("with gh, a release whose attestation matches installs, and says so", async (h) => {
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, { gh: {} });
  assertOk(r);
  assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
  assert.doesNotMatch(r.stderr, /^ {2}gh: /m, "gh's output is shown only when it fails");
  // gh checks the downloaded archive against the bundle the release carries, for the default repository.
  assert.equal(r.ghCalls.length, 1, describe(r));
  assert.match(
    r.ghCalls[0],
    new RegExp(
      `^attestation verify \\S+/${assetName(FAKE_LATEST, LINUX_X64)} --repo ${FAKE_REPO} ` +
        `--bundle \\S+/${bundleName(FAKE_LATEST)}$`,
    ),
  );
  assert.ok(server.requests.includes(`/download/v${FAKE_LATEST}/${bundleName(FAKE_LATEST)}`));
  assert.match(
    r.stderr,
    new RegExp(`build provenance verified: .* built by ${FAKE_REPO}'s release workflow`),
  );
  assert.deepEqual(byHandLines(r), [], "nothing to do by hand");
});

installerTest("with gh and no bundle in the release (a mirror), gh asks GitHub's API", async (h) => {
  await using server = serveFakeReleases(releases, { dropBundle: true });
  const r = await h.install(server, { gh: {} });
  assertOk(r);
  assert.equal(r.ghCalls.length, 1);
  assert.match(r.ghCalls[0], new RegExp(`--repo ${FAKE_REPO}$`));
  assert.match(r.stderr, /build provenance verified/);
});

installerTest("a failing `gh attestation verify` installs nothing", async (h) => {
  const cases: [string, Parameters<typeof serveFakeReleases>[1], RunOptions, RegExp][] = [
    // Archive and SHA256SUMS both replaced: the checksum passes, the attestation does not.
    ["a forged archive with a matching SHA256SUMS", { forgeArchives: true }, { gh: {} }, /tampered/],
    // The attestation names tinyagent/tinyagent, not the repository asked for.
    ["another repository", {}, { gh: {}, env: { TINYAGENT_REPO: "someone/else" } }, /someone\/else/],
    // Nothing attests anything when gh cannot ask GitHub.
    ["gh logged out, no bundle", { dropBundle: true }, { gh: { loggedIn: false } }, /gh auth login/],
  ];
  for (const [what, serve, run, message] of cases) {
    await using server = serveFakeReleases(releases, serve);
    const r = await h.install(server, run);
    await assertFailedCleanly(r, /gh attestation verify could not confirm/);
    assert.match(r.stderr, message, `${what}: ${describe(r)}`);
    assert.match(r.stderr, /Nothing was installed/, what);
    assert.match(r.stderr, /checksum verified/, `${what}: the checksum passed first`);
    assert.match(r.stderr, /^ {2}gh: /m, `${what}: gh's own words are shown`);
    assert.equal(r.ghCalls.length, 1, what);
    assert.ok(!r.stdout.includes("mcp_servers:"), what);
  }
});

installerTest(
  "without gh: installs on the checksum alone and says in one line how to verify by hand",
  async (h) => {
    await using server = serveFakeReleases(releases);
    const r = await h.install(server);
    assertOk(r);
    assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
    const asset = assetName(FAKE_LATEST, LINUX_X64);
    assert.deepEqual(byHandLines(r).length, 1, r.stderr);
    assert.match(byHandLines(r)[0], /gh is not installed, so the build provenance .* was not verified/);
    assert.ok(byHandLines(r)[0].endsWith(`: gh attestation verify ${asset} --repo ${FAKE_REPO}`));
    assert.ok(!server.requests.some((path) => path.endsWith(".jsonl")), "no bundle fetched for nothing");
  },
);

installerTest("TINYAGENT_SKIP_ATTESTATION=1 skips gh, and says so in one line", async (h) => {
  await using server = serveFakeReleases(releases, { forgeArchives: true });
  const r = await h.install(server, { gh: {}, env: { TINYAGENT_SKIP_ATTESTATION: "1" } });
  assertOk(r);
  assert.deepEqual(r.ghCalls, []);
  assert.equal(byHandLines(r).length, 1, r.stderr);
  assert.match(byHandLines(r)[0], /warning: TINYAGENT_SKIP_ATTESTATION is set/);
  // 0 means "not set": gh verifies, and the forged archive is refused.
  await assertFailedCleanly(
    await h.install(server, { gh: {}, env: { TINYAGENT_SKIP_ATTESTATION: "0" } }),
    /could not confirm/,
  );
});

installerTest("TINYAGENT_REPO must be owner/name", async (h) => {
  await using server = serveFakeReleases(releases);
  for (const bad of ["tinyagent", "a/b/c", "/b", "a/", "a/b c", "a/$(x)"]) {
    const r = await h.install(server, { env: { TINYAGENT_REPO: bad } });
    await assertFailedCleanly(r, /TINYAGENT_REPO is '.*', not a GitHub owner\/name/);
  }
  assert.deepEqual(server.requests, []);
});

// --- the mirror override -------------------------------------------------------------------------

installerTest("TINYAGENT_DOWNLOAD_URL: every download, bundle included, comes from the mirror", async (h) => {
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, { gh: {}, env: { TINYAGENT_DOWNLOAD_URL: `${server.url}//` } });
  assertOk(r);
  assert.deepEqual(server.requests.filter((r) => !r.startsWith("/tag/")), [
    "/latest",
    `/download/v${FAKE_LATEST}/${assetName(FAKE_LATEST, LINUX_X64)}`,
    `/download/v${FAKE_LATEST}/SHA256SUMS`,
    `/download/v${FAKE_LATEST}/${bundleName(FAKE_LATEST)}`,
  ]);
  // The attestation still has to name the GitHub repository, wherever the bytes came from.
  assert.match(r.ghCalls[0], new RegExp(`--repo ${FAKE_REPO} `));
});

// --- https only ---------------------------------------------------------------------------------

/** The environment in which curl and wget trust the tests' CA (tests/support/tls.ts). */
async function trustTestCa(h: Harness): Promise<Record<string, string>> {
  const { caFile } = await testCertificates();
  const wgetrc = `${h.root}/wgetrc`;
  await Deno.writeTextFile(wgetrc, `ca_certificate = ${caFile}\n`);
  return { CURL_CA_BUNDLE: caFile, WGETRC: wgetrc };
}

/** Fake releases served over https, with the tests' certificate for 127.0.0.1. */
async function serveOverTls(
  options: Parameters<typeof serveFakeReleases>[1] = {},
): Promise<FakeReleaseServer> {
  const { certPem, keyPem } = await testCertificates();
  return serveFakeReleases(releases, { ...options, tls: { certPem, keyPem } });
}

/** curl, and wget if the host has it, each with the PATH of a run that has only it to download with. */
async function downloaders(h: Harness): Promise<{ tool: Downloader; path: (s: Sandbox) => string }[]> {
  const list: { tool: Downloader; path: (s: Sandbox) => string }[] = [
    { tool: "curl", path: (sandbox) => h.defaultPath(sandbox) },
  ];
  if (findOnPath("wget") !== null) {
    const tools = await h.toolDir("wget-only", [...BASE_TOOLS, "sha256sum", "wget"]);
    list.push({ tool: "wget", path: (sandbox) => `${sandbox.fakes}:${tools}` });
  }
  return list;
}

installerTest("TINYAGENT_DOWNLOAD_URL must be https, unless it is on this machine", async (h) => {
  await using server = serveFakeReleases(releases);
  const port = new URL(server.url).port;
  const refused = [
    "http://example.com/releases",
    "ftp://127.0.0.1/releases",
    "HTTPS://github.com/tinyagent/tinyagent/releases",
    "github.com/tinyagent/tinyagent/releases",
    "file://example.com/releases",
    // Lookalikes of a loopback address.
    `http://127.0.0.1:${port}@example.com/releases`,
    "http://127.0.0.1.example.com/releases",
    "http://localhost.example.com/releases",
    "http://127.0.0.256/releases",
    "http://127.0.0.08/releases",
    "http://0x7f.0.0.1/releases",
    "http://[::1].example.com/releases",
    "http://[::2]/releases",
    "http://127.0.0.1:80x/releases",
    "http://example.com\n127.0.0.1/releases",
  ];
  for (const url of refused) {
    const r = await h.install(server, { env: { TINYAGENT_DOWNLOAD_URL: url } });
    await assertFailedCleanly(
      r,
      /TINYAGENT_DOWNLOAD_URL is '[^']*', not an https:\/\/ URL; nothing was installed/,
    );
    assert.ok(r.stderr.includes(`'${url}'`), `names the URL: ${describe(r)}`);
  }
  assert.deepEqual(server.requests, []);

  // Plain http on this machine is allowed: localhost, any 127.x.x.x, [::1] (unreachable here: they
  // fail afterwards, when nothing answers).
  assertOk(
    await h.install(server, {
      env: { TINYAGENT_DOWNLOAD_URL: server.url.replace("127.0.0.1", "localhost") },
    }),
  );
  for (const url of ["http://127.1.2.3:9/releases", "http://[::1]:9/releases", "http://localhost:9"]) {
    const r = await h.install(server, { env: { TINYAGENT_DOWNLOAD_URL: url } });
    await assertFailedCleanly(r, /could not reach /);
    assert.doesNotMatch(r.stderr, /not an https/);
  }
});

installerTest(
  "a file:/// TINYAGENT_DOWNLOAD_URL works, as the release workflow installs from its files",
  async (h) => {
    await using server = serveFakeReleases(releases);
    const release = releases.get("1.2.3")!;
    const mirror = `${h.root}/mirror`;
    const dir = `${mirror}/download/v1.2.3`;
    await Deno.mkdir(dir, { recursive: true });
    for (const [name, bytes] of release.assets) await Deno.writeFile(`${dir}/${name}`, bytes);
    await Deno.writeTextFile(`${dir}/SHA256SUMS`, [...release.sums.values()].join("\n") + "\n");
    await Deno.writeTextFile(`${dir}/${bundleName("1.2.3")}`, release.bundle);
    const r = await h.install(server, {
      gh: {},
      args: ["v1.2.3"],
      env: { TINYAGENT_DOWNLOAD_URL: `file://${mirror}` },
    });
    assertOk(r);
    assert.equal(await installedVersion(r.sandbox.bin), "tinyagent 1.2.3");
    assert.match(r.stderr, /build provenance verified/);
    assert.deepEqual(server.requests, []);
  },
);

/** Whether `args` has `name` followed by `value`. */
function hasOption(args: string[], name: string, value: string): boolean {
  return args.some((arg, i) => arg === name && args[i + 1] === value);
}

installerTest("over https, every run of curl or wget is held to https, with TLS 1.2 at least", async (h) => {
  const trust = await trustTestCa(h);
  await using server = await serveOverTls();
  for (const { tool, path } of await downloaders(h)) {
    const sandbox = await h.newSandbox();
    const r = await h.install(server, {
      sandbox,
      gh: {},
      record: [tool],
      env: { ...trust, PATH: path(sandbox) },
    });
    assertOk(r);
    assert.equal(await installedVersion(sandbox.bin), `tinyagent ${FAKE_LATEST}`);
    assert.match(r.stderr, /build provenance verified/);
    const runs = r.calls[tool];
    const downloads = runs.filter((args) => args.some((arg) => arg.startsWith("https://")));
    // curl: /latest (following it), the archive, SHA256SUMS, the bundle. wget: the same, but
    // /latest and the tag page it redirects to are two runs, and it is asked for --help first.
    assert.equal(downloads.length, tool === "curl" ? 4 : 5, `${tool}: ${JSON.stringify(runs)}`);
    assert.deepEqual(runs.filter((args) => !downloads.includes(args)), tool === "curl" ? [] : [["--help"]]);
    for (const args of downloads) {
      const shown = `${tool} ${args.join(" ")}`;
      if (tool === "curl") {
        assert.ok(hasOption(args, "--proto", "=https"), shown);
        assert.ok(args.includes("--tlsv1.2"), shown);
      } else {
        for (const flag of ["--https-only", "--secure-protocol=TLSv1_2", "--max-redirect=0"]) {
          assert.ok(args.includes(flag), `${flag}: ${shown}`);
        }
      }
    }
  }
});

installerTest("a redirect from https to http is refused; one to https is followed", async (h) => {
  const trust = await trustTestCa(h);
  await using plain = serveFakeReleases(releases);
  await using target = await serveOverTls();
  // As GitHub sends downloads to another host (the Location here is protocol-relative: //host/...).
  await using moving = await serveOverTls({ redirectTo: target.url.replace(/^https:/, "") });
  await using downgrading = await serveOverTls({ redirectTo: plain.url });
  for (const { tool, path } of await downloaders(h)) {
    target.requests.splice(0);
    const sandbox = await h.newSandbox();
    const followed = await h.install(moving, { sandbox, env: { ...trust, PATH: path(sandbox) } });
    assertOk(followed);
    assert.equal(await installedVersion(followed.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
    assert.ok(target.requests.includes(`/download/v${FAKE_LATEST}/${assetName(FAKE_LATEST, LINUX_X64)}`));

    // Both the lookup of the latest release and a download of a pinned one.
    const cases: [string[], RegExp][] = [
      [[], /could not reach .*\/latest/],
      [["v1.2.3"], /could not download/],
    ];
    for (const [args, message] of cases) {
      const again = await h.newSandbox();
      const r = await h.install(downgrading, { sandbox: again, args, env: { ...trust, PATH: path(again) } });
      await assertFailedCleanly(r, message);
      if (tool === "wget") {
        assert.match(
          r.stderr,
          /refused the redirect from https:\/\/\S+ to http:\/\/\S+: downloads are https only/,
        );
      }
    }
    assert.deepEqual(plain.requests, [], `${tool}: nothing was asked for over plain http`);
  }
});

installerTest("a wget that cannot be held to https (BusyBox's) is refused", async (h) => {
  const tools = await h.toolDir("busybox-wget", [...BASE_TOOLS, "sha256sum"]);
  await using server = serveFakeReleases(releases);
  const sandbox = await h.newSandbox();
  const ran = `${sandbox.home}/wget-ran`;
  await Deno.writeTextFile(
    `${sandbox.fakes}/wget`,
    `#!/bin/sh
# BusyBox's wget, as far as --help goes; it must not be asked for anything else.
if [ "$1" = --help ]; then
  echo "BusyBox v1.36.1 multi-call binary." >&2
  echo "Usage: wget [-cqS] [--spider] [-O FILE] [-o LOGFILE] [--header STR] [-Y on/off] [--no-check-certificate] [-P DIR] [-U AGENT] [-T SEC] URL..." >&2
  exit 1
fi
: > '${ran}'
exit 1
`,
    { mode: 0o755 },
  );
  const r = await h.install(server, { sandbox, env: { PATH: `${sandbox.fakes}:${tools}` } });
  await assertFailedCleanly(r, /this wget has no --https-only option .* install curl or GNU wget/);
  assert.equal(await exists(ran), false, "wget was asked for a download");
  assert.deepEqual(server.requests, []);
});

// --- platforms -----------------------------------------------------------------------------------

installerTest("an unsupported platform is refused with the releases page", async (h) => {
  await using server = serveFakeReleases(releases);
  for (const [os, arch] of [["FreeBSD", "amd64"], ["Linux", "riscv64"], ["MINGW64_NT-10.0", "x86_64"]]) {
    const r = await h.install(server, { env: { TINYAGENT_UNAME_S: os, TINYAGENT_UNAME_M: arch } });
    await assertFailedCleanly(r, new RegExp(`unsupported platform: ${os}/${arch}`));
    assert.ok(r.stderr.includes(server.url), r.stderr);
  }
  assert.deepEqual(server.requests, []);
});

installerTest("a musl Linux is refused before anything is downloaded", async (h) => {
  await using server = serveFakeReleases(releases);
  for (const arch of ["x86_64", "aarch64"]) {
    const r = await h.install(server, { ldd: "musl", env: { TINYAGENT_UNAME_M: arch } });
    await assertFailedCleanly(r, /this Linux uses musl libc .* need glibc: Deno publishes glibc builds only/);
    assert.match(r.stderr, /nothing was installed/);
  }
  assert.deepEqual(server.requests, []);
  // glibc's ldd, and macOS (where ldd is not asked), install.
  assertOk(await h.install(server, { ldd: "glibc" }));
  assertOk(
    await h.install(server, {
      ldd: "musl",
      env: { TINYAGENT_UNAME_S: "Darwin", TINYAGENT_UNAME_M: "arm64" },
    }),
  );
});

installerTest("picks the asset for each OS and architecture", async (h) => {
  const cases: [Record<string, string>, string][] = [
    [{ TINYAGENT_UNAME_S: "Linux", TINYAGENT_UNAME_M: "x86_64" }, LINUX_X64],
    [{ TINYAGENT_UNAME_S: "Linux", TINYAGENT_UNAME_M: "amd64" }, LINUX_X64],
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
    const r = await h.install(server, { args: ["1.2.3"], env });
    assertOk(r);
    assert.deepEqual(assetRequests(server), [`/download/v1.2.3/${assetName("1.2.3", target)}`]);
    const installed = await Deno.readTextFile(`${r.sandbox.bin}/tinyagent`);
    assert.ok(installed.includes(`for ${target}`), `${JSON.stringify(env)}: ${installed}`);
  }
});

installerTest("Darwin x86_64 under Rosetta installs the arm64 build", async (h) => {
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, {
    env: { TINYAGENT_UNAME_S: "Darwin", TINYAGENT_UNAME_M: "x86_64", TINYAGENT_PROC_TRANSLATED: "1" },
  });
  assertOk(r);
  assert.deepEqual(assetRequests(server), [
    `/download/v${FAKE_LATEST}/${assetName(FAKE_LATEST, "aarch64-apple-darwin")}`,
  ]);
  assert.match(r.stderr, /Rosetta/);
});

// --- the tools it needs --------------------------------------------------------------------------

installerTest("no sha256sum or shasum: aborts before downloading", async (h) => {
  const tools = await h.toolDir("no-sha", [...BASE_TOOLS, "curl"]);
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, { env: { PATH: tools } });
  await assertFailedCleanly(r, /neither sha256sum nor shasum/);
  assert.deepEqual(server.requests, []);
});

installerTest("falls back to wget when curl is missing", async (h) => {
  const tools = await h.toolDir("wget", [...BASE_TOOLS, "sha256sum", "wget"]);
  await using server = serveFakeReleases(releases);
  const r = await h.install(server, { env: { PATH: tools } });
  assertOk(r);
  assert.equal(await installedVersion(r.sandbox.bin), `tinyagent ${FAKE_LATEST}`);
  assert.ok(server.requests.includes("/latest"));
  assert.ok(server.userAgents.length > 0 && server.userAgents.every((ua) => /wget/i.test(ua)));

  await using broken = serveFakeReleases(releases, { corruptChecksum: true });
  await assertFailedCleanly(await h.install(broken, { env: { PATH: tools } }), /checksum mismatch/);

  // wget follows no redirect itself; the installer does, a Location that is only a path included.
  await using relative = serveFakeReleases(releases, { relativeRedirects: true });
  assertOk(await h.install(relative, { env: { PATH: tools } }));
  assert.ok(relative.requests.includes(`/tag/v${FAKE_LATEST}`));
}, { ignore: findOnPath("wget") === null });

// --- uninstall -----------------------------------------------------------------------------------

installerTest("--uninstall removes the binary, and only it; again, there is nothing to remove", async (h) => {
  await using server = serveFakeReleases(releases);
  const sandbox = await h.newSandbox();
  await Deno.mkdir(sandbox.bin);
  await Deno.writeTextFile(`${sandbox.bin}/other-tool`, "keep me\n");
  assertOk(await h.install(server, { sandbox }));
  const requests = server.requests.length;

  const removed = await h.install(server, { sandbox, args: ["--uninstall"] });
  assertOk(removed);
  assert.equal(removed.stdout.split("\n")[0], `removed ${sandbox.bin}/tinyagent`);
  assert.match(removed.stdout, /writes nothing else/);
  assert.deepEqual(await listDir(sandbox.bin), ["other-tool"]);

  const again = await h.install(server, { sandbox, args: ["--uninstall"] });
  assertOk(again);
  assert.match(again.stdout, /tinyagent is not installed in .*, so nothing was removed/);
  assert.equal(server.requests.length, requests, "uninstalling downloads nothing");
});

installerTest("--uninstall finds the default directory, and refuses to remove a directory", async (h) => {
  await using server = serveFakeReleases(releases);
  const sandbox = await h.newSandbox();
  const defaults = { TINYAGENT_INSTALL_DIR: undefined };
  assertOk(await h.install(server, { sandbox, env: defaults }));
  const removed = await h.install(server, { sandbox, env: defaults, args: ["--uninstall"] });
  assertOk(removed);
  assert.deepEqual(await listDir(`${sandbox.home}/.local/bin`), []);

  await Deno.mkdir(`${sandbox.bin}/tinyagent`, { recursive: true });
  const refused = await h.install(server, { sandbox, args: ["--uninstall"] });
  assert.notEqual(refused.code, 0);
  assert.match(refused.stderr, /is a directory, not tinyagent; nothing was removed/);
  assert.ok(await exists(`${sandbox.bin}/tinyagent`));
});

// --- lint ----------------------------------------------------------------------------------------

shellcheckTest("install.sh", REPO_ROOT);
