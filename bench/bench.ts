// tinyagent's benchmarks. Each one runs the compared commands side by side in one run, alternating
// between them, and reports median, p95 and their ratio; the ratio is the figure that counts on a
// noisy machine. Tables go to stdout, JSON to bench/results/<name>.json (<name>.quick.json with --quick).
//
//   deno task bench                          every benchmark, full size
//   deno task bench --quick                  a smoke run (well under a minute)
//   deno task bench --only overhead,soak     some of them
//   deno task bench --baseline /tmp/base     each benchmark of tinyagent also runs an older checkout
//
// Run `deno task bench --help` for the sizes.

import { parseArgs } from "node:util";
import { overhead } from "./lib/overhead.ts";
import { startup } from "./lib/startup.ts";
import { payloads } from "./lib/payloads.ts";
import { soak } from "./lib/soak.ts";
import { remote } from "./lib/remote.ts";
import { rpcBench } from "./lib/rpc.ts";
import { listenBench } from "./lib/listen.ts";
import { resourcesBench } from "./lib/resources.ts";
import { signer } from "./lib/signer.ts";
import { codeBench } from "./lib/code.ts";
import { packagesBench } from "./lib/packages.ts";
import { memoryBench } from "./lib/memory.ts";
import { baselineAt, type Checkout } from "./lib/checkout.ts";
import { readProc } from "./lib/child.ts";
import { type BenchResult, environment, render, save } from "./lib/report.ts";
import { MiB } from "./lib/stats.ts";

const BENCHMARKS = [
  "overhead",
  "overhead-close",
  "startup",
  "payloads",
  "soak",
  "remote",
  "rpc",
  "listen",
  "resources",
  "signer",
  "code",
  "packages",
  "memory",
] as const;
type Name = (typeof BENCHMARKS)[number];

const HELP = `Usage: deno task bench [flags]

  --only a,b               run only these: ${BENCHMARKS.join(", ")} (default: all)
  --quick                  small sizes for a smoke run (results go to <name>.quick.json)
  --calls N                overhead: measured calls per command (default 1000, quick 100)
  --batch N                overhead: calls per batch before switching command (default 25)
  --warmup N               overhead: warm-up calls per command (default 50, quick 20)
  --startup-samples N      startup: spawns per command (default 30, quick 5)
  --payload-samples N      payloads: fresh children per command and payload (default 3, quick 1)
  --attachment-mib N       payloads: read_attachment file size (default 4)
  --text-mb N              payloads: text block size in MB (default 10)
  --line-mib N             payloads: input line argument size (default 40)
  --soak-calls N           soak: sequential calls (default 1000, quick 200)
  --rtt MS                 remote: the round trip the delay proxy adds (default 40)
  --remote-calls N         remote: measured calls per command and scenario (default 60, quick 15)
  --remote-spawns N        remote: spawn samples per command and scenario (default 6, quick 2)
  --rpc-calls N            rpc: publishes and stream events per command (default 300, quick 40)
  --rpc-query N            rpc: stored events one query returns (default 10000, quick 1000)
  --listen-events N        listen: events to each side, relay to stdout line (default 300, quick 40)
  --resource-reads N       resources: reads of a room each way, as a resource and as a tool (default 500, quick 50)
  --resource-changing-reads N  resources: the same of a room that changes before every read (default 200, quick 20)
  --signer-events N        signer: events each curve signs and verifies (default 4000, quick 400)
  --signer-spawns N        signer: fresh processes each to the first signature (default 20, quick 3)
  --code-runs N            code: runs of the 20-issue scenario each, per network (default 20, quick 2)
  --code-reads N           code: single reads each, per network (default 200, quick 20)
  --code-spawns N          code: spawns each to the initialize answer (default 40, quick 3)
  --code-ts-spawns N       code: processes per checkout of the TypeScript case (default 10, quick 2)
  --code-ts-warm N         code: warm programs of each language per process there (default 50, quick 10)
  --memory-samples N       memory: fresh processes of each kind (default 5, quick 1)
  --memory-programs N      memory: programs after the first, for code mode's growth (default 200, quick 20)
  packages                 (no size: one cold run of each checkout, from the npm registry)
  --baseline DIR           also run the tinyagent checkout in DIR (an absolute path, e.g. a throwaway
                           \`git worktree add /tmp/base <commit>\`) in startup, overhead, payloads,
                           remote, rpc, listen, memory, packages and code (its TypeScript case and
                           its fixed cost and start-up against this one), taking turns with this one,
                           with its own deno.json and lockfile (--config DIR/deno.json); its
                           packages are cached first with
                           \`deno cache --config DIR/deno.json DIR/main.ts\`
  --no-keepalive           the relay closes every connection in every benchmark (default: keep-alive;
                           overhead-close is the overhead benchmark with this setting)
  --out DIR                where JSON results go (default bench/results; the task may write only there)
  -h, --help               this help`;

