// `deno task package [--all] [--repo OWNER/NAME] <version>`: turns the binaries `deno task compile`
// (or the release workflow's per-target jobs) left in dist/ into the release
// assets, in dist/release/:
//
//   tinyagent-<version>-<target>.tar.gz           the file `tinyagent` (mode 755) at the root
//   tinyagent-<version>-x86_64-pc-windows-msvc.zip the file `tinyagent.exe`
//   tinyagent-<version>-<os>.mcpb                  an MCP bundle for Claude Desktop per OS (bundle.ts), when
//                                                  every binary it carries is there
//   install.sh                                     the installer (…/releases/latest/download/install.sh)
//   SHA256SUMS                                     `<sha256>  <file>` for each of the above, as sha256sum writes
//   server.json                                    the MCP Registry entry naming each bundle with its SHA-256
//
// The version (`0.1.0` or `v0.1.0`) must be deno.json's: a tag builds the code it names.
// With --all, every target's binary must be there (the release workflow uses it, so a
// missing target fails the release instead of shipping without it); without it, the
// binaries present are packaged. dist/ is the one next to this script's deno.json,
// whatever the working directory. --repo OWNER/NAME is the GitHub repository the
// release belongs to (the bundles' and the registry entry's URLs; default the
// installer's). The bundles are packed with the official bundle CLI through npx.

import { parseArgs } from "node:util";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import config from "../deno.json" with { type: "json" };
import { binaryName, TARGETS } from "./compile.ts";
import { bundleName, BUNDLES, packBundle, registryEntry } from "./bundle.ts";

const ROOT = new URL("../", import.meta.url);
const INSTALL_SH = new URL("install.sh", ROOT);
const DIST = new URL("dist/", ROOT);
const RELEASE = new URL("release/", DIST);
const STAGE = new URL(".package-stage/", DIST);
const LAUNCHER = new URL("scripts/mcpb_launch.sh", ROOT);
const USAGE = "usage: deno task package [--all] [--repo OWNER/NAME] <version>   (e.g. 0.1.0 or v0.1.0)";
/** The repository a release belongs to unless --repo says otherwise: install.sh's default. */
export const DEFAULT_REPO = "tinyagent/tinyagent";

export class PackageError extends Error {}

/** `v1.2.3` or `1.2.3`, with an optional `-pre` suffix, as `1.2.3`; anything else is refused. */
export function normalizeVersion(text: string): string {
  const version = text.startsWith("v") ? text.slice(1) : text;
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z][0-9A-Za-z.-]*)?$/.test(version)) {
    throw new PackageError(
      `not a version: "${text}" (expected X.Y.Z or X.Y.Z-pre, optionally with a leading v)`,
    );
  }
  return version;
}

/** The archive a target's binary ships in. */
export function archiveName(version: string, target: string): string {
  return `tinyagent-${version}-${target}.${target.includes("windows") ? "zip" : "tar.gz"}`;
}

/** One line of SHA256SUMS, exactly as `sha256sum` writes it for a file in the current directory. */
export function sumsLine(name: string, bytes: Uint8Array): string {
  return `${bytesToHex(sha256(bytes))}  ${name}\n`;
}

