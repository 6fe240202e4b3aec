// The one way tests, the demo and the bench start tinyagent: the real entry point under `deno run`
// with the narrow permission flags (or a compiled binary), JSON-RPC lines over real pipes, stderr
// collected. `withFacade` is the session: a strict relay, a fresh key, `mcp --relay <url>`, and
// at the end the checks every whole session must pass. `Tinyagent`, `command` and `runOnce` are
// the lower levels, for a launch a session does not fit.

import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import assert from "node:assert/strict";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  CallToolResultSchema,
  CancelledNotificationSchema,
  ElicitRequestSchema,
  EmptyResultSchema,
  InitializeResultSchema,
  JSONRPCErrorResponseSchema,
  JSONRPCNotificationSchema,
  JSONRPCRequestSchema,
  JSONRPCResultResponseSchema,
  ListToolsResultSchema,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  type RecordedRequest,
  startStrictRelay,
  type StrictRelay,
  type StrictRelayOptions,
} from "./strict_relay/mod.ts";
import { HOST_REQUEST_ID } from "./oversight.ts";
import { type RateFront, startRateFront } from "./rate_front.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const MAIN = `${ROOT}main.ts`;
/** The entry bin/tinyagent runs from a checkout, loading each module by URL. */
export const LAUNCH = `${ROOT}launch.ts`;

/** A fresh agent key in every form a test may look for in output. */
export interface TestKey {
  hex: string;
  nsec: string;
  pubkey: string;
  npub: string;
  secretKey: Uint8Array;
}

export function newKey(): TestKey {
  const secretKey = generateSecretKey();
  const pubkey = getPublicKey(secretKey);
  return {
    hex: bytesToHex(secretKey),
    nsec: nip19.nsecEncode(secretKey),
    pubkey,
    npub: nip19.npubEncode(pubkey),
    secretKey,
  };
}

/**
 * What a child `deno` needs to load its packages, from this process's environment: the cache
 * (DENO_DIR) and the trust settings (DENO_CERT, DENO_TLS_CA_STORE, NODE_EXTRA_CA_CERTS: behind a
 * TLS-inspecting proxy the registry is reached only with them), and DENO_NO_UPDATE_CHECK=1 so
 * Deno's update check never shows up in a test. A host that filters the environment (Hermes, the
 * SDKs' stdio transports) passes the child only what it is given: give it these.
 */
export function loaderEnv(): Record<string, string> {
  const env: Record<string, string> = { DENO_NO_UPDATE_CHECK: "1" };
  for (const name of ["DENO_DIR", "DENO_CERT", "DENO_TLS_CA_STORE", "NODE_EXTRA_CA_CERTS"]) {
    // A caller without env permission (the bench) passes its own environment on as it is.
    if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") continue;
    const value = Deno.env.get(name);
    if (value) env[name] = value;
  }
  return env;
}

/** The filtered environment a host such as Hermes gives a stdio server: PATH, HOME, the loader's, and `extra`. */
export function hostEnv(extra: Record<string, string>): Record<string, string> {
  return { PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "", ...loaderEnv(), ...extra };
}

/** A loopback port nothing listens on (for now): a relay that is down, or one to start there later. */
export function freePort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const { port } = listener.addr as Deno.NetAddr;
  listener.close();
  return port;
}

/** The narrow flags the facade runs with: the relay's host:port and the key variable, nothing else. */
export function narrowFlags(netHost: string, keyEnv = "TINY_PRIVATE_KEY"): string[] {
  return [`--allow-net=${netHost}`, `--allow-env=${keyEnv}`];
}

// ---------------------------------------------------------------------------------------------
// Spawning
// ---------------------------------------------------------------------------------------------

export interface SpawnOptions {
  /** Arguments after the script (or after the binary). */
  args: string[];
  /** A compiled tinyagent binary to run instead of `deno run main.ts` (flags are then ignored). */
  bin?: string;
  /** Deno permission flags; defaults to none. */
  flags?: string[];
  /** Environment added for the child (the key goes here). */
  env?: Record<string, string>;
  /** Another script to run the same way (default main.ts). */
  script?: string;
}

/** The program and arguments that start tinyagent: `deno run <flags> main.ts …` or a compiled binary. */
export function commandLine(options: SpawnOptions): { program: string; args: string[] } {
  if (options.bin) return { program: options.bin, args: options.args };
  return {
    program: Deno.execPath(),
    args: ["run", "--quiet", ...(options.flags ?? []), options.script ?? MAIN, ...options.args],
  };
}

