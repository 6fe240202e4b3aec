// 11. Idle memory, side by side with an empty Deno process in one run: `mcp` as shipped (launch.ts with
// the start task's flags, so the session runs in the sandbox's worker) once it has answered initialize
// and tools/list; `mcp --code-mode` as shipped after one JavaScript program, after many more, and after
// one TypeScript program (the first to load the type stripper). For where the memory goes, references
// beside them: the parts of a session added one at a time in one thread (bench/memory_parts.ts), `mcp`
// confined (main.ts under the narrow flags: no worker), an empty Deno process with one empty worker
// (bench/empty_worker.ts), and `mcp` as shipped over TLS (an https relay, as a real one is). Each is a
// fresh process per sample, the order rotating from round to round; with --baseline, the older
// checkout's mcp and code mode take their turns too.

import { startStrictRelay, type StrictRelay } from "../../tests/support/strict_relay/mod.ts";
import { testCertificates } from "../../tests/support/tls.ts";
import { type Checkout, HERE } from "./checkout.ts";
import { type ChildSpec, LineChild, type Memory, type Program, resultOf } from "./child.ts";
import {
  callLine,
  fixture,
  INITIALIZE_PARAMS,
  requestLine,
  sleep,
  SMALL_RESULT,
  SMALL_TOOL,
} from "./fixture.ts";
import { type BenchResult, type Target, versusBaselineValue } from "./report.ts";
import { median, MiB, times } from "./stats.ts";
import { rotation } from "./turns.ts";

export interface MemoryBenchOptions {
  /** Fresh processes of each kind. */
  samples: number;
  /** Programs run after the first, before the last JavaScript reading. */
  programs: number;
  /** How long a process sits idle before it is read. */
  idleMs: number;
  baseline?: Checkout;
  log(line: string): void;
}

/** The targets: idle mcp and code mode after one program against the empty process, and growth. */
export const LIMITS = { mcp: 1.6, code: 2.0, growthBytes: 5 * MiB } as const;

/** A JavaScript program making one relay call: it runs as written, and never loads the stripper. */
export const JS_PROGRAM =
  `async function run(relay) { return await relay.${SMALL_TOOL}({ id: "general" }); }`;

/** The same as TypeScript: its annotations make it fail as JavaScript, so it is stripped first. */
export const TS_PROGRAM = `interface Room { id: string }
async function run(relay: { ${SMALL_TOOL}(room: Room): Promise<unknown> }): Promise<unknown> {
  const room: Room = { id: "general" };
  return await relay.${SMALL_TOOL}(room);
}`;

/** What one sample of a kind reads: its memory at each of its readings, by name. */
type Reading = Record<string, Memory>;

interface Kind {
  name: string;
  spec: ChildSpec;
  /** Drives the child to its idle points, calling `read` at each. */
  drive(child: LineChild, read: (name: string) => Promise<void>): Promise<void>;
}

/** initialize, initialized, tools/list: what a host does before it waits. */
export async function hostHandshake(child: LineChild): Promise<string[]> {
  resultOf((await child.trip(requestLine("initialize", INITIALIZE_PARAMS))).line);
  await child.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const tools = resultOf((await child.trip(requestLine("tools/list", {}))).line).tools as { name: string }[];
  return tools.map((tool) => tool.name);
}

/** One tiny_execute, which must return. */
async function execute(child: LineChild, code: string): Promise<void> {
  const result = resultOf((await child.trip(callLine("tiny_execute", { code }))).line) as {
    isError?: boolean;
    structuredContent?: { end?: string };
  };
  if (result.isError || result.structuredContent?.end !== "returned") {
    throw new Error(`memory: a program did not return: ${JSON.stringify(result).slice(0, 500)}`);
  }
}

