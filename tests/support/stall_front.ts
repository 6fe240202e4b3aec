// A port in front of a relay that can stall each step of reaching it, then heal: how the tests show
// that no stalled connect, TLS handshake or answer wedges a session. Its modes:
// - "forward": every connection is piped, byte for byte, to the relay behind it;
// - "silent": connections are accepted and held, never read from or written to (a TLS port that
//   never completes the handshake, or an HTTP server that never answers);
// - "unaccepted": nothing is accepted and the listen queue is kept full, so a new TCP connect
//   stalls in SYN retries (POSIX kernels drop a SYN when the queue is full; Windows refuses it).

import { closeQuietly, pump, writeAll } from "./pipe.ts";

export type FrontMode = "forward" | "silent" | "unaccepted";

export interface StallFront {
  port: number;
  /** "127.0.0.1:<port>" */
  host: string;
  /** Switches the mode; connections already held stay held until the client closes them. */
  setMode(mode: FrontMode): Promise<void>;
  close(): Promise<void>;
}

/** Starts the front on 127.0.0.1 for the relay at `relayPort`, in `mode`. */
export async function startStallFront(relayPort: number, mode: FrontMode): Promise<StallFront> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const open = new Set<Deno.Conn>();
  const fillers: Deno.Conn[] = [];
  let current = "forward" as FrontMode;
  let closed = false;
  let resume = Promise.withResolvers<void>();

  const serve = async (client: Deno.Conn) => {
    if (current !== "forward") return; // held in `open` until the client or close() ends it
    let upstream: Deno.Conn | undefined;
    try {
      // The relay is dialled once the client speaks (it always speaks first, in HTTP and in TLS):
      // a queue filler accepted after the queue drains is closed without ever reaching the relay.
      const first = new Uint8Array(64 * 1024);
      const n = await client.read(first);
      if (n === null) return;
      upstream = await Deno.connect({ hostname: "127.0.0.1", port: relayPort });
      open.add(upstream);
      for (const conn of [client, upstream] as Deno.TcpConn[]) conn.setNoDelay(true);
      await writeAll(upstream, first.subarray(0, n));
      await Promise.all([pump(client, upstream), pump(upstream, client)]);
    } catch {
      // either side went away
    } finally {
      closeQuietly(client);
      open.delete(client);
      if (upstream) {
        closeQuietly(upstream);
        open.delete(upstream);
      }
    }
  };

  const acceptLoop = (async () => {
    while (!closed) {
      if (current === "unaccepted") {
        await resume.promise;
        continue;
      }
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      open.add(conn);
      void serve(conn);
    }
  })();

  /** Connects until a connect stalls: the listen queue is then full. */
  const fillQueue = async () => {
    for (let i = 0; i < 8192; i++) {
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), 300);
      try {
        fillers.push(await Deno.connect({ hostname: "127.0.0.1", port, signal: controller.signal }));
      } catch {
        return; // this one stalled (or was refused): the queue is full
      } finally {
        clearTimeout(timer);
      }
    }
    throw new Error("stall front: the listen queue never filled");
  };

  const setMode = async (mode: FrontMode) => {
    const was = current;
    current = mode;
    if (mode === "unaccepted") {
      // The accept loop parks once the accept under way returns: let one connection through to it.
      const parked = Deno.connect({ hostname: "127.0.0.1", port }).then((conn) => fillers.push(conn));
      await parked;
      await fillQueue();
    } else if (was === "unaccepted") {
      for (const filler of fillers.splice(0)) closeQuietly(filler);
      resume.resolve();
      resume = Promise.withResolvers<void>();
    }
  };
  await setMode(mode);

  return {
    port,
    host: `127.0.0.1:${port}`,
    setMode,
    async close() {
      closed = true;
      closeQuietly(listener);
      for (const filler of fillers.splice(0)) closeQuietly(filler);
      for (const conn of open) closeQuietly(conn);
      resume.resolve();
      await acceptLoop;
    },
  };
}
