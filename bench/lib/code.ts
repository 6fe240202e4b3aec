// 10. Code mode against the plain tools, side by side in one run: `tinyagent mcp --allow-writes` and
// `tinyagent mcp --allow-writes --code-mode`, both as shipped from this checkout, each with a strict
// relay of its own seeded with the same 20 issues, on loopback and behind remote.ts's front (TLS and
// the delay proxy). In each scenario:
//   (a) the bytes of the tools/list answer;
//   (b) "the titles of the open issues labelled bug, with their newest reply's author": the plain host
//       calls list_issues, then read_issue for each of the 20, keeping every answer; code mode runs one
//       tiny_execute whose program does the same and returns only the titles and authors. Host round
//       trips, the bytes of the answers that reach the model (each one's text and structuredContent),
//       the wall time;
//   (c) the fixed cost of one tiny_execute making one read, against that read called directly.
// And, on loopback, (d) spawn → initialize answer with and without --code-mode, and (e) the TypeScript
// case (code_typescript.ts): the one-read program in TypeScript against the same in JavaScript, cold and
// warm, beside the --baseline checkout's when one is given; and with --baseline, (f) code mode's fixed
// cost and spawn → initialize against the older checkout's (code_baseline.ts).

import { issuesContent } from "../../tests/support/strict_relay/content_gen_repo.ts";
import { newKey, type TestKey } from "../../tests/support/tinyagent.ts";
import { testCertificates } from "../../tests/support/tls.ts";
import type { Checkout } from "./checkout.ts";
import { type ChildSpec, type Line, LineChild, resultOf } from "./child.ts";
import { programs, typescriptCase, typescriptRows, typescriptTargets } from "./code_typescript.ts";
import { baselineRows, baselineSamples, baselineTargets } from "./code_baseline.ts";
import { callLine, INITIALIZE_PARAMS, requestLine } from "./fixture.ts";
import { type Endpoint, endpoint, remoteScenarios, type Scenario } from "./remote.ts";
import type { BenchResult, Target } from "./report.ts";
import { median, ms, ratioInterval, summarize, times } from "./stats.ts";
import { rotation, takeTurns } from "./turns.ts";

export interface CodeBenchOptions {
  rttMs: number;
  /** Runs of the 20-issue scenario per side and network scenario. */
  runs: number;
  /** Samples of the one-read fixed cost per side and network scenario. */
  reads: number;
  batch: number;
  /** Spawns per side for spawn → initialize. */
  spawns: number;
  /** The TypeScript case: processes per checkout, and warm programs of each language in each. */
  tsSpawns: number;
  tsWarm: number;
  /** The older checkout (--baseline), whose TypeScript case runs beside this one's. */
  baseline?: Checkout;
  log(line: string): void;
}

type Side = "plain" | "code";
const SIDES: Side[] = ["plain", "code"];
const REPO = "widgets";
const ISSUES = 20;
const FLAGS: Record<Side, string[]> = { plain: ["--allow-writes"], code: ["--allow-writes", "--code-mode"] };

/**
 * read_issue's arguments: the strict relay's table names the issue as `id` here and as `{owner, repo,
 * event}` in the newer table the real relay's schema follows; neither refuses the other's fields.
 */
const readArgs = (owner: string, event: string) => ({ owner, repo: REPO, event, id: event });

type Result = { content?: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean };
type Found = { title: string; author: string | null }[];

const utf8 = (text: string) => new TextEncoder().encode(text).length;

/** What of an answer reaches the model: its text blocks and its structuredContent, as JSON. */
export function modelBytes(result: Result): number {
  const text = (result.content ?? []).reduce((sum, block) => sum + utf8(block.text ?? ""), 0);
  return text + (result.structuredContent === undefined ? 0 : utf8(JSON.stringify(result.structuredContent)));
}

function callResult(line: Line, what: string): Result {
  const result = resultOf(line) as Result;
  if (result.isError) throw new Error(`code: ${what} failed: ${JSON.stringify(result).slice(0, 500)}`);
  return result;
}

/** The program the model would write: the same calls as the plain host, only the answer returned. */
function program(owner: string): string {
  const repo = JSON.stringify(REPO);
  return [
    "async function run(relay) {",
    `  const owner = ${JSON.stringify(owner)};`,
    `  const list = await relay.list_issues({ owner, repo: ${repo} });`,
    "  const found = [];",
    "  for (const item of list.items) {",
    `    const issue = await relay.read_issue({ owner, repo: ${repo}, event: item.id, id: item.id });`,
    '    if (item.status === "open" && item.labels.includes("bug")) {',
    "      found.push({ title: item.title, author: issue.replies[0]?.pubkey ?? null });",
    "    }",
    "  }",
    "  return found;",
    "}",
  ].join("\n");
}

