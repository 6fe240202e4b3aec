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

export interface ListenBenchOptions {
  events: number;
  batch: number;
  warmup: number;
  limit: number;
  log(line: string): void;
}

const someone = generateSecretKey();
const decoder = new TextDecoder();
const ROOM = "bench";

/**
 * tinyagent as `mcp --listen bench --allow-from <someone>`, driven like LineChild (whose programs take
 * no extra arguments): lines timed at their newline's arrival, stderr kept.
 */
class ListenChild {
  readonly process: Deno.ChildProcess;
  stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: Line[] = [];
  #waiters: ((line: Line | undefined) => void)[] = [];
  #ended = false;
  #done: Promise<void>;

  constructor(spec: ChildSpec) {
    const options = spawnOptions(spec);
    options.args.push("--listen", ROOM, "--allow-from", getPublicKey(someone));
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

export async function listenBench(options: ListenBenchOptions): Promise<BenchResult> {
  const fx = await fixture({ keepAlive: true });
  const agent = new ListenChild(fx.spec("tinyagent"));
  const floor = new LineChild({
    ...fx.spec("ws-floor"),
    args: [JSON.stringify({ kinds: [9], "#h": ["floor"] })],
  });
  try {
    // The host's handshake; the listener starts after the first answer.
    const init = agent.nextLine();
    await agent.write(requestLine("initialize", INITIALIZE_PARAMS));
    await init;
    await agent.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    const list = agent.nextLine();
    await agent.write(requestLine("tools/list", {}));
    await list;
    await live(agent);
    for (;;) if (JSON.parse(decoder.decode((await floor.nextLine()).bytes)).event === "connected") break;

    const total = options.events + options.warmup;
    const pools = {
      agent: eventsFor([["h", ROOM], ["p", fx.key.pubkey]], total),
      floor: eventsFor([["h", "floor"]], total),
    };
    const used = { agent: 0, floor: 0 };
    const deliver = async (side: "agent" | "floor"): Promise<number> => {
      const event = pools[side][used[side]++];
      const line = side === "agent" ? agent.nextLine() : floor.nextLine();
      const started = performance.now();
      fx.relay.inject(event);
      const received = await line;
      const message = JSON.parse(decoder.decode(received.bytes));
      const id = side === "agent" ? message.params?.meta?.event_id : message.data?.id;
      if (id !== event.id) throw new Error(`${side}: ${JSON.stringify(message).slice(0, 300)}`);
      if (side === "agent" && message.method !== "notifications/claude/channel") {
        throw new Error(`not a channel notification: ${JSON.stringify(message).slice(0, 300)}`);
      }
      return received.at - started;
    };
    for (let i = 0; i < options.warmup; i++) {
      for (const side of ["agent", "floor"] as const) await deliver(side);
    }
    const samples: [number[], number[]] = [[], []];
    for (let b = 0; b * options.batch < options.events; b++) {
      const order = b % 2 === 0 ? [0, 1] : [1, 0];
      for (const side of order) {
        for (let i = 0; i < options.batch && samples[side].length < options.events; i++) {
          samples[side].push(await deliver(side === 0 ? "agent" : "floor"));
        }
      }
    }
    const [a, b] = samples.map(summarize);
    const ratio = a.p50 / b.p50;
    const [low, high] = ratioInterval(samples[0], samples[1]);
    const target: Target = {
      what: "relay event → stdout line p50 mcp --listen / bare client",
      limit: `≤ ${times(options.limit)}`,
      measured: times(ratio),
      met: ratio <= options.limit,
    };
    options.log("listen: done");
    return {
      name: "listen",
      title: `mcp --listen (${options.events} events each, batches of ${options.batch})`,
      columns: ["measure", "n", "p50", "p95", "mean"],
      rows: [
        ["mcp --listen channel line", String(a.n), ms(a.p50), ms(a.p95), ms(a.mean)],
        ["bare websocket client", String(b.n), ms(b.p50), ms(b.p95), ms(b.mean)],
        [
          `ratio (${times(low)} – ${times(high)})`,
          "",
          times(ratio),
          times(a.p95 / b.p95),
          times(a.mean / b.mean),
        ],
      ],
      targets: [target],
      notes: [
        "Both run under the narrow flags (the relay's host:port, the key variable) and check each event's signature (nostr-tools); tinyagent also decides whether the event is addressed to the agent and writes the channel notification (its tiny_inbox copy included).",
        "Timed from just before the relay stores the event (its own signature check included, alike for both) to the arrival of the line's newline in this process.",
      ],
      data: { options: { ...options, log: undefined }, a, b, ratio, interval: [low, high], samples },
    };
  } finally {
    await agent.close();
    await floor.close();
    await fx.close();
  }
}