/**
 * The official MCP SDK's stdio transport, spawning tinyagent as a host does: the filtered
 * environment (hostEnv) with the key, and its stderr collected for the caller to read.
 */
export function sdkStdio(
  options: {
    netHost: string;
    relayUrl: string;
    key: TestKey;
    args?: string[];
    flags?: string[];
    /** The entry to run: main.ts unless given (LAUNCH: as run from a checkout). */
    script?: string;
  },
): { transport: StdioClientTransport; stderr: () => string } {
  const { program, args } = commandLine({
    script: options.script,
    flags: options.flags ?? narrowFlags(options.netHost),
    args: ["mcp", "--relay", options.relayUrl, ...(options.args ?? [])],
  });
  const transport = new StdioClientTransport({
    command: program,
    args,
    cwd: ROOT,
    env: hostEnv({ TINY_PRIVATE_KEY: options.key.hex }),
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  return { transport, stderr: () => stderr };
}

/** The command, from the repository root with all three stdio streams piped, not yet spawned. */
export function command(options: SpawnOptions): Deno.Command {
  const { program, args } = commandLine(options);
  return new Deno.Command(program, {
    args,
    cwd: ROOT,
    env: { ...loaderEnv(), ...options.env },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  });
}

type Message = Record<string, unknown> & { id?: unknown };

/** What a finished process printed. */
export interface Output {
  code: number;
  signal: Deno.Signal | null;
  /** Every stdout line, raw. */
  lines: string[];
  stderr: string;
}

/** A running tinyagent child with line-level access to its stdio. */
export class Tinyagent {
  readonly child: Deno.ChildProcess;
  /** Every stdout line, raw. */
  readonly lines: string[] = [];
  #stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #stdout: ReadableStreamDefaultReader<Uint8Array>;
  #waiters = new Map<string, (message: Message) => void>();
  /** Requests tinyagent sent the host (elicitations), not yet taken by `hostRequest`, and who waits. */
  #requests: Message[] = [];
  #requestWaiters: ((message: Message) => void)[] = [];
  #methods = new Map<string, string>();
  #done: Promise<void>;
  #nextId = 1;

  constructor(options: SpawnOptions) {
    this.child = command(options).spawn();
    this.#writer = this.child.stdin.getWriter();
    this.#stdout = this.child.stdout.getReader();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for (;;) {
      const { done, value } = await this.#stdout.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        this.lines.push(line);
        this.#route(line);
      }
    }
    if (buffer) this.lines.push(buffer);
  }

  /** Hands an answer line to whoever waits for its id, and a request of tinyagent's to `hostRequest`. */
  #route(line: string): void {
    let message: Message;
    try {
      message = JSON.parse(line);
    } catch {
      return; // The session's checks fail on a line that is not JSON-RPC; here we only route answers.
    }
    if (typeof message.method === "string") {
      if (!("id" in message)) return; // A notification: read from `lines`.
      const waiter = this.#requestWaiters.shift();
      if (waiter) waiter(message);
      else this.#requests.push(message);
      return;
    }
    const key = JSON.stringify(message.id ?? null);
    const waiter = this.#waiters.get(key);
    if (waiter) {
      this.#waiters.delete(key);
      waiter(message);
    }
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.child.stderr) this.#stderr += decoder.decode(chunk, { stream: true });
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Writes raw bytes or text to stdin as they are. */
  async writeRaw(data: string | Uint8Array): Promise<void> {
    await this.#writer.write(typeof data === "string" ? new TextEncoder().encode(data) : data);
  }

  /** Writes one message as one line. */
  async send(message: unknown): Promise<void> {
    const m = message as { id?: unknown; method?: unknown } | null;
    if (m && typeof m.method === "string" && "id" in m) this.#methods.set(JSON.stringify(m.id), m.method);
    await this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  /** The method of the request sent with `send` that an answer's id belongs to, when known. */
  methodOf(id: unknown): string | undefined {
    return this.#methods.get(JSON.stringify(id));
  }

  /** Resolves with the first answer carrying `id` (compared as JSON). */
  answer(id: unknown): Promise<Message> {
    return new Promise((resolve) => this.#waiters.set(JSON.stringify(id), resolve));
  }

  /** Resolves with the next request tinyagent sends the host (an elicitation), in the order sent. */
  hostRequest(): Promise<Message> {
    const queued = this.#requests.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.#requestWaiters.push(resolve));
  }

  /** Answers a request of tinyagent's with `result`, as a host does. */
  async respond(id: unknown, result: unknown): Promise<void> {
    await this.send({ jsonrpc: "2.0", id, result });
  }

  /** Sends a request and waits for its answer. */
  async request(method: string, params?: unknown, id: unknown = `r${this.#nextId++}`): Promise<Message> {
    const answer = this.answer(id);
    await this.send(
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
    );
    return await answer;
  }

  /** Stops reading stdout and closes it, as a host that went away: every answer then meets EPIPE. */
  async stopReading(): Promise<void> {
    await this.#stdout.cancel();
  }

  /** Closes stdin (EOF) and waits for the process to exit. */
  async finish(): Promise<Output> {
    try {
      await this.#writer.close();
    } catch {
      // Already closed.
    }
    const status = await this.child.status;
    await this.#done;
    return { code: status.code, signal: status.signal, lines: this.lines, stderr: this.#stderr };
  }

  /** Ends the process without EOF (cleanup after a failed assertion). */
  async kill(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // Already gone.
    }
    await this.finish().catch(() => {});
  }
}

/** Runs tinyagent to completion with the given stdin and returns what it printed. */
export async function runOnce(
  options: SpawnOptions & { stdin?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = command(options).spawn();
  const writer = child.stdin.getWriter();
  if (options.stdin) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

// ---------------------------------------------------------------------------------------------
// What a session must show: valid stdout, and the key nowhere
// ---------------------------------------------------------------------------------------------

/**
 * The first `run` characters in a row of `secret` that `text` holds, in any letter case; undefined
 * when none. Only stretches of characters the secret is made of (hex digits for a hex secret, else
 * letters and digits) are looked at, so a long text costs one scan, not one per window. A stretch
 * whose length is in `whole` is compared whole instead: it counts when it holds the secret or is a
 * piece of it.
 */
export function sharedRun(
  secret: string,
  text: string,
  run = 8,
  whole: readonly number[] = [],
): string | undefined {
  const lower = secret.toLowerCase();
  const windows = new Set<string>();
  for (let at = 0; at + run <= lower.length; at++) windows.add(lower.slice(at, at + run));
  if (windows.size === 0) return undefined;
  const others = [...new Set(lower.replace(/[0-9a-z]/g, ""))].join("").replace(/[\]\\^-]/g, "\\$&");
  const alphabet = (/^[0-9a-f]*$/.test(lower) ? "0-9a-fA-F" : "0-9a-zA-Z") + others;
  for (const [stretch] of text.matchAll(new RegExp(`[${alphabet}]{${run},}`, "g"))) {
    const folded = stretch.toLowerCase();
    if (whole.includes(folded.length)) {
      if (folded.includes(lower) || lower.includes(folded)) return stretch;
      continue;
    }
    for (let at = 0; at + run <= folded.length; at++) {
      if (windows.has(folded.slice(at, at + run))) return stretch.slice(at, at + run);
    }
  }
  return undefined;
}

/**
 * The hex values that legitimately fill a session's output, compared whole: a NIP-98 nonce (24),
 * an event id, public key or SHA-256 (64) and a signature (128). Their 8-character windows would
 * collide with the key's by chance (about 57 · 16⁻⁸ per window): measured over the whole suite,
 * 1.75 million such windows, a false failure in 2 % of runs; the 18,000 other windows, 0.02 %.
 */
const OPAQUE_HEX_LENGTHS = [24, 64, 128];

/**
 * Fails when the key shows up in `text`: the nsec whole (bech32 has one case or the other), or any 8
 * characters in a row of its hex in any case (a hex value of an opaque length only as the key, or a
 * piece of it, whole).
 */
export function assertNoSecret(key: TestKey, text: string, where: string): void {
  for (const nsec of [key.nsec, key.nsec.toUpperCase()]) {
    if (text.includes(nsec)) throw new Error(`the private key (nsec) appears in ${where}`);
  }
  const run = sharedRun(key.hex, text, 8, OPAQUE_HEX_LENGTHS);
  if (run !== undefined) throw new Error(`the private key's hex (${run}) appears in ${where}`);
}

/** Everything a relay request carried: the head, the body and the decoded NIP-98 token. */
export function requestText(
  request: Pick<RecordedRequest, "method" | "url" | "headers" | "bodyText" | "auth">,
): string {
  return `${request.method} ${request.url}\n${JSON.stringify([...request.headers])}\n${request.bodyText}\n${
    JSON.stringify(request.auth ?? null)
  }`;
}

/**
 * The key (hex in both cases, and nsec) appears nowhere the host or the relay
 * could read it: stdout, stderr, and every request any relay received.
 */
export function assertKeyNeverLeaks(
  key: TestKey,
  output: { lines: readonly string[]; stderr: string },
  relays: readonly { requests: readonly Parameters<typeof requestText>[0][] }[],
  context = "",
): void {
  assertNoSecret(key, output.lines.join("\n"), `stdout${context}`);
  assertNoSecret(key, output.stderr, `stderr${context}`);
  for (const relay of relays) {
    for (const [i, request] of relay.requests.entries()) {
      assertNoSecret(key, requestText(request), `relay request ${i}${context}`);
    }
  }
}

export type RpcMessage = {
  jsonrpc: string;
  id: string | number | null;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

/** The official SDK's schema for the result of each method tinyagent answers. */
const RESULT_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean; error?: unknown } }> = {
  "initialize": InitializeResultSchema,
  "ping": EmptyResultSchema,
  "tools/list": ListToolsResultSchema,
  "tools/call": CallToolResultSchema,
};

/** The method a result answers, told by its shape, for an answer whose request is not known. */
function methodByShape(result: unknown): string | undefined {
  if (result === null || typeof result !== "object") return undefined;
  if ("tools" in result) return "tools/list";
  if ("content" in result || "structuredContent" in result || "isError" in result) return "tools/call";
  if ("protocolVersion" in result) return "initialize";
  return Object.keys(result).length === 0 ? "ping" : undefined;
}

function issues(parsed: { error?: unknown }): string {
  return String(JSON.stringify((parsed.error as { issues?: unknown })?.issues)).slice(0, 600);
}

/**
 * Parses one stdout line and checks it with the official MCP SDK's own
 * schemas: a JSON-RPC 2.0 result or error response, and a result valid for
 * the method it answers (given, or told by the result's shape). Two answers JSON-RPC
 * requires and the SDK's stricter id type refuses are checked by hand: an
 * error with id null (the request's id could not be read) and an answer
 * echoing a host's number that is not a safe integer.
 */
export function parseAnswerLine(line: string, context = "", method?: string): RpcMessage {
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    assert.fail(`${context}stdout line is not JSON: ${line.slice(0, 200)}`);
  }
  assert.ok(
    message !== null && typeof message === "object" && !Array.isArray(message),
    `${context}stdout line is not one JSON object: ${line.slice(0, 200)}`,
  );
  const m = message as Record<string, unknown>;
  const sdkId = typeof m.id === "string" || Number.isSafeInteger(m.id);
  if (sdkId) {
    const envelope = Object.hasOwn(m, "error") ? JSONRPCErrorResponseSchema : JSONRPCResultResponseSchema;
    const parsed = envelope.safeParse(m);
    assert.ok(
      parsed.success,
      `${context}not a JSON-RPC response the SDK accepts: ${issues(parsed)}: ${line.slice(0, 200)}`,
    );
  } else {
    assert.equal(m.jsonrpc, "2.0", `${context}jsonrpc is not "2.0": ${line.slice(0, 200)}`);
    assert.ok(Object.hasOwn(m, "id"), `${context}an answer without id: ${line.slice(0, 200)}`);
    assert.ok(
      (m.id === null && Object.hasOwn(m, "error")) || (typeof m.id === "number" && Number.isFinite(m.id)),
      `${context}an answer whose id is neither a host's number nor null for an error: ${line.slice(0, 200)}`,
    );
    const members = "error" in m ? ["error", "id", "jsonrpc"] : ["id", "jsonrpc", "result"];
    assert.deepEqual(Object.keys(m).sort(), members, `${context}exactly one of result and error`);
    if ("error" in m) {
      const error = m.error as Record<string, unknown>;
      assert.ok(
        Number.isInteger(error?.code) && typeof error?.message === "string",
        `${context}a malformed error`,
      );
    }
  }
  const answered = method ?? methodByShape(m.result);
  if (Object.hasOwn(m, "result") && answered && RESULT_SCHEMAS[answered]) {
    const parsed = RESULT_SCHEMAS[answered].safeParse(m.result);
    assert.ok(
      parsed.success,
      `${context}not a valid ${method} result for the SDK: ${issues(parsed)}: ${line.slice(0, 300)}`,
    );
  }
  return m as RpcMessage;
}