/** One run of the scenario by a plain host: 21 calls, every answer kept. */
async function plainRun(child: LineChild, owner: string) {
  const started = performance.now();
  const kept: Result[] = [
    callResult((await child.trip(callLine("list_issues", { owner, repo: REPO }))).line, "list_issues"),
  ];
  const items = (kept[0].structuredContent as {
    items: { id: string; title: string; status: string; labels: string[] }[];
  }).items;
  const found: Found = [];
  for (const item of items) {
    const issue = callResult(
      (await child.trip(callLine("read_issue", readArgs(owner, item.id)))).line,
      "read_issue",
    );
    kept.push(issue);
    const replies = (issue.structuredContent as { replies: { pubkey: string }[] }).replies;
    if (item.status === "open" && item.labels.includes("bug")) {
      found.push({ title: item.title, author: replies[0]?.pubkey ?? null });
    }
  }
  const wall = performance.now() - started;
  return { wall, trips: kept.length, bytes: kept.reduce((sum, r) => sum + modelBytes(r), 0), found };
}

/** One run of the scenario in code mode: one tiny_execute. */
async function codeRun(child: LineChild, owner: string) {
  const trip = await child.trip(callLine("tiny_execute", { code: program(owner) }));
  const result = callResult(trip.line, "tiny_execute");
  const report = result.structuredContent as { value: Found; calls: unknown[] };
  if (report.calls.length !== ISSUES + 1) {
    throw new Error(`code: the program made ${report.calls.length} calls`);
  }
  return { wall: trip.ms, trips: 1, bytes: modelBytes(result), found: report.value };
}

/** initialize, initialized, tools/list: the times from spawn and the tools/list answer's bytes. */
async function hostHandshake(child: LineChild) {
  const init = await child.trip(requestLine("initialize", INITIALIZE_PARAMS));
  resultOf(init.line);
  await child.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const list = await child.trip(requestLine("tools/list", {}));
  const tools = (resultOf(list.line).tools as { name: string }[]).map((tool) => tool.name);
  return { initialize: init.line.at - child.spawnedAt, listBytes: list.line.bytes.length, tools };
}

interface ScenarioSamples {
  listBytes: Record<Side, number>;
  tools: Record<Side, string[]>;
  wall: Record<Side, number[]>;
  trips: Record<Side, number>;
  bytes: Record<Side, number>;
  relayCalls: Record<Side, number>;
  read: Record<Side, number[]>;
}

async function runScenario(
  scenario: Scenario,
  options: CodeBenchOptions,
  caFile: string,
): Promise<ScenarioSamples> {
  const key = newKey();
  const content = issuesContent(key.pubkey, REPO, ISSUES);
  const wanted = content.issues.filter((issue) => issue.status === "open" && issue.labels.includes("bug"));
  const expected: Found = wanted.map((issue) => ({
    title: issue.title,
    author: issue.newestReplyAuthor ?? null,
  }));
  const ends = {} as Record<Side, Endpoint>;
  const children = {} as Record<Side, LineChild>;
  try {
    for (const side of SIDES) {
      ends[side] = await endpoint(scenario, options.rttMs / 2);
      ends[side].relay.seed(content.seed);
    }
    for (const side of SIDES) children[side] = new LineChild(specOf(side, ends[side], key, caFile));
    const shakes = { plain: await hostHandshake(children.plain), code: await hostHandshake(children.code) };
    if (!shakes.code.tools.includes("tiny_execute") || shakes.plain.tools.includes("tiny_execute")) {
      throw new Error(`code: tools offered: plain ${shakes.plain.tools}, code ${shakes.code.tools}`);
    }
    const run = (side: Side) =>
      side === "plain" ? plainRun(children.plain, key.pubkey) : codeRun(children.code, key.pubkey);
    const last = {} as Record<Side, Awaited<ReturnType<typeof plainRun>>>;
    const relayCalls = {} as Record<Side, number>;
    for (const side of SIDES) {
      const before = toolCalls(ends[side]);
      last[side] = await run(side); // warm-up
      relayCalls[side] = toolCalls(ends[side]) - before;
      check(side, last[side].found, expected);
    }
    const wall = await takeTurns(SIDES, options.runs, 1, async (side) => {
      last[side] = await run(side);
      check(side, last[side].found, expected);
      for (const s of SIDES) ends[s].relay.requests.length = 0;
      return last[side].wall;
    });
    options.log(`code: ${scenario.key}: ${options.runs} runs of the 20-issue scenario each`);
    const read = await fixedCost(children, key.pubkey, content.issues[0].event.id, options);
    options.log(`code: ${scenario.key}: ${options.reads} single reads each`);
    return {
      listBytes: { plain: shakes.plain.listBytes, code: shakes.code.listBytes },
      tools: { plain: shakes.plain.tools, code: shakes.code.tools },
      wall,
      trips: { plain: last.plain.trips, code: last.code.trips },
      bytes: { plain: last.plain.bytes, code: last.code.bytes },
      relayCalls,
      read,
    };
  } finally {
    for (const side of SIDES) await children[side]?.close();
    for (const side of SIDES) {
      await ends[side]?.proxy?.close();
      await ends[side]?.relay.close();
    }
  }
}

