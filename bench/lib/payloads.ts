// 3. Large payloads: a 4 MiB read_attachment result (Base64 in an image block and in
// structuredContent.data), a 10 MB text block that tinyagent cuts to 64 KiB, and a 40 MiB input
// line. Each sample is a fresh child, so its peak RSS (VmHWM) belongs to that one payload; the
// floor script runs the same calls, alternating with tinyagent, as the no-facade reference.

import { LineChild, type Program, resultOf } from "./child.ts";
import { fixture, handshake, sleep, smallCall } from "./fixture.ts";
import type { Checkout } from "./checkout.ts";
import { type BenchResult, type Target, versusBaselineValue } from "./report.ts";
import { rotation } from "./turns.ts";
import { median, MiB, mib, ms, times } from "./stats.ts";

export interface PayloadOptions {
  samples: number;
  attachmentBytes: number;
  textBytes: number;
  lineBytes: number;
  keepAlive: boolean;
  /** The limit on peak RSS / payload. */
  limit: number;
  /** The older checkout to run beside this one. */
  baseline?: Checkout;
  log(line: string): void;
}

type Result = {
  content?: { type?: string; text?: string; data?: string }[];
  structuredContent?: Record<string, unknown>;
};

interface Case {
  key: "attachment" | "text" | "line";
  label: string;
  payloadBytes: number;
  /** Bytes of the relay's answer (or of the input line). */
  wireBytes: number;
  line: Uint8Array;
  check(program: Program, result: Result): void;
}

function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

function randomBytes(size: number): Uint8Array {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  return bytes;
}

function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