function kinds(
  spec: (program: Program) => ChildSpec,
  tls: { relay: StrictRelay; caFile: string },
  options: MemoryBenchOptions,
): Kind[] {
  const idle = async (_child: LineChild, read: (name: string) => Promise<void>) => await read("idle");
  const session = async (child: LineChild, read: (name: string) => Promise<void>) => {
    await hostHandshake(child);
    await read("idle");
  };
  const code = async (child: LineChild, read: (name: string) => Promise<void>) => {
    const tools = await hostHandshake(child);
    if (!tools.includes("tiny_execute")) throw new Error(`memory: code mode offers ${tools.join(", ")}`);
    await execute(child, JS_PROGRAM);
    await read("one program");
    const half = Math.floor(options.programs / 2);
    for (let i = 0; i < half; i++) await execute(child, JS_PROGRAM);
    await read("half the programs");
    for (let i = half; i < options.programs; i++) await execute(child, JS_PROGRAM);
    await read("more programs");
    await execute(child, TS_PROGRAM);
    await read("typescript");
  };
  const shipped = (program: Program, args: string[] = []) => ({ ...spec(program), shipped: true, args });
  // The references that run tinyagent's code get the V8 flags it ships with, and only those.
  const v8 = HERE.shipped.flags.filter((flag) => flag.startsWith("--v8-flags="));
  const parts = (names: string) => ({ ...spec("memory-parts"), extraFlags: v8, args: [names] });
  const list: Kind[] = [
    { name: "empty", spec: spec("empty"), drive: idle },
    { name: "timers", spec: parts("timers"), drive: idle },
    { name: "modules", spec: parts("timers,modules"), drive: idle },
    { name: "signing", spec: parts("timers,modules,signing"), drive: idle },
    { name: "mcp confined", spec: { ...spec("tinyagent"), extraFlags: v8 }, drive: session },
    { name: "empty worker", spec: spec("empty-worker"), drive: idle },
    { name: "mcp", spec: shipped("tinyagent"), drive: session },
    {
      name: "mcp tls",
      spec: {
        ...shipped("tinyagent"),
        relayUrl: tls.relay.url,
        relayHost: tls.relay.host,
        env: { DENO_CERT: tls.caFile },
      },
      drive: session,
    },
    { name: "code", spec: shipped("tinyagent", ["--code-mode"]), drive: code },
  ];
  if (options.baseline) {
    list.push(
      { name: "baseline mcp", spec: shipped("baseline"), drive: session },
      { name: "baseline code", spec: shipped("baseline", ["--code-mode"]), drive: code },
    );
  }
  return list;
}

/** One fresh process of `kind`, read at each of its idle points. */
async function sample(kind: Kind, idleMs: number): Promise<Reading> {
  const child = new LineChild(kind.spec);
  const reading: Reading = {};
  try {
    await kind.drive(child, async (name) => {
      await sleep(idleMs);
      reading[name] = await child.memory().catch((error) => {
        throw new Error(
          `memory: ${kind.name} (${error.message}); stderr: ${child.stderr.trim().slice(-2000)}`,
        );
      });
    });
    return reading;
  } finally {
    await child.close();
  }
}

const mib = (bytes: number, signed = false) =>
  `${signed && bytes >= 0 ? "+" : ""}${(bytes / MiB).toFixed(1)} MiB`;

/** The medians of every kind's readings, and of the growth each code child showed. */
function medians(samples: Record<string, Reading[]>) {
  const value = (kind: string, point: string, field: keyof Memory) =>
    median(samples[kind].map((reading) => reading[point][field]));
  const growth = (kind: string) =>
    median(samples[kind].map((r) => r["more programs"].rss - r["one program"].rss));
  return { value, growth };
}

/** Each row: its label, the kind and reading it shows, and the row whose figure it adds to, if any. */
function rowList(programs: number): [string, string, string, string?][] {
  return [
    ["empty Deno process", "empty", "idle"],
    ["+ Deno's timers (its Node-compatible ones)", "timers", "idle", "empty"],
    ["+ tinyagent's modules an mcp session evaluates", "modules", "idle", "timers"],
    ["+ the signing stack: key, npub, one NIP-98 token", "signing", "idle", "modules"],
    ["mcp confined (one thread, narrow flags)", "mcp confined", "idle", "signing"],
    ["empty Deno process with one empty worker", "empty worker", "idle", "empty"],
    ["mcp as shipped, after initialize and tools/list", "mcp", "idle", "mcp confined"],
    ["the same with an https relay (TLS)", "mcp tls", "idle", "mcp"],
    ["mcp --code-mode as shipped, after one program", "code", "one program", "mcp"],
    [`… after ${Math.floor(programs / 2)} more programs`, "code", "half the programs", "code one program"],
    [`… after ${programs} more programs`, "code", "more programs"],
    ["… then one TypeScript program (the stripper)", "code", "typescript", "code more programs"],
  ];
}

