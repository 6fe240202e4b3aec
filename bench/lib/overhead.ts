// 1. Per-call overhead: host → tinyagent → strict relay → back, against the floor script doing
// the same signed POST without the facade. Both run at once and are driven in alternating batches.

import { LineChild } from "./child.ts";
import { fixture, handshake, smallCall } from "./fixture.ts";
import type { BenchResult } from "./report.ts";
import { ms, ratioInterval, summarize, times } from "./stats.ts";

export interface OverheadOptions {
  calls: number;
  batch: number;
  warmup: number;
  keepAlive: boolean;
  /** The limit on p50(tinyagent) / p50(floor). */
  limit: number;
  log(line: string): void;
}

export async function overhead(options: OverheadOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: options.keepAlive });
  const tinyagent = new LineChild(fx.spec("tinyagent"));
  const floor = new LineChild(fx.spec("floor"));
  const samples: Record<"tinyagent" | "floor", number[]> = { tinyagent: [], floor: [] };
  try {
    await handshake(tinyagent);
    for (let i = 0; i < options.warmup; i++) {
      await smallCall(tinyagent);
      await smallCall(floor);
    }
    fx.forget();
    const batches = Math.ceil(options.calls / options.batch);
    for (let b = 0; b < batches; b++) {
      const order = b % 2 === 0 ? [tinyagent, floor] : [floor, tinyagent];
      for (const child of order) {
        const program = child.spec.program as "tinyagent" | "floor";
        for (let i = 0; i < options.batch && samples[program].length < options.calls; i++) {
          samples[program].push(await smallCall(child));
        }
      }
      fx.forget();
    }
    options.log(`overhead: ${samples.tinyagent.length} + ${samples.floor.length} calls done`);
  } finally {
    await tinyagent.close();
    await floor.close();
    await fx.close();
  }
  const a = summarize(samples.tinyagent);
  const b = summarize(samples.floor);
  const ratio50 = a.p50 / b.p50;
  const ratio95 = a.p95 / b.p95;
  const [low, high] = ratioInterval(samples.tinyagent, samples.floor);
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
    ],
    targets: [{
      what: "p50 tinyagent / floor",
      limit: `≤ ${times(options.limit)}`,
      measured: times(ratio50),
      met: ratio50 <= options.limit,
    }],
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
      ratio50,
      ratio95,
      interval: [low, high],
      samples,
    },
  };
}
