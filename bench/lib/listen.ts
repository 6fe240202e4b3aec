// 8. `mcp --listen`, side by side with a bare client in one run: the time from the relay sending an
// event (relay.inject) to its `notifications/claude/channel` line on tinyagent's stdout, against the
// bare websocket client (bench/ws_floor.ts) writing its line for an event of its own, alternating
// between them in batches. (The per-call overhead of mcp without --listen is the overhead benchmark's.)

import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import { command } from "../../tests/support/tinyagent.ts";
import { type ChildSpec, type Line, LineChild, spawnOptions, timedLines } from "./child.ts";
import { fixture, INITIALIZE_PARAMS, requestLine } from "./fixture.ts";
import type { BenchResult, Target } from "./report.ts";
import { ms, ratioInterval, summarize, times } from "./stats.ts";
import type { Checkout } from "./checkout.ts";
import { versusBaseline } from "./report.ts";
import { takeTurns } from "./turns.ts";

export interface ListenBenchOptions {
  events: number;
  batch: number;
  warmup: number;
  limit: number;
  /** The older checkout to run beside this one (listening in a room of its own). */
  baseline?: Checkout;
  log(line: string): void;
}

const someone = generateSecretKey();
const decoder = new TextDecoder();
/** The room each tinyagent listens in: the two share the key, so each needs its own. */
const ROOMS = { agent: "bench", baseline: "bench-baseline" };

/**
 * tinyagent as `mcp --listen <room> --allow-from <someone>`, driven like LineChild: lines timed at
 * their newline's arrival, stderr kept.
 */
class ListenChild {
  readonly process: Deno.ChildProcess;
  stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: Line[] = [];
  #waiters: ((line: Line | undefined) => void)[] = [];
  #ended = false;
  #done: Promise<void>;

  constructor(spec: ChildSpec, room: string) {
    const options = spawnOptions({
      ...spec,
      args: ["--listen", room, "--allow-from", getPublicKey(someone)],
    });
    this.process = command(options).spawn();
    this.#writer = this.process.stdin.getWriter();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  async #readStdout(): Promise<void> {
    await timedLines(this.process.stdout, (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else this.#lines.push(line);
    });
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }

  async #readStderr(): Promise<void> {
    for await (const chunk of this.process.stderr) {
      this.stderr = (this.stderr + decoder.decode(chunk, { stream: true })).slice(-16384);
    }
  }

  nextLine(): Promise<Line> {
    const queued = this.#lines.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#ended) return Promise.reject(new Error(`tinyagent ended; stderr: ${this.stderr}`));
    return new Promise((resolve, reject) =>
      this.#waiters.push((line) =>
        line ? resolve(line) : reject(new Error(`tinyagent ended; stderr: ${this.stderr}`))
      )
    );
  }

  async write(text: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(text));
  }

  async close(): Promise<void> {
    await this.#writer.close().catch(() => {});
    const timer = setTimeout(() => this.process.kill("SIGKILL"), 5000);
    await this.process.status;
    clearTimeout(timer);
    await this.#done;
  }
}

/** Events for one side, signed ahead so signing is not timed. */
function eventsFor(tags: string[][], count: number): NostrEvent[] {
  const at = Math.floor(Date.now() / 1000);
  return Array.from(
    { length: count },
    (_, i) => finalizeEvent({ kind: 9, created_at: at, tags, content: `bench ${i}` }, someone),
  );
}

