// Opening the connection to the relay: TCP with Nagle off (a small request
// behind the handshake's last flight otherwise waits for a delayed ACK, about
// 40 ms), a CONNECT tunnel when a proxy is in the way, then TLS offering
// HTTP/1.1 only (transport.ts says why). Each step ends at its own deadline,
// and an attempt given up is closed, so no stalled peer can hold a session's
// connection hostage. The runtime's own trust settings apply to TLS:
// DENO_CERT and DENO_TLS_CA_STORE, read by the process at start.

import type { Proxy } from "./tunnel.ts";

export interface DialTarget {
  /** Without IPv6 brackets. */
  hostname: string;
  port: number;
  tls: boolean;
  proxy?: Proxy;
  /**
   * Through the proxy by CONNECT even to a plain target: a websocket to an
   * http relay must, since an absolute-form GET through the proxy cannot
   * upgrade. Without it a plain target's requests go to the proxy as they are.
   */
  tunnel?: boolean;
}

/** What the HTTP framing needs of a connection; a Deno.Conn, or a scripted one in tests. */
export interface Duplex {
  read(buffer: Uint8Array): Promise<number | null>;
  write(bytes: Uint8Array): Promise<number>;
  close(): void;
}

/** The steps of opening a connection, in order; each has its own deadline. */
export type DialStage = "connect" | "proxy" | "tls";

export interface DialOptions {
  /** The bound on each step, in ms (transport.ts: about 10 s, never more than a call's own bound). */
  stepMs: number;
  /** Told as each step begins, so whoever waits can say which step was slow. */
  onStage?: (stage: DialStage) => void;
  /** Gives the attempt up: whatever is open is closed, and the dial rejects. */
  signal?: AbortSignal;
  /**
   * When the step deadlines may be armed (each with what is left of its bound). A process's first
   * timer costs ~6 ms, which an mcp session's early dial must not add to the host's handshake: its
   * deadlines are armed once the first answer is out. Default: at once.
   */
  timersFrom?: Promise<void>;
}

/** A connection that could not be opened; nothing was sent to the relay. */
export class DialError extends Error {
  constructor(message: string, readonly stage: DialStage) {
    super(message);
  }
}

/** `host:port`, with an IPv6 address in brackets. */
function hostPort(target: DialTarget): string {
  const host = target.hostname.includes(":") ? `[${target.hostname}]` : target.hostname;
  return `${host}:${target.port}`;
}

/** What did not finish in time, in words: the same sentence for the step's deadline and a call's. */
export function stallMessage(stage: DialStage, target: DialTarget, waitedMs: number): string {
  const hint = stage === "tls" ? PLAIN_HTTP_HINT : "";
  return `${stalledStep(stage, target)} within ${waitedMs / 1000} s${hint}`;
}

function stalledStep(stage: DialStage, target: DialTarget): string {
  switch (stage) {
    case "connect":
      return target.proxy
        ? `the TCP connection to the proxy ${target.proxy.display} did not open`
        : `the TCP connection to ${hostPort(target)} did not open`;
    case "proxy":
      return `the proxy ${target.proxy?.display} did not answer the CONNECT for ${hostPort(target)}`;
    case "tls":
      return `the TLS handshake with ${hostPort(target)} did not complete`;
  }
}

/** Said after a TLS step that stalled: a plain-HTTP server waits silently for a request line. */
const PLAIN_HTTP_HINT = "; if the relay serves plain HTTP there, use http:// in --relay";

function closeQuietly(conn: { close(): void }): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

/**
 * Runs one step, bounded: `start` gets a signal that aborts at the deadline,
 * or when the whole attempt is given up; a result that arrives after that is
 * closed at once (`abandon`).
 */
async function bounded<T>(
  stage: DialStage,
  target: DialTarget,
  options: DialOptions,
  start: (signal: AbortSignal) => Promise<T>,
  abandon: (late: T) => void,
): Promise<T> {
  const outer = options.signal;
  if (outer?.aborted) throw new DialError("the attempt was given up", stage);
  options.onStage?.(stage);
  const controller = new AbortController();
  const started = Date.now();
  let done = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onGiveUp: (() => void) | undefined;
  const stopped = new Promise<never>((_, reject) => {
    const stop = (error: DialError) => {
      controller.abort();
      reject(error);
    };
    const arm = () => {
      if (done) return;
      timer = setTimeout(
        () => stop(new DialError(stallMessage(stage, target, options.stepMs), stage)),
        Math.max(0, options.stepMs - (Date.now() - started)),
      );
    };
    if (options.timersFrom) void options.timersFrom.then(arm);
    else arm();
    onGiveUp = () => stop(new DialError("the attempt was given up", stage));
    outer?.addEventListener("abort", onGiveUp, { once: true });
  });
  const work = start(controller.signal);
  try {
    return await Promise.race([work, stopped]);
  } catch (error) {
    if (controller.signal.aborted) work.then(abandon, () => {});
    throw error;
  } finally {
    done = true;
    clearTimeout(timer);
    if (onGiveUp) outer?.removeEventListener("abort", onGiveUp);
  }
}

/** Opens a connection to the relay, ready for HTTP/1.1, or throws (a DialError when the step is known). */
export async function dial(target: DialTarget, options: DialOptions): Promise<Deno.Conn> {
  const via = target.proxy ?? { hostname: target.hostname, port: target.port };
  const tcp = await bounded(
    "connect",
    target,
    options,
    (signal) => Deno.connect({ hostname: via.hostname, port: via.port, signal }),
    closeQuietly,
  );
  let conn: Deno.Conn = tcp;
  try {
    tcp.setNoDelay(true);
    if (target.proxy && (target.tls || target.tunnel)) {
      const proxy = target.proxy;
      // Closing the socket is what ends a read that waits for a proxy that never answers.
      await bounded("proxy", target, options, (signal) => {
        signal.addEventListener("abort", () => closeQuietly(tcp), { once: true });
        // The tunnel's code loads only for a relay behind a proxy.
        return import("./tunnel.ts").then(({ tunnel, TunnelError }) =>
          tunnel(tcp, hostPort(target), proxy).catch((error) => {
            throw error instanceof TunnelError ? new DialError(error.message, "proxy") : error;
          })
        );
      }, () => {});
    }
    if (!target.tls) return tcp;
    const tls = await Deno.startTls(tcp, { hostname: target.hostname, alpnProtocols: ["http/1.1"] });
    conn = tls;
    await bounded("tls", target, options, (signal) => {
      signal.addEventListener("abort", () => closeQuietly(tls), { once: true });
      return tls.handshake().catch((error) => {
        throw new DialError(tlsFailure(error, target), "tls");
      });
    }, () => {});
    return tls;
  } catch (error) {
    closeQuietly(conn);
    throw error;
  }
}

/** A failed TLS handshake in words; the one a plain-HTTP server causes says so and what to do. */
function tlsFailure(error: unknown, target: DialTarget): string {
  const message = error instanceof Error ? error.message : String(error);
  // rustls reads the first bytes of an HTTP answer ("HTTP/1.1 400 …") as a record of no known type.
  if (/InvalidContentType|corrupt message/i.test(message)) {
    return `${hostPort(target)} answered in plain HTTP, not TLS: use http:// in --relay (${message})`;
  }
  return `the TLS handshake with ${hostPort(target)} failed: ${message}`;
}