function specOf(side: Side, at: Endpoint, key: TestKey, caFile: string): ChildSpec {
  return {
    program: "tinyagent",
    relayUrl: at.url,
    relayHost: at.host,
    keyHex: key.hex,
    shipped: true,
    env: { DENO_CERT: caFile },
    args: FLAGS[side],
  };
}

const toolCalls = (at: Endpoint) =>
  at.relay.requests.filter((r) => (r.json as { method?: string } | undefined)?.method === "tools/call")
    .length;

function check(side: Side, found: Found, expected: Found): void {
  if (JSON.stringify(found) !== JSON.stringify(expected)) {
    throw new Error(`code: ${side} found ${JSON.stringify(found)}, not ${JSON.stringify(expected)}`);
  }
}

/** (c): one read_issue, called directly by the plain host or from a one-read program, taking turns. */
async function fixedCost(
  children: Record<Side, LineChild>,
  owner: string,
  event: string,
  options: CodeBenchOptions,
) {
  const args = readArgs(owner, event);
  const code = `async function run(relay) { return await relay.read_issue(${JSON.stringify(args)}); }`;
  const once = async (side: Side) => {
    const line = side === "plain" ? callLine("read_issue", args) : callLine("tiny_execute", { code });
    const trip = await children[side].trip(line);
    callResult(trip.line, side === "plain" ? "read_issue" : "tiny_execute");
    return trip.ms;
  };
  for (let i = 0; i < 5; i++) for (const side of SIDES) await once(side);
  return await takeTurns(SIDES, options.reads, options.batch, once);
}

/** (d): spawn → initialize answer, with and without --code-mode, as shipped and confined, in turn. */
async function spawns(options: CodeBenchOptions) {
  const at = await endpoint({ key: "plain", title: "", relay: { keepAlive: true }, delayed: false }, 0);
  const key = newKey();
  const kinds = ["shipped plain", "shipped code", "confined plain", "confined code"] as const;
  const samples = Object.fromEntries(kinds.map((kind) => [kind, [] as number[]])) as Record<
    typeof kinds[number],
    number[]
  >;
  try {
    for (let i = -1; i < options.spawns; i++) {
      for (const kind of rotation(kinds, Math.max(i, 0))) {
        const [how, side] = kind.split(" ") as ["shipped" | "confined", Side];
        const child = new LineChild({ ...specOf(side, at, key, ""), shipped: how === "shipped", env: {} });
        try {
          const trip = await child.trip(requestLine("initialize", INITIALIZE_PARAMS));
          resultOf(trip.line);
          if (i >= 0) samples[kind].push(trip.line.at - child.spawnedAt);
        } finally {
          await child.close();
        }
      }
    }
  } finally {
    await at.relay.close();
  }
  return samples;
}

/** `fn` with a loopback relay of its own seeded with the issues, and the key they are addressed to. */
async function onSeededLoopback<T>(
  fn: (at: Endpoint, key: TestKey, args: Record<string, unknown>) => Promise<T>,
): Promise<T> {
  const at = await endpoint({ key: "plain", title: "", relay: { keepAlive: true }, delayed: false }, 0);
  const key = newKey();
  const content = issuesContent(key.pubkey, REPO, ISSUES);
  at.relay.seed(content.seed);
  try {
    return await fn(at, key, readArgs(key.pubkey, content.issues[0].event.id));
  } finally {
    await at.relay.close();
  }
}

