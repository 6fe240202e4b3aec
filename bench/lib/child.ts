// A line-oriented child process, driven the way an MCP host drives tinyagent: request lines on
// stdin, answer lines on stdout, stderr drained. Built for timing: the end of a round trip is taken
// when the answer's newline arrives, before any decoding, and a long answer is scanned once.

import { concatBytes } from "@noble/hashes/utils.js";
import { command, narrowFlags, type SpawnOptions } from "../../tests/support/tinyagent.ts";
import { type Checkout, HERE } from "./checkout.ts";

/** A received line: its bytes, and performance.now() when its newline arrived. */
export interface Line {
  bytes: Uint8Array;
  at: number;
}

/** One timed round trip. */
export interface Trip {
  ms: number;
  line: Line;
}

/** What `/proc/<pid>/status` says about a process's memory, in bytes. */
export interface Memory {
  rss: number;
  hwm: number;
  /** The anonymous part of rss: what the process holds alone (the runtime's code pages are shared). */
  anon: number;
}

/**
 * The commands the benchmarks compare. "baseline" and "baseline-rpc" are tinyagent's `mcp` and `rpc`
 * from the older checkout given with --baseline, run exactly as "tinyagent" and "rpc" are from this one.
 */
export type Program =
  | "tinyagent"
  | "baseline"
  | "floor"
  | "empty"
  | "empty-worker"
  | "memory-parts"
  | "empty-stream"
  | "rpc"
  | "baseline-rpc"
  | "rpc-floor"
  | "ws-floor"
  | "first-sign-native"
  | "first-sign-pure";

export interface ChildSpec {
  program: Program;
  /** The relay's base URL and host:port (for the narrow flags). */
  relayUrl: string;
  relayHost: string;
  keyHex: string;
  /** Runtime flags added for every program alike (e.g. `--inspect=…`); never permissions. */
  extraFlags?: string[];
  /**
   * tinyagent (or the baseline) as shipped from a checkout: its start task's flags and entry
   * (launch.ts here), not the narrow flags and main.ts. The other programs keep the narrow flags.
   */
  shipped?: boolean;
  /** The checkout the baseline programs run (required for them). */
  baseline?: Checkout;
  /** Environment added besides the key (DENO_CERT, say). */
  env?: Record<string, string>;
  /** Arguments after the program's own (tinyagent: more flags; ws-floor: its filter). */
  args?: string[];
}

const BENCH = new URL("../", import.meta.url).pathname;

/** `deno run <flags> <entry> <command> --relay <url> …` of a tinyagent checkout. */
function tinyagentOptions(spec: ChildSpec, checkout: Checkout, command: "mcp" | "rpc"): SpawnOptions {
  const permissions = spec.shipped ? checkout.shipped.flags : narrowFlags(spec.relayHost);
  return {
    flags: [...checkout.configFlags, ...(spec.extraFlags ?? []), ...permissions],
    env: { ...spec.env, TINY_PRIVATE_KEY: spec.keyHex },
    script: `${checkout.dir}${spec.shipped ? checkout.shipped.entry : "main.ts"}`,
    args: [command, "--relay", spec.relayUrl, ...(spec.args ?? [])],
  };
}

function baselineOf(spec: ChildSpec): Checkout {
  if (!spec.baseline) throw new Error(`${spec.program}: no baseline checkout given (--baseline DIR)`);
  return spec.baseline;
}

/** `deno run --quiet <flags> <script> …` for each program, all with the same flags and key. */
export function spawnOptions(spec: ChildSpec): SpawnOptions {
  const flags = [...(spec.extraFlags ?? []), ...narrowFlags(spec.relayHost)];
  const env = { ...spec.env, TINY_PRIVATE_KEY: spec.keyHex };
  switch (spec.program) {
    case "tinyagent":
      return tinyagentOptions(spec, HERE, "mcp");
    case "baseline":
      return tinyagentOptions(spec, baselineOf(spec), "mcp");
    case "rpc":
      return tinyagentOptions(spec, HERE, "rpc");
    case "baseline-rpc":
      return tinyagentOptions(spec, baselineOf(spec), "rpc");
    case "floor":
      return { flags, env, script: `${BENCH}floor.ts`, args: [spec.relayUrl] };
    case "empty":
      return { flags, env, script: `${BENCH}empty.ts`, args: [] };
    case "empty-worker":
      return { flags, env, script: `${BENCH}empty_worker.ts`, args: [] };
    case "memory-parts":
      // Its parts are tinyagent's modules imported by URL, which needs read permission for the checkout.
      return {
        flags: [...flags, `--allow-read=${HERE.dir}`],
        env,
        script: `${BENCH}memory_parts.ts`,
        args: spec.args ?? [],
      };
    case "empty-stream":
      return { flags, env, script: `${BENCH}empty.ts`, args: ["stream"] };
    case "rpc-floor":
      return { flags, env, script: `${BENCH}rpc_floor.ts`, args: [spec.relayUrl] };
    case "ws-floor":
      return {
        flags,
        env,
        script: `${BENCH}ws_floor.ts`,
        args: [spec.relayUrl.replace(/^http/, "ws"), ...(spec.args ?? [])],
      };
    case "first-sign-native":
      return { flags, env, script: `${BENCH}first_sign_native.ts`, args: [] };
    case "first-sign-pure":
      return { flags, env, script: `${BENCH}first_sign_pure.ts`, args: [] };
  }
}

