// Deno as npm installs it (`npm install -g deno`), built in a temporary directory around this test's
// own deno: node_modules/deno/ with its package.json and bin.cjs, the Node script npm links onto
// PATH as `deno`, which runs the real binary as its child. The binary is where npm may leave it:
// beside bin.cjs (npm's postinstall links it there), in the platform package nested under the deno
// package, or in the platform package hoisted next to it. bin.cjs records each run in a marker
// file, so a test can tell whether it ran. POSIX only; it needs node on PATH.

const decoder = new TextDecoder();

/** Where the layout has the real binary. */
export type BinaryPlace = "beside bin.cjs" | "in the platform package" | "in the hoisted platform package";

export interface NpmDeno {
  /** A directory whose `deno` is a link to bin.cjs, as npm's global bin directory: put it on PATH. */
  binDir: string;
  /** The package directory, …/node_modules/deno. */
  packageDir: string;
  /** The real binary's place in the layout. */
  binary: string;
  /** Whether bin.cjs has run: it appends its pid to a marker file every time it starts. */
  ran(): Promise<boolean>;
}

/** The first `name` on PATH, or null. */
export function findOnPath(name: string): string | null {
  for (const dir of (Deno.env.get("PATH") ?? "").split(":")) {
    if (!dir) continue;
    try {
      if (Deno.statSync(`${dir}/${name}`).isFile) return `${dir}/${name}`;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** The platform package npm installs for this machine, as install_api.cjs names it. */
export function platformPackage(): string {
  const arch = Deno.build.arch === "x86_64" ? "x64" : "arm64";
  return Deno.build.os === "linux" ? `linux-${arch}-glibc` : `${Deno.build.os}-${arch}`;
}

/**
 * npm's bin.cjs when this deno came from npm (it then sits beside `Deno.execPath()`), else a Node
 * script that does what it does: spawnSync the binary beside it, or else the platform package's,
 * with stdio inherited, and exit with its status. Either way, first a line recording the run.
 */
async function binCjs(): Promise<{ script: string; installApi?: string }> {
  const record = 'require("fs").appendFileSync(__filename + ".ran", process.pid + "\\n");';
  const real = Deno.execPath().replace(/[^/]+$/, "");
  try {
    const manifest = JSON.parse(await Deno.readTextFile(`${real}package.json`));
    if (manifest.name === "deno") {
      const script = await Deno.readTextFile(`${real}bin.cjs`);
      const installApi = await Deno.readTextFile(`${real}install_api.cjs`).catch(() => undefined);
      return { script: script.replace(/^(#![^\n]*\n)?/, (shebang) => `${shebang}${record}\n`), installApi };
    }
  } catch {
    // not an npm install: written below
  }
  const script = `#!/usr/bin/env node
${record}
const fs = require("fs");
const path = require("path");
const child_process = require("child_process");
const platform = ${JSON.stringify(platformPackage())};
const exePath = [
  path.join(__dirname, "deno"),
  path.join(__dirname, "node_modules", "@deno", platform, "deno"),
  path.join(__dirname, "..", "@deno", platform, "deno"),
].find((file) => fs.existsSync(file));
const result = child_process.spawnSync(exePath, process.argv.slice(2), { stdio: "inherit" });
if (result.error) throw result.error;
process.exit(result.status ?? 1);
`;
  return { script };
}

/**
 * Builds the layout under `dir`: `dir`/lib/node_modules/deno/ (a package.json naming the package
 * `name`, and bin.cjs), the real binary at `place` (a link to this test's deno), and `dir`/bin/deno
 * linking to bin.cjs through a relative link, as npm makes it. Another `name` makes the same
 * layout for a package that is not npm's deno.
 */
export async function npmDeno(dir: string, place: BinaryPlace, name = "deno"): Promise<NpmDeno> {
  const modules = `${dir}/lib/node_modules`;
  const packageDir = `${modules}/deno`;
  await Deno.mkdir(packageDir, { recursive: true });
  await Deno.mkdir(`${dir}/bin`, { recursive: true });
  await Deno.writeTextFile(`${packageDir}/package.json`, JSON.stringify({ name }));
  const { script, installApi } = await binCjs();
  await Deno.writeTextFile(`${packageDir}/bin.cjs`, script, { mode: 0o755 });
  if (installApi !== undefined) await Deno.writeTextFile(`${packageDir}/install_api.cjs`, installApi);
  const platformDir = place === "in the platform package"
    ? `${packageDir}/node_modules/@deno/${platformPackage()}`
    : `${modules}/@deno/${platformPackage()}`;
  const binary = place === "beside bin.cjs" ? `${packageDir}/deno` : `${platformDir}/deno`;
  if (place !== "beside bin.cjs") {
    await Deno.mkdir(platformDir, { recursive: true });
    await Deno.writeTextFile(
      `${platformDir}/package.json`,
      JSON.stringify({ name: `@deno/${platformPackage()}` }),
    );
  }
  await Deno.symlink(Deno.execPath(), binary);
  await Deno.symlink("../lib/node_modules/deno/bin.cjs", `${dir}/bin/deno`);
  return {
    binDir: `${dir}/bin`,
    packageDir,
    binary,
    ran: () =>
      Deno.readFile(`${packageDir}/bin.cjs.ran`).then(
        (bytes) => decoder.decode(bytes).trim() !== "",
        () => false,
      ),
  };
}