/** (e): the TypeScript case on loopback. */
function typescriptSamples(options: CodeBenchOptions) {
  return onSeededLoopback((at, key, args) =>
    typescriptCase({
      spawns: options.tsSpawns,
      warm: options.tsWarm,
      baseline: options.baseline,
      spec: (which) => ({
        ...specOf("code", at, key, ""),
        env: {},
        ...(which === "now" ? {} : { program: "baseline" as const, baseline: options.baseline }),
      }),
    }, programs(args))
  );
}

/** (f): with --baseline, code mode now against the baseline's, on loopback. */
async function againstBaseline(options: CodeBenchOptions) {
  const baseline = options.baseline;
  if (!baseline) return undefined;
  return await onSeededLoopback((at, key, args) =>
    baselineSamples({
      baseline,
      reads: options.reads,
      batch: options.batch,
      spawns: options.spawns,
      args,
      spec: (which, code) => ({
        ...specOf(code ? "code" : "plain", at, key, ""),
        env: {},
        ...(which === "now" ? {} : { program: "baseline" as const, baseline }),
      }),
    })
  );
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1)}%`;

function scenarioRows(title: string, r: ScenarioSamples): string[][] {
  const wall = { plain: summarize(r.wall.plain), code: summarize(r.wall.code) };
  const read = { plain: summarize(r.read.plain), code: summarize(r.read.code) };
  const [low, high] = ratioInterval(r.wall.code, r.wall.plain);
  return [
    [
      title,
      "tools/list answer",
      `${r.listBytes.plain} B (${r.tools.plain.length} tools)`,
      `${r.listBytes.code} B (${r.tools.code.length} tools)`,
      pct(r.listBytes.code, r.listBytes.plain),
    ],
    [
      "",
      "20 issues: host round trips (relay calls)",
      `${r.trips.plain} (${r.relayCalls.plain})`,
      `${r.trips.code} (${r.relayCalls.code})`,
      "",
    ],
    [
      "",
      "20 issues: bytes reaching the model",
      kib(r.bytes.plain),
      `${r.bytes.code} B`,
      `${pct(r.bytes.code, r.bytes.plain)} (${pct(r.bytes.plain - r.bytes.code, r.bytes.plain)} fewer)`,
    ],
    [
      "",
      "20 issues: wall time p50 (p95)",
      `${ms(wall.plain.p50)} (${ms(wall.plain.p95)})`,
      `${ms(wall.code.p50)} (${ms(wall.code.p95)})`,
      `${times(wall.code.p50 / wall.plain.p50)} (95% ${times(low)} – ${times(high)})`,
    ],
    [
      "",
      "one read: p50 (p95), direct vs one-read program",
      `${ms(read.plain.p50)} (${ms(read.plain.p95)})`,
      `${ms(read.code.p50)} (${ms(read.code.p95)})`,
      `+${ms(read.code.p50 - read.plain.p50)}`,
    ],
  ];
}

function scenarioTargets(key: string, r: ScenarioSamples, judged: boolean): Target[] {
  const wallRatio = median(r.wall.code) / median(r.wall.plain);
  const [low] = ratioInterval(r.wall.code, r.wall.plain);
  const fewer = 1 - r.bytes.code / r.bytes.plain;
  const fixed = median(r.read.code) - median(r.read.plain);
  return [
    {
      what: `${key}: tools/list bytes code / plain`,
      limit: "≤ 25%",
      measured: pct(r.listBytes.code, r.listBytes.plain),
      met: r.listBytes.code / r.listBytes.plain <= 0.25,
    },
    {
      what: `${key}: host round trips, code vs plain`,
      limit: "1 instead of 21",
      measured: `${r.trips.code} vs ${r.trips.plain}`,
      met: r.trips.code === 1 && r.trips.plain === ISSUES + 1,
    },
    {
      what: `${key}: bytes reaching the model, fewer in code mode`,
      limit: "≥ 90% fewer",
      measured: pct(fewer, 1),
      met: fewer >= 0.9,
    },
    {
      what: `${key}: 20-issue wall time p50 code / plain`,
      limit: "no worse (≤ 1.00×)",
      measured: `${times(wallRatio)}${wallRatio > 1 && low <= 1 ? ", within noise" : ""}`,
      met: wallRatio <= 1 || low <= 1,
    },
    {
      what: `${key}: fixed cost of a one-read tiny_execute, p50`,
      limit: "≤ 10 ms",
      measured: ms(fixed),
      met: fixed <= 10,
      ...(judged ? {} : { judged: false }),
    },
  ];
}

export async function codeBench(options: CodeBenchOptions): Promise<BenchResult> {
  const { caFile } = await testCertificates();
  const all = remoteScenarios(options.rttMs);
  const scenarios = [all.find((s) => s.key === "plain")!, all.find((s) => s.key === "h1-tls")!];
  const results: Record<string, ScenarioSamples> = {};
  for (const scenario of scenarios) results[scenario.key] = await runScenario(scenario, options, caFile);
  const spawn = await spawns(options);
  options.log("code: spawns done");
  const typescript = await typescriptSamples(options);
  options.log("code: the TypeScript case done");
  const rows = scenarios.flatMap((s) => scenarioRows(s.title, results[s.key]));
  const targets = scenarios.flatMap((s) => scenarioTargets(s.key, results[s.key], s.key === "plain"));
  for (const how of ["shipped", "confined"] as const) {
    const plain = spawn[`${how} plain`];
    const code = spawn[`${how} code`];
    const ratio = median(code) / median(plain);
    const [low, high] = ratioInterval(code, plain);
    rows.push([
      how === "shipped" ? "spawn → initialize answer, loopback" : "",
      how === "shipped" ? "as shipped (launch.ts), p50 (p95)" : "confined (main.ts, narrow flags), p50 (p95)",
      `${ms(median(plain))} (${ms(summarize(plain).p95)})`,
      `${ms(median(code))} (${ms(summarize(code).p95)})`,
      `${times(ratio)} (95% ${times(low)} – ${times(high)})`,
    ]);
    targets.push({
      what: `spawn → initialize, ${how}, --code-mode / without`,
      limit: "≤ 1.02×",
      measured: times(ratio),
      met: ratio <= 1.02,
    });
  }
  rows.push(...typescriptRows(typescript));
  targets.push(...typescriptTargets(typescript));
  const before = await againstBaseline(options);
  if (before) {
    options.log("code: against the baseline done");
    rows.push(...baselineRows(before));
    targets.push(...baselineTargets(before));
  }
  return {
    name: "code",
    title:
      `Code mode against the plain tools (${options.runs} runs of the 20-issue scenario and ${options.reads} single reads each per network, ${options.spawns} spawns each)`,
    columns: ["network", "measure", "plain tools", "code mode", "code / plain"],
    rows,
    targets,
    notes: [
      "Both sides are `deno run <the start task's flags> launch.ts mcp --relay <url> --allow-writes` (code mode adds --code-mode), " +
      "each with a strict relay of its own seeded with the same 20 issues (tests/support/strict_relay/content_gen_repo.ts); " +
      `the ${options.rttMs} ms row puts it behind remote.ts's front: TLS (HTTP/1.1) and the delay proxy.`,
      "Bytes reaching the model: for each answer the host gets, its text blocks and its structuredContent as JSON, summed. " +
      "The plain host keeps all 21 answers (list_issues and 20 read_issue); code mode's one answer holds the titles and " +
      "authors, how the program ended and its 21 calls. Both found the same titles and authors, checked against the seed.",
      "Wall time: from the host's first request to its last answer. Host round trips: the tools/call requests the host " +
      "sent; relay calls: the tools/call requests the relay received for one run.",
      "One read: read_issue called directly, against a tiny_execute whose program makes that call and returns its " +
      "answer; the difference of the medians is the fixed cost of a program (its QuickJS runtime, the bridge, the report).",
      `TypeScript rows: the "plain tools" column holds the JavaScript program, "code mode" the TypeScript one, both ` +
      `through tiny_execute. ${options.tsSpawns} processes of each checkout as shipped, taking turns: one JavaScript ` +
      "program (QuickJS's load), a warm one, the first TypeScript program (the type stripper's load; RSS from " +
      `/proc just before and after it), then ${options.tsWarm} warm programs of each language, alternating. ` +
      "The TypeScript program holds a `<`, so it is always stripped; the JavaScript one never is.",
      ...(before
        ? [
          "Against the baseline: this checkout's and the baseline's plain host and code mode, four processes as " +
          "shipped taking turns at one read (direct, or a one-read program); the judged figure is the program's " +
          "p50 now / baseline, its fixed cost (the difference from a direct read) shown beside. Spawn → " +
          "initialize with --code-mode: the two checkouts spawned in turn.",
        ]
        : []),
    ],
    data: {
      options: { ...options, log: undefined, baseline: options.baseline?.dir },
      results,
      spawn,
      typescript,
      againstBaseline: before,
    },
  };
}
