// Shared pieces of the robustness suites (tests/robustness/): a seeded PRNG, a
// poll for what a running session prints, and a loopback TCP proxy that can
// stop listening and listen again on the same port (connection refused, then a
// relay that comes back). Sessions and their checks are tinyagent.ts's.

import assert from "node:assert/strict";

// ---------------------------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------------------------

/** mulberry32: small, fast and good enough to drive a fuzzer reproducibly from one 32-bit seed. */
export class Rng {
  #state: number;

  constructor(seed: number) {
    this.#state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.#state = (this.#state + 0x6d2b79f5) >>> 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }

  /** Picks by weight; weights need not sum to anything in particular. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
    let at = this.next() * total;
    for (const [value, weight] of entries) {
      at -= weight;
      if (at < 0) return value;
    }
    return entries[entries.length - 1][0];
  }
}

/** The seed from `variable` when set (any integer, taken modulo 2^32), else a random one. */
export function seedFrom(variable: string): number {
  const raw = Deno.env.get(variable);
  if (raw !== undefined && raw.trim() !== "") {
    const value = Number(raw);
    if (!Number.isInteger(value)) {
      throw new Error(`${variable} must be an integer, not ${JSON.stringify(raw)}`);
    }
    return value >>> 0;
  }
  return crypto.getRandomValues(new Uint32Array(1))[0];
}

// ---------------------------------------------------------------------------------------------
// Waiting
// ---------------------------------------------------------------------------------------------

/** Resolves once `predicate` holds, polling; fails after `timeoutMs`. */
export async function eventually(predicate: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

// ---------------------------------------------------------------------------------------------
// A loopback TCP proxy with an off switch
// ---------------------------------------------------------------------------------------------

export interface TcpProxy {
  /** The port the proxy listens on (the same across down() and up()). */
  port: number;
  /** "127.0.0.1:<port>" */
  host: string;
  /** "http://127.0.0.1:<port>" */
  origin: string;
  /** Whether it is listening. */
  readonly listening: boolean;
  /** Stops listening and cuts every open connection: the port now refuses connections. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): void;
  /** A one-shot fault for the next connection, in the proxy's own hands rather than the relay's. */
  inject(fault: ProxyFault): void;
  close(): Promise<void>;
}

export type ProxyFault =
  /** Reads the request, answers these bytes instead of the relay, then closes. */
  | { raw: Uint8Array }
  /** Passes the relay's answer on up to this many bytes, then nothing more: the connection stays open. */
  | { stallAfter: number };

/**
 * Forwards every connection to 127.0.0.1:`targetPort` byte for byte, half-closes
 * included, so an HTTP client and the relay see each other as if connected
 * directly (the relay reads the URL from the Host header, which still names
 * the proxy, so NIP-98 tokens bound to the proxy's URL verify).
 */
export function startTcpProxy(targetPort: number): TcpProxy {
  let listener: Deno.Listener | undefined;
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const faults: ProxyFault[] = [];
  let port = 0;

  const track = (task: Promise<void>) => {
    tasks.add(task);
    task.finally(() => tasks.delete(task));
  };
  const closeQuietly = (conn: Deno.Conn) => {
    conns.delete(conn);
    try {
      conn.close();
    } catch {
      // already closed
    }
  };

  /** Copies `from` to `to`; past `limit` bytes it keeps reading but passes nothing on, and never ends. */
  async function pump(from: Deno.Conn, to: Deno.Conn, limit = Infinity): Promise<void> {
    const buffer = new Uint8Array(64 * 1024);
    let passed = 0;
    try {
      for (;;) {
        const n = await from.read(buffer);
        if (n === null) break;
        const end = Math.min(n, Math.max(0, limit - passed));
        let off = 0;
        while (off < end) off += await to.write(buffer.subarray(off, end));
        passed += end;
      }
      if (passed < limit) await to.closeWrite();
    } catch {
      // one side went away: the other is cut below
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  async function serve(client: Deno.Conn): Promise<void> {
    const fault = faults.shift();
    if (fault && "raw" in fault) {
      try {
        await client.read(new Uint8Array(64 * 1024)); // the request's first bytes, at least
        let off = 0;
        while (off < fault.raw.length) off += await client.write(fault.raw.subarray(off));
      } catch {
        // the client went away first
      }
      closeQuietly(client);
      return;
    }
    let upstream: Deno.Conn;
    try {
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: targetPort });
    } catch {
      closeQuietly(client);
      return;
    }
    conns.add(upstream);
    await Promise.all([pump(client, upstream), pump(upstream, client, fault?.stallAfter)]);
    closeQuietly(client);
    closeQuietly(upstream);
  }

  async function acceptLoop(current: Deno.Listener): Promise<void> {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await current.accept();
      } catch {
        return; // listener closed
      }
      conns.add(conn);
      track(serve(conn));
    }
  }

  const proxy: TcpProxy = {
    port: 0,
    host: "",
    origin: "",
    get listening() {
      return listener !== undefined;
    },
    up() {
      if (listener) return;
      listener = Deno.listen({ hostname: "127.0.0.1", port, transport: "tcp" });
      port = (listener.addr as Deno.NetAddr).port;
      track(acceptLoop(listener));
    },
    async down() {
      if (!listener) return;
      try {
        listener.close();
      } catch {
        // already closed
      }
      listener = undefined;
      for (const conn of [...conns]) closeQuietly(conn);
      while (tasks.size) await Promise.allSettled([...tasks]);
    },
    inject(fault) {
      faults.push(fault);
    },
    async close() {
      await proxy.down();
    },
  };
  proxy.up();
  proxy.port = port;
  proxy.host = `127.0.0.1:${port}`;
  proxy.origin = `http://${proxy.host}`;
  return proxy;
}
