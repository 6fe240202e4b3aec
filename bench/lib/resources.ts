// 9. A room read as a resource against the same room read by a tool, side by side in one run on one
// tinyagent: `resources/read tiny://<relay>/room/<id>` (parsed, read through the facade as a
// resource call, rendered as markdown) and `tools/call read_room {id}` (the relay's answer passed
// on), alternating in batches, against the strict relay seeded with rooms (content mode: both read
// the same room's members and messages from its store). Twice: a room that does not change between
// reads (what the target judges: a host reading a resource again, whose rendering tinyagent keeps),
// and a room that gets a new message before every read, so every read is rendered anew.

import { finalizeEvent, generateSecretKey } from "nostr-tools/pure";
import { roomsContent, startStrictRelay, type StrictRelay } from "../../tests/support/strict_relay/mod.ts";
import { newKey } from "../../tests/support/tinyagent.ts";
import { LineChild, resultOf } from "./child.ts";
import { callLine, handshake, requestLine } from "./fixture.ts";
import type { BenchResult, Target } from "./report.ts";
import { ms, ratioInterval, summarize, type Summary, times } from "./stats.ts";

export interface ResourcesBenchOptions {
  reads: number;
  /** Reads each way of the room that changes before every read. */
  changingReads: number;
  batch: number;
  warmup: number;
  limit: number;
  log(line: string): void;
}

type Side = "resource" | "tool";
type Samples = Record<Side, number[]>;

const someone = generateSecretKey();

/** The two reads of `room`, each timed from its request line to its answer's newline. */
function readers(child: LineChild, relay: StrictRelay, room: string): Record<Side, () => Promise<number>> {
  const uri = `tiny://${relay.host}/room/${room}`;
  return {
    resource: async () => {
      const trip = await child.trip(requestLine("resources/read", { uri }));
      const { contents } = resultOf(trip.line) as { contents: { uri: string; text: string }[] };
      if (contents[0]?.uri !== uri || !contents[0].text.includes(`(#${room})`)) {
        throw new Error(`resources/read: not ${room}`);
      }
      return trip.ms;
    },
    tool: async () => {
      const trip = await child.trip(callLine("read_room", { id: room }));
      const result = resultOf(trip.line) as { structuredContent?: { room?: { id?: string } } };
      if (result.structuredContent?.room?.id !== room) throw new Error(`read_room: not ${room}`);
      return trip.ms;
    },
  };
}

/** `reads` of each side in alternating batches; `before` runs (untimed) before every read. */
async function alternate(
  read: Record<Side, () => Promise<number>>,
  relay: StrictRelay,
  options: ResourcesBenchOptions,
  reads: number,
  before: () => void = () => {},
): Promise<Samples> {
  const samples: Samples = { resource: [], tool: [] };
  for (let b = 0; b * options.batch < reads; b++) {
    const order: Side[] = b % 2 === 0 ? ["resource", "tool"] : ["tool", "resource"];
    for (const side of order) {
      for (let i = 0; i < options.batch && samples[side].length < reads; i++) {
        before();
        samples[side].push(await read[side]());
      }
    }
    relay.requests.length = 0;
  }
  return samples;
}

export async function resourcesBench(options: ResourcesBenchOptions): Promise<BenchResult> {
  const relay = await startStrictRelay({ keepAlive: true });
  relay.seed(roomsContent(12).seed);
  const key = newKey();
  const child = new LineChild({
    program: "tinyagent",
    relayUrl: relay.url,
    relayHost: relay.host,
    keyHex: key.hex,
  });
  let posted = 0;
  const post = () =>
    relay.inject(finalizeEvent({
      kind: 9,
      created_at: Math.floor(Date.now() / 1000),
      tags: [["h", "room-002"]],
      content: `news ${++posted}`,
    }, someone));
  try {
    await handshake(child);
    const still = readers(child, relay, "room-001");
    for (let i = 0; i < options.warmup; i++) await still.resource().then(still.tool);
    const unchanged = await alternate(still, relay, options, options.reads);
    const changing = await alternate(
      readers(child, relay, "room-002"),
      relay,
      options,
      options.changingReads,
      post,
    );
    options.log(`resources: ${options.reads} + ${options.changingReads} reads each way done`);
    return result(options, unchanged, changing);
  } finally {
    await child.close();
    await relay.close();
  }
}

function compared(samples: Samples) {
  const [a, b] = [summarize(samples.resource), summarize(samples.tool)];
  return { a, b, ratio: a.p50 / b.p50, interval: ratioInterval(samples.resource, samples.tool) };
}

function rows(label: string, c: ReturnType<typeof compared>): string[][] {
  const row = (name: string, s: Summary) => [name, String(s.n), ms(s.p50), ms(s.p95), ms(s.mean), ms(s.min)];
  return [
    row(`${label}: resources/read`, c.a),
    row(`${label}: tools/call read_room`, c.b),
    [
      `${label}: ratio (${times(c.interval[0])} – ${times(c.interval[1])})`,
      "",
      times(c.ratio),
      times(c.a.p95 / c.b.p95),
      times(c.a.mean / c.b.mean),
      times(c.a.min / c.b.min),
    ],
  ];
}

function result(options: ResourcesBenchOptions, unchanged: Samples, changing: Samples): BenchResult {
  const still = compared(unchanged), moving = compared(changing);
  const targets: Target[] = [{
    what: "p50 resources/read of a room / read_room called as a tool",
    limit: `≤ ${times(options.limit)}`,
    measured: times(still.ratio),
    met: still.ratio <= options.limit,
  }, {
    what: "the same, the room changing before every read (rendered each time)",
    limit: `≤ ${times(options.limit)}`,
    measured: times(moving.ratio),
    met: moving.ratio <= options.limit,
    judged: false,
  }];
  return {
    name: "resources",
    title: `A room as a resource and as a tool (${options.reads} reads each of an unchanged room, ` +
      `${options.changingReads} of a changing one; batches of ${options.batch}, interleaved)`,
    columns: ["read", "n", "p50", "p95", "mean", "min"],
    rows: [...rows("unchanged", still), ...rows("changing", moving)],
    targets,
    notes: [
      "One tinyagent (main.ts mcp, the narrow flags) serves both, on its one kept connection to the strict relay, " +
      "seeded with rooms: both make the same signed read_room call; the resource's answer is the room rendered " +
      "as markdown, the tool's the relay's result as it came.",
      "Unchanged: the relay's answer is the same every time, and tinyagent reuses its rendering. Changing: a new " +
      "message reaches the room (untimed) before every read of either kind, so each read is rendered anew and " +
      "the room grows to the relay's 100 newest messages.",
      "Round trip timed from writing the request line to the arrival of the answer's newline.",
    ],
    data: {
      options: { ...options, log: undefined },
      unchanged: still,
      changing: moving,
      samples: { unchanged, changing },
    },
  };
}
