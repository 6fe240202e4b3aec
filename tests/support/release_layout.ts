// `deno task package` end to end needs the layout it works in: deno.json (with the version under
// test), the lock, install.sh, the scripts and the modules they read, and binaries in dist/. This
// builds that layout in a temporary folder, with stand-ins for the binaries `deno compile` makes.

import config from "../../deno.json" with { type: "json" };
import { binaryName } from "../../scripts/compile.ts";

const ROOT = new URL("../../", import.meta.url);
const decoder = new TextDecoder();

/** What a command printed, and its status. */
export async function run(
  program: string,
  args: string[],
  cwd: URL | string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await new Deno.Command(program, {
    args,
    cwd,
    // Deno's update check stays out of every test (`deno task package` runs a `deno run`).
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
}

/** A fake binary: a shell script that says which target it is. */
export function fakeBinary(version: string, target: string): string {
  return `#!/bin/sh\necho "tinyagent ${version}"\necho "${target}" >&2\n`;
}

/** A temporary copy of what `deno task package` reads, with deno.json at `version`. */
export async function makeLayout(version: string): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "tinyagent-release-" });
  const json = { ...config, version };
  await Deno.writeTextFile(`${dir}/deno.json`, JSON.stringify(json, null, 2) + "\n");
  await Deno.copyFile(new URL("deno.lock", ROOT), `${dir}/deno.lock`);
  await Deno.copyFile(new URL("install.sh", ROOT), `${dir}/install.sh`);
  await Deno.mkdir(`${dir}/scripts`);
  await Deno.mkdir(`${dir}/lib/cli`, { recursive: true });
  await Deno.mkdir(`${dir}/lib/wire`, { recursive: true });
  for (
    const file of [
      "scripts/package.ts",
      "scripts/bundle.ts",
      "scripts/mcpb_launch.sh",
      "scripts/compile.ts",
      "scripts/shipped_flags.ts",
      "lib/cli/version.ts",
      "lib/wire/identity.ts",
    ]
  ) {
    await Deno.copyFile(new URL(file, ROOT), `${dir}/${file}`);
  }
  return dir;
}

/** Puts a binary for each target in `dir`/dist: `content(target)`, or a fake one. */
export async function addBinaries(
  dir: string,
  version: string,
  targets: readonly string[],
  content: (target: string) => string = (target) => fakeBinary(version, target),
): Promise<void> {
  await Deno.mkdir(`${dir}/dist`, { recursive: true });
  for (const target of targets) {
    await Deno.writeTextFile(`${dir}/dist/${binaryName(target)}`, content(target), { mode: 0o644 });
  }
}

/** `deno task package <args>` in `dir`, with the task's own permission flags. */
export function packageTask(dir: string, ...args: string[]) {
  return run(Deno.execPath(), ["task", "--quiet", "package", ...args], dir);
}
