// (e) of the code mode benchmark (code.ts): a program written in TypeScript against the same program in
// JavaScript. In fresh `tinyagent mcp --allow-writes --code-mode` processes as shipped (launch.ts), each
// with the one-read program of (c): a JavaScript program first (it loads QuickJS), a second one warm, then
// the process's first TypeScript program, which loads the type stripper (RSS read just before and after
// it), then warm programs of each language taking turns. With --baseline, a process of the older checkout
// takes its turn after each of this one's, so the stripper of each is measured under the same load.

import type { Checkout } from "./checkout.ts";
import { type ChildSpec, type Line, LineChild, resultOf } from "./child.ts";
import { callLine, INITIALIZE_PARAMS, requestLine } from "./fixture.ts";
import type { Target } from "./report.ts";
import { median, MiB, ms, ratioInterval, summarize, times } from "./stats.ts";

export interface TypeScriptOptions {
  /** Processes per checkout. */
  spawns: number;
  /** Warm programs of each language per process. */
  warm: number;
  /** How a process of `checkout` is started (code.ts's spec, given the program to run). */
  spec(checkout: "now" | "baseline"): ChildSpec;
  baseline?: Checkout;
}

/** What the processes of one checkout measured. */
export interface TypeScriptSamples {
  /** The second JavaScript program of each process, and its first TypeScript program. */
  warmJs: number[];
  firstTs: number[];
  /** RSS added by the first TypeScript program, bytes, per process. */
  rssAdded: number[];
  /** Warm programs of each language, all processes together. */
  warm: { js: number[]; ts: number[] };
}

/** The one-read program, as a model would write it in each language. */
export function programs(args: Record<string, unknown>): { js: string; ts: string } {
  const call = `relay.read_issue(${JSON.stringify(args)})`;
  return {
    js: `async function run(relay) { return await ${call}; }`,
    ts: [
      "interface Issue { title: string; replies: { pubkey: string }[] }",
      "async function run(relay: { read_issue(args: object): Promise<Issue> }): Promise<Issue> {",
      `  return await ${call};`,
      "}",
    ].join("\n"),
  };
}

/** One tiny_execute; its time, failing unless the program returned. */
async function execute(child: LineChild, code: string): Promise<number> {
  const trip = await child.trip(callLine("tiny_execute", { code }));
  const result = resultOf(trip.line) as { isError?: boolean; structuredContent?: { end?: string } };
  if (result.isError || result.structuredContent?.end !== "returned") {
    throw new Error(`code: a TypeScript-case program failed: ${JSON.stringify(result).slice(0, 500)}`);
  }
  return trip.ms;
}

async function handshake(child: LineChild): Promise<Line> {
  const init = await child.trip(requestLine("initialize", INITIALIZE_PARAMS));
  resultOf(init.line);
  await child.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  return init.line;
}

/** One process: the samples of (e), added to `into`. */
async function oneProcess(
  spec: ChildSpec,
  code: { js: string; ts: string },
  warm: number,
  into: TypeScriptSamples,
) {
  const child = new LineChild(spec);
  try {
    await handshake(child);
    await execute(child, code.js);
    into.warmJs.push(await execute(child, code.js));
    const before = (await child.memory()).rss;
    into.firstTs.push(await execute(child, code.ts));
    into.rssAdded.push((await child.memory()).rss - before);
    for (let i = 0; i < warm; i++) {
      for (const language of i % 2 ? (["ts", "js"] as const) : (["js", "ts"] as const)) {
        into.warm[language].push(await execute(child, code[language]));
      }
    }
  } finally {
    await child.close();
  }
}

const empty = (): TypeScriptSamples => ({ warmJs: [], firstTs: [], rssAdded: [], warm: { js: [], ts: [] } });

/** The processes of each checkout, taking turns. */
export async function typescriptCase(
  options: TypeScriptOptions,
  code: { js: string; ts: string },
): Promise<{ now: TypeScriptSamples; baseline?: TypeScriptSamples }> {
  const now = empty();
  const baseline = options.baseline ? empty() : undefined;
  for (let i = 0; i < options.spawns; i++) {
    await oneProcess(options.spec("now"), code, options.warm, now);
    if (baseline) await oneProcess(options.spec("baseline"), code, options.warm, baseline);
  }
  return { now, ...(baseline ? { baseline } : {}) };
}

const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

/** The rows of (e): one group per checkout. */
export function typescriptRows(
  samples: { now: TypeScriptSamples; baseline?: TypeScriptSamples },
): string[][] {
  const rows: string[][] = [];
  for (const [name, s] of Object.entries(samples) as [string, TypeScriptSamples][]) {
    const [low, high] = ratioInterval(s.warm.ts, s.warm.js);
    const warm = { js: summarize(s.warm.js), ts: summarize(s.warm.ts) };
    rows.push(
      [
        `TypeScript, loopback (${name})`,
        "first TS program of a process (loads the stripper), p50: warm JS | first TS",
        ms(median(s.warmJs)),
        ms(median(s.firstTs)),
        `+${ms(median(s.firstTs) - median(s.warmJs))}`,
      ],
      [
        "",
        "warm program, p50 (p95): JS | TS",
        `${ms(warm.js.p50)} (${ms(warm.js.p95)})`,
        `${ms(warm.ts.p50)} (${ms(warm.ts.p95)})`,
        `${times(warm.ts.p50 / warm.js.p50)} (95% ${times(low)} – ${times(high)})`,
      ],
      ["", "RSS added by the first TS program, median", "", mib(median(s.rssAdded)), ""],
    );
  }
  return rows;
}

/** The targets of (e): warm TypeScript near JavaScript; against the baseline, no worse warm. */
export function typescriptTargets(
  samples: { now: TypeScriptSamples; baseline?: TypeScriptSamples },
): Target[] {
  const { now, baseline } = samples;
  const ratio = median(now.warm.ts) / median(now.warm.js);
  const [low] = ratioInterval(now.warm.ts, now.warm.js);
  const targets: Target[] = [{
    what: "TypeScript: warm program p50, TypeScript / JavaScript",
    limit: "≤ 1.10×",
    measured: times(ratio),
    met: ratio <= 1.1 || low <= 1.1,
  }];
  if (baseline) {
    const baseRatio = median(baseline.warm.ts) / median(baseline.warm.js);
    const extra = (s: TypeScriptSamples) => median(s.firstTs) - median(s.warmJs);
    targets.push(
      {
        // Each checkout's TypeScript against its own JavaScript, in the same processes: what the stripper
        // adds, free of how fast each checkout's processes happened to run.
        what: "TypeScript: warm program p50, TypeScript / JavaScript, now against baseline",
        limit: "no worse",
        measured: `${times(ratio)} against ${times(baseRatio)}`,
        met: ratio <= baseRatio || low <= baseRatio,
      },
      {
        what:
          "TypeScript: the stripper's load (first TypeScript program over a warm JavaScript one), now − baseline",
        limit: "once a process",
        measured: `${ms(extra(now))} − ${ms(extra(baseline))}`,
        met: extra(now) <= extra(baseline),
        judged: false,
      },
      {
        what: "TypeScript: RSS added by the first TypeScript program, now − baseline",
        limit: "no more",
        measured: `${mib(median(now.rssAdded))} − ${mib(median(baseline.rssAdded))}`,
        met: median(now.rssAdded) <= median(baseline.rssAdded),
        judged: false,
      },
    );
  }
  return targets;
}
