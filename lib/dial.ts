// Opening the connection to the relay: TCP with Nagle off (a small request
// behind the handshake's last flight otherwise waits for a delayed ACK, about
// 40 ms), a CONNECT tunnel when a proxy is in the way, then TLS offering
// HTTP/2 and HTTP/1.1. The runtime's own trust settings apply to TLS:
// DENO_CERT and DENO_TLS_CA_STORE, read by the process at start.

import { writeAll } from "./bytes.ts";
import { ConnReader } from "./conn_reader.ts";
import type { Proxy } from "./proxy.ts";

export interface DialTarget {
  /** Without IPv6 brackets. */
  hostname: string;
  port: number;
  tls: boolean;
  proxy?: Proxy;
}

export interface Dialed {
  conn: Deno.Conn;
  protocol: "http/1.1" | "h2";
}

const HEAD_END = new TextEncoder().encode("\r\n\r\n");

/** A connection that could not be opened; nothing was sent to the relay. */
export class DialError extends Error {}

/** Opens a connection to the relay, ready for HTTP. */
export async function dial(target: DialTarget): Promise<Dialed> {
  const via = target.proxy ?? { hostname: target.hostname, port: target.port };
  const tcp = await Deno.connect({ hostname: via.hostname, port: via.port });
  try {
    tcp.setNoDelay(true);
    if (target.proxy && target.tls) await tunnel(tcp, target, target.proxy);
    if (!target.tls) return { conn: tcp, protocol: "http/1.1" };
    const tls = await Deno.startTls(tcp, { hostname: target.hostname, alpnProtocols: ["h2", "http/1.1"] });
    const { alpnProtocol } = await tls.handshake();
    return { conn: tls, protocol: alpnProtocol === "h2" ? "h2" : "http/1.1" };
  } catch (error) {
    try {
      tcp.close();
    } catch {
      // already closed
    }
    throw error;
  }
}

/** Asks the proxy for a tunnel to the relay (HTTP CONNECT) and checks that it opened. */
async function tunnel(tcp: Deno.TcpConn, target: DialTarget, proxy: Proxy): Promise<void> {
  const authority = target.hostname.includes(":")
    ? `[${target.hostname}]:${target.port}`
    : `${target.hostname}:${target.port}`;
  let request = `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n`;
  if (proxy.authorization) request += `Proxy-Authorization: ${proxy.authorization}\r\n`;
  await writeAll(tcp, new TextEncoder().encode(`${request}\r\n`));
  // The tunnel is silent until the TLS client speaks, so nothing past the head is read here.
  const reader = new ConnReader(tcp);
  const head = await reader.takeUntil(HEAD_END, 16 * 1024);
  if (head === undefined) throw new DialError(`the proxy ${proxy.display} closed the connection`);
  if (head === "too long" || reader.available > 0) {
    throw new DialError(`the proxy ${proxy.display} answered oddly`);
  }
  const status = new TextDecoder().decode(head).split("\r\n")[0];
  if (!/^HTTP\/1\.[01] 2\d\d\b/.test(status)) {
    throw new DialError(`the proxy ${proxy.display} refused the tunnel: ${status.slice(0, 80)}`);
  }
}
