// 7. The rpc helper, side by side with bare clients in one run: `publish`'s round trip against a
// bare signing POST (bench/rpc_floor.ts); the time from the relay sending an event to its stream
// line against a bare websocket client (bench/ws_floor.ts); the time and memory a 10,000-event
// `query` takes; and the idle resident memory of `rpc` and `mcp`, as shipped (the sandbox's worker)
// and confined, against a Deno process that does nothing. With --baseline, the older checkout's
// helper takes its turn in each.

import { finalizeEvent, generateSecretKey, type NostrEvent } from "nostr-tools/pure";
import type { Checkout } from "./checkout.ts";
import { type ChildSpec, LineChild, type Memory, type Program } from "./child.ts";
import { fixture, INITIALIZE_PARAMS, requestLine, sleep } from "./fixture.ts";
import { type BenchResult, type Target, versusBaseline, versusBaselineValue } from "./report.ts";
import { median, MiB, ms, ratioInterval, summarize, times } from "./stats.ts";
import { rotation, takeTurns } from "./turns.ts";

export interface RpcBenchOptions {
  publishes: number;
  events: number;
  batch: number;
  warmup: number;
  queryEvents: number;
  memorySamples: number;
  /** The older checkout to run beside this one; its query must take ≤ queryLimit × the baseline's time. */
  baseline?: Checkout;
  queryLimit: number;
  log(line: string): void;
}

type Fixture = Awaited<ReturnType<typeof fixture>>;
type Spec = (program: Program, args?: string[]) => ChildSpec;

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

/**
 * The rows and targets of one measure: tinyagent against its reference (within `limit`), and, when
 * there, against the baseline (no worse).
 */
function comparison(
  labels: { now: string; reference: string },
  samples: { now: number[]; reference: number[]; baseline?: number[] },
  limit: number,
  what: string,
) {
  const a = summarize(samples.now);
  const b = summarize(samples.reference);
  const ratio = a.p50 / b.p50;
  const [low, high] = ratioInterval(samples.now, samples.reference);
  const line = (label: string, s: typeof a) => [label, String(s.n), ms(s.p50), ms(s.p95), ms(s.mean)];
  const ratioLine = (
    label: string,
    s: typeof a,
  ) => [label, "", times(a.p50 / s.p50), times(a.p95 / s.p95), times(a.mean / s.mean)];
  const rows = [
    line(labels.now, a),
    line(labels.reference, b),
    ratioLine(`ratio (${times(low)} – ${times(high)})`, b),
  ];
  const targets: Target[] = [{
    what,
    limit: `≤ ${times(limit)}`,
    measured: times(ratio),
    met: ratio <= limit,
  }];
  const base = samples.baseline ? summarize(samples.baseline) : undefined;
  if (base) {
    rows.push(line(`baseline ${labels.now}`, base), ratioLine("ratio now / baseline", base));
    targets.push(versusBaseline(`${labels.now} p50 now / baseline`, samples.now, samples.baseline!));
  }
  return {
    rows,
    targets,
    data: { a, b, ...(base ? { baseline: base } : {}), ratio, interval: [low, high], samples },
  };
}