const { values } = parseArgs({
  args: Deno.args,
  strict: true,
  options: {
    only: { type: "string" },
    quick: { type: "boolean", default: false },
    calls: { type: "string" },
    batch: { type: "string" },
    warmup: { type: "string" },
    "startup-samples": { type: "string" },
    "payload-samples": { type: "string" },
    "attachment-mib": { type: "string" },
    "text-mb": { type: "string" },
    "line-mib": { type: "string" },
    "soak-calls": { type: "string" },
    rtt: { type: "string" },
    "remote-calls": { type: "string" },
    "remote-spawns": { type: "string" },
    "rpc-calls": { type: "string" },
    "rpc-query": { type: "string" },
    "listen-events": { type: "string" },
    "resource-reads": { type: "string" },
    "resource-changing-reads": { type: "string" },
    "signer-events": { type: "string" },
    "signer-spawns": { type: "string" },
    "code-runs": { type: "string" },
    "code-reads": { type: "string" },
    "code-spawns": { type: "string" },
    "code-ts-spawns": { type: "string" },
    "code-ts-warm": { type: "string" },
    "memory-samples": { type: "string" },
    "memory-programs": { type: "string" },
    baseline: { type: "string" },
    "no-keepalive": { type: "boolean", default: false },
    out: { type: "string" },
    help: { type: "boolean", short: "h", default: false },
  },
});

if (values.help) {
  console.log(HELP);
  Deno.exit(0);
}

function number(name: keyof typeof values, full: number, quick = full): number {
  const raw = values[name];
  if (raw === undefined) return values.quick ? quick : full;
  const parsed = Number(raw);
  if (!Number.isFinite(parsed) || parsed <= 0) {
    console.error(`bench: --${name} must be a positive number, not ${JSON.stringify(raw)}`);
    Deno.exit(1);
  }
  return parsed;
}

const only = (values.only?.split(",").map((s) => s.trim()).filter(Boolean) ?? [...BENCHMARKS]) as Name[];
for (const name of only) {
  if (!BENCHMARKS.includes(name)) {
    console.error(`bench: unknown benchmark ${JSON.stringify(name)}; choose from ${BENCHMARKS.join(", ")}`);
    Deno.exit(1);
  }
}
if (
  Deno.build.os !== "linux" &&
  (["payloads", "soak", "rpc", "memory"] as Name[]).some((name) => only.includes(name))
) {
  console.error("bench: payloads, soak, rpc and memory read /proc/<pid>/status, so they run on Linux only");
  Deno.exit(1);
}

const keepAlive = !values["no-keepalive"];
const outDir = values.out ?? new URL("./results", import.meta.url).pathname;
const log = (line: string) => console.error(`bench: ${line}`);
const mode = values.quick ? "quick" : "full";

