/**
 * Tests for the release machinery, without compiling (deno compile needs to download Deno's runtime):
 * the shipped flags, what the binary embeds, `deno task package` end to end on fake binaries, and the
 * GitHub workflows.
 *
 * Run: deno test --allow-net=127.0.0.1 --allow-env --allow-run --allow-read --allow-write tests/release_test.ts
 */
import assert from "node:assert/strict";
import config from "../deno.json" with { type: "json" };
import { parseStartTask, shippedFlags } from "../scripts/shipped_flags.ts";
import { OFFLINE } from "./support/claude_code.ts";
import { addBinaries, fakeBinary, makeLayout, packageTask, run } from "./support/release_layout.ts";
import {
  binaryName,
  compileArgs,
  gitCommit,
  isRuntimeDownloadFailure,
  TARGETS,
  trustSettingsToBake,
  writeCommitFile,
} from "../scripts/compile.ts";
import { COMMIT_FILE, parseCommitFile, UNKNOWN_COMMIT } from "../lib/cli/version.ts";

const ROOT = new URL("../", import.meta.url);
const decoder = new TextDecoder();
const tasks = config.tasks as Record<string, string>;

function onPath(name: string): boolean {
  const separator = Deno.build.os === "windows" ? ";" : ":";
  return (Deno.env.get("PATH") ?? "").split(separator).some((dir) => {
    try {
      return dir !== "" && Deno.statSync(`${dir}/${name}`).isFile;
    } catch {
      return false;
    }
  });
}