/** The one notification tinyagent sends unasked, exactly: no id, no params. */
export const TOOLS_CHANGED_LINE = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';

/**
 * One stdout line of a session, valid for the SDK: an answer (checked as the request it answers);
 * the tools-changed notification, exactly as tinyagent writes it; an elicitation request with an
 * id of tinyagent's own; or the cancellation of one.
 */
export function parseStdoutLine(line: string, context: string, facade?: Tinyagent): void {
  let message: { id?: unknown; method?: unknown } | undefined;
  try {
    message = JSON.parse(line);
  } catch {
    // parseAnswerLine says what is wrong with the line.
  }
  if (message && typeof message === "object" && "method" in message) {
    if ("id" in message) {
      assert.ok(JSONRPCRequestSchema.safeParse(message).success, `${context}${line.slice(0, 300)}`);
      assert.ok(ElicitRequestSchema.safeParse(message).success, `${context}${line.slice(0, 300)}`);
      assert.match(String(message.id), HOST_REQUEST_ID, `${context}a request id of tinyagent's own`);
      return;
    }
    assert.ok(JSONRPCNotificationSchema.safeParse(message).success, `${context}${line}`);
    if (message.method === "notifications/cancelled") {
      assert.ok(CancelledNotificationSchema.safeParse(message).success, `${context}${line}`);
      return;
    }
    assert.ok(ToolListChangedNotificationSchema.safeParse(message).success, `${context}${line}`);
    assert.equal(line, TOOLS_CHANGED_LINE, `${context}the only other notification tinyagent sends`);
    return;
  }
  parseAnswerLine(line, context, facade?.methodOf(message?.id));
}

