// 5. The remote relay: the strict relay behind TLS (offering HTTP/1.1 only, then HTTP/2 as well, which
// the floor's fetch takes and tinyagent, speaking HTTP/1.1 only, does not) and a loopback proxy that
// adds a round trip (default 40 ms, and TCP's own handshake round trip on a new connection), as a
// user far from the relay has it, plus plain HTTP on loopback with no delay as the control.
// tinyagent runs with the shipped flags (the sandboxed worker, as the binary runs), the floor script
// with the narrow ones; both trust the test CA through DENO_CERT. Each program has a relay (and
// proxy) of its own, so each relay's connection count is one program's. In each scenario:
//   - spawn samples, taking turns: spawn, initialize, tools/list, one tools/call, as a host does; the
//     time to that call's answer, the call's own round trip (the first call), the connections opened;
//   - one long session each, driven in alternating batches: per-call round trips, and the
//     connections the whole session opened.

import {
  startStrictRelay,
  type StrictRelay,
  type StrictRelayOptions,
} from "../../tests/support/strict_relay/mod.ts";
import { startTcpProxy, type TcpProxy } from "../../tests/support/robustness_kit.ts";
import { newKey, type TestKey } from "../../tests/support/tinyagent.ts";
import { testCertificates } from "../../tests/support/tls.ts";
import type { Checkout } from "./checkout.ts";
import { type ChildSpec, LineChild } from "./child.ts";
import { handshake, SMALL_RESULT, SMALL_TOOL, smallCall } from "./fixture.ts";
import { type BenchResult, type Target, versusBaseline } from "./report.ts";
import { median, ms, summarize, times } from "./stats.ts";
import { rotation } from "./turns.ts";

export interface RemoteOptions {
  /** The added round trip, in ms (half each way). */
  rttMs: number;
  /** Measured calls per program and scenario in the long session. */
  calls: number;
  batch: number;
  warmup: number;
  /** Spawn samples per program and scenario. */
  spawns: number;
  /** Limits, as ratios tinyagent / floor. */
  callLimit: number;
  spawnLimit: number;
  /** The older checkout to run beside this one, as shipped from it. */
  baseline?: Checkout;
  log(line: string): void;
}

export interface Scenario {
  key: string;
  title: string;
  relay: StrictRelayOptions;
  delayed: boolean;
}

type Side = "tinyagent" | "floor" | "baseline";

/** One program's relay (and proxy): the URL it is given and the count of connections it made. */
export interface Endpoint {
  relay: StrictRelay;
  proxy?: TcpProxy;
  url: string;
  host: string;
}

interface Samples {
  calls: number[];
  firstCall: number[];
  spawnToCall: number[];
  /** Connections opened by each spawn sample (initialize, tools/list, one call). */
  spawnConnections: number[];
  /** Connections the long session opened, and the relay calls it made. */
  sessionConnections: number;
  sessionRequests: number;
}

/** A relay for one program in `scenario`: TLS or not, behind the delay proxy or not. */
export async function endpoint(scenario: Scenario, delayMs: number): Promise<Endpoint> {
  const relay = await startStrictRelay(scenario.relay);
  relay.setTool(SMALL_TOOL, () => SMALL_RESULT);
  if (!scenario.delayed) return { relay, url: relay.url, host: relay.host };
  const proxy = startTcpProxy(relay.port, { delayMs });
  return { relay, proxy, url: `${relay.scheme}://${proxy.host}`, host: proxy.host };
}

function spec(side: Side, at: Endpoint, key: TestKey, caFile: string, baseline?: Checkout): ChildSpec {
  return {
    program: side,
    relayUrl: at.url,
    relayHost: at.host,
    keyHex: key.hex,
    // tinyagent as shipped (its worker narrows itself to the relay); the floor with the narrow flags.
    shipped: side !== "floor",
    ...(baseline ? { baseline } : {}),
    env: { DENO_CERT: caFile },
  };
}

/** spawn → initialize → tools/list → one call; returns the call's answer time from spawn and its trip. */
async function spawnOnce(child: LineChild): Promise<{ spawnToCall: number; firstCall: number }> {
  try {
    await handshake(child);
    const firstCall = await smallCall(child);
    return { spawnToCall: performance.now() - child.spawnedAt, firstCall };
  } finally {
    await child.close();
  }
}

