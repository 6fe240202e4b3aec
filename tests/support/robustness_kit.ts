// Shared pieces of the robustness suites (tests/robustness/): a seeded PRNG, a
// poll for what a running session prints, and a loopback TCP proxy that can
// stop listening and listen again on the same port (connection refused, then a
// relay that comes back), add a network's delay, and cut its connections.
// Sessions and their checks are tinyagent.ts's.

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
  /** Closes every open connection now (both sides; the client sees a FIN) and stays listening. */
  cut(): number;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export interface TcpProxyOptions {
  /**
   * Delay added to the bytes in each direction, in ms (one way: a 40 ms round trip is 20). Every
   * chunk is passed on `delayMs` after it arrived, in order, so a long body is late by the delay
   * once, not once per chunk. A close (FIN) is passed on as late as the bytes before it.
   */
  delayMs?: number;
  /**
   * With delayMs: hold a new connection's first bytes one round trip more, as TCP's own handshake
   * (SYN, SYN-ACK) would before a client could send them. Default true.
   */
  handshake?: boolean;
}

export type ProxyFault =
  /** Reads the request, answers these bytes instead of the relay, then closes. */
  | { raw: Uint8Array }
  /** Passes the relay's answer on up to this many bytes, then nothing more: the connection stays open. */
  | { stallAfter: number };

/** Bytes in a delayed direction not yet passed on, beyond which reading pauses. */
const DELAY_WINDOW = 4 * 1024 * 1024;

/**
 * Forwards every connection to 127.0.0.1:`targetPort` byte for byte, half-closes
 * included, so an HTTP client and the relay see each other as if connected
 * directly (the relay reads the URL from the Host header, which still names
 * the proxy, so NIP-98 tokens bound to the proxy's URL verify, and TLS certificates
 * for 127.0.0.1 verify through it). A reset on one side reaches the other as a close.
 */
export function startTcpProxy(targetPort: number, options: TcpProxyOptions = {}): TcpProxy {
  let listener: Deno.Listener | undefined;
  const conns = new Set<Deno.Conn>();
  /** The client side of each open connection. */
  const clients = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const faults: ProxyFault[] = [];
  const delayMs = Math.max(0, options.delayMs ?? 0);
  const holdMs = delayMs > 0 && (options.handshake ?? true) ? 2 * delayMs : 0;
  let accepted = 0;
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
  function pump(from: Deno.Conn, to: Deno.Conn, limit = Infinity, firstHoldMs = 0): Promise<void> {
    return delayMs > 0 ? delayedPump(from, to, limit, firstHoldMs) : directPump(from, to, limit);
  }

  async function directPump(from: Deno.Conn, to: Deno.Conn, limit: number): Promise<void> {
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

  /**
   * The same with a delay: a reader stamps each chunk (and the end, or an error) with when it is
   * due, and a writer passes them on in order when due, so the reader never waits for the writer.
   */
  async function delayedPump(
    from: Deno.Conn,
    to: Deno.Conn,
    limit: number,
    firstHoldMs: number,
  ): Promise<void> {
    type Item = { due: number; bytes?: Uint8Array; end?: "eof" | "error" };
    const queue: Item[] = [];
    let queued = 0;
    let wakeWriter: (() => void) | undefined;
    let wakeReader: (() => void) | undefined;
    let hold = firstHoldMs;
    let stopped = false;
    const push = (item: Item) => {
      queue.push(item);
      queued += item.bytes?.length ?? 0;
      wakeWriter?.();
    };
    const reading = (async () => {
      let passed = 0;
      try {
        for (;;) {
          while (queued > DELAY_WINDOW && !stopped) await new Promise<void>((r) => (wakeReader = r));
          if (stopped) return;
          const buffer = new Uint8Array(64 * 1024);
          const n = await from.read(buffer);
          if (n === null) break;
          const end = Math.min(n, Math.max(0, limit - passed));
          passed += end;
          if (end > 0) push({ due: performance.now() + delayMs + hold, bytes: buffer.subarray(0, end) });
          hold = 0;
        }
        if (passed < limit) push({ due: performance.now() + delayMs, end: "eof" });
      } catch {
        push({ due: performance.now() + delayMs, end: "error" });
      }
    })();
    try {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wakeWriter = r));
        wakeWriter = undefined;
        const item = queue[0];
        const wait = item.due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        queue.shift();
        if (item.bytes) {
          queued -= item.bytes.length;
          wakeReader?.();
          wakeReader = undefined;
          let off = 0;
          while (off < item.bytes.length) off += await to.write(item.bytes.subarray(off));
        } else if (item.end === "eof") {
          await to.closeWrite();
          break;
        } else {
          throw new Error("the other side went away");
        }
      }
    } catch {
      closeQuietly(from);
      closeQuietly(to);
    }
    stopped = true;
    wakeReader?.();
    await reading;
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
    // Nagle off on both hops: a middle hop that held small segments for an ACK would add stalls no
    // real network path adds.
    for (const conn of [client, upstream] as Deno.TcpConn[]) conn.setNoDelay(true);
    await Promise.all([pump(client, upstream, Infinity, holdMs), pump(upstream, client, fault?.stallAfter)]);
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
      accepted++;
      conns.add(conn);
      clients.add(conn);
      track(serve(conn).finally(() => clients.delete(conn)));
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
    cut() {
      const open = clients.size;
      for (const conn of [...conns]) closeQuietly(conn);
      return open;
    },
    get connections() {
      return accepted;
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