// ---------------------------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------------------------

export interface SessionOptions {
  /** Flags after `mcp --relay <url>`. */
  args?: string[];
  /** A relay to use and leave open, or options for a fresh one the session closes (default: fresh). */
  relay?: StrictRelay | StrictRelayOptions;
  /** The `--relay` value instead of the relay's URL (a proxy in front of it, a trailing slash). */
  url?: string;
  /**
   * Reach the relay through a rate-limiting front (rate_front.ts), whose URL is then the `--relay`
   * value; `fn` gets it, and the requests it answered are checked for the key too.
   */
  front?: boolean;
  /** Deno permission flags instead of the narrow ones for the URL's host (shippedFlags(), say). */
  flags?: string[];
  /** The child's added environment instead of `{ TINY_PRIVATE_KEY: <key> }`. */
  env?: Record<string, string>;
  /** The agent key instead of a fresh one. */
  key?: TestKey;
  /** A compiled binary instead of `deno run main.ts`. */
  bin?: string;
  /** Starts every end-of-session failure message (a fuzz seed, say). */
  context?: string;
}

function isRelay(relay: StrictRelay | StrictRelayOptions): relay is StrictRelay {
  return "requests" in relay;
}

/**
 * Runs `fn` against tinyagent started as a host starts it, on a strict relay with a key, then
 * ends input and checks what every whole session must hold: exit 0, nothing but JSON-RPC
 * answers on stdout, and the key nowhere in stdout, stderr or any request the relay got.
 * Returns what tinyagent printed. The process is killed, and a relay the session started closed,
 * whatever happens.
 */
