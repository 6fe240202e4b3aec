// `tinyagent rpc` as the Hermes platform plugin starts it (rpc-facts.md 7.1, 7.2): the helper on
// real pipes, with the plugin's environment alone (PATH, HOME, TMPDIR, the proxy variables and
// the key: no DENO_*), integer ids from 1, stream lines routed by subscription name. At the end,
// what every helper session must show: each stdout line one message of the helper's protocol, in
// the Go peer's field order, and the key nowhere.

import assert from "node:assert/strict";
import { assertNoSecret, MAIN, narrowFlags, ROOT, type TestKey } from "./tinyagent.ts";
import { within } from "./waits.ts";

/** The launcher from source, run as the plugin runs TINY_CLI_PATH. */
export const LAUNCHER = `${ROOT}bin/tinyagent`;

/** Where this process's Deno keeps its packages: a plugin-started helper finds them under its HOME. */
function denoCache(): string {
  return Deno.env.get("DENO_DIR") ??
    `${Deno.env.get("XDG_CACHE_HOME") ?? `${Deno.env.get("HOME")}/.cache`}/deno`;
}

/**
 * A HOME for the helper whose Deno cache is this process's (a link), so that a helper started with
 * the plugin's environment alone finds its packages without DENO_DIR, as on a machine where
 * tinyagent was run once before.
 */
export async function helperHome(): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "tinyagent-plugin-home-" });
  await Deno.mkdir(`${home}/.cache`, { recursive: true });
  await Deno.symlink(denoCache(), `${home}/.cache/deno`);
  return home;
}

/** Exactly what the plugin (D on) passes its helper: PATH, HOME, TMPDIR, the proxies when set, the key. */
export function pluginEnv(
  home: string,
  key: TestKey,
  extra: Record<string, string> = {},
): Record<string, string> {
  // PATH finds `deno` for the launcher, as it would where Deno is installed.
  const denoDir = Deno.execPath().slice(0, Deno.execPath().lastIndexOf("/"));
  return {
    PATH: `${denoDir}:${Deno.env.get("PATH") ?? "/usr/bin:/bin"}`,
    HOME: home,
    TMPDIR: Deno.env.get("TMPDIR") ?? "/tmp",
    // Not the plugin's, but every test's: Deno's update check never shows up (bin/tinyagent sets
    // it too; tests/wrapper_test.ts and tests/e2e/proxy_only_test.ts show that without this).
    DENO_NO_UPDATE_CHECK: "1",
    TINY_PRIVATE_KEY: key.hex,
    ...extra,
  };
}

export interface HelperOptions {
  relayUrl: string;
  key: TestKey;
  /** Flags after `rpc --relay URL --key-env TINY_PRIVATE_KEY`. */
  args?: string[];
  /** "launcher": bin/tinyagent (the shipped flags, so the sandbox's worker); "narrow": deno run confined. */
  launch?: "launcher" | "narrow";
  /** Added to the plugin's environment (a proxy variable, DENO_CERT for a test CA). */
  env?: Record<string, string>;
  /** A HOME from helperHome(); one is made (and removed at the end) when not given. */
  home?: string;
}

export type HelperLine = Record<string, unknown>;

/** The Go peer's member orders, one per kind of line (rpc-facts.md 2.2). */
const ORDERS = [
  ["id", "result"],
  ["result"],
  ["id", "error"],
  ["error"],
  ["event", "subscription"],
  ["event", "subscription", "data"],
];
const EVENT_MEMBERS = ["id", "pubkey", "created_at", "kind", "tags", "content", "sig"];

/** Fails unless `line` is one message of the helper's protocol, members in the Go peer's order. */
export function assertHelperLine(line: string, where: string): HelperLine {
  const message = JSON.parse(line);
  assert.ok(message && typeof message === "object" && !Array.isArray(message), `${where}: an object`);
  const keys = Object.keys(message);
  assert.ok(ORDERS.some((order) => order.join() === keys.join()), `${where}: members ${keys.join(",")}`);
  if ("error" in message) {
    assert.deepEqual(Object.keys(message.error), ["message"], `${where}: error has only message`);
    assert.equal(typeof message.error.message, "string", where);
  }
  if ("event" in message) {
    assert.equal(typeof message.subscription, "string", where);
    if (message.event === "connected") assert.deepEqual(keys, ["event", "subscription"], where);
    else if (message.event === "event") assert.deepEqual(Object.keys(message.data), EVENT_MEMBERS, where);
    else {
      assert.equal(message.event, "error", where);
      assert.deepEqual(Object.keys(message.data), ["message"], where);
    }
  }
  assert.ok(
    !/[<>&\u2028\u2029]/.test(line),
    `${where}: <, >, &, U+2028 and U+2029 are escaped as Go escapes them`,
  );
  return message;
}

