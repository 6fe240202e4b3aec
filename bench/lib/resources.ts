// 9. A room read as a resource against the same room read by a tool, side by side in one run on one
// tinyagent: `resources/read tiny://<relay>/room/<id>` (parsed, read through the facade as a
// resource call, rendered as markdown) and `tools/call read_room {id}` (the relay's answer passed
// on), alternating in batches, against the strict relay seeded with rooms (content mode: both read
// the same room's members and messages from its store).

import { roomsContent, startStrictRelay } from "../../tests/support/strict_relay/mod.ts";
import { newKey } from "../../tests/support/tinyagent.ts";
import { LineChild, resultOf } from "./child.ts";
import { callLine, handshake, requestLine } from "./fixture.ts";
import type { BenchResult, Target } from "./report.ts";
import { ms, ratioInterval, summarize, times } from "./stats.ts";

export interface ResourcesBenchOptions {
  reads: number;
  batch: number;
  warmup: number;
  limit: number;
  log(line: string): void;
}

const ROOM = "room-001";

export async function resourcesBench(options: ResourcesBenchOptions): Promise<BenchResult> {
  const relay = await startStrictRelay({ keepAlive: true });
  const content = roomsContent(12);
  relay.seed(content.seed);
  const key = newKey();
  const child = new LineChild({
    program: "tinyagent",
    relayUrl: relay.url,
    relayHost: relay.host,
    keyHex: key.hex,
  });
  const uri = `tiny://${relay.host}/room/${ROOM}`;
  const words = content.rooms[0].messages[0].content;
  const read = {
    resource: async () => {
      const trip = await child.trip(requestLine("resources/read", { uri }));
      const { contents } = resultOf(trip.line) as { contents: { uri: string; text: string }[] };
      if (contents[0]?.uri !== uri || !contents[0].text.includes(words)) {
        throw new Error("resources/read: not the room");
      }
      return trip.ms;
    },
    tool: async () => {
      const trip = await child.trip(callLine("read_room", { id: ROOM }));
      const result = resultOf(trip.line) as { structuredContent?: { room?: { id?: string } } };
      if (result.structuredContent?.room?.id !== ROOM) throw new Error("read_room: not the room");
      return trip.ms;
    },
  };
  const samples = { resource: [] as number[], tool: [] as number[] };
  try {
    await handshake(child);
    for (let i = 0; i < options.warmup; i++) {
      await read.resource();
      await read.tool();
    }
    for (let b = 0; b * options.batch < options.reads; b++) {
      const order = b % 2 === 0 ? (["resource", "tool"] as const) : (["tool", "resource"] as const);
      for (const side of order) {
        for (let i = 0; i < options.batch && samples[side].length < options.reads; i++) {
          samples[side].push(await read[side]());
        }
      }
      relay.requests.length = 0;
    }
    options.log(`resources: ${samples.resource.length} + ${samples.tool.length} reads done`);
  } finally {
    await child.close();
    await relay.close();
  }
  return result(options, samples.resource, samples.tool);
}

function result(options: ResourcesBenchOptions, resource: number[], tool: number[]): BenchResult {
  const [a, b] = [summarize(resource), summarize(tool)];
  const ratio = a.p50 / b.p50;
  const [low, high] = ratioInterval(resource, tool);
  const target: Target = {
    what: "p50 resources/read of a room / read_room called as a tool",
    limit: `≤ ${times(options.limit)}`,
    measured: times(ratio),
    met: ratio <= options.limit,
  };
  const row = (name: string, s: typeof a) => [name, String(s.n), ms(s.p50), ms(s.p95), ms(s.mean), ms(s.min)];
  return {
    name: "resources",
    title:
      `A room as a resource and as a tool (${options.reads} reads each, batches of ${options.batch}, interleaved)`,
    columns: ["read", "n", "p50", "p95", "mean", "min"],
    rows: [
      row("resources/read tiny://…/room/room-001", a),
      row("tools/call read_room", b),
      [
        "ratio resource / tool",
        "",
        times(ratio),
        times(a.p95 / b.p95),
        times(a.mean / b.mean),
        times(a.min / b.min),
      ],
      ["p50 ratio, 95% bootstrap interval", "", `${times(low)} – ${times(high)}`, "", "", ""],
    ],
    targets: [target],
    notes: [
      "One tinyagent (main.ts mcp, the narrow flags) serves both, on its one kept connection to the strict relay, " +
      "seeded with rooms: both calls make the same signed read_room call; the resource's answer is the room " +
      "rendered as markdown, the tool's the relay's result as it came.",
      "Round trip timed from writing the request line to the arrival of the answer's newline.",
    ],
    data: {
      options: { ...options, log: undefined },
      resource: a,
      tool: b,
      ratio,
      interval: [low, high],
      samples: { resource, tool },
    },
  };
}