export async function withFacade(
  options: SessionOptions,
  fn: (facade: Tinyagent, relay: StrictRelay, key: TestKey, front?: RateFront) => Promise<void>,
): Promise<Output> {
  const given = options.relay && isRelay(options.relay) ? options.relay : undefined;
  const relay = given ?? await startStrictRelay(options.relay as StrictRelayOptions | undefined);
  const front = options.front ? startRateFront(relay) : undefined;
  const key = options.key ?? newKey();
  const url = options.url ?? front?.url ?? relay.url;
  const facade = new Tinyagent({
    bin: options.bin,
    flags: options.flags ?? narrowFlags(new URL(url).host),
    args: ["mcp", "--relay", url, ...(options.args ?? [])],
    env: options.env ?? { TINY_PRIVATE_KEY: key.hex },
  });
  const context = options.context ?? "";
  try {
    await fn(facade, relay, key, front);
    const output = await facade.finish();
    assert.equal(
      output.code,
      0,
      `${context}exit status ${output.code}; stderr:\n${output.stderr.slice(-2000)}`,
    );
    for (const [i, line] of output.lines.entries()) {
      parseStdoutLine(line, `${context}stdout line ${i}: `, facade);
    }
    const answered = front ? [{ requests: front.answered }] : [];
    assertKeyNeverLeaks(key, output, [relay, ...answered], context ? ` ${context}` : "");
    return output;
  } finally {
    await facade.kill();
    await front?.close();
    if (!given) await relay.close();
  }
}