let baseline: Checkout | undefined;
if (values.baseline !== undefined) {
  try {
    baseline = await baselineAt(values.baseline, readProc, log);
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
}

function overheadWith(keepAlive: boolean): Promise<BenchResult> {
  return overhead({
    calls: number("calls", 1000, 100),
    batch: number("batch", 25),
    warmup: number("warmup", 50, 20),
    keepAlive,
    limit: 1.25,
    baseline,
    log,
  });
}

const runners: Record<Name, () => Promise<BenchResult>> = {
  overhead: () => overheadWith(keepAlive),
  "overhead-close": () => overheadWith(false),
  startup: () =>
    startup({
      samples: number("startup-samples", 30, 5),
      warmup: values.quick ? 1 : 2,
      keepAlive,
      limit: 1.5,
      baseline,
      baselineLimit: 0.85,
      log,
    }),
  payloads: () =>
    payloads({
      samples: number("payload-samples", 3, 1),
      attachmentBytes: Math.round(number("attachment-mib", 4) * MiB),
      textBytes: Math.round(number("text-mb", 10) * 1e6),
      lineBytes: Math.round(number("line-mib", 40) * MiB),
      keepAlive,
      limit: 4,
      baseline,
      log,
    }),
  soak: () =>
    soak({
      calls: number("soak-calls", 1000, 200),
      warmup: values.quick ? 100 : 500,
      checkpoint: values.quick ? 50 : 100,
      keepAlive,
      log,
    }),
  remote: () =>
    remote({
      rttMs: number("rtt", 40),
      calls: number("remote-calls", 60, 15),
      batch: values.quick ? 5 : 10,
      warmup: values.quick ? 2 : 5,
      spawns: number("remote-spawns", 6, 2),
      callLimit: 1.1,
      spawnLimit: 1,
      baseline,
      log,
    }),
  rpc: () =>
    rpcBench({
      publishes: number("rpc-calls", 300, 40),
      events: number("rpc-calls", 300, 40),
      batch: values.quick ? 10 : 25,
      warmup: values.quick ? 5 : 20,
      queryEvents: number("rpc-query", 10_000, 1000),
      memorySamples: values.quick ? 1 : 3,
      baseline,
      queryLimit: 0.5,
      log,
    }),
  listen: () =>
    listenBench({
      events: number("listen-events", 300, 40),
      batch: values.quick ? 10 : 25,
      warmup: values.quick ? 5 : 20,
      limit: 1.1,
      baseline,
      log,
    }),
  signer: () =>
    signer({
      events: number("signer-events", 4000, 400),
      batch: values.quick ? 50 : 200,
      spawns: number("signer-spawns", 20, 3),
      limit: 2,
      log,
    }),
  code: () =>
    codeBench({
      rttMs: number("rtt", 40),
      runs: number("code-runs", 20, 2),
      reads: number("code-reads", 200, 20),
      batch: values.quick ? 5 : 20,
      spawns: number("code-spawns", 40, 3),
      tsSpawns: number("code-ts-spawns", 10, 2),
      tsWarm: number("code-ts-warm", 50, 10),
      baseline,
      log,
    }),
  packages: () => packagesBench({ limit: 12, scratch: outDir, baseline, log }),
  memory: () =>
    memoryBench({
      samples: number("memory-samples", 5, 1),
      programs: number("memory-programs", 200, 20),
      idleMs: 1500,
      baseline,
      log,
    }),
  resources: () =>
    resourcesBench({
      reads: number("resource-reads", 500, 50),
      changingReads: number("resource-changing-reads", 200, 20),
      batch: values.quick ? 10 : 25,
      warmup: values.quick ? 10 : 30,
      limit: 1.05,
      log,
    }),
};

const env = await environment(baseline?.dir);
const against = env.baseline as { commit: string } | undefined;
console.log(
  `# tinyagent benchmarks (${mode}) — Deno ${
    (env.deno as { deno: string }).deno
  }, ${env.cpus} × ${env.cpu}, ` +
    `load ${env.loadavg}, commit ${String(env.commit).slice(0, 12)}${
      env.libChanged ? " + local changes" : ""
    }${against ? `, baseline ${String(against.commit).slice(0, 12) || baseline?.dir}` : ""}\n`,
);
const started = performance.now();
let missed = 0;
for (const name of only) {
  const t0 = performance.now();
  const result = await runners[name]();
  const seconds = (performance.now() - t0) / 1000;
  console.log(render(result));
  const path = await save(outDir, values.quick ? `${name}.quick.json` : `${name}.json`, result, {
    mode,
    seconds,
    environment: env,
  });
  log(`${name}: ${seconds.toFixed(1)} s, written to ${path}`);
  missed += result.targets.filter((t) => !t.met && t.judged !== false).length;
}
console.log(
  `${missed === 0 ? "every target met" : `${missed} target(s) missed`} in ${
    ((performance.now() - started) / 1000).toFixed(1)
  } s`,
);