function rowsAndTargets(samples: Record<string, Reading[]>, options: MemoryBenchOptions) {
  const { value, growth } = medians(samples);
  const empty = value("empty", "idle", "rss");
  const has = (kind: string) => samples[kind] !== undefined;
  const shown = new Map<string, number>();
  const rows = rowList(options.programs).map(([label, kind, point, from]) => {
    const rss = value(kind, point, "rss");
    shown.set(point === "idle" ? kind : `${kind} ${point}`, rss);
    // The growth row's step is the growth each child showed, not a difference of medians.
    const added = from === undefined
      ? (point === "more programs" ? growth(kind) : undefined)
      : rss - shown.get(from)!;
    const base = has(`baseline ${kind}`) ? value(`baseline ${kind}`, point, "rss") : undefined;
    return [
      label,
      mib(rss),
      added === undefined ? "" : mib(added, true),
      times(rss / empty),
      mib(value(kind, point, "anon")),
      base === undefined ? "" : `${mib(base)} (${times(rss / base)})`,
    ];
  });
  const ratio = (kind: string, point: string) => value(kind, point, "rss") / empty;
  const targets: Target[] = [
    {
      what: "idle RSS, mcp as shipped / empty Deno",
      limit: `≤ ${times(LIMITS.mcp)}`,
      measured: times(ratio("mcp", "idle")),
      met: ratio("mcp", "idle") <= LIMITS.mcp,
    },
    {
      what: "RSS, code mode after one program / empty Deno",
      limit: `≤ ${times(LIMITS.code)}`,
      measured: times(ratio("code", "one program")),
      met: ratio("code", "one program") <= LIMITS.code,
    },
    {
      what: `RSS growth over ${options.programs} more programs`,
      limit: `≤ ${mib(LIMITS.growthBytes)}`,
      measured: mib(growth("code"), true),
      met: growth("code") <= LIMITS.growthBytes,
    },
  ];
  if (options.baseline) {
    for (const [kind, point] of [["mcp", "idle"], ["code", "one program"], ["code", "more programs"]]) {
      targets.push(versusBaselineValue(
        `RSS, ${kind} (${point}) now / baseline`,
        value(kind, point, "rss"),
        value(`baseline ${kind}`, point, "rss"),
      ));
    }
  }
  return { rows, targets };
}

export async function memoryBench(options: MemoryBenchOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: true, baseline: options.baseline });
  const { caFile } = await testCertificates();
  const relay = await startStrictRelay({ tls: true, keepAlive: true });
  relay.setTool(SMALL_TOOL, () => SMALL_RESULT);
  try {
    const list = kinds((program) => fx.spec(program), { relay, caFile }, options);
    const samples: Record<string, Reading[]> = {};
    for (let round = 0; round < options.samples; round++) {
      for (const kind of rotation(list, round)) {
        (samples[kind.name] ??= []).push(await sample(kind, options.idleMs));
        fx.forget();
        relay.requests.length = 0;
      }
      options.log(`memory: round ${round + 1} of ${options.samples}`);
    }
    const { rows, targets } = rowsAndTargets(samples, options);
    return {
      name: "memory",
      title:
        `Idle memory (${options.samples} fresh processes of each kind, read ${options.idleMs} ms after their last answer)`,
      columns: ["process", "RSS", "added", "× empty", "anonymous (its own)", "baseline (now / baseline)"],
      rows,
      targets,
      notes: [
        "RSS is VmRSS from /proc/<pid>/status, the median over the samples; 'anonymous' is its RssAnon, the memory " +
        "the process holds alone. The rest is the pages of Deno's own executable and cache files it has touched, " +
        "which every process running the same Deno shares.",
        "As shipped: `deno run <the start task's flags> launch.ts mcp --relay <url>` (code mode adds --code-mode), so " +
        "the session runs in the sandbox's worker; confined and the references run under the narrow flags " +
        "(--allow-net=<relay> --allow-env=TINY_PRIVATE_KEY). The relay is the strict relay on loopback, plain HTTP " +
        "but for the TLS row, whose relay offers TLS with a test CA given through DENO_CERT.",
        `Code mode: each program is one tiny_execute of \`${JS_PROGRAM}\`, which must return; the growth is each ` +
        "child's RSS after the further programs less its own after the first, the median over the children. The " +
        "TypeScript program runs after them, so its row adds what loading the type stripper costs.",
        "'added' is the difference from the row each builds on: the parts are bench/memory_parts.ts started with " +
        "each prefix of its list in one thread (with the shipped V8 flags, as confined is), confined adds the " +
        "session's own work, as shipped adds the sandbox's worker, code mode adds QuickJS and one program. The " +
        "growth row's is the median of each child's own growth.",
      ],
      data: { options: { ...options, log: undefined }, samples },
    };
  } finally {
    await relay.close();
    await fx.close();
  }
}