async function exists(path: URL): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function removeIfPresent(path: URL): Promise<void> {
  try {
    await Deno.remove(path, { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

async function tool(program: string, args: string[], cwd: URL): Promise<string> {
  let result: Deno.CommandOutput;
  try {
    result = await new Deno.Command(program, {
      args,
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // macOS tar would otherwise add ._ files holding extended attributes.
      env: { COPYFILE_DISABLE: "1" },
    }).output();
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new PackageError(`${program} was not found; install it and try again`);
    }
    throw error;
  }
  const decoder = new TextDecoder();
  if (!result.success) {
    throw new PackageError(
      `${program} ${args.join(" ")} failed (exit ${result.code}): ${decoder.decode(result.stderr).trim()}`,
    );
  }
  return decoder.decode(result.stdout);
}

/** Builds the release assets from the binaries in dist/ (with `all`, every target's); returns their names. */
export async function packageRelease(
  versionArg: string,
  { all = false, repo = DEFAULT_REPO } = {},
): Promise<string[]> {
  const version = normalizeVersion(versionArg);
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(repo)) {
    throw new PackageError(`--repo: "${repo}" is not a GitHub OWNER/NAME`);
  }
  if (version !== config.version) {
    throw new PackageError(
      `version ${version} is not deno.json's version ${config.version}: the tag must match the code ` +
        `(tag v${config.version}, or set deno.json's "version" to ${version} first)`,
    );
  }

  const present: string[] = [];
  for (const target of TARGETS) {
    if (await exists(new URL(binaryName(target), DIST))) present.push(target);
  }
  const missing = TARGETS.filter((target) => !present.includes(target));
  if (all && missing.length > 0) {
    throw new PackageError(
      `--all: no binary for ${missing.join(", ")} in dist/ (expected ${
        missing.map(binaryName).join(", ")
      }); nothing was packaged`,
    );
  }
  if (present.length === 0) {
    throw new PackageError(
      `no binary in dist/ (expected any of ${
        TARGETS.map(binaryName).join(", ")
      }): run deno task compile first`,
    );
  }

  await removeIfPresent(RELEASE);
  await removeIfPresent(STAGE);
  await Deno.mkdir(RELEASE, { recursive: true });

  // GNU tar can record root as the owner, so extracting as root does not hand the file to the build user.
  const gnuTar = (await tool("tar", ["--version"], DIST)).includes("GNU tar");
  const owner = gnuTar ? ["--owner=0", "--group=0", "--numeric-owner"] : [];

  const assets: string[] = [];
  try {
    for (const target of present) {
      const windows = target.includes("windows");
      const member = windows ? "tinyagent.exe" : "tinyagent";
      const archive = archiveName(version, target);
      // The binary alone in a directory, renamed and executable, is archived from there.
      await Deno.mkdir(STAGE);
      await Deno.copyFile(new URL(binaryName(target), DIST), new URL(member, STAGE));
      await Deno.chmod(new URL(member, STAGE), 0o755);
      if (windows) {
        await tool("zip", ["-q", "-X", `../release/${archive}`, member], STAGE);
      } else {
        await tool("tar", ["-czf", `../release/${archive}`, ...owner, member], STAGE);
      }
      await Deno.remove(STAGE, { recursive: true });
      assets.push(archive);
      console.error(`package: dist/release/${archive}`);
    }
  } finally {
    await removeIfPresent(STAGE);
  }

  // One bundle per OS whose binaries are all here: a bundle missing a CPU would fail on it.
  try {
    for (const bundle of BUNDLES) {
      if (!bundle.targets.every((target) => present.includes(target))) {
        console.error(
          `package: no ${bundle.os} bundle: it needs the binaries for ${bundle.targets.join(" and ")}`,
        );
        continue;
      }
      const name = bundleName(version, bundle.os);
      await packBundle({
        version,
        os: bundle.os,
        repo,
        dist: DIST,
        stage: STAGE,
        out: new URL(name, RELEASE),
        launcher: LAUNCHER,
        tool,
      });
      await Deno.remove(STAGE, { recursive: true });
      assets.push(name);
      console.error(`package: dist/release/${name}`);
    }
  } finally {
    await removeIfPresent(STAGE);
  }

  await Deno.copyFile(INSTALL_SH, new URL("install.sh", RELEASE));
  await Deno.chmod(new URL("install.sh", RELEASE), 0o755);
  assets.push("install.sh");

  assets.sort();
  let sums = "";
  for (const name of assets) sums += sumsLine(name, await Deno.readFile(new URL(name, RELEASE)));
  await Deno.writeTextFile(new URL("SHA256SUMS", RELEASE), sums);
  console.error(`package: dist/release/SHA256SUMS (${assets.length} files)`);

  const bundles = [];
  for (const name of assets.filter((asset) => asset.endsWith(".mcpb"))) {
    bundles.push({ name, sha256: bytesToHex(sha256(await Deno.readFile(new URL(name, RELEASE)))) });
  }
  await Deno.writeTextFile(
    new URL("server.json", RELEASE),
    `${JSON.stringify(registryEntry(version, repo, bundles), null, 2)}\n`,
  );
  console.error(`package: dist/release/server.json (${bundles.length} bundles)`);
  return [...assets, "SHA256SUMS", "server.json"];
}

async function main(args: string[]): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args,
      options: { help: { type: "boolean", short: "h" }, all: { type: "boolean" }, repo: { type: "string" } },
      allowPositionals: true,
      strict: true,
    });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new PackageError(`expected one version\n${USAGE}`);
    await packageRelease(positionals[0], { all: values.all, repo: values.repo ?? DEFAULT_REPO });
    return 0;
  } catch (error) {
    if (error instanceof PackageError || (error as { code?: string }).code?.startsWith("ERR_PARSE_ARGS")) {
      console.error(`package: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
