// 7. The rpc helper, side by side with bare clients in one run: `publish`'s round trip against a
// bare signing POST (bench/rpc_floor.ts); the time from the relay sending an event to its stream
// line against a bare websocket client (bench/ws_floor.ts); the memory a 10,000-event `query` takes;
// and the idle resident memory of `rpc` and `mcp`, as shipped (the sandbox's worker) and confined,
// against a Deno process that does nothing.

import { finalizeEvent, generateSecretKey, type NostrEvent } from "nostr-tools/pure";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { type ChildSpec, LineChild, type Memory } from "./child.ts";
import { fixture, INITIALIZE_PARAMS, requestLine, sleep } from "./fixture.ts";
import type { BenchResult, Target } from "./report.ts";
import { median, MiB, ms, ratioInterval, summarize, times } from "./stats.ts";

export interface RpcBenchOptions {
  publishes: number;
  events: number;
  batch: number;
  warmup: number;
  queryEvents: number;
  memorySamples: number;
  log(line: string): void;
}

const someone = generateSecretKey();
const decoder = new TextDecoder();
const lineOf = (child: LineChild) => child.nextLine().then((line) => JSON.parse(decoder.decode(line.bytes)));
let nextId = 1;

function publishLine(n: number): string {
  const event = { kind: 9, content: `bench ${n}`, tags: [["h", "general"]] };
  return `${JSON.stringify({ id: nextId++, method: "publish", params: { event } })}\n`;
}

/** One publish round trip, checked. */
async function publishTrip(child: LineChild, n: number): Promise<number> {
  const trip = await child.trip(publishLine(n));
  const answer = JSON.parse(decoder.decode(trip.line.bytes));
  if (typeof answer.result?.id !== "string") {
    throw new Error(`${child.spec.program}: ${JSON.stringify(answer)}`);
  }
  return trip.ms;
}

/** Runs `measure` for both, in alternating batches; the samples of each. */
async function alternate(
  children: [LineChild, LineChild],
  count: number,
  batch: number,
  measure: (child: LineChild, n: number) => Promise<number>,
): Promise<[number[], number[]]> {
  const samples: [number[], number[]] = [[], []];
  for (let b = 0; b * batch < count; b++) {
    const order = b % 2 === 0 ? [0, 1] : [1, 0];
    for (const side of order) {
      for (let i = 0; i < batch && samples[side].length < count; i++) {
        samples[side].push(await measure(children[side], b * batch + i));
      }
    }
  }
  return samples;
}

function comparison(label: [string, string], samples: [number[], number[]], limit: number, what: string) {
  const [a, b] = samples.map(summarize);
  const ratio = a.p50 / b.p50;
  const [low, high] = ratioInterval(samples[0], samples[1]);
  const rows = [
    [label[0], String(a.n), ms(a.p50), ms(a.p95), ms(a.mean)],
    [label[1], String(b.n), ms(b.p50), ms(b.p95), ms(b.mean)],
    [
      `ratio (${times(low)} – ${times(high)})`,
      "",
      times(ratio),
      times(a.p95 / b.p95),
      times(a.mean / b.mean),
    ],
  ];
  const target: Target = { what, limit: `≤ ${times(limit)}`, measured: times(ratio), met: ratio <= limit };
  return { rows, target, data: { a, b, ratio, interval: [low, high], samples } };
}

async function publishes(spec: (p: "rpc" | "rpc-floor") => ChildSpec, options: RpcBenchOptions) {
  const children: [LineChild, LineChild] = [new LineChild(spec("rpc")), new LineChild(spec("rpc-floor"))];
  try {
    for (let i = 0; i < options.warmup; i++) for (const child of children) await publishTrip(child, i);
    const samples = await alternate(children, options.publishes, options.batch, publishTrip);
    return comparison(["rpc publish", "bare signing POST"], samples, 1.05, "publish p50 rpc / bare POST");
  } finally {
    for (const child of children) await child.close();
  }
}

/** Events for one side's filter, signed ahead so signing is not timed. */
function eventsFor(tag: string, count: number): NostrEvent[] {
  const at = Math.floor(Date.now() / 1000);
  return Array.from(
    { length: count },
    (_, i) => finalizeEvent({ kind: 1, created_at: at, tags: [["t", tag]], content: `${tag} ${i}` }, someone),
  );
}

async function streamLatency(
  fx: Awaited<ReturnType<typeof fixture>>,
  spec: (p: "rpc" | "ws-floor", args?: string[]) => ChildSpec,
  options: RpcBenchOptions,
) {
  const rpc = new LineChild(spec("rpc"));
  const floor = new LineChild(spec("ws-floor", [JSON.stringify({ "#t": ["floor"] })]));
  try {
    await rpc.write(`{"id":1,"method":"subscribe","params":{"subscription":"s","filter":{"#t":["rpc"]}}}\n`);
    for (const child of [rpc, floor]) {
      for (;;) if ((await lineOf(child)).event === "connected") break;
    }
    const total = options.events + options.warmup;
    const pools = { rpc: eventsFor("rpc", total), floor: eventsFor("floor", total) };
    const used = { rpc: 0, floor: 0 };
    const deliver = async (child: LineChild) => {
      const side = child === rpc ? "rpc" : "floor";
      const event = pools[side][used[side]++];
      const line = child.nextLine();
      const started = performance.now();
      fx.relay.inject(event);
      const received = await line;
      const message = JSON.parse(decoder.decode(received.bytes));
      if (message.data?.id !== event.id) throw new Error(`${side}: ${JSON.stringify(message).slice(0, 300)}`);
      return received.at - started;
    };
    for (let i = 0; i < options.warmup; i++) for (const child of [rpc, floor]) await deliver(child);
    const samples = await alternate([rpc, floor], options.events, options.batch, deliver);
    return comparison(
      ["rpc stream line", "bare websocket client"],
      samples,
      1.1,
      "relay event → stdout line p50 rpc / bare client",
    );
  } finally {
    await rpc.close();
    await floor.close();
  }
}