/**
 * Reads a /proc file. Deno asks for --allow-all to read anything under /proc, so the file is read
 * by `cat` instead, which --allow-run permits.
 */
export async function readProc(path: string): Promise<string> {
  const output = await new Deno.Command("cat", { args: [path], stdout: "piped", stderr: "piped" }).output();
  if (!output.success) {
    throw new Error(`cannot read ${path}: ${new TextDecoder().decode(output.stderr).trim()}`);
  }
  return new TextDecoder().decode(output.stdout);
}

export class LineChild {
  readonly process: Deno.ChildProcess;
  readonly spec: ChildSpec;
  /** performance.now() just before spawn. */
  readonly spawnedAt: number;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #lines: Line[] = [];
  #waiters: ((line: Line | undefined) => void)[] = [];
  #ended = false;
  #stderr = "";
  #done: Promise<void>;

  constructor(spec: ChildSpec) {
    this.spec = spec;
    // Built before the clock starts, so spawnedAt is taken just before the spawn itself.
    const child = command(spawnOptions(spec));
    this.spawnedAt = performance.now();
    this.process = child.spawn();
    this.#writer = this.process.stdin.getWriter();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  get pid(): number {
    return this.process.pid;
  }

  get stderr(): string {
    return this.#stderr;
  }

  async #readStdout(): Promise<void> {
    await timedLines(this.process.stdout, (line) => this.#deliver(line));
    this.#ended = true;
    for (const waiter of this.#waiters.splice(0)) waiter(undefined);
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.process.stderr) {
      this.#stderr = (this.#stderr + decoder.decode(chunk, { stream: true })).slice(-16384);
    }
  }

  #deliver(line: Line): void {
    const waiter = this.#waiters.shift();
    if (waiter) waiter(line);
    else this.#lines.push(line);
  }

  /** The next answer line, in order. Fails if the child ends first. */
  nextLine(): Promise<Line> {
    const queued = this.#lines.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#ended) return Promise.reject(this.#failure("ended before answering"));
    return new Promise((resolve, reject) =>
      this.#waiters.push((line) => line ? resolve(line) : reject(this.#failure("ended before answering")))
    );
  }

  #failure(what: string): Error {
    return new Error(`${this.spec.program} ${what}; stderr: ${this.#stderr.trim().slice(-2000)}`);
  }

  /** Writes bytes or text as they are. */
  async write(data: string | Uint8Array): Promise<void> {
    await this.#writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  /** Writes one request line and times the round trip to its answer line. */
  async trip(line: string | Uint8Array): Promise<Trip> {
    const started = performance.now();
    const answer = this.nextLine();
    await this.write(line);
    const received = await answer;
    return { ms: received.at - started, line: received };
  }

  /** The child's current and peak resident set size (Linux only). */
  async memory(): Promise<Memory> {
    const status = await readProc(`/proc/${this.pid}/status`);
    const kib = (field: string) => {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status);
      if (!match) throw new Error(`no ${field} in /proc/${this.pid}/status`);
      return Number(match[1]) * 1024;
    };
    return { rss: kib("VmRSS"), hwm: kib("VmHWM"), anon: kib("RssAnon") };
  }

  /** Closes stdin and waits for the exit (killing the child after `graceMs`). */
  async close(graceMs = 5000): Promise<number> {
    try {
      await this.#writer.close();
    } catch {
      // Already closed.
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) =>
      timer = setTimeout(() => resolve("timeout"), graceMs)
    );
    const status = await Promise.race([this.process.status, timeout]);
    clearTimeout(timer);
    if (status === "timeout") {
      try {
        this.process.kill("SIGKILL");
      } catch {
        // Already gone.
      }
    }
    const final = await this.process.status;
    await this.#done;
    return final.code;
  }
}

/** Parses an answer line as JSON-RPC and returns its result, failing on an error answer. */
export function resultOf(line: Line): Record<string, unknown> {
  const message = JSON.parse(new TextDecoder().decode(line.bytes));
  if (!message.result) throw new Error(`not a result: ${JSON.stringify(message).slice(0, 500)}`);
  return message.result;
}

/** Each line of `stream` with the moment its newline arrived; a line within one chunk is not copied. */
export async function timedLines(
  stream: ReadableStream<Uint8Array>,
  deliver: (line: Line) => void,
): Promise<void> {
  let parts: Uint8Array[] = [];
  for await (const chunk of stream) {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      if (newline === -1) {
        if (start < chunk.length) parts.push(chunk.slice(start));
        break;
      }
      const at = performance.now();
      parts.push(chunk.subarray(start, newline));
      deliver({ bytes: parts.length === 1 ? parts[0] : concatBytes(...parts), at });
      parts = [];
      start = newline + 1;
    }
  }
}