async function publishes(spec: Spec, options: RpcBenchOptions) {
  const programs: Program[] = ["rpc", "rpc-floor", ...(options.baseline ? ["baseline-rpc" as const] : [])];
  const children = Object.fromEntries(programs.map((p) => [p, new LineChild(spec(p))]));
  try {
    for (let i = 0; i < options.warmup; i++) for (const p of programs) await publishTrip(children[p], i);
    const samples = await takeTurns(
      programs,
      options.publishes,
      options.batch,
      (p, n) => publishTrip(children[p], n),
    );
    return comparison(
      { now: "rpc publish", reference: "bare signing POST" },
      { now: samples.rpc!, reference: samples["rpc-floor"]!, baseline: samples["baseline-rpc"] },
      1.05,
      "publish p50 rpc / bare POST",
    );
  } finally {
    for (const p of programs) await children[p].close();
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

async function streamLatency(fx: Fixture, spec: Spec, options: RpcBenchOptions) {
  const programs: Program[] = ["rpc", "ws-floor", ...(options.baseline ? ["baseline-rpc" as const] : [])];
  const children = Object.fromEntries(programs.map((p) => [
    p,
    new LineChild(p === "ws-floor" ? spec(p, [JSON.stringify({ "#t": [p] })]) : spec(p)),
  ]));
  try {
    for (const p of programs) {
      if (p === "ws-floor") continue;
      await children[p].write(
        `{"id":1,"method":"subscribe","params":{"subscription":"s","filter":{"#t":["${p}"]}}}\n`,
      );
    }
    for (const p of programs) for (;;) if ((await lineOf(children[p])).event === "connected") break;
    const total = options.events + options.warmup;
    const pools = Object.fromEntries(programs.map((p) => [p, eventsFor(p, total)]));
    const used = Object.fromEntries(programs.map((p) => [p, 0]));
    const deliver = async (p: Program) => {
      const event = pools[p][used[p]++];
      const line = children[p].nextLine();
      const started = performance.now();
      fx.relay.inject(event);
      const received = await line;
      const message = JSON.parse(decoder.decode(received.bytes));
      if (message.data?.id !== event.id) throw new Error(`${p}: ${JSON.stringify(message).slice(0, 300)}`);
      return received.at - started;
    };
    for (let i = 0; i < options.warmup; i++) for (const p of programs) await deliver(p);
    const samples = await takeTurns(programs, options.events, options.batch, deliver);
    return comparison(
      { now: "rpc stream line", reference: "bare websocket client" },
      { now: samples.rpc!, reference: samples["ws-floor"]!, baseline: samples["baseline-rpc"] },
      1.1,
      "relay event → stdout line p50 rpc / bare client",
    );
  } finally {
    for (const p of programs) await children[p].close();
  }
}

interface QuerySample {
  idle: Memory;
  peak: Memory;
  ms: number;
  bytes: number;
}

/** One helper's memory around a query of `count` stored events: before, at its peak, its time and size. */
async function queryOnce(spec: ChildSpec, count: number): Promise<QuerySample> {
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

/** The query, `samples` fresh helpers each, taking turns with the baseline's. */
async function queries(fx: Fixture, spec: Spec, options: RpcBenchOptions) {
  const at = Math.floor(Date.now() / 1000);
  for (let i = 0; i < options.queryEvents; i++) {
    fx.relay.inject(
      finalizeEvent({ kind: 1, created_at: at - i, tags: [["t", "bulk"]], content: `bulk ${i}` }, someone),
    );
  }
  const programs: Program[] = ["rpc", ...(options.baseline ? ["baseline-rpc" as const] : [])];
  const samples = Object.fromEntries(programs.map((p) => [p, [] as QuerySample[]]));
  for (let i = 0; i < options.memorySamples; i++) {
    for (const p of rotation(programs, i)) samples[p].push(await queryOnce(spec(p), options.queryEvents));
  }
  const summary = (list: QuerySample[]) => ({
    ms: median(list.map((s) => s.ms)),
    idle: median(list.map((s) => s.idle.rss)),
    peak: median(list.map((s) => s.peak.hwm)),
    bytes: list[0].bytes,
  });
  const now = summary(samples.rpc);
  const base = samples["baseline-rpc"] ? summary(samples["baseline-rpc"]) : undefined;
  const label = `query of ${options.queryEvents} events`;
  const line = (name: string, s: typeof now) => [
    `${name}: RSS idle → peak`,
    `${mib(s.idle)} → ${mib(s.peak)} MiB`,
    ms(s.ms),
    `${mib(s.bytes)} MiB answer`,
    "",
  ];
  const rows = [line(label, now)];
  const targets: Target[] = [];
  if (base) {
    rows.push(line(`baseline ${label}`, base), [
      `${label}: now / baseline`,
      `peak ${times(now.peak / base.peak)}`,
      times(now.ms / base.ms),
      "",
      "",
    ]);
    targets.push(
      versusBaselineValue(`${label}: time now / baseline`, now.ms, base.ms, options.queryLimit),
      versusBaselineValue(`${label}: peak RSS now / baseline`, now.peak, base.peak),
    );
  }
  return { rows, targets, data: { now, ...(base ? { baseline: base } : {}), samples } };
}

const mib = (bytes: number) => (bytes / MiB).toFixed(1);

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

/** The idle kinds: what is measured, and the baseline's counterpart, if any. */
const IDLE_KINDS = [
  { name: "rpc as shipped (sandbox worker)", program: "rpc", shipped: true },
  { name: "mcp as shipped (sandbox worker)", program: "tinyagent", shipped: true },
  { name: "rpc confined (no worker)", program: "rpc", shipped: false },
  { name: "mcp confined (no worker)", program: "tinyagent", shipped: false },
] as const;

async function idleMemories(spec: Spec, options: RpcBenchOptions) {
  const init = requestLine("initialize", INITIALIZE_PARAMS);
  const identity = `{"id":1,"method":"identity"}\n`;
  const kinds: Record<string, () => Promise<Memory>> = {
    "empty Deno process": () => idleMemory(spec("empty")),
  };
  for (const kind of IDLE_KINDS) {
    const first = kind.program === "rpc" ? identity : init;
    kinds[kind.name] = () => idleMemory({ ...spec(kind.program), shipped: kind.shipped }, first);
    if (options.baseline) {
      const program = kind.program === "rpc" ? "baseline-rpc" : "baseline";
      kinds[`baseline ${kind.name}`] = () => idleMemory({ ...spec(program), shipped: kind.shipped }, first);
    }
  }
  const rss: Record<string, number[]> = {};
  for (let i = 0; i < options.memorySamples; i++) {
    for (const name of rotation(Object.keys(kinds), i)) (rss[name] ??= []).push((await kinds[name]()).rss);
  }
  const idle = Object.fromEntries(Object.entries(rss).map(([name, values]) => [name, median(values)]));
  const empty = idle["empty Deno process"];
  const rows = Object.keys(kinds).map((name) => {
    const base = idle[`baseline ${name}`];
    return [
      `idle: ${name}`,
      `${mib(idle[name])} MiB`,
      times(idle[name] / empty),
      base ? `now / baseline ${times(idle[name] / base)}` : "",
      "",
    ];
  });
  const targets: Target[] = ["rpc as shipped (sandbox worker)", "mcp as shipped (sandbox worker)"]
    .map((name) => ({
      what: `idle RSS ${name.split(" ")[0]} / empty Deno`,
      limit: "≤ 1.50×",
      measured: times(idle[name] / empty),
      met: idle[name] / empty <= 1.5,
    }));
  if (options.baseline) {
    for (const { name } of IDLE_KINDS) {
      targets.push(
        versusBaselineValue(`idle RSS ${name} now / baseline`, idle[name], idle[`baseline ${name}`]),
      );
    }
  }
  return { rows, targets, idle };
}

export async function rpcBench(options: RpcBenchOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: true, baseline: options.baseline });
  const spec: Spec = (program, args) => ({ ...fx.spec(program), ...(args ? { args } : {}) });
  try {
    const publish = await publishes(spec, options);
    options.log("rpc: publishes done");
    fx.forget();
    const stream = await streamLatency(fx, spec, options);
    options.log("rpc: stream latency done");
    const query = await queries(fx, spec, options);
    options.log("rpc: query done");
    const idle = await idleMemories(spec, options);
    return {
      name: "rpc",
      title:
        `The rpc helper (${options.publishes} publishes, ${options.events} events each, batches of ${options.batch})`,
      columns: ["measure", "n / value", "p50 (idle: / empty)", "p95", "mean"],
      rows: [...publish.rows, ...stream.rows, ...query.rows, ...idle.rows],
      targets: [...publish.targets, ...stream.targets, ...query.targets, ...idle.targets],
      notes: [
        "Every program runs under the narrow flags (the relay's host:port, the key variable) but the 'as shipped' ones, " +
        "which run as `deno task start` does (this checkout: the start task's flags and launch.ts; the baseline: " +
        "its own start task) and so in the sandbox's worker.",
        "The bare clients do the same signing and signature checks as the helper (nostr-tools), nothing else; the stream is timed from just before the relay stores the event to the arrival of the line's newline in this process.",
        `Memory is VmRSS from /proc, the median of ${options.memorySamples} samples; the query's peak is VmHWM, its time the median, each sample a fresh helper.`,
      ],
      data: {
        options: { ...options, log: undefined },
        publish: publish.data,
        stream: stream.data,
        query: query.data,
        idle: idle.idle,
      },
    };
  } finally {
    await fx.close();
  }
}