function encodeLine(message: unknown): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(message)}\n`);
}

/** A tools/call line whose one argument is a string of `size` bytes, built directly as bytes. */
function hugeLine(size: number): Uint8Array {
  const prefix = new TextEncoder().encode(
    '{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"read_issue","arguments":{"owner":"o","repo":"r","body":"',
  );
  const suffix = new TextEncoder().encode('"}}}\n');
  const line = new Uint8Array(prefix.length + size + suffix.length);
  line.set(prefix);
  line.fill(0x78, prefix.length, prefix.length + size); // 'x'
  line.set(suffix, prefix.length + size);
  return line;
}

function loremText(size: number): string {
  const sentence = "The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs.\n";
  return sentence.repeat(Math.ceil(size / sentence.length)).slice(0, size);
}

export async function payloads(options: PayloadOptions): Promise<BenchResult> {
  const data = base64(randomBytes(options.attachmentBytes));
  const attachment = {
    content: [{ type: "image", data, mimeType: "image/png" }],
    structuredContent: { sha256: "0".repeat(64), size: options.attachmentBytes, type: "image/png", data },
    isError: false,
  };
  const text = { content: [{ type: "text", text: loremText(options.textBytes) }], isError: false };
  const programs: Program[] = ["tinyagent", "floor", ...(options.baseline ? ["baseline" as const] : [])];
  const fx = await fixture({
    keepAlive: options.keepAlive,
    baseline: options.baseline,
    tools: {
      read_attachment: () => attachment,
      read_file: () => text,
      read_issue: ({ args }) => ({
        content: [{ type: "text", text: `received ${String(args.body ?? "").length}` }],
        isError: false,
      }),
    },
  });
  const cases: Case[] = [
    {
      key: "attachment",
      label: `read_attachment, ${mib(options.attachmentBytes)} file`,
      payloadBytes: options.attachmentBytes,
      wireBytes: JSON.stringify(attachment).length,
      line: encodeLine({
        jsonrpc: "2.0",
        id: "big",
        method: "tools/call",
        params: { name: "read_attachment", arguments: { sha256: "0".repeat(64) } },
      }),
      check(program, result) {
        assert(result.content?.[0]?.data?.length === data.length, `${program}: the image block is not whole`);
        if (program !== "floor") {
          assert(result.structuredContent?.truncated === true, `${program}: structuredContent not bounded`);
        } else assert(result.structuredContent?.data === data, "floor: structuredContent.data not whole");
      },
    },
    {
      key: "text",
      label: `${(options.textBytes / 1e6).toFixed(0)} MB text block`,
      payloadBytes: options.textBytes,
      wireBytes: JSON.stringify(text).length,
      line: encodeLine({
        jsonrpc: "2.0",
        id: "big",
        method: "tools/call",
        params: { name: "read_file", arguments: { owner: "o", repo: "r", path: "big.txt" } },
      }),
      check(program, result) {
        const got = result.content?.[0]?.text ?? "";
        if (program !== "floor") {
          assert(
            got.endsWith(`[truncated: 65536 of ${options.textBytes} bytes shown]`),
            `${program}: text not cut: …${got.slice(-80)}`,
          );
        } else assert(got.length === options.textBytes, "floor: text not whole");
      },
    },
    {
      key: "line",
      label: `${mib(options.lineBytes)} input line`,
      payloadBytes: options.lineBytes,
      wireBytes: 0,
      line: hugeLine(options.lineBytes),
      check(program, result) {
        assert(
          result.content?.[0]?.text === `received ${options.lineBytes}`,
          `${program}: the relay did not receive the whole argument`,
        );
      },
    },
  ];
  for (const c of cases) if (c.key === "line") c.wireBytes = c.line.length;

  interface Sample {
    ms: number;
    idleRss: number;
    idleHwm: number;
    peak: number;
    after: number;
  }
  const samples: Record<string, Record<string, Sample[]>> = {};
  try {
    for (const c of cases) {
      samples[c.key] = Object.fromEntries(programs.map((program) => [program, []]));
      for (let i = 0; i < options.samples; i++) {
        const order = rotation(programs, i);
        for (const program of order) {
          const child = new LineChild(fx.spec(program));
          try {
            if (program !== "floor") await handshake(child);
            await smallCall(child);
            await sleep(300);
            const idle = await child.memory();
            const trip = await child.trip(c.line);
            const peak = await child.memory();
            c.check(program, resultOf(trip.line) as Result);
            samples[c.key][program].push({
              ms: trip.ms,
              idleRss: idle.rss,
              idleHwm: idle.hwm,
              peak: peak.hwm,
              after: peak.rss,
            });
          } finally {
            await child.close();
            fx.forget();
          }
        }
      }
      options.log(`payloads: ${c.key} done`);
    }
  } finally {
    await fx.close();
  }

  const rows: string[][] = [];
  const targets: Target[] = [];
  const summary: Record<string, unknown> = {};
  for (const c of cases) {
    for (const program of programs) {
      const list = samples[c.key][program];
      const m = (pick: (s: Sample) => number) => median(list.map(pick));
      const time = m((s) => s.ms);
      const idle = m((s) => s.idleRss);
      const peak = m((s) => s.peak);
      const growth = m((s) => s.peak - s.idleRss);
      summary[`${c.key}/${program}`] = {
        payloadBytes: c.payloadBytes,
        wireBytes: c.wireBytes,
        ms: time,
        idleRss: idle,
        peak,
        growth,
        peakPerPayload: peak / c.payloadBytes,
        growthPerPayload: growth / c.payloadBytes,
      };
      rows.push([
        program === "tinyagent" ? c.label : "",
        program,
        mib(c.wireBytes),
        String(list.length),
        ms(time),
        mib(idle),
        mib(peak),
        mib(growth),
        times(peak / c.payloadBytes),
        times(growth / c.payloadBytes),
      ]);
      if (program === "tinyagent") {
        targets.push({
          what: `${c.key}: tinyagent peak RSS / payload`,
          limit: `< ${times(options.limit)}`,
          measured: times(peak / c.payloadBytes),
          met: peak / c.payloadBytes < options.limit,
        }, {
          what: `${c.key}: tinyagent (peak − idle RSS) / payload`,
          limit: `< ${times(options.limit)}`,
          measured: times(growth / c.payloadBytes),
          met: growth / c.payloadBytes < options.limit,
          judged: false,
        });
      }
    }
    if (options.baseline) {
      const peakOf = (program: Program) => median(samples[c.key][program].map((s) => s.peak));
      targets.push(
        versusBaselineValue(`${c.key}: peak RSS now / baseline`, peakOf("tinyagent"), peakOf("baseline")),
      );
    }
  }
  return {
    name: "payloads",
    title: `Large payloads (${options.samples} fresh children per command and payload, medians)`,
    columns: [
      "payload",
      "command",
      "on the wire",
      "n",
      "time",
      "idle RSS",
      "peak RSS",
      "peak − idle",
      "peak / payload",
      "(peak − idle) / payload",
    ],
    rows,
    targets,
    notes: [
      "Payload: the attachment's bytes (its answer carries them twice as Base64), the text's bytes, the input line's argument bytes.",
      "Idle RSS: VmRSS after the handshake and one small call; peak RSS: VmHWM after the large call (/proc/<pid>/status).",
      `The floor passes results through unbounded (no 64 KiB / 256 KiB bounds), so its output for the text and attachment cases is larger than tinyagent's.`,
    ],
    data: { options: { ...options, log: undefined }, summary, samples, MiB },
  };
}