Deno.test("shipped flags", async (t) => {
  await t.step("are exactly the flags of deno.json's start task", () => {
    const flags = shippedFlags();
    assert.equal(tasks.start, `deno run ${flags.join(" ")} launch.ts`);
    assert.ok(flags.length > 0);
    assert.ok(flags.every((flag) => flag.startsWith("-")));
  });

  await t.step("keep the worker options and never prompt", () => {
    assert.ok(shippedFlags().includes("--unstable-worker-options"));
    assert.ok(shippedFlags().includes("--no-prompt"));
  });

  // Measured in docs/performance.md ("Idle memory"): without them an idle session holds ~6 MiB more
  // (libsecp256k1 recompiled by TurboFan at the first signature) and code mode grows ~5 MiB more.
  await t.step("carry the V8 flags that keep an idle session small, once", () => {
    const v8 = shippedFlags().filter((flag) => flag.startsWith("--v8-flags="));
    assert.equal(v8.length, 1, "one --v8-flags, so that none overrides another");
    const names = v8[0].slice("--v8-flags=".length).split(",");
    assert.ok(names.includes("--wasm-tiering-budget=39000000"), "WebAssembly tiers up after 3x the work");
    assert.ok(names.includes("--max-semi-space-size=1"), "a young generation of 1 MiB semi-spaces");
  });

  // --allow-write is there only to be narrowed: the worker gets write for the audit log's one file,
  // or none, and the main thread revokes it (tests/e2e/sandbox_test.ts proves both).
  await t.step("grant no run, ffi, sys or all", () => {
    const forbidden = ["--allow-run", "--allow-ffi", "--allow-sys", "--allow-all", "-A"];
    for (const flag of shippedFlags()) {
      assert.ok(!forbidden.includes(flag.split("=")[0]), `the binary must not be compiled with ${flag}`);
    }
  });

  await t.step("a start task of another shape is refused with a clear error", () => {
    for (
      const task of [
        undefined,
        "deno run launch.ts --allow-net",
        "deno test --allow-net launch.ts",
        "deno run --allow-net other.ts",
        "deno run --allow-net main.ts",
        "deno run --allow-net launch.ts mcp",
        "deno run --allow-net lib/x.ts launch.ts",
      ]
    ) {
      assert.throws(() => parseStartTask(task), /start" task.*shipped flags are unknown/, String(task));
    }
    assert.deepEqual(parseStartTask("deno run launch.ts"), []);
    assert.deepEqual(parseStartTask("  deno   run -A\tlaunch.ts "), ["-A"]);
  });

  await t.step("are what deno compile builds every target with", () => {
    for (const target of TARGETS) {
      const args = compileArgs(target);
      const output = `dist/tinyagent-${target}${target.includes("windows") ? ".exe" : ""}`;
      assert.equal(binaryName(target), output.slice("dist/".length));
      assert.deepEqual(args.slice(0, 1 + shippedFlags().length), ["compile", ...shippedFlags()]);
      assert.deepEqual(args.slice(-5), ["--target", target, "--output", output, "main.ts"]);
      const included = args.flatMap((arg, i) => args[i - 1] === "--include" ? [arg] : []);
      assert.deepEqual(included, ["lib/sandbox/worker_all.ts", COMMIT_FILE]);
      assert.ok(args.includes("--exclude-unused-npm"));
    }
  });

  await t.step("are spelled out nowhere but the start task", async () => {
    const files = [
      "scripts/compile.ts",
      "scripts/package.ts",
      ".github/workflows/ci.yml",
      ".github/workflows/release.yml",
    ];
    for (const file of files) {
      const text = await Deno.readTextFile(new URL(file, ROOT));
      for (const flag of ["--unstable-worker-options", "--no-prompt"]) {
        assert.ok(!text.includes(flag), `${file} spells out ${flag}`);
      }
    }
  });

  await t.step("an unreachable runtime download is recognised", () => {
    const stderr = "error: Writing deno compile executable to temporary file 'dist/t.tmp'\n\nCaused by:\n" +
      "    0: Setting up base binary.\n" +
      "    1: error sending request for url (https://dl.deno.land/release/v2.9.6/denort-x86_64-unknown-linux-gnu.zip)";
    assert.ok(isRuntimeDownloadFailure(stderr));
    assert.ok(!isRuntimeDownloadFailure("error: TS2322 [ERROR]: Type 'string' is not assignable"));
  });

  await t.step("no trust setting of the build machine is baked into the binary", async () => {
    const env = (vars: Record<string, string>) => (name: string) => vars[name];
    assert.deepEqual(trustSettingsToBake(env({})), []);
    assert.deepEqual(trustSettingsToBake(env({ DENO_CERT: "/ca.pem", PATH: "/bin" })), ["DENO_CERT"]);
    assert.deepEqual(trustSettingsToBake(env({ DENO_CERT: "", DENO_TLS_CA_STORE: "system" })), [
      "DENO_CERT",
      "DENO_TLS_CA_STORE",
    ]);
    // The task itself refuses before it compiles anything (or writes dist/commit.txt).
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: ["task", "compile", "x86_64-unknown-linux-gnu"],
      cwd: ROOT,
      env: { DENO_CERT: "/nonexistent/ca.pem", NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(code, 1);
    assert.equal(decoder.decode(stdout), "");
    assert.match(
      decoder.decode(stderr),
      /compile: DENO_CERT is set; deno compile would build that trust setting/,
    );
  });
});

Deno.test("the binary embeds main.ts's graph and the worker, nothing else", async () => {
  for (const entry of ["main.ts", "lib/sandbox/worker_all.ts"]) {
    const { code, stdout, stderr } = await run(Deno.execPath(), ["info", "--json", entry], ROOT);
    assert.equal(code, 0, stderr);
    const graph = JSON.parse(stdout) as { modules: { specifier: string }[] };
    assert.ok(graph.modules.some(({ specifier }) => specifier === new URL(entry, ROOT).href), entry);
    for (const { specifier } of graph.modules) {
      if (!specifier.startsWith("file:")) {
        assert.match(specifier, /^(node:|npm:)/);
        assert.doesNotMatch(specifier, /modelcontextprotocol/, `${entry} reaches ${specifier}`);
        continue;
      }
      const path = specifier.slice(ROOT.href.length);
      assert.ok(
        path === "main.ts" || path === "deno.json" || /^lib\/[a-z]+\/[a-z0-9_]+\.ts$/.test(path),
        `${entry} reaches ${path}`,
      );
    }
  }
});

// --- the commit deno task compile bakes in (what --version prints: tests/cli/version_test.ts) -------

Deno.test("the commit deno task compile bakes in", async (t) => {
  await t.step("the commit file is in dist/, which git ignores", async () => {
    assert.ok(COMMIT_FILE.startsWith("dist/"));
    const ignored = await run("git", ["check-ignore", "--quiet", COMMIT_FILE], ROOT);
    assert.equal(ignored.code, 0, `${COMMIT_FILE} must be git-ignored: ${ignored.stderr}`);
  });

  await t.step(
    "compile writes the checked-out commit, -dirty for changed files, without dirtying the tree",
    async () => {
      const dir = await Deno.makeTempDir({ prefix: "tinyagent-commit-" });
      // A file URL from a POSIX path or a Windows one (C:\Users\…), without std's toFileUrl.
      const slashed = dir.replaceAll("\\", "/");
      const root = new URL(`file://${slashed.startsWith("/") ? "" : "/"}${slashed}/`);
      const git = async (...args: string[]) => {
        const result = await run(
          "git",
          ["-c", "user.name=t", "-c", "user.email=t@example.test", ...args],
          dir,
        );
        assert.equal(result.code, 0, `git ${args.join(" ")}: ${result.stderr}`);
        return result.stdout.trim();
      };
      try {
        assert.equal(await gitCommit(root), UNKNOWN_COMMIT, "outside a repository");
        await git("init", "--quiet");
        await Deno.copyFile(new URL(".gitignore", ROOT), `${dir}/.gitignore`);
        await Deno.writeTextFile(`${dir}/main.ts`, "console.log(1);\n");
        await git("add", ".");
        await git("-c", "commit.gpgsign=false", "commit", "--quiet", "-m", "first");
        const head = await git("rev-parse", "HEAD");

        assert.equal(await writeCommitFile(root), head);
        const written = await Deno.readTextFile(new URL(COMMIT_FILE, root));
        assert.equal(written, `${head}\n`);
        assert.equal(parseCommitFile(written), head, "the binary reads back what compile wrote");
        assert.equal(await git("status", "--porcelain"), "", "writing the commit file leaves the tree clean");

        await Deno.writeTextFile(`${dir}/main.ts`, "console.log(2);\n");
        assert.equal(await writeCommitFile(root), `${head}-dirty`);
      } finally {
        await Deno.remove(dir, { recursive: true });
      }
    },
  );
});

// --- archives, read without trusting the tools that wrote them -----------------------------------

interface Member {
  name: string;
  type: string;
  mode: number;
  content: Uint8Array;
}

async function gunzip(bytes: Uint8Array<ArrayBuffer>): Promise<Uint8Array<ArrayBuffer>> {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The entries of a tar archive; pax extended headers (types x and g) are left out. */
function readTar(bytes: Uint8Array): Member[] {
  const members: Member[] = [];
  let offset = 0;
  while (offset + 512 <= bytes.length) {
    const header = bytes.subarray(offset, offset + 512);
    if (header.every((byte) => byte === 0)) break;
    const field = (start: number, length: number) =>
      decoder.decode(header.subarray(start, start + length)).replace(/\0[^]*$/, "");
    const ustar = decoder.decode(header.subarray(257, 263)) === "ustar\0";
    const prefix = ustar ? field(345, 155) : "";
    const name = prefix ? `${prefix}/${field(0, 100)}` : field(0, 100);
    const size = parseInt(field(124, 12).trim() || "0", 8);
    const type = field(156, 1) || "0";
    if (type !== "x" && type !== "g") {
      members.push({
        name,
        type,
        mode: parseInt(field(100, 8).trim(), 8) & 0o7777,
        content: bytes.slice(offset + 512, offset + 512 + size),
      });
    }
    offset += 512 + Math.ceil(size / 512) * 512;
  }
  return members;
}

/** The entries of a zip archive, from its central directory (unix mode from the external attributes). */
async function readZip(bytes: Uint8Array<ArrayBuffer>): Promise<Member[]> {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let end = bytes.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  assert.ok(end >= 0, "no end of central directory");
  const count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  const members: Member[] = [];
  for (let i = 0; i < count; i++) {
    assert.equal(view.getUint32(offset, true), 0x02014b50, "bad central directory entry");
    const method = view.getUint16(offset + 10, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const external = view.getUint32(offset + 38, true);
    const local = view.getUint32(offset + 42, true);
    const name = decoder.decode(bytes.subarray(offset + 46, offset + 46 + nameLength));
    const dataStart = local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    const data = bytes.slice(dataStart, dataStart + compressedSize);
    let content = data;
    if (method === 8) {
      const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
      content = new Uint8Array(await new Response(stream).arrayBuffer());
    } else assert.equal(method, 0, `unknown compression method ${method}`);
    members.push({ name, type: name.endsWith("/") ? "5" : "0", mode: (external >>> 16) & 0o7777, content });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return members;
}

// --- deno task package, end to end in a temporary copy of the layout it needs --------------------

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(path)) names.push(entry.name);
  return names.sort();
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test({
  name: "deno task package",
  // The archives are made with the system tar and zip and checked with sha256sum: Linux and macOS only.
  // The bundles are packed with the official bundle CLI, through npx: it needs the npm registry.
  ignore: Deno.build.os === "windows" || OFFLINE,
  async fn(t) {
    const version = config.version;
    const dir = await makeLayout(version);
    const release = `${dir}/dist/release`;
    const expected = [
      "SHA256SUMS",
      "install.sh",
      "server.json",
      ...TARGETS.map((target) =>
        `tinyagent-${version}-${target}.${target.includes("windows") ? "zip" : "tar.gz"}`
      ),
      ...["linux", "macos", "windows"].map((os) => `tinyagent-${version}-${os}.mcpb`),
    ].sort();
    try {
      await t.step("no binary is refused", async () => {
        const result = await packageTask(dir, version);
        assert.notEqual(result.code, 0);
        assert.match(result.stderr, /no binary in dist\/.*deno task compile/);
        assert.ok(!(await exists(release)));
      });

      await addBinaries(dir, version, TARGETS);

      await t.step("a version that is not X.Y.Z is refused", async () => {
        for (const bad of ["1.2", "v1.2.3.4", "latest", "1.2.3+build", "x1.2.3", ""]) {
          const result = await packageTask(dir, bad);
          assert.notEqual(result.code, 0, bad);
          assert.match(result.stderr, /not a version/, bad);
        }
        assert.ok(!(await exists(release)));
      });

      await t.step("a version other than deno.json's is refused", async () => {
        const [major, minor, patch] = version.split(/[.-]/).map(Number);
        const other = `${major}.${minor}.${patch + 1}`;
        const result = await packageTask(dir, `v${other}`);
        assert.notEqual(result.code, 0);
        assert.match(result.stderr, new RegExp(`version ${other} is not deno.json's version ${version}`));
        assert.ok(!(await exists(release)));
      });

      await t.step("every binary is packaged, with install.sh and SHA256SUMS", async () => {
        const result = await packageTask(dir, "--all", `v${version}`);
        assert.equal(result.code, 0, result.stderr);
        assert.deepEqual(await listDir(release), expected);
        assert.deepEqual(await listDir(`${dir}/dist`), [...TARGETS.map(binaryName), "release"].sort());
        assert.deepEqual(
          await Deno.readFile(`${release}/install.sh`),
          await Deno.readFile(new URL("install.sh", ROOT)),
        );
      });

      await t.step("each tar.gz holds only tinyagent, mode 755, the target's binary", async () => {
        for (const target of TARGETS.filter((target) => !target.includes("windows"))) {
          const archive = `${release}/tinyagent-${version}-${target}.tar.gz`;
          const members = readTar(await gunzip(await Deno.readFile(archive)));
          assert.deepEqual(members.map(({ name, type, mode }) => ({ name, type, mode })), [
            { name: "tinyagent", type: "0", mode: 0o755 },
          ]);
          assert.equal(decoder.decode(members[0].content), fakeBinary(version, target));
        }
      });

      await t.step("the system tar unpacks a runnable tinyagent", async () => {
        const out = `${dir}/unpacked`;
        await Deno.mkdir(out);
        const archive = `${release}/tinyagent-${version}-x86_64-unknown-linux-gnu.tar.gz`;
        const untar = await run("tar", ["-xzf", archive, "-C", out], dir);
        assert.equal(untar.code, 0, untar.stderr);
        assert.deepEqual(await listDir(out), ["tinyagent"]);
        const ran = await run(`${out}/tinyagent`, ["--version"], out);
        assert.equal(ran.code, 0);
        assert.equal(ran.stdout, `tinyagent ${version}\n`);
        assert.equal(ran.stderr, "x86_64-unknown-linux-gnu\n");
      });

      await t.step("the Windows zip holds only tinyagent.exe", async () => {
        const target = "x86_64-pc-windows-msvc";
        const members = await readZip(await Deno.readFile(`${release}/tinyagent-${version}-${target}.zip`));
        assert.deepEqual(members.map(({ name, type }) => ({ name, type })), [
          { name: "tinyagent.exe", type: "0" },
        ]);
        assert.equal(decoder.decode(members[0].content), fakeBinary(version, target));
      });

      await t.step(
        "SHA256SUMS lists every asset as sha256sum writes it, and sha256sum -c passes",
        async () => {
          const sums = await Deno.readTextFile(`${release}/SHA256SUMS`);
          assert.ok(sums.endsWith("\n"));
          const lines = sums.slice(0, -1).split("\n");
          for (const line of lines) assert.match(line, /^[0-9a-f]{64} {2}[^\s/]+$/);
          assert.deepEqual(
            lines.map((line) => line.slice(66)),
            expected.filter((name) => name !== "SHA256SUMS" && name !== "server.json"),
          );
          const [program, args] = onPath("sha256sum")
            ? ["sha256sum", ["-c", "SHA256SUMS"]]
            : ["shasum", ["-a", "256", "-c", "SHA256SUMS"]]; // macOS without coreutils
          const check = await run(program, args as string[], release);
          assert.equal(check.code, 0, check.stdout + check.stderr);
          assert.equal(check.stdout.trim().split("\n").filter((line) => line.endsWith(": OK")).length, 9);
        },
      );

      await t.step("only the binaries present are packaged; an earlier release is replaced", async () => {
        await Deno.remove(`${dir}/dist/${binaryName("x86_64-apple-darwin")}`);
        await Deno.remove(`${dir}/dist/${binaryName("x86_64-pc-windows-msvc")}`);
        const refused = await packageTask(dir, "--all", version);
        assert.notEqual(refused.code, 0);
        assert.match(
          refused.stderr,
          /--all: no binary for x86_64-apple-darwin, x86_64-pc-windows-msvc in dist\/ .*nothing was packaged/,
        );
        assert.deepEqual(await listDir(release), expected, "--all refused before touching the last release");
        const result = await packageTask(dir, version);
        assert.equal(result.code, 0, result.stderr);
        // No macOS or Windows bundle without all of its binaries; the Linux one is there.
        assert.deepEqual(
          await listDir(release),
          expected.filter((name) => !/x86_64-apple-darwin|windows|macos/.test(name)),
        );
        assert.equal((await Deno.readTextFile(`${release}/SHA256SUMS`)).split("\n").length - 1, 5);
      });
    } finally {
      await Deno.remove(dir, { recursive: true });
    }

    await t.step("a pre-release version is accepted when deno.json has it", async () => {
      const pre = "1.2.3-rc.1";
      const preDir = await makeLayout(pre);
      try {
        await addBinaries(preDir, pre, ["aarch64-unknown-linux-gnu"]);
        const result = await packageTask(preDir, `v${pre}`);
        assert.equal(result.code, 0, result.stderr);
        assert.deepEqual(await listDir(`${preDir}/dist/release`), [
          "SHA256SUMS",
          "install.sh",
          "server.json",
          `tinyagent-${pre}-aarch64-unknown-linux-gnu.tar.gz`,
        ]);
      } finally {
        await Deno.remove(preDir, { recursive: true });
      }
    });
  },
});

// --- the workflows --------------------------------------------------------------------------------

/** The text of each job under `jobs:`, by name (jobs are the keys indented by two spaces). */
function jobsOf(workflow: string): Map<string, string> {
  const body = workflow.slice(workflow.indexOf("\njobs:\n") + "\njobs:\n".length);
  const jobs = new Map<string, string>();
  for (const part of body.split(/^(?= {2}[a-z][\w-]*:$)/m)) {
    const name = part.match(/^ {2}([a-z][\w-]*):$/m)?.[1];
    if (name) jobs.set(name, part);
  }
  return jobs;
}

/** Asserts that `texts` occur in `text` in this order. */
function assertInOrder(text: string, texts: string[], where: string) {
  let from = -1;
  for (const expected of texts) {
    const at = text.indexOf(expected, from + 1);
    assert.ok(at > from, `${where} does not have ${JSON.stringify(expected)} after the step before`);
    from = at;
  }
}

/** The OS and architecture of each GitHub-hosted runner the release proves a target on. */
const RUNNERS: Record<string, { os: string; arch: string }> = {
  "ubuntu-latest": { os: "linux", arch: "x86_64" },
  "ubuntu-24.04-arm": { os: "linux", arch: "aarch64" },
  // macos-13, the last x86_64 image before it, was retired in December 2025.
  "macos-15-intel": { os: "darwin", arch: "x86_64" },
  "macos-15": { os: "darwin", arch: "aarch64" },
  "windows-latest": { os: "windows", arch: "x86_64" },
};

Deno.test("GitHub workflows", async (t) => {
  const read = (name: string) => Deno.readTextFile(new URL(`.github/workflows/${name}`, ROOT));
  const ci = await read("ci.yml");
  const release = await read("release.yml");
  const jobs = jobsOf(release);
  const job = (name: string) => {
    const text = jobs.get(name);
    assert.ok(text, `release.yml has no job ${name}`);
    return text;
  };

  await t.step("set up Deno pinned to v2.9.6, never latest", () => {
    for (const [name, text] of [["ci.yml", ci], ["release.yml", release]]) {
      const setups = text.match(/uses:\s*denoland\/setup-deno@\S+/g) ?? [];
      const versions = [...text.matchAll(/deno-version:\s*(\S+)/g)].map((match) => match[1]);
      assert.ok(setups.length > 0, `${name} does not set up Deno`);
      assert.deepEqual(versions, setups.map(() => "v2.9.6"), name);
      assert.doesNotMatch(text, /vx\.x\.x|deno-version:\s*["']?(latest|canary|rc)/i, name);
    }
  });

  await t.step("pin every action to a commit, the same one in both workflows", () => {
    const pins = new Map<string, string>();
    for (const [name, text] of [["ci.yml", ci], ["release.yml", release]]) {
      const uses = [...text.matchAll(/uses: (\S+)(.*)$/gm)];
      assert.ok(uses.length > 0, name);
      for (const [line, ref, comment] of uses) {
        const pin = ref.match(/^([\w-]+\/[\w-]+)@([0-9a-f]{40})$/);
        assert.ok(pin, `${name}: ${line} is not pinned to a commit`);
        assert.match(comment, /^ # v\d+\.\d+\.\d+$/, `${name}: ${line} does not say which version it is`);
        assert.equal(pins.get(pin[1]) ?? pin[2], pin[2], `${pin[1]} is pinned to two commits`);
        pins.set(pin[1], pin[2]);
      }
    }
  });

  await t.step("release.yml runs on tags v*, checks the tag against deno.json, reads by default", () => {
    assert.match(release, /^on:\n {2}push:\n {4}tags:\n {6}- "v\*"\n/m);
    assert.match(release, /^permissions:\n {2}contents: read\n\n/m);
    assert.deepEqual([...jobs.keys()], ["version", "target", "publish", "registry"]);
    assertInOrder(job("version"), [
      "version=$(jq -r .version deno.json)",
      'if [ "$GITHUB_REF_NAME" != "v$version" ]; then',
      'echo "version=$version" >> "$GITHUB_OUTPUT"',
    ], "the version job");
  });

  await t.step("a job per target, each on a runner of the target's own OS and architecture", () => {
    const target = job("target");
    assert.match(target, /^ {4}needs: version$/m);
    assert.match(target, /^ {6}fail-fast: false$/m);
    assert.match(target, /^ {4}runs-on: \$\{\{ matrix\.runner \}\}$/m);
    const entries = [...target.matchAll(/- target: (\S+)\n\s+runner: (\S+)\n\s+exe: (\S+)/g)];
    assert.deepEqual(entries.map(([, name]) => name).sort(), [...TARGETS].sort(), "one entry per target");
    for (const [, name, runner, exe] of entries) {
      const machine = RUNNERS[runner];
      assert.ok(machine, `${name}: ${runner} is not a runner this test knows`);
      assert.ok(name.startsWith(`${machine.arch}-`) && name.includes(machine.os), `${name} on ${runner}`);
      const bin = `dist/tinyagent-${name}${JSON.parse(exe)}`;
      assert.equal(bin, `dist/${binaryName(name)}`, `${name}: the binary's name`);
    }
    assert.match(target, /^ {6}BIN: dist\/tinyagent-\$\{\{ matrix\.target \}\}\$\{\{ matrix\.exe \}\}$/m);
  });

  await t.step("each target job builds, signs on macOS, runs the three smoke checks, then uploads", () => {
    const target = job("target");
    assertInOrder(target, [
      '"${TARGET%%-*}" != "$arch"', // the runner is the target's architecture, not an emulation
      'run: deno task compile "$TARGET"\n',
      "if: runner.os == 'macOS'",
      'codesign --sign - --force "$BIN"',
      'codesign --verify --verbose "$BIN"',
      'printed=$("$BIN" --version',
      '"$first" != "tinyagent $VERSION"',
      '"target $TARGET" "deno 2.9.6" "commit $(git rev-parse HEAD)"',
      'run: deno task demo --bin "$BIN"\n',
      '"$BIN" sandbox-check --relay http://127.0.0.1:9\n',
      "uses: actions/upload-artifact@",
      "name: tinyagent-${{ matrix.target }}",
      "path: ${{ env.BIN }}",
    ], "the target job");
    assert.equal(target.match(/codesign --sign/g)?.length, 1, "signed once, before it is proved");
  });

  await t.step(
    "publish needs every target, packages all, attests, installs from the assets, releases",
    () => {
      const publish = job("publish");
      assert.match(publish, /^ {4}needs: \[version, target\]$/m);
      assert.match(
        publish,
        /^ {4}permissions:\n {6}contents: write\n {6}id-token: write\n {6}attestations: write\n/m,
      );
      for (const [name, text] of jobs) {
        if (name !== "publish" && name !== "registry") {
          assert.doesNotMatch(
            text,
            /permissions:/,
            `${name} needs no write permission`,
          );
        }
      }
      assertInOrder(publish, [
        "uses: actions/download-artifact@",
        "pattern: tinyagent-*",
        'run: deno task package --all --repo "$GITHUB_REPOSITORY" "$VERSION"\n',
        "uses: actions/attest-build-provenance@",
        "dist/release/tinyagent-*\n", // the archives and the bundles
        "dist/release/install.sh\n",
        "dist/release/SHA256SUMS\n",
        "dist/release/server.json\n",
        'cp "$BUNDLE" "dist/release/tinyagent-$VERSION.intoto.jsonl"',
        'sh dist/release/install.sh "v$VERSION"',
        'grep -q "build provenance verified" install.err',
        'gh release create "$GITHUB_REF_NAME" dist/release/*',
        "uses: actions/upload-artifact@",
        "name: registry-entry",
        "path: dist/release/server.json",
      ], "the publish job");
    },
  );

  await t.step(
    "registry: after the release is public, the pinned, checked mcp-publisher publishes server.json with OIDC",
    () => {
      const registry = job("registry");
      assert.match(registry, /^ {4}needs: \[version, publish\]$/m);
      assert.match(registry, /^ {4}permissions:\n {6}contents: read\n {6}id-token: write\n {4}env:/m);
      assert.match(registry, /^ {6}MCP_PUBLISHER_VERSION: v\d+\.\d+\.\d+$/m);
      assert.match(registry, /^ {6}MCP_PUBLISHER_SHA256: [0-9a-f]{64}$/m);
      assertInOrder(registry, [
        "uses: actions/download-artifact@",
        "name: registry-entry",
        "version=$(jq -r .version entry/server.json)",
        'if [ "$version" != "$VERSION" ]; then',
        "--proto '=https' --tlsv1.2",
        '/releases/download/$MCP_PUBLISHER_VERSION/mcp-publisher_linux_amd64.tar.gz"',
        'echo "$MCP_PUBLISHER_SHA256  mcp-publisher.tar.gz" | sha256sum --check --strict -',
        "run: ./mcp-publisher login github-oidc\n",
        "working-directory: entry",
        "run: ../mcp-publisher publish\n",
      ], "the registry job");
    },
  );

  await t.step("the attestation bundle has the name install.sh fetches", async () => {
    const installer = await Deno.readTextFile(new URL("install.sh", ROOT));
    assert.ok(installer.includes('bundle_name="tinyagent-${VERSION}.intoto.jsonl"'));
    assert.ok(release.includes('"dist/release/tinyagent-$VERSION.intoto.jsonl"'));
  });

  await t.step(".ci/run leaves out of validation only the attestations permission", async () => {
    const run = await Deno.readTextFile(new URL(".ci/run", ROOT));
    assert.ok(run.includes(`grep -v '^ *attestations: write$'`));
    assert.equal(release.match(/^ *attestations: write$/gm)?.length, 1);
    assert.ok(run.trimEnd().endsWith("\nnpx -y deno@2.9.6 task test"));
  });

  await t.step("ci.yml tests on Linux, macOS and Windows with the test task's flags", () => {
    assert.match(ci, /os: \[ubuntu-latest, macos-latest, windows-latest\]/);
    for (const command of ["deno fmt --check\n", "deno lint\n", "deno check\n", "deno task test\n"]) {
      assert.ok(ci.includes(`run: ${command}`), command);
    }
    const test = tasks.test.match(/deno test (.*) tests\/$/);
    assert.ok(test, `unexpected test task: ${tasks.test}`);
    assert.ok(ci.includes(`run: deno test ${test[1]} --ignore=tests/install_test.ts tests/\n`));
  });
});