async function runScenario(
  scenario: Scenario,
  options: RemoteOptions,
  caFile: string,
): Promise<Partial<Record<Side, Samples>>> {
  const sides: Side[] = options.baseline ? ["tinyagent", "floor", "baseline"] : ["tinyagent", "floor"];
  const key = newKey();
  const ends = {} as Record<Side, Endpoint>;
  const samples = {} as Record<Side, Samples>;
  const specOf = (side: Side) => spec(side, ends[side], key, caFile, options.baseline);
  for (const side of sides) {
    ends[side] = await endpoint(scenario, options.rttMs / 2);
    samples[side] = {
      calls: [],
      firstCall: [],
      spawnToCall: [],
      spawnConnections: [],
      sessionConnections: 0,
      sessionRequests: 0,
    };
  }
  try {
    for (let i = 0; i < options.spawns; i++) {
      for (const side of rotation(sides, i)) {
        const before = ends[side].relay.connections;
        const t = await spawnOnce(new LineChild(specOf(side)));
        samples[side].spawnToCall.push(t.spawnToCall);
        samples[side].firstCall.push(t.firstCall);
        samples[side].spawnConnections.push(ends[side].relay.connections - before);
        ends[side].relay.requests.length = 0;
      }
    }
    const before = Object.fromEntries(sides.map((side) => [side, ends[side].relay.connections]));
    const children = Object.fromEntries(sides.map((side) => [side, new LineChild(specOf(side))]));
    const requests = Object.fromEntries(sides.map((side) => [side, 0]));
    try {
      for (const side of sides) await handshake(children[side]);
      for (let i = 0; i < options.warmup; i++) for (const side of sides) await smallCall(children[side]);
      const batches = Math.ceil(options.calls / options.batch);
      for (let b = 0; b < batches; b++) {
        for (const side of rotation(sides, b)) {
          for (let i = 0; i < options.batch && samples[side].calls.length < options.calls; i++) {
            samples[side].calls.push(await smallCall(children[side]));
          }
          requests[side] += ends[side].relay.requests.length;
          ends[side].relay.requests.length = 0;
        }
      }
    } finally {
      for (const side of sides) await children[side].close();
    }
    for (const side of sides) {
      samples[side].sessionConnections = ends[side].relay.connections - before[side];
      samples[side].sessionRequests = requests[side] + ends[side].relay.requests.length;
    }
    options.log(
      `remote: ${scenario.key}: ${options.calls} calls and ${options.spawns} spawns each for ${
        sides.join(", ")
      }`,
    );
  } finally {
    for (const side of sides) {
      await ends[side].proxy?.close();
      await ends[side].relay.close();
    }
  }
  return samples;
}

/** The three scenarios: HTTP/1.1 over TLS and TLS offering HTTP/2, both behind the delay proxy; loopback. */
export function remoteScenarios(rttMs: number): Scenario[] {
  const rtt = `${rttMs} ms RTT`;
  return [
    {
      key: "h1-tls",
      title: `HTTP/1.1 over TLS, ${rtt}`,
      relay: { tls: true, keepAlive: true },
      delayed: true,
    },
    {
      key: "h2-tls",
      title: `TLS offering HTTP/2 (floor on h2), ${rtt}`,
      relay: { tls: true, http2: true, keepAlive: true },
      delayed: true,
    },
    { key: "plain", title: "plain HTTP/1.1, loopback, no delay", relay: { keepAlive: true }, delayed: false },
  ];
}

function stat(samples: Samples) {
  return {
    call: summarize(samples.calls),
    firstCall: median(samples.firstCall),
    spawnToCall: median(samples.spawnToCall),
    spawnConnections: median(samples.spawnConnections),
    sessionConnections: samples.sessionConnections,
    sessionRequests: samples.sessionRequests,
  };
}

/** One command's row. */
function rowOf(title: string, name: string, a: ReturnType<typeof stat>): string[] {
  const connections =
    `${a.sessionConnections} for ${a.sessionRequests} requests (spawn: ${a.spawnConnections})`;
  return [title, name, ms(a.call.p50), ms(a.call.p95), ms(a.firstCall), ms(a.spawnToCall), connections];
}

