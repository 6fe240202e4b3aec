// Drives the real entry point as a host would: `deno run` with the narrow
// permission flags, JSON-RPC lines over real pipes, stderr collected.

import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import assert from "node:assert/strict";
import { startStrictRelay, type StrictRelay, type StrictRelayOptions } from "./strict_relay/mod.ts";

export const ROOT = new URL("../../", import.meta.url).pathname;
export const MAIN = `${ROOT}main.ts`;

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

/** The narrow flags the facade runs with: the relay's host:port and the key variable, nothing else. */
export function narrowFlags(netHost: string, keyEnv = "TINY_PRIVATE_KEY"): string[] {
  return [`--allow-net=${netHost}`, `--allow-env=${keyEnv}`];
}

export interface SpawnOptions {
  /** Arguments after `main.ts` (or after the binary). */
  args: string[];
  /** A compiled tinyagent binary to run instead of `deno run main.ts` (flags are then ignored). */
  bin?: string;
  /** Deno permission flags; defaults to none. */
  flags?: string[];
  /** Environment added for the child (the key goes here). */
  env?: Record<string, string>;
}

/** The program and arguments that start tinyagent: `deno run <flags> main.ts …` or a compiled binary. */
export function commandLine(options: SpawnOptions): { program: string; args: string[] } {
  if (options.bin) return { program: options.bin, args: options.args };
  return {
    program: Deno.execPath(),
    args: ["run", "--quiet", ...(options.flags ?? []), MAIN, ...options.args],
  };
}

function spawn(options: SpawnOptions): Deno.ChildProcess {
  const { program, args } = commandLine(options);
  return new Deno.Command(program, {
    args,
    cwd: ROOT,
    env: options.env,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

type Message = Record<string, unknown> & { id?: unknown };

/** A running tinyagent child with line-level access to its stdio. */
export class Tinyagent {
  readonly child: Deno.ChildProcess;
  /** Every stdout line, raw. */
  readonly lines: string[] = [];
  #stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #waiters = new Map<string, (message: Message) => void>();
  #done: Promise<void>;
  #nextId = 1;

  constructor(options: SpawnOptions) {
    this.child = spawn(options);
    this.#writer = this.child.stdin.getWriter();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.child.stdout) {
      buffer += decoder.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        this.lines.push(line);
        let message: Message;
        try {
          message = JSON.parse(line);
        } catch {
          continue; // The stdout test asserts every line parses; here we only route answers.
        }
        const key = JSON.stringify(message.id ?? null);
        const waiter = this.#waiters.get(key);
        if (waiter) {
          this.#waiters.delete(key);
          waiter(message);
        }
      }
    }
    if (buffer) this.lines.push(buffer);
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
    await this.writeRaw(`${JSON.stringify(message)}\n`);
  }

  /** Resolves with the first answer carrying `id` (compared as JSON). */
  answer(id: unknown): Promise<Message> {
    return new Promise((resolve) => this.#waiters.set(JSON.stringify(id), resolve));
  }

  /** Sends a request and waits for its answer. */
  async request(method: string, params?: unknown, id: unknown = `r${this.#nextId++}`): Promise<Message> {
    const answer = this.answer(id);
    await this.send(
      params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params },
    );
    return await answer;
  }

  /** Closes stdin (EOF) and waits for the process to exit. */
  async finish(): Promise<{ code: number; lines: string[]; stderr: string }> {
    try {
      await this.#writer.close();
    } catch {
      // Already closed.
    }
    const status = await this.child.status;
    await this.#done;
    return { code: status.code, lines: this.lines, stderr: this.#stderr };
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
  const child = spawn(options);
  const writer = child.stdin.getWriter();
  if (options.stdin) await writer.write(new TextEncoder().encode(options.stdin));
  await writer.close();
  const output = await child.output();
  const decoder = new TextDecoder();
  return { code: output.code, stdout: decoder.decode(output.stdout), stderr: decoder.decode(output.stderr) };
}

/** Fails when any form of the key shows up in `text`. */
export function assertNoSecret(key: TestKey, text: string, where: string): void {
  for (const secret of [key.hex, key.hex.toUpperCase(), key.nsec]) {
    if (text.includes(secret)) throw new Error(`the private key appears in ${where}`);
  }
}

export interface FacadeSession {
  /** Flags after `mcp --relay <url>`. */
  args?: string[];
  relay?: StrictRelayOptions;
}

/**
 * Runs `fn` against a fresh strict relay and a tinyagent started on it with
 * the narrow flags and a fresh key, then checks what every test of a whole
 * session must hold: exit 0 at end of input, nothing but JSON-RPC lines on
 * stdout, and the key nowhere in stdout, stderr or any request the relay got.
 */
export async function withFacade(
  session: FacadeSession,
  fn: (facade: Tinyagent, relay: StrictRelay, key: TestKey) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay(session.relay);
  const key = newKey();
  const facade = new Tinyagent({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, ...(session.args ?? [])],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  try {
    await fn(facade, relay, key);
    const { code, lines, stderr } = await facade.finish();
    assert.equal(code, 0, stderr);
    for (const line of lines) {
      const message = JSON.parse(line);
      assert.equal(message.jsonrpc, "2.0", line.slice(0, 200));
    }
    assertNoSecret(key, lines.join("\n"), "stdout");
    assertNoSecret(key, stderr, "stderr");
    for (const request of relay.requests) {
      assertNoSecret(key, request.bodyText + JSON.stringify([...request.headers]), "a relay request");
    }
  } finally {
    await facade.kill();
    await relay.close();
  }
}