/** Waits for tinyagent's stderr to say its listener is live. */
async function live(child: ListenChild): Promise<void> {
  const deadline = performance.now() + 30_000;
  while (!child.stderr.includes("listen: live in")) {
    if (performance.now() > deadline) throw new Error(`the listener never went live: ${child.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The host's handshake; the listener starts after the first answer. Waits until it is live. */
async function started(agent: ListenChild): Promise<void> {
  const init = agent.nextLine();
  await agent.write(requestLine("initialize", INITIALIZE_PARAMS));
  await init;
  await agent.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const list = agent.nextLine();
  await agent.write(requestLine("tools/list", {}));
  await list;
  await live(agent);
}

type Side = "agent" | "floor" | "baseline";

export async function listenBench(options: ListenBenchOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: true, baseline: options.baseline });
  const sides: Side[] = options.baseline ? ["agent", "floor", "baseline"] : ["agent", "floor"];
  const agents: Partial<Record<Side, ListenChild>> = {
    agent: new ListenChild(fx.spec("tinyagent"), ROOMS.agent),
  };
  if (options.baseline) agents.baseline = new ListenChild(fx.spec("baseline"), ROOMS.baseline);
  const floor = new LineChild({
    ...fx.spec("ws-floor"),
    args: [JSON.stringify({ kinds: [9], "#h": ["floor"] })],
  });
  try {
    for (const agent of Object.values(agents)) await started(agent);
    for (;;) if (JSON.parse(decoder.decode((await floor.nextLine()).bytes)).event === "connected") break;

    const total = options.events + options.warmup;
    const pools: Record<Side, NostrEvent[]> = {
      agent: eventsFor([["h", ROOMS.agent], ["p", fx.key.pubkey]], total),
      floor: eventsFor([["h", "floor"]], total),
      baseline: options.baseline ? eventsFor([["h", ROOMS.baseline], ["p", fx.key.pubkey]], total) : [],
    };
    const used = { agent: 0, floor: 0, baseline: 0 };
    const deliver = async (side: Side): Promise<number> => {
      const event = pools[side][used[side]++];
      const line = side === "floor" ? floor.nextLine() : agents[side]!.nextLine();
      const started = performance.now();
      fx.relay.inject(event);
      const received = await line;
      const message = JSON.parse(decoder.decode(received.bytes));
      const id = side === "floor" ? message.data?.id : message.params?.meta?.event_id;
      if (id !== event.id) throw new Error(`${side}: ${JSON.stringify(message).slice(0, 300)}`);
      if (side !== "floor" && message.method !== "notifications/claude/channel") {
        throw new Error(`not a channel notification: ${JSON.stringify(message).slice(0, 300)}`);
      }
      return received.at - started;
    };
    for (let i = 0; i < options.warmup; i++) for (const side of sides) await deliver(side);
    const samples = await takeTurns(sides, options.events, options.batch, deliver);
    const [a, b] = [summarize(samples.agent), summarize(samples.floor)];
    const base = samples.baseline ? summarize(samples.baseline) : undefined;
    const ratio = a.p50 / b.p50;
    const [low, high] = ratioInterval(samples.agent, samples.floor);
    const target: Target = {
      what: "relay event → stdout line p50 mcp --listen / bare client",
      limit: `≤ ${times(options.limit)}`,
      measured: times(ratio),
      met: ratio <= options.limit,
    };
    options.log("listen: done");
    const ratios = (
      label: string,
      s: typeof a,
    ) => [label, "", times(a.p50 / s.p50), times(a.p95 / s.p95), times(a.mean / s.mean)];
    return {
      name: "listen",
      title: `mcp --listen (${options.events} events each, batches of ${options.batch})`,
      columns: ["measure", "n", "p50", "p95", "mean"],
      rows: [
        ["mcp --listen channel line", String(a.n), ms(a.p50), ms(a.p95), ms(a.mean)],
        ["bare websocket client", String(b.n), ms(b.p50), ms(b.p95), ms(b.mean)],
        ratios(`ratio (${times(low)} – ${times(high)})`, b),
        ...(base
          ? [
            ["baseline mcp --listen channel line", String(base.n), ms(base.p50), ms(base.p95), ms(base.mean)],
            ratios("ratio now / baseline", base),
          ]
          : []),
      ],
      targets: [
        target,
        ...(samples.baseline
          ? [versusBaseline("channel line p50 now / baseline", samples.agent, samples.baseline)]
          : []),
      ],
      notes: [
        "Both run under the narrow flags (the relay's host:port, the key variable) and check each event's signature (nostr-tools); tinyagent also decides whether the event is addressed to the agent and writes the channel notification (its tiny_inbox copy included).",
        "Timed from just before the relay stores the event (its own signature check included, alike for both) to the arrival of the line's newline in this process.",
        ...(base
          ? ["The baseline listens in a room of its own (the same key), so each event reaches one listener."]
          : []),
      ],
      data: {
        options: { ...options, log: undefined },
        a,
        b,
        ...(base ? { baseline: base } : {}),
        ratio,
        interval: [low, high],
        samples,
      },
    };
  } finally {
    for (const agent of Object.values(agents)) await agent.close();
    await floor.close();
    await fx.close();
  }
}