function ratioRow(name: string, a: ReturnType<typeof stat>, b: ReturnType<typeof stat>): string[] {
  return [
    "",
    name,
    times(a.call.p50 / b.call.p50),
    times(a.call.p95 / b.call.p95),
    times(a.firstCall / b.firstCall),
    times(a.spawnToCall / b.spawnToCall),
    "",
  ];
}

export async function remote(options: RemoteOptions): Promise<BenchResult> {
  const { caFile } = await testCertificates();
  const scenarios = remoteScenarios(options.rttMs);
  const results: Record<string, Partial<Record<Side, Samples>>> = {};
  for (const scenario of scenarios) results[scenario.key] = await runScenario(scenario, options, caFile);

  const rows: string[][] = [];
  const targets: Target[] = [];
  const summaries: Record<string, unknown> = {};
  for (const scenario of scenarios) {
    const r = results[scenario.key];
    const a = stat(r.tinyagent!);
    const b = stat(r.floor!);
    const base = r.baseline ? stat(r.baseline) : undefined;
    summaries[scenario.key] = { tinyagent: a, floor: b, ...(base ? { baseline: base } : {}) };
    rows.push(
      rowOf(scenario.title, "tinyagent", a),
      rowOf("", "floor", b),
      ratioRow("ratio tinyagent / floor", a, b),
    );
    if (base) rows.push(rowOf("", "baseline", base), ratioRow("ratio tinyagent / baseline", a, base));
    targets.push({
      what: `${scenario.key}: per-call p50 tinyagent / floor`,
      limit: `≤ ${times(options.callLimit)}`,
      measured: times(a.call.p50 / b.call.p50),
      met: a.call.p50 / b.call.p50 <= options.callLimit,
    });
    if (scenario.delayed) {
      targets.push(
        {
          what: `${scenario.key}: spawn → first call answered, tinyagent / floor`,
          limit: `≤ ${times(options.spawnLimit)}`,
          measured: times(a.spawnToCall / b.spawnToCall),
          met: a.spawnToCall / b.spawnToCall <= options.spawnLimit,
        },
        {
          what: `${scenario.key}: tinyagent connections for a session of sequential calls`,
          limit: "1",
          measured: String(a.sessionConnections),
          met: a.sessionConnections === 1,
        },
      );
    }
    if (r.baseline) {
      targets.push(
        versusBaseline(`${scenario.key}: per-call p50 now / baseline`, r.tinyagent!.calls, r.baseline.calls),
        versusBaseline(
          `${scenario.key}: spawn → first call answered, now / baseline`,
          r.tinyagent!.spawnToCall,
          r.baseline.spawnToCall,
        ),
      );
    }
  }
  return {
    name: "remote",
    title:
      `Remote relay (${options.calls} calls each per scenario in alternating batches of ${options.batch}, ` +
      `after ${options.warmup} warm-up calls; ${options.spawns} spawns each, taking turns)`,
    columns: [
      "scenario",
      "command",
      "per call p50",
      "per call p95",
      "first call p50",
      "spawn → first call p50",
      "connections / session",
    ],
    rows,
    targets,
    notes: [
      `The delay proxy (tests/support/robustness_kit.ts) holds every chunk ${
        options.rttMs / 2
      } ms each way, ` +
      "and a new connection's first bytes one round trip more (TCP's SYN/SYN-ACK): a fresh TLS connection " +
      "costs three round trips before its first answer, a kept one one.",
      "tinyagent: as shipped from a checkout, `deno run <the start task's flags> launch.ts` (the baseline: " +
      "its own start task, main.ts); floor: bench/floor.ts with " +
      "--allow-net=<proxy host:port> --allow-env=TINY_PRIVATE_KEY, fetch's default pooled client. Both get " +
      "DENO_CERT=<test CA> (tests/support/tls.ts).",
      "First call: the round trip of the first tools/call after initialize and tools/list. Spawn → first call: " +
      "from spawn to that call's answer. Connections / session: connections the long session opened for its " +
      "relay requests (tools/list, warm-up and measured calls); spawn: the median for a spawn sample.",
    ],
    data: { options: { ...options, log: undefined }, summaries, samples: results },
  };
}
