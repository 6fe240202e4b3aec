// 2. Start-up: spawn to the `initialize` answer and to the first `tools/list` answer, against an
// empty script started with the same flags that reads one line and prints one. Spawns take turns.

import { type ChildSpec, LineChild, resultOf } from "./child.ts";
import { fixture, handshake, INITIALIZE_PARAMS, requestLine } from "./fixture.ts";
import type { Checkout } from "./checkout.ts";
import { type BenchResult, type Target, versusBaseline } from "./report.ts";
import { ms, ratioInterval, summarize, times } from "./stats.ts";

export interface StartupOptions {
  samples: number;
  warmup: number;
  keepAlive: boolean;
  limit: number;
  /** The older checkout to start beside this one; its first tools/list must be ≤ baselineLimit × its time. */
  baseline?: Checkout;
  baselineLimit: number;
  log(line: string): void;
}

async function emptyOnce(spec: ChildSpec): Promise<number> {
  const child = new LineChild(spec);
  try {
    const trip = await child.trip(requestLine("initialize", INITIALIZE_PARAMS));
    return trip.line.at - child.spawnedAt;
  } finally {
    await child.close();
  }
}

/** The floor script's first forwarded tools/list: the same first signed POST, without the facade. */
async function floorOnce(spec: ChildSpec): Promise<number> {
  const child = new LineChild(spec);
  try {
    const trip = await child.trip(requestLine("tools/list", {}));
    const tools = resultOf(trip.line).tools;
    if (!Array.isArray(tools)) throw new Error("floor: tools/list answer without tools");
    return trip.line.at - child.spawnedAt;
  } finally {
    await child.close();
  }
}

async function tinyagentOnce(spec: ChildSpec): Promise<{ initialize: number; toolsList: number }> {
  const child = new LineChild(spec);
  try {
    return await handshake(child);
  } finally {
    await child.close();
  }
}

export async function startup(options: StartupOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: options.keepAlive, baseline: options.baseline });
  const samples = {
    baselineInitialize: [] as number[],
    baselineToolsList: [] as number[],
    empty: [] as number[],
    emptyStream: [] as number[],
    initialize: [] as number[],
    toolsList: [] as number[],
    floorToolsList: [] as number[],
  };
  try {
    for (let i = 0; i < options.warmup + options.samples; i++) {
      const keep = i >= options.warmup;
      const runEmpty = async () => {
        const t = await emptyOnce(fx.spec("empty"));
        if (keep) samples.empty.push(t);
      };
      const runEmptyStream = async () => {
        const t = await emptyOnce(fx.spec("empty-stream"));
        if (keep) samples.emptyStream.push(t);
      };
      const runTinyagent = async () => {
        const t = await tinyagentOnce(fx.spec("tinyagent"));
        if (keep) {
          samples.initialize.push(t.initialize);
          samples.toolsList.push(t.toolsList);
        }
      };
      const runFloor = async () => {
        const t = await floorOnce(fx.spec("floor"));
        if (keep) samples.floorToolsList.push(t);
      };
      const runBaseline = async () => {
        const t = await tinyagentOnce(fx.spec("baseline"));
        if (keep) {
          samples.baselineInitialize.push(t.initialize);
          samples.baselineToolsList.push(t.toolsList);
        }
      };
      // Rotate the order so that no command always follows the same one.
      const order = [
        runEmpty,
        runTinyagent,
        runEmptyStream,
        runFloor,
        ...(options.baseline ? [runBaseline] : []),
      ];
      for (let k = 0; k < order.length; k++) await order[(i + k) % order.length]();
      fx.forget();
    }
    options.log(`startup: ${samples.empty.length} + ${samples.initialize.length} spawns done`);
  } finally {
    await fx.close();
  }
  const empty = summarize(samples.empty);
  const emptyStream = summarize(samples.emptyStream);
  const init = summarize(samples.initialize);
  const list = summarize(samples.toolsList);
  const floorList = summarize(samples.floorToolsList);
  const base = options.baseline
    ? { init: summarize(samples.baselineInitialize), list: summarize(samples.baselineToolsList) }
    : undefined;
  const row = (name: string, s: typeof empty) => [
    name,
    String(s.n),
    ms(s.p50),
    ms(s.p95),
    ms(s.min),
    times(s.p50 / empty.p50),
    times(s.p95 / empty.p95),
  ];
  const [initLow, initHigh] = ratioInterval(samples.initialize, samples.empty);
  const [listLow, listHigh] = ratioInterval(samples.toolsList, samples.empty);
  const target = (what: string, s: typeof empty, low: number, high: number): Target => ({
    what,
    limit: `≤ ${times(options.limit)}`,
    measured: `${times(s.p50 / empty.p50)} (95% interval ${times(low)} – ${times(high)})`,
    met: s.p50 / empty.p50 <= options.limit,
  });
  return {
    name: "startup",
    title:
      `Start-up (${options.samples} spawns each, interleaved in rotating order, after ${options.warmup} warm-up spawns each)`,
    columns: ["from spawn to", "n", "p50", "p95", "min", "p50 / empty", "p95 / empty"],
    rows: [
      row("empty script: its answer line", empty),
      row("empty script reading a web stream (for comparison)", emptyStream),
      row("tinyagent: initialize answer", init),
      row("tinyagent: first tools/list answer", list),
      row("floor script: first tools/list answer", floorList),
      [
        "tinyagent / floor, first tools/list",
        "",
        times(list.p50 / floorList.p50),
        times(list.p95 / floorList.p95),
        "",
        "",
        "",
      ],
      ...(base
        ? [
          row("baseline: initialize answer", base.init),
          row("baseline: first tools/list answer", base.list),
          [
            "now / baseline, initialize",
            "",
            times(init.p50 / base.init.p50),
            times(init.p95 / base.init.p95),
            "",
            "",
            "",
          ],
          [
            "now / baseline, first tools/list",
            "",
            times(list.p50 / base.list.p50),
            times(list.p95 / base.list.p95),
            "",
            "",
            "",
          ],
        ]
        : []),
    ],
    targets: [
      target("p50 initialize / empty script", init, initLow, initHigh),
      target("p50 first tools/list / empty script", list, listLow, listHigh),
      ...(base
        ? [
          versusBaseline("p50 initialize now / baseline", samples.initialize, samples.baselineInitialize),
          versusBaseline(
            "p50 first tools/list now / baseline",
            samples.toolsList,
            samples.baselineToolsList,
            options.baselineLimit,
          ),
        ]
        : []),
    ],
    notes: [
      "Every command is `deno run --quiet --allow-net=<relay host:port> --allow-env=TINY_PRIVATE_KEY <script>` from the project root (same deno.json and lock); " +
      "the baseline's is `deno run --quiet --config <its deno.json> <the same flags> <its main.ts>` (its own lock).",
      "The empty script reads stdin with Deno.stdin.read, the cheapest way; reading it as a web stream (Deno.stdin.readable) " +
      "first loads Deno's streams code, shown for comparison.",
      "The first tools/list answer includes tinyagent's one signed tools/list POST to the relay, on the connection it " +
      "opened at start. " +
      "The floor script's first answer is that same first signed POST without the facade (loading nostr-tools, " +
      "the first secp256k1 signature, one fetch): what any client that signs pays before its first answer.",
    ],
    data: {
      options: { ...options, log: undefined },
      empty,
      emptyStream,
      initialize: init,
      toolsList: list,
      floorToolsList: floorList,
      ...(base ? { baseline: base } : {}),
      samples,
    },
  };
}