export class RpcHelper {
  readonly child: Deno.ChildProcess;
  readonly lines: HelperLine[] = [];
  readonly raw: string[] = [];
  #stderr = "";
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #nextId = 1;
  #waiters: (() => void)[] = [];
  #done: Promise<void>;
  #home: string;
  #ownHome: boolean;
  #key: TestKey;

  private constructor(child: Deno.ChildProcess, key: TestKey, home: string, ownHome: boolean) {
    this.child = child;
    this.#key = key;
    this.#home = home;
    this.#ownHome = ownHome;
    this.#writer = child.stdin.getWriter();
    this.#done = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  static async start(options: HelperOptions): Promise<RpcHelper> {
    const home = options.home ?? await helperHome();
    const rpcArgs = [
      "rpc",
      "--relay",
      options.relayUrl,
      "--key-env",
      "TINY_PRIVATE_KEY",
      ...(options.args ?? []),
    ];
    const launcher = (options.launch ?? "launcher") === "launcher";
    const host = new URL(options.relayUrl.replace(/^ws/, "http")).host;
    const child = new Deno.Command(launcher ? LAUNCHER : Deno.execPath(), {
      args: launcher ? rpcArgs : ["run", "--quiet", ...narrowFlags(host), MAIN, ...rpcArgs],
      cwd: home,
      clearEnv: true,
      env: pluginEnv(home, options.key, options.env),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new RpcHelper(child, options.key, home, options.home === undefined);
  }

  get stderr(): string {
    return this.#stderr;
  }

  /** Set while the test holds stdout unread, as a plugin too busy to read: the pipe then fills. */
  #paused: PromiseWithResolvers<void> | undefined;

  /** Stops reading stdout until `resumeReading`. */
  pauseReading(): void {
    this.#paused ??= Promise.withResolvers<void>();
  }

  resumeReading(): void {
    this.#paused?.resolve();
    this.#paused = undefined;
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let buffer = "";
    for await (const chunk of this.child.stdout) {
      if (this.#paused) await this.#paused.promise;
      buffer += decoder.decode(chunk, { stream: true });
      let newline;
      while ((newline = buffer.indexOf("\n")) !== -1) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        this.raw.push(line);
        this.lines.push(assertHelperLine(line, `stdout line ${this.raw.length}`));
        for (const wake of this.#waiters.splice(0)) wake();
      }
    }
    assert.equal(buffer, "", "stdout ends with a whole line");
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.child.stderr) this.#stderr += decoder.decode(chunk, { stream: true });
  }

  /** Writes one line (a newline is added) as it is. */
  async writeLine(line: string): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(`${line}\n`));
  }

  /** Sends a request as the plugin does ({id, method, params}, integer ids) without waiting. */
  async send(method: string, params: Record<string, unknown> = {}): Promise<number> {
    const id = this.#nextId++;
    await this.writeLine(JSON.stringify({ id, method, params }));
    return id;
  }

  /** The first line that satisfies `test`, waited for up to `ms`. */
  async waitFor(what: string, test: (line: HelperLine) => boolean, ms = 15_000): Promise<HelperLine> {
    return await within(
      ms,
      what,
      (async () => {
        for (;;) {
          const found = this.lines.find(test);
          if (found) return found;
          await new Promise<void>((resolve) => this.#waiters.push(resolve));
        }
      })(),
    );
  }

  /** The answer to request `id`. */
  answer(id: number, ms?: number): Promise<HelperLine> {
    return this.waitFor(`the answer to request ${id}`, (line) => line.id === id && !("event" in line), ms);
  }

  /** Sends a request and waits for its answer. */
  async call(method: string, params: Record<string, unknown> = {}, ms?: number): Promise<HelperLine> {
    return await this.answer(await this.send(method, params), ms);
  }

  /** The stream lines of subscription `name`, in order. */
  stream(name: string): HelperLine[] {
    return this.lines.filter((line) => "event" in line && line.subscription === name);
  }

  /** Ends input and waits for the exit; checks the key never showed up. */
  async end(ms = 20_000): Promise<{ code: number; stderr: string }> {
    await this.#writer.close().catch(() => {});
    const status = await within(ms, "the helper exits at end of input", this.child.status);
    await this.#done;
    this.#checkKey();
    return { code: status.code, stderr: this.#stderr };
  }

  #checkKey(): void {
    assertNoSecret(this.#key, this.raw.join("\n"), "the helper's stdout");
    assertNoSecret(this.#key, this.#stderr, "the helper's stderr");
  }

  /** Kills the helper whatever state it is in, and removes its HOME when it was made here. */
  async close(): Promise<void> {
    try {
      this.child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.child.status;
    await this.#done.catch(() => {});
    if (this.#ownHome) await Deno.remove(this.#home, { recursive: true }).catch(() => {});
  }
}
