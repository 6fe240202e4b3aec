// Results: one table per benchmark on stdout, one JSON file per benchmark.

import { readProc } from "./child.ts";
import { median, ratioInterval, times } from "./stats.ts";

export interface Target {
  /** What is compared, e.g. "p50 tinyagent / floor". */
  what: string;
  /** The limit, e.g. "≤ 1.25×". */
  limit: string;
  measured: string;
  met: boolean;
  /** False for a figure that is reported against the limit but does not decide the target. */
  judged?: boolean;
}

export interface BenchResult {
  name: string;
  title: string;
  /** Column names, then one row of cells per line of the table. */
  columns: string[];
  rows: string[][];
  targets: Target[];
  notes: string[];
  /** Everything measured, raw samples included, for the JSON file. */
  data: Record<string, unknown>;
}

export function table(columns: string[], rows: string[][]): string {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (c ?? "").padEnd(widths[i])).join(" | ")} |`;
  return [line(columns), `| ${widths.map((w) => "-".repeat(w)).join(" | ")} |`, ...rows.map(line)].join("\n");
}

export function render(result: BenchResult): string {
  const parts = [`## ${result.title}`, "", table(result.columns, result.rows), ""];
  if (result.targets.length) {
    parts.push(
      table(
        ["target", "limit", "measured", "met"],
        result.targets.map((t) => [
          t.what,
          t.limit,
          t.measured,
          t.judged === false ? `(${t.met ? "within" : "over"}; not judged)` : t.met ? "yes" : "NO",
        ]),
      ),
      "",
    );
  }
  for (const note of result.notes) parts.push(`- ${note}`);
  if (result.notes.length) parts.push("");
  return parts.join("\n");
}

/** What the machine and the checkout were when the figures were taken. */
export async function environment(baselineDir?: string): Promise<Record<string, unknown>> {
  const read = async (path: string) => {
    try {
      return await readProc(path);
    } catch {
      return "";
    }
  };
  const git = async (...args: string[]) => {
    try {
      const output = await new Deno.Command("git", { args, stdout: "piped", stderr: "null" }).output();
      return new TextDecoder().decode(output.stdout).trim();
    } catch {
      return "";
    }
  };
  const cpuinfo = await read("/proc/cpuinfo");
  return {
    date: new Date().toISOString(),
    deno: Deno.version,
    os: Deno.build.os,
    arch: Deno.build.arch,
    cpu: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown",
    cpus: (cpuinfo.match(/^processor\s*:/gm) ?? []).length,
    loadavg: (await read("/proc/loadavg")).trim(),
    commit: await git("rev-parse", "HEAD"),
    libChanged: (await git("status", "--porcelain", "--", "lib", "main.ts", "launch.ts")) !== "",
    ...(baselineDir
      ? { baseline: { dir: baselineDir, commit: await git("-C", baselineDir, "rev-parse", "HEAD") } }
      : {}),
  };
}

export async function save(
  dir: string,
  file: string,
  result: BenchResult,
  context: Record<string, unknown>,
): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  const path = `${dir.replace(/\/+$/, "")}/${file}`;
  const { name, title, columns, rows, targets, notes, data } = result;
  await Deno.writeTextFile(
    path,
    `${
      JSON.stringify({ name, title, ...context, targets, notes, table: { columns, rows }, data }, null, 2)
    }\n`,
  );
  return path;
}

/**
 * A target on now / baseline from samples: met when the ratio of medians is within `limit`; for "no
 * worse" (limit 1), also when the ratio's 95% bootstrap interval reaches 1 (not measurably worse on
 * this machine), which the measured column then says.
 */
export function versusBaseline(what: string, now: number[], base: number[], limit = 1): Target {
  const ratio = median(now) / median(base);
  const [low, high] = ratioInterval(now, base);
  const within = limit === 1 && ratio > 1 && low <= 1;
  return {
    what,
    limit: limit === 1 ? "no worse (≤ 1.00×)" : `≤ ${times(limit)}`,
    measured: `${times(ratio)} (95% ${times(low)} – ${times(high)})${within ? ", within noise" : ""}`,
    met: ratio <= limit || within,
  };
}

/** A target on now / baseline from single figures (medians of a few samples, memory): strict. */
export function versusBaselineValue(what: string, now: number, base: number, limit = 1): Target {
  return {
    what,
    limit: limit === 1 ? "no worse (≤ 1.00×)" : `≤ ${times(limit)}`,
    measured: times(now / base),
    met: now / base <= limit,
  };
}
