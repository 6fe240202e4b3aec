// `deno task compile [target…]`: builds the tinyagent binary for every release
// target (or the ones named) into dist/tinyagent-<target>[.exe].
//
// The binary embeds main.ts's module graph, lib/sandbox/worker_all.ts (the
// sandbox's worker entry with every part: a worker is loaded by URL, not
// imported, so it is included explicitly) and only the npm packages those
// reach: no tests, no demo. It runs with the
// flags of deno.json's `start` task (scripts/shipped_flags.ts).
//
// It also embeds dist/commit.txt, written here first with the commit
// being built (`git rev-parse HEAD`, `-dirty` when tracked files differ from
// it), which `tinyagent --version` prints. dist/ is git-ignored: building
// never dirties the tree, and no generated file is committed.
//
// `deno compile` downloads Deno's `denort` runtime for each target, so it
// needs to reach Deno's download host: the release workflow on GitHub is where
// binaries are built.

import { shippedFlags } from "./shipped_flags.ts";
import { COMMIT_FILE, UNKNOWN_COMMIT } from "../lib/cli/version.ts";

export const TARGETS = [
  "x86_64-unknown-linux-gnu",
  "aarch64-unknown-linux-gnu",
  "x86_64-apple-darwin",
  "aarch64-apple-darwin",
  "x86_64-pc-windows-msvc",
] as const;

export type Target = (typeof TARGETS)[number];

const ROOT = new URL("../", import.meta.url);
const DIST = "dist";

/** dist/tinyagent-<target>, with .exe for Windows. */
export function binaryName(target: string): string {
  return `tinyagent-${target}${target.includes("windows") ? ".exe" : ""}`;
}

/** The `deno compile` arguments that build one target (paths relative to the repository root). */
export function compileArgs(target: string): string[] {
  return [
    "compile",
    ...shippedFlags(),
    "--include",
    "lib/sandbox/worker_all.ts",
    "--include",
    COMMIT_FILE,
    // Without this the whole npm snapshot of deno.lock is embedded (the test-only MCP SDK and its server).
    "--exclude-unused-npm",
    "--frozen-lockfile",
    "--target",
    target,
    "--output",
    `${DIST}/${binaryName(target)}`,
    "main.ts",
  ];
}

/**
 * Trust settings `deno compile` would bake into the binary. A binary built with DENO_CERT or
 * DENO_TLS_CA_STORE set carries that CA file or store list in its metadata, and the runtime then
 * ignores both variables where the binary runs: a user behind a private CA could not add theirs.
 * Built without them, the binary reads them at run time, as `deno run` does.
 */
export const BAKED_TRUST_VARIABLES = ["DENO_CERT", "DENO_TLS_CA_STORE"] as const;

/** The BAKED_TRUST_VARIABLES set in `env`. */
export function trustSettingsToBake(env: (name: string) => string | undefined): string[] {
  return BAKED_TRUST_VARIABLES.filter((name) => env(name) !== undefined);
}

/** Whether deno compile's error output says it could not download the denort runtime. */
export function isRuntimeDownloadFailure(stderr: string): boolean {
  return /denort/.test(stderr) && /Setting up base binary|error sending request/.test(stderr);
}

/** The commit checked out in `root` (`-dirty` if tracked files differ from it), or `unknown` outside git. */
export async function gitCommit(root: URL): Promise<string> {
  const git = async (...args: string[]): Promise<string | null> => {
    const { success, stdout } = await new Deno.Command("git", {
      args,
      cwd: root,
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).output();
    return success ? new TextDecoder().decode(stdout).trim() : null;
  };
  try {
    const head = await git("rev-parse", "--verify", "HEAD");
    if (head === null || !/^[0-9a-f]{40}$/.test(head)) return UNKNOWN_COMMIT;
    const changes = await git("status", "--porcelain", "--untracked-files=no");
    if (changes === null) return UNKNOWN_COMMIT;
    return changes === "" ? head : `${head}-dirty`;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return UNKNOWN_COMMIT; // No git on this machine.
    throw error;
  }
}

/** Writes `root`'s dist/commit.txt with the commit checked out there; returns that commit. */
export async function writeCommitFile(root: URL): Promise<string> {
  const commit = await gitCommit(root);
  await Deno.mkdir(new URL(`${DIST}/`, root), { recursive: true });
  await Deno.writeTextFile(new URL(COMMIT_FILE, root), `${commit}\n`);
  return commit;
}

function usage(): string {
  return `usage: deno task compile [target…]\n\ntargets: ${TARGETS.join(", ")} (default: all)`;
}

async function main(args: string[]): Promise<number> {
  if (args.includes("-h") || args.includes("--help")) {
    console.log(usage());
    return 0;
  }
  const unknown = args.filter((arg) => !(TARGETS as readonly string[]).includes(arg));
  if (unknown.length > 0) {
    console.error(`compile: unknown target ${unknown.join(", ")}\n\n${usage()}`);
    return 1;
  }
  const baked = trustSettingsToBake((name) => Deno.env.get(name));
  if (baked.length > 0) {
    console.error(
      `compile: ${baked.join(" and ")} ${baked.length === 1 ? "is" : "are"} set; deno compile would build ` +
        `that trust setting into the binary, which would then ignore its users' own; unset ${
          baked.length === 1 ? "it" : "them"
        } to compile`,
    );
    return 1;
  }
  const targets = args.length > 0 ? [...new Set(args)] : [...TARGETS];
  const decoder = new TextDecoder();

  const commit = await writeCommitFile(ROOT);
  console.error(`compile: commit ${commit} (${COMMIT_FILE})`);
  for (const target of targets) {
    const output = new URL(`${DIST}/${binaryName(target)}`, ROOT);
    // A stale binary must not survive a failed build and be packaged.
    await Deno.remove(output).catch((error) => {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    });
    console.error(`compile: ${target} -> ${DIST}/${binaryName(target)}`);
    const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
      args: compileArgs(target),
      cwd: ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const errors = decoder.decode(stderr);
    if (code !== 0 && isRuntimeDownloadFailure(errors)) {
      console.error(
        `compile: deno compile must download Deno's denort runtime for ${target} and could not reach it; ` +
          `binaries are built by the release workflow on GitHub (.github/workflows/release.yml)`,
      );
      return 1;
    }
    await Deno.stdout.write(stdout);
    await Deno.stderr.write(stderr);
    if (code !== 0) {
      console.error(`compile: deno compile failed for ${target} (exit ${code})`);
      return 1;
    }
  }
  console.error(`compile: built ${targets.length} binar${targets.length === 1 ? "y" : "ies"} in ${DIST}/`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
