// 4. Soak: many sequential calls through one tinyagent process, with the floor script alongside
// (alternating batches) as the reference. Two measures, before (after warm-up), at every checkpoint
// and after: RSS from /proc, as asked, and the live JavaScript heap after a full garbage collection,
// read through the V8 inspector. RSS moves in steps as V8 grows its heap reservation, in the floor
// as much as in tinyagent, so it cannot tell a small leak from noise; the live heap can.

import { LineChild, type Memory } from "./child.ts";
import { fixture, handshake, sleep, smallCall } from "./fixture.ts";
import { freePort, Inspector } from "./inspector.ts";
import type { BenchResult } from "./report.ts";
import { MiB, mib, ms, slope, summarize } from "./stats.ts";

export interface SoakOptions {
  calls: number;
  warmup: number;
  checkpoint: number;
  keepAlive: boolean;
  log(line: string): void;
}

interface Point {
  calls: number;
  rss: number;
  heap: number;
}

interface Track {
  before: Memory & { heap: number };
  after: Memory & { heap: number };
  checkpoints: Point[];
  times: number[];
}

const KiB = 1024;

function kib(bytes: number, signed = false): string {
  const sign = signed && bytes >= 0 ? "+" : "";
  return `${sign}${(bytes / KiB).toFixed(0)} KiB`;
}

export async function soak(options: SoakOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: options.keepAlive });
  const ports = { tinyagent: freePort(), floor: freePort() };
  const children = {
    tinyagent: new LineChild({
      ...fx.spec("tinyagent"),
      extraFlags: [`--inspect=127.0.0.1:${ports.tinyagent}`],
    }),
    floor: new LineChild({ ...fx.spec("floor"), extraFlags: [`--inspect=127.0.0.1:${ports.floor}`] }),
  };
  const names = ["tinyagent", "floor"] as const;
  const inspectors: Partial<Record<(typeof names)[number], Inspector>> = {};
  const tracks = {} as Record<(typeof names)[number], Track>;
  const measure = async (name: (typeof names)[number]) => {
    const heap = await inspectors[name]!.liveHeap();
    return { ...(await children[name].memory()), heap };
  };
  try {
    await handshake(children.tinyagent);
    for (const name of names) inspectors[name] = await Inspector.connect(ports[name]);
    for (let i = 0; i < options.warmup; i++) {
      await smallCall(children.tinyagent);
      await smallCall(children.floor);
    }
    fx.forget();
    await sleep(500);
    for (const name of names) {
      tracks[name] = {
        before: await measure(name),
        after: { rss: 0, hwm: 0, anon: 0, heap: 0 },
        checkpoints: [],
        times: [],
      };
    }
    let done = 0;
    let round = 0;
    while (done < options.calls) {
      const size = Math.min(options.checkpoint, options.calls - done);
      const order = round++ % 2 === 0 ? names : [...names].reverse() as typeof names[number][];
      for (const name of order) {
        const track = tracks[name];
        for (let i = 0; i < size; i++) track.times.push(await smallCall(children[name]));
        const m = await measure(name);
        track.checkpoints.push({ calls: done + size, rss: m.rss, heap: m.heap });
      }
      done += size;
      fx.forget();
    }
    await sleep(500);
    for (const name of names) tracks[name].after = await measure(name);
    options.log(`soak: ${done} calls each done`);
  } finally {
    for (const name of names) await inspectors[name]?.close();
    await children.tinyagent.close();
    await children.floor.close();
    await fx.close();
  }

  const figures = (track: Track) => {
    const xs = track.checkpoints.map((p) => p.calls);
    const heaps = track.checkpoints.map((p) => p.heap);
    const rsses = track.checkpoints.map((p) => p.rss);
    // The second half: from the checkpoint nearest half-way to the end, past one-off warm-up steps.
    const middle = track.checkpoints.reduce((best, p) =>
      Math.abs(p.calls - options.calls / 2) < Math.abs(best.calls - options.calls / 2) ? p : best
    );
    return {
      rssGrowth: track.after.rss - track.before.rss,
      rssRange: Math.max(...rsses) - Math.min(...rsses),
      heapGrowth: track.after.heap - track.before.heap,
      lateHeapGrowth: track.after.heap - middle.heap,
      lateCalls: options.calls - middle.calls,
      /** Least-squares live-heap growth per call over the checkpoints. */
      heapSlope: slope(xs, heaps),
      time: summarize(track.times),
    };
  };
  const a = figures(tracks.tinyagent);
  const b = figures(tracks.floor);
  // Noise: twice what the floor's live heap does by itself over the same calls, at least 64 KiB.
  const heapNoise = Math.max(64 * KiB, 2 * Math.abs(b.lateHeapGrowth));
  const rssNoise = Math.max(MiB, b.rssGrowth, b.rssRange);
  const row = (name: string, track: Track, f: typeof a) => [
    name,
    mib(track.before.rss),
    mib(track.after.rss),
    `${f.rssGrowth >= 0 ? "+" : ""}${mib(f.rssGrowth)}`,
    mib(track.before.heap),
    mib(track.after.heap),
    kib(f.heapGrowth, true),
    kib(f.lateHeapGrowth, true),
    `${f.heapSlope.toFixed(0)} B`,
    ms(f.time.p50),
  ];
  return {
    name: "soak",
    title:
      `Soak (${options.calls} sequential calls each after ${options.warmup} warm-up calls; measured every ${options.checkpoint})`,
    columns: [
      "command",
      "RSS before",
      "RSS after",
      "RSS growth",
      "live heap before",
      "live heap after",
      "live heap growth",
      "second half",
      "live heap per call",
      "call p50",
    ],
    rows: [row("tinyagent", tracks.tinyagent, a), row("floor", tracks.floor, b)],
    targets: [{
      what: `tinyagent live-heap growth over the last ${a.lateCalls} calls`,
      limit: `within noise (≤ ${kib(heapNoise)}: twice the floor's, at least 64 KiB)`,
      measured: kib(a.lateHeapGrowth, true),
      met: a.lateHeapGrowth <= heapNoise,
    }, {
      what: "tinyagent RSS growth over the soak",
      limit: `within noise (≤ ${mib(rssNoise)}: the floor's own RSS movement, at least 1 MiB)`,
      measured: `${a.rssGrowth >= 0 ? "+" : ""}${mib(a.rssGrowth)}`,
      met: a.rssGrowth <= rssNoise,
      // RSS moves in steps of V8's heap reservation (young generation growth), in the floor as much as
      // in tinyagent, so it is reported but the live heap decides.
      judged: false,
    }],
    notes: [
      "Both children run with --inspect=127.0.0.1:<port> (for the heap reading) on top of the narrow flags.",
      "RSS grows in steps as V8 enlarges its heap reservation, in the floor as in tinyagent, whatever is live; " +
      "the target is judged on the live heap, which a leak moves and heap reservation does not.",
      "Before: after warm-up and a 500 ms pause; after: 500 ms after the last call. Live heap: V8 used heap size after " +
      "HeapProfiler.collectGarbage; per call: least-squares slope over the checkpoints.",
    ],
    data: {
      options: { ...options, log: undefined },
      tinyagent: { ...tracks.tinyagent, ...a },
      floor: { ...tracks.floor, ...b },
      heapNoise,
      rssNoise,
    },
  };
}
