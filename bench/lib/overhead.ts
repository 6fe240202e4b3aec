// 1. Per-call overhead: host → tinyagent → strict relay → back, against the floor script doing
// the same signed POST without the facade. Both run at once and are driven in alternating batches.

import { LineChild } from "./child.ts";
import { fixture, handshake, smallCall } from "./fixture.ts";
import type { Checkout } from "./checkout.ts";
import { type BenchResult, versusBaseline } from "./report.ts";
import { takeTurns } from "./turns.ts";
import { ms, ratioInterval, summarize, times } from "./stats.ts";

export interface OverheadOptions {
  calls: number;
  batch: number;
  warmup: number;
  keepAlive: boolean;
  /** The limit on p50(tinyagent) / p50(floor). */
  limit: number;
  /** The older checkout to run beside this one. */
  baseline?: Checkout;
  log(line: string): void;
}

type Side = "tinyagent" | "floor" | "baseline";

export async function overhead(options: OverheadOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: options.keepAlive, baseline: options.baseline });
  const sides: Side[] = options.baseline ? ["tinyagent", "floor", "baseline"] : ["tinyagent", "floor"];
  const children = Object.fromEntries(sides.map((side) => [side, new LineChild(fx.spec(side))]));
  let samples: Partial<Record<Side, number[]>>;
  try {
    for (const side of sides) if (side !== "floor") await handshake(children[side]);
    for (let i = 0; i < options.warmup; i++) for (const side of sides) await smallCall(children[side]);
    fx.forget();
    samples = await takeTurns(sides, options.calls, options.batch, async (side, n) => {
      // The relay's record of requests would pile up in this process.
      if (n % options.batch === 0) fx.forget();
      return await smallCall(children[side]);
    });
    options.log(`overhead: ${options.calls} calls each for ${sides.join(", ")} done`);
  } finally {
    for (const side of sides) await children[side].close();
    await fx.close();
  }
  const a = summarize(samples.tinyagent!);
  const b = summarize(samples.floor!);
  const base = samples.baseline ? summarize(samples.baseline) : undefined;
  const ratio50 = a.p50 / b.p50;
  const ratio95 = a.p95 / b.p95;
  const [low, high] = ratioInterval(samples.tinyagent!, samples.floor!);
  const row = (name: string, s: typeof a) => [name, String(s.n), ms(s.p50), ms(s.p95), ms(s.mean), ms(s.min)];
  return {
    name: options.keepAlive ? "overhead" : "overhead-close",
    title: `Per-call overhead (${options.calls} calls each, batches of ${options.batch}, interleaved; ${
      options.keepAlive ? "the relay keeps connections open" : "the relay closes every connection"
    })`,
    columns: ["command", "n", "p50", "p95", "mean", "min"],
    rows: [
      row("tinyagent (main.ts mcp)", a),
      row("floor (bench/floor.ts)", b),
      [
        "ratio tinyagent / floor",
        "",
        times(ratio50),
        times(ratio95),
        times(a.mean / b.mean),
        times(a.min / b.min),
      ],
      ["p50 ratio, 95% bootstrap interval", "", `${times(low)} – ${times(high)}`, "", "", ""],
      ["overhead (tinyagent − floor)", "", ms(a.p50 - b.p50), ms(a.p95 - b.p95), ms(a.mean - b.mean), ""],
      ...(base
        ? [
          row("baseline (its main.ts mcp)", base),
          [
            "ratio tinyagent / baseline",
            "",
            times(a.p50 / base.p50),
            times(a.p95 / base.p95),
            times(a.mean / base.mean),
            times(a.min / base.min),
          ],
        ]
        : []),
    ],
    targets: [
      {
        what: "p50 tinyagent / floor",
        limit: `≤ ${times(options.limit)}`,
        measured: times(ratio50),
        met: ratio50 <= options.limit,
      },
      ...(samples.baseline
        ? [versusBaseline("p50 now / baseline", samples.tinyagent!, samples.baseline)]
        : []),
    ],
    notes: [
      options.keepAlive
        ? "Both keep one connection to the relay: tinyagent its own transport (lib/transport/kept_connection.ts), the floor fetch's pool."
        : "The relay closes every connection, so every call of both commands opens a fresh one.",
      "Round trip timed in the benchmark process from writing the request line to the arrival of the answer's newline; " +
      "both include the strict relay's own work (token verification with nostr-tools) in this process.",
    ],
    data: {
      options: { ...options, log: undefined },
      tinyagent: a,
      floor: b,
      ...(base ? { baseline: base } : {}),
      ratio50,
      ratio95,
      interval: [low, high],
      samples,
    },
  };
}