/** The helper's memory around a query of `count` stored events: before, at its peak, and the answer's size. */
async function queryMemory(fx: Awaited<ReturnType<typeof fixture>>, spec: ChildSpec, count: number) {
  const at = Math.floor(Date.now() / 1000);
  for (let i = 0; i < count; i++) {
    fx.relay.inject(
      finalizeEvent({ kind: 1, created_at: at - i, tags: [["t", "bulk"]], content: `bulk ${i}` }, someone),
    );
  }
  const child = new LineChild(spec);
  try {
    await child.trip(`{"id":1,"method":"identity"}\n`);
    await sleep(1000);
    const idle = await child.memory();
    const trip = await child.trip(
      `{"id":2,"method":"query","params":{"filter":{"#t":["bulk"],"limit":${count}}}}\n`,
    );
    const peak = await child.memory();
    const answer = JSON.parse(decoder.decode(trip.line.bytes));
    if (answer.result?.length !== count) throw new Error(`query: ${JSON.stringify(answer).slice(0, 300)}`);
    return { idle, peak, ms: trip.ms, bytes: trip.line.bytes.length };
  } finally {
    await child.close();
  }
}

/** A child's resident memory once it has answered its first line (or, for the empty script, sat idle). */
async function idleMemory(spec: ChildSpec, first?: string): Promise<Memory> {
  const child = new LineChild(spec);
  try {
    if (first) await child.trip(first);
    await sleep(1500);
    return await child.memory();
  } finally {
    await child.close();
  }
}

async function idleMemories(fx: Awaited<ReturnType<typeof fixture>>, samples: number) {
  const spec = (program: "empty" | "rpc" | "tinyagent", shipped: boolean): ChildSpec => ({
    ...fx.spec(program),
    ...(shipped ? { flags: shippedFlags() } : {}),
  });
  const init = requestLine("initialize", INITIALIZE_PARAMS);
  const identity = `{"id":1,"method":"identity"}\n`;
  const kinds = {
    "empty Deno process": () => idleMemory(spec("empty", false)),
    "rpc as shipped (sandbox worker)": () => idleMemory(spec("rpc", true), identity),
    "mcp as shipped (sandbox worker)": () => idleMemory(spec("tinyagent", true), init),
    "rpc confined (no worker)": () => idleMemory(spec("rpc", false), identity),
    "mcp confined (no worker)": () => idleMemory(spec("tinyagent", false), init),
  };
  const rss: Record<string, number[]> = {};
  for (let i = 0; i < samples; i++) {
    for (const [name, measure] of Object.entries(kinds)) (rss[name] ??= []).push((await measure()).rss);
  }
  return Object.fromEntries(Object.entries(rss).map(([name, values]) => [name, median(values)]));
}

export async function rpcBench(options: RpcBenchOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: true });
  const spec = (program: "rpc" | "rpc-floor" | "ws-floor", args?: string[]): ChildSpec => ({
    ...fx.spec(program),
    ...(args ? { args } : {}),
  });
  try {
    const publish = await publishes(spec, options);
    options.log("rpc: publishes done");
    fx.forget();
    const stream = await streamLatency(fx, spec, options);
    options.log("rpc: stream latency done");
    const query = await queryMemory(fx, spec("rpc"), options.queryEvents);
    options.log("rpc: query memory done");
    const idle = await idleMemories(fx, options.memorySamples);
    const empty = idle["empty Deno process"];
    const memoryRows = Object.entries(idle).map((
      [name, rss],
    ) => [name, `${(rss / MiB).toFixed(1)} MiB`, times(rss / empty)]);
    const memoryTargets: Target[] = ["rpc as shipped (sandbox worker)", "mcp as shipped (sandbox worker)"]
      .map((name) => ({
        what: `idle RSS ${name.split(" ")[0]} / empty Deno`,
        limit: "≤ 1.50×",
        measured: times(idle[name] / empty),
        met: idle[name] / empty <= 1.5,
      }));
    return {
      name: "rpc",
      title:
        `The rpc helper (${options.publishes} publishes, ${options.events} events each, batches of ${options.batch})`,
      columns: ["measure", "n / value", "p50", "p95", "mean"],
      rows: [
        ...publish.rows,
        ...stream.rows,
        [
          `query of ${options.queryEvents} events: RSS idle → peak`,
          `${(query.idle.rss / MiB).toFixed(1)} → ${(query.peak.hwm / MiB).toFixed(1)} MiB`,
          ms(query.ms),
          `${(query.bytes / MiB).toFixed(1)} MiB answer`,
          "",
        ],
        ...memoryRows.map(([name, value, ratio]) => [`idle: ${name}`, value, ratio, "", ""]),
      ],
      targets: [publish.target, stream.target, ...memoryTargets],
      notes: [
        "Every program runs under the narrow flags (the relay's host:port, the key variable) but the two 'as shipped', which run under the binary's flags and so in the sandbox's worker.",
        "The bare clients do the same signing and signature checks as the helper (nostr-tools), nothing else; the stream is timed from just before the relay stores the event to the arrival of the line's newline in this process.",
        "Memory is VmRSS from /proc, the median of the samples; the query's peak is VmHWM.",
      ],
      data: {
        options: { ...options, log: undefined },
        publish: publish.data,
        stream: stream.data,
        query,
        idle,
      },
    };
  } finally {
    await fx.close();
  }
}
