// (f) of the code mode benchmark (code.ts), with --baseline only: code mode now against the older
// checkout's, side by side in one run, on loopback, each as shipped. The fixed cost of a program: four
// processes (each checkout's plain host and its code mode) take turns at one read_issue, called directly
// or from a one-read program; a checkout's fixed cost is the difference of its two medians, and the
// judged figure is the one-read program's p50, now / baseline (a difference of ~2 ms is too small a
// figure for a ratio of its own to mean anything). Then spawn → initialize with --code-mode, the two
// checkouts' processes spawned in turn.

import type { Checkout } from "./checkout.ts";
import { type ChildSpec, LineChild, resultOf } from "./child.ts";
import { callLine, INITIALIZE_PARAMS, requestLine } from "./fixture.ts";
import type { Target } from "./report.ts";
import { median, ms, ratioInterval, summarize, times } from "./stats.ts";
import { rotation, takeTurns } from "./turns.ts";

export interface BaselineCompareOptions {
  baseline: Checkout;
  /** One read's calls per process; spawns per checkout. */
  reads: number;
  batch: number;
  spawns: number;
  /** A process of `which` checkout, with (code) or without --code-mode (plain). */
  spec(which: "now" | "baseline", code: boolean): ChildSpec;
  /** read_issue's arguments for an issue the relay holds. */
  args: Record<string, unknown>;
}

export interface BaselineSamples {
  read: Record<Leg, number[]>;
  initialize: { now: number[]; baseline: number[] };
}

const LEGS = ["now plain", "now code", "baseline plain", "baseline code"] as const;
type Leg = typeof LEGS[number];

async function started(spec: ChildSpec): Promise<LineChild> {
  const child = new LineChild(spec);
  resultOf((await child.trip(requestLine("initialize", INITIALIZE_PARAMS))).line);
  await child.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  resultOf((await child.trip(requestLine("tools/list", {}))).line);
  return child;
}

async function reads(options: BaselineCompareOptions): Promise<Record<Leg, number[]>> {
  const code = `async function run(relay) { return await relay.read_issue(${
    JSON.stringify(options.args)
  }); }`;
  const children = {} as Record<Leg, LineChild>;
  try {
    for (const leg of LEGS) {
      const [which, side] = leg.split(" ") as ["now" | "baseline", "plain" | "code"];
      children[leg] = await started(options.spec(which, side === "code"));
    }
    const once = async (leg: Leg) => {
      const line = leg.endsWith("plain")
        ? callLine("read_issue", options.args)
        : callLine("tiny_execute", { code });
      const trip = await children[leg].trip(line);
      const result = resultOf(trip.line) as { isError?: boolean };
      if (result.isError) throw new Error(`code: ${leg}: ${JSON.stringify(result).slice(0, 300)}`);
      return trip.ms;
    };
    for (let i = 0; i < 5; i++) for (const leg of LEGS) await once(leg);
    return await takeTurns(LEGS, options.reads, options.batch, once);
  } finally {
    for (const leg of LEGS) await children[leg]?.close();
  }
}

async function initializes(options: BaselineCompareOptions) {
  const samples = { now: [] as number[], baseline: [] as number[] };
  for (let i = -1; i < options.spawns; i++) {
    for (const which of rotation(["now", "baseline"] as const, Math.max(i, 0))) {
      const child = new LineChild(options.spec(which, true));
      try {
        const trip = await child.trip(requestLine("initialize", INITIALIZE_PARAMS));
        resultOf(trip.line);
        if (i >= 0) samples[which].push(trip.line.at - child.spawnedAt);
      } finally {
        await child.close();
      }
    }
  }
  return samples;
}

export async function baselineSamples(options: BaselineCompareOptions): Promise<BaselineSamples> {
  return { read: await reads(options), initialize: await initializes(options) };
}

const fixed = (s: BaselineSamples, which: "now" | "baseline") =>
  median(s.read[`${which} code`]) - median(s.read[`${which} plain`]);

export function baselineRows(s: BaselineSamples): string[][] {
  const p = (values: number[]) => `${ms(median(values))} (${ms(summarize(values).p95)})`;
  const [readLow, readHigh] = ratioInterval(s.read["now code"], s.read["baseline code"]);
  const [initLow, initHigh] = ratioInterval(s.initialize.now, s.initialize.baseline);
  return [
    [
      "against the baseline, loopback",
      "one-read program p50 (p95): baseline / now",
      p(s.read["baseline code"]),
      p(s.read["now code"]),
      `${times(median(s.read["now code"]) / median(s.read["baseline code"]))} (95% ${times(readLow)} – ${
        times(readHigh)
      })`,
    ],
    [
      "",
      "its fixed cost over a direct read: baseline / now",
      `+${ms(fixed(s, "baseline"))}`,
      `+${ms(fixed(s, "now"))}`,
      "",
    ],
    [
      "",
      "spawn → initialize, --code-mode, as shipped: baseline / now",
      p(s.initialize.baseline),
      p(s.initialize.now),
      `${times(median(s.initialize.now) / median(s.initialize.baseline))} (95% ${times(initLow)} – ${
        times(initHigh)
      })`,
    ],
  ];
}

/** Within 1.02× of the baseline, or above it with a 95% interval that reaches 1.02× (within noise). */
function within(now: number[], before: number[], what: string): Target {
  const ratio = median(now) / median(before);
  const [low] = ratioInterval(now, before);
  return {
    what,
    limit: "≤ 1.02×",
    measured: `${times(ratio)}${ratio > 1.02 && low <= 1.02 ? ", within noise" : ""}`,
    met: ratio <= 1.02 || low <= 1.02,
  };
}

export function baselineTargets(s: BaselineSamples): Target[] {
  return [
    within(s.read["now code"], s.read["baseline code"], "one-read program p50, now / baseline"),
    within(s.initialize.now, s.initialize.baseline, "spawn → initialize with --code-mode, now / baseline"),
  ];
}
