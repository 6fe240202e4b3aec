// An HTTP proxy on 127.0.0.1 for the corporate-network tests: `CONNECT host:port` opens a tunnel
// (what HTTPS_PROXY clients do), and an absolute-form request (`POST http://host:port/path HTTP/1.1`,
// what HTTP_PROXY clients do for http:// URLs) is forwarded in origin form. Every such request line
// is recorded, so a test can show the relay was reached through the proxy.

import { concatBytes } from "@noble/hashes/utils.js";
import { closeQuietly, pump, writeAll } from "./pipe.ts";

export interface ProxiedRequest {
  /** The request line as received, e.g. "CONNECT 127.0.0.1:4433 HTTP/1.1". */
  line: string;
  method: string;
  /** host:port for CONNECT, the absolute URL otherwise. */
  target: string;
  headers: Headers;
}

export interface ConnectProxy {
  port: number;
  /** "127.0.0.1:<port>" */
  host: string;
  /** "http://127.0.0.1:<port>": the value for HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** Every CONNECT and absolute-form request, in order. */
  requests: ProxiedRequest[];
  /** Tunnels opened (CONNECTs answered 200). */
  readonly tunnels: number;
  /** While set, a CONNECT is read and recorded but never answered (the connection is held). */
  stallConnects: boolean;
  /** Stops listening and closes every connection and tunnel. */
  close(): Promise<void>;
}

export interface ConnectProxyOptions {
  /** Answer CONNECT with this status instead of tunnelling (e.g. 403, or 407 for "authenticate"). */
  refuse?: number;
  /** A body for the refusal, as squid sends with its 407 (default none). */
  refusalBody?: string;
  /** Require these credentials (`Proxy-Authorization: Basic` of "user:password"); others get a 407. */
  credentials?: string;
}

const encoder = new TextEncoder();
const MAX_HEAD = 64 * 1024;

/** Reads up to the end of the request head; returns the head and whatever came after it. */
async function readHead(conn: Deno.Conn): Promise<{ head: string; rest: Uint8Array } | null> {
  let buffered: Uint8Array = new Uint8Array(0);
  const chunk = new Uint8Array(16 * 1024);
  for (;;) {
    for (let i = 0; i + 3 < buffered.length; i++) {
      if (buffered[i] === 13 && buffered[i + 1] === 10 && buffered[i + 2] === 13 && buffered[i + 3] === 10) {
        return {
          head: new TextDecoder("latin1").decode(buffered.subarray(0, i)),
          rest: buffered.slice(i + 4),
        };
      }
    }
    if (buffered.length > MAX_HEAD) return null;
    const n = await conn.read(chunk);
    if (n === null) return null;
    buffered = concatBytes(buffered, chunk.subarray(0, n));
  }
}

export function startConnectProxy(options: ConnectProxyOptions = {}): ConnectProxy {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0, transport: "tcp" });
  const port = (listener.addr as Deno.NetAddr).port;
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  let tunnels = 0;
  let closed = false;
  const requests: ProxiedRequest[] = [];
  /** Stalled CONNECTs, released (and their connections closed) by close(). */
  const stalled = new Set<() => void>();

  const track = (task: Promise<void>) => {
    tasks.add(task);
    task.finally(() => tasks.delete(task));
  };

  async function answer(client: Deno.Conn, status: number, reason: string, body = ""): Promise<void> {
    const bytes = encoder.encode(body);
    const head = `HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${bytes.length}\r\nConnection: close\r\n` +
      (status === 407 ? 'Proxy-Authenticate: Basic realm="proxy"\r\n' : "") + "\r\n";
    await writeAll(client, concatBytes(encoder.encode(head), bytes));
  }

  async function serve(client: Deno.Conn): Promise<void> {
    let upstream: Deno.Conn | undefined;
    try {
      const read = await readHead(client);
      if (!read) return;
      const [line, ...headerLines] = read.head.split("\r\n");
      const [method = "", target = ""] = line.split(" ");
      const headers = new Headers();
      for (const h of headerLines) {
        const colon = h.indexOf(":");
        if (colon > 0) headers.append(h.slice(0, colon).trim(), h.slice(colon + 1).trim());
      }
      requests.push({ line, method, target, headers });
      let host: string;
      let first: Uint8Array;
      if (method === "CONNECT") {
        if (proxy.stallConnects) {
          await new Promise<void>((resolve) => stalled.add(resolve));
          return;
        }
        const expected = options.credentials && `Basic ${encoder.encode(options.credentials).toBase64()}`;
        if (expected && headers.get("proxy-authorization") !== expected) {
          return await answer(client, 407, "Proxy Authentication Required", options.refusalBody);
        }
        if (options.refuse) {
          const reason = options.refuse === 407 ? "Proxy Authentication Required" : "Refused";
          return await answer(client, options.refuse, reason, options.refusalBody);
        }
        host = target;
        first = read.rest;
      } else {
        let url: URL;
        try {
          url = new URL(target);
        } catch {
          return await answer(client, 400, "Bad Request");
        }
        if (url.protocol !== "http:") return await answer(client, 400, "Bad Request");
        host = `${url.hostname}:${url.port || "80"}`;
        // One request per connection, so every request on it is rewritten: ask the origin to close.
        const kept = headerLines.filter((h) =>
          !/^(proxy-connection|connection|proxy-authorization):/i.test(h)
        );
        const head = [`${method} ${url.pathname}${url.search} HTTP/1.1`, ...kept, "Connection: close"];
        first = concatBytes(encoder.encode(`${head.join("\r\n")}\r\n\r\n`), read.rest);
      }
      const colon = host.lastIndexOf(":");
      try {
        upstream = await Deno.connect({
          hostname: host.slice(0, colon).replace(/^\[|\]$/g, ""),
          port: Number(host.slice(colon + 1)),
        });
      } catch {
        return await answer(client, 502, "Bad Gateway");
      }
      conns.add(upstream);
      // Nagle off, as for any relay of small messages: a held segment would be the proxy's stall.
      for (const conn of [client, upstream] as Deno.TcpConn[]) conn.setNoDelay(true);
      if (method === "CONNECT") {
        tunnels++;
        await writeAll(client, encoder.encode("HTTP/1.1 200 Connection Established\r\n\r\n"));
      }
      if (first.length) await writeAll(upstream, first);
      await Promise.all([pump(client, upstream), pump(upstream, client)]);
    } catch {
      // either side went away
    } finally {
      closeQuietly(client);
      conns.delete(client);
      if (upstream) {
        closeQuietly(upstream);
        conns.delete(upstream);
      }
    }
  }

  track((async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      if (closed) {
        closeQuietly(conn);
        return;
      }
      conns.add(conn);
      track(serve(conn));
    }
  })());

  const proxy: ConnectProxy = {
    port,
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}`,
    requests,
    stallConnects: false,
    get tunnels() {
      return tunnels;
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const release of stalled) release();
      try {
        listener.close();
      } catch {
        // already closed
      }
      for (const conn of conns) closeQuietly(conn);
      while (tasks.size) await Promise.allSettled([...tasks]);
    },
  };
  return proxy;
}
