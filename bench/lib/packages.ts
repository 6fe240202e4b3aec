// 12. A new user's first run: the npm packages a cold `deno run main.ts --version` fetches into an empty
// DENO_DIR, and their size on disk, here and in the --baseline checkout (issue 37: at most 12). Each run
// gets a DENO_DIR of its own under the results folder (the bench may write only there), removed after; the
// registry is reached through the CA variables this process has. Counted by the package folders Deno made
// (registry host / name or @scope/name / version), measured by `du`: the bench reads no file itself.

import { loaderEnv } from "../../tests/support/tinyagent.ts";
import type { Checkout } from "./checkout.ts";
import { HERE } from "./checkout.ts";
import type { BenchResult } from "./report.ts";

export interface PackagesOptions {
  /** The most packages a cold run may fetch. */
  limit: number;
  /** Where the fresh DENO_DIRs go (the results folder). */
  scratch: string;
  baseline?: Checkout;
  log(line: string): void;
}

interface Fetched {
  packages: string[];
  bytes: number;
  ms: number;
}

async function run(command: string, args: string[], env: Record<string, string> = {}) {
  const output = await new Deno.Command(command, {
    args,
    env: { ...env, DENO_NO_UPDATE_CHECK: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    ok: output.success,
    stdout: new TextDecoder().decode(output.stdout),
    stderr: new TextDecoder().decode(output.stderr),
  };
}

/** name@version of each package folder under `denoDir`/npm, from `find`'s listing. */
export function packageFolders(denoDir: string, listing: string): string[] {
  const found = new Set<string>();
  for (const path of listing.split("\n")) {
    const parts = path.slice(`${denoDir}/npm/`.length).split("/");
    // host/name/version, or host/@scope/name/version
    const [name, version] = parts[1]?.startsWith("@")
      ? [`${parts[1]}/${parts[2]}`, parts[3]]
      : [parts[1], parts[2]];
    if (parts.length === (parts[1]?.startsWith("@") ? 4 : 3) && /^\d/.test(version ?? "")) {
      found.add(`${name}@${version}`);
    }
  }
  return [...found].sort();
}

/** What a cold `deno run main.ts --version` of `checkout` fetched. */
async function coldRun(checkout: Checkout, scratch: string): Promise<Fetched> {
  const denoDir = `${scratch}/cold-deno-dir-${crypto.randomUUID()}`;
  try {
    const started = performance.now();
    const ran = await run(Deno.execPath(), [
      "run",
      ...checkout.configFlags,
      `${checkout.dir}main.ts`,
      "--version",
    ], { ...loaderEnv(), DENO_DIR: denoDir, NO_COLOR: "1" });
    const ms = performance.now() - started;
    if (!ran.ok) {
      throw new Error(`deno run ${checkout.dir}main.ts --version failed: ${ran.stderr.slice(-1000)}`);
    }
    const listing = await run("find", [`${denoDir}/npm`, "-mindepth", "3", "-maxdepth", "4", "-type", "d"]);
    const size = await run("du", ["-sb", `${denoDir}/npm`]);
    return {
      packages: packageFolders(denoDir, listing.stdout),
      bytes: Number(size.stdout.split("\t")[0]),
      ms,
    };
  } finally {
    await run("rm", ["-rf", denoDir]);
  }
}

export async function packagesBench(options: PackagesOptions): Promise<BenchResult> {
  const { limit, scratch, baseline, log } = options;
  log("packages: a cold run of this checkout's main.ts --version into an empty DENO_DIR");
  const here = await coldRun(HERE, scratch);
  const before = baseline
    ? (log("packages: the same of the baseline"), await coldRun(baseline, scratch))
    : undefined;
  const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
  const rows = [[
    "tinyagent",
    String(here.packages.length),
    mb(here.bytes),
    `${(here.ms / 1000).toFixed(1)} s`,
  ]];
  if (before) {
    rows.push([
      "baseline",
      String(before.packages.length),
      mb(before.bytes),
      `${(before.ms / 1000).toFixed(1)} s`,
    ]);
  }
  const gone = before ? before.packages.filter((p) => !here.packages.includes(p)) : [];
  const added = before ? here.packages.filter((p) => !before.packages.includes(p)) : [];
  return {
    name: "packages",
    title: "A cold first run: npm packages fetched by deno run main.ts --version",
    columns: ["checkout", "packages", "on disk", "wall (fetching included)"],
    rows,
    targets: [{
      what: "packages a cold run fetches",
      limit: `≤ ${limit}`,
      measured: String(here.packages.length),
      met: here.packages.length <= limit,
    }],
    notes: [
      `fetched: ${here.packages.join(", ")}`,
      ...(before
        ? [`gone since the baseline: ${gone.join(", ") || "none"}; new: ${added.join(", ") || "none"}`]
        : []),
      "the wall time depends on the registry and the proxy in front of it: not a figure to compare",
    ],
    data: { here, baseline: before },
  };
}
