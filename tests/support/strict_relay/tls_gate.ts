// The TLS side of the strict relay: it owns every client socket, terminates TLS (ALPN `http/1.1`, or
// `h2` and `http/1.1`) and pipes the decrypted bytes over loopback to the front end for the
// negotiated protocol (http1_server.ts or http2_server.ts), which sees the gate as its client.
//
// Why node:tls and not Deno.listenTls or Deno.serve's own TLS (measured on Deno 2.9.6):
// - Deno's TLS sockets cannot turn Nagle off, and the relay then stalls ~40 ms (Nagle against the
//   client's delayed ACK) on any answer written in more than one piece: Deno.serve with TLS on every
//   answer of 1 to 30 KB, Deno.listenTls on answers over one TLS record (16 KiB). Here the client's
//   socket has TCP_NODELAY, as a real relay's has.
// - A cut must be able to reset: `resetAndDestroy()` on the TCP socket sends an RST, `destroy()` on
//   the TLS socket a FIN without close_notify, `end()` a close_notify then FIN.
// - Knowing the plaintext, it can end an idle HTTP/2 connection as the real relay does: a GOAWAY
//   frame, then close (Deno.serve has no idle timeout and no per-connection GOAWAY).

import net from "node:net";
import tls from "node:tls";
import { goaway, H2Watch } from "./h2_frames.ts";
import type { CutHow } from "./types.ts";

export interface GateOptions {
  port: number;
  certPem: string;
  keyPem: string;
  /** ALPN protocols offered, in order of preference. */
  alpn: string[];
  /** Where a connection that negotiated `protocol` ("h2" or "http/1.1") is piped to, on 127.0.0.1. */
  innerPort(protocol: string): number;
  /** HTTP/2: after this long with no stream in flight, send GOAWAY and close. */
  h2IdleMs?: number;
}

/** One client connection. */
interface Client {
  id: number;
  raw: net.Socket;
  secure?: tls.TLSSocket;
  upstream?: net.Socket;
  /** The gate's end of the loopback hop: how the front end behind sees this client. */
  innerPort?: number;
  inFlight: number;
  begun: number;
  h2?: H2Watch;
  idleTimer?: ReturnType<typeof setTimeout>;
  /** Every other pending timer, cleared when the client goes (none may outlive a test). */
  timers: Set<ReturnType<typeof setTimeout>>;
  goingAway: boolean;
  closed: boolean;
}

const GOAWAY_GRACE_MS = 50;
const CLOSE_LINGER_MS = 100;

export class TlsGate {
  readonly port: number;
  #server: tls.Server;
  #options: GateOptions;
  #accepted = 0;
  #byRemotePort = new Map<number, Client>();
  #byInnerPort = new Map<number, Client>();
  #clients = new Set<Client>();
  /** One promise per socket still open, settled by its close event. */
  #sockets = new Set<Promise<void>>();
  #closed = false;
  #listening = true;

  private constructor(server: tls.Server, options: GateOptions) {
    this.#server = server;
    this.#options = options;
    this.port = (server.address() as net.AddressInfo).port;
  }

  static async open(options: GateOptions): Promise<TlsGate> {
    const server = tls.createServer({
      cert: options.certPem,
      key: options.keyPem,
      ALPNProtocols: options.alpn,
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, "127.0.0.1", () => resolve());
    });
    const gate = new TlsGate(server, options);
    server.on("connection", (raw: net.Socket) => gate.#accept(raw));
    server.on("secureConnection", (secure: tls.TLSSocket) => gate.#secured(secure));
    // A client that fails the handshake (an untrusted CA, say) is only a closed connection here.
    server.on("tlsClientError", () => {});
    server.on("error", () => {});
    return gate;
  }

  /** TCP connections accepted so far. */
  get connections(): number {
    return this.#accepted;
  }

  get openConnections(): number {
    return this.#clients.size;
  }

  /** The number of the client connection behind the front end's connection from `innerPort` (0 if none). */
  idOf(innerPort: number): number {
    return this.#byInnerPort.get(innerPort)?.id ?? 0;
  }

  /** Kills the client connection behind `innerPort` as `how` says (see CutHow in types.ts). */
  cut(innerPort: number, how: CutHow): CutHow {
    const client = this.#byInnerPort.get(innerPort);
    if (client) this.#kill(client, how);
    return how;
  }

  /**
   * Closes the client connection behind `innerPort` as a server closing its socket does (an idle
   * close): close_notify, then FIN once it is written, without waiting for the client.
   */
  closeClient(innerPort: number): void {
    const client = this.#byInnerPort.get(innerPort);
    if (client) this.#closeGracefully(client);
  }

  cutAll(how: CutHow): number {
    const open = [...this.#clients];
    for (const client of open) this.#kill(client, how);
    return open.length;
  }

  #kill(client: Client, how: CutHow): void {
    if (how === "close") this.#closeGracefully(client);
    else this.#cut(client, how === "rst");
  }

  /** An HTTP/2 stream began on the connection from `innerPort` (the idle timer stops). */
  streamBegan(innerPort: number): void {
    const client = this.#byInnerPort.get(innerPort);
    if (!client) return;
    client.inFlight++;
    client.begun++;
    clearTimeout(client.idleTimer);
  }

  /** An HTTP/2 stream ended (answered or broken). */
  streamEnded(innerPort: number): void {
    const client = this.#byInnerPort.get(innerPort);
    if (!client) return;
    client.inFlight--;
    if (client.inFlight === 0) this.#armIdle(client);
  }

  /** Stops listening and cuts every connection (as "fin"); resume() listens again on the same port. */
  suspend(): void {
    if (this.#closed || !this.#listening) return;
    this.#listening = false;
    this.#server.close();
    this.cutAll("fin");
  }

  /** Listens again on the port it had (Node's servers may listen again once closed). */
  async resume(): Promise<void> {
    if (this.#closed || this.#listening) return;
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(this.port, "127.0.0.1", () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    this.#listening = true;
  }

  /** Stops listening and destroys every connection; resolves once every socket has closed. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const stopped = this.#listening
      ? new Promise<void>((resolve) => this.#server.close(() => resolve()))
      : Promise.resolve();
    for (const client of this.#clients) this.#cut(client, false);
    await stopped;
    while (this.#sockets.size) await Promise.all([...this.#sockets]);
  }

  /** Tracks a socket until its close event. */
  #watch(socket: net.Socket): void {
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    this.#sockets.add(closed);
    closed.then(() => this.#sockets.delete(closed));
  }

  #later(client: Client, ms: number, fn: () => void): void {
    const timer = setTimeout(() => {
      client.timers.delete(timer);
      fn();
    }, ms);
    client.timers.add(timer);
  }

  #accept(raw: net.Socket): void {
    this.#watch(raw);
    if (this.#closed) {
      raw.destroy();
      return;
    }
    const client: Client = {
      id: ++this.#accepted,
      raw,
      inFlight: 0,
      begun: 0,
      timers: new Set(),
      goingAway: false,
      closed: false,
    };
    raw.setNoDelay(true);
    raw.on("error", () => {});
    raw.on("close", () => this.#forget(client));
    this.#clients.add(client);
    if (raw.remotePort !== undefined) this.#byRemotePort.set(raw.remotePort, client);
  }

  #secured(secure: tls.TLSSocket): void {
    const client = secure.remotePort !== undefined ? this.#byRemotePort.get(secure.remotePort) : undefined;
    if (!client || client.closed || this.#closed) {
      secure.destroy();
      return;
    }
    this.#watch(secure);
    client.secure = secure;
    secure.on("error", () => this.#cut(client, false));
    secure.on("close", () => this.#forget(client));
    const protocol = secure.alpnProtocol || "http/1.1";
    const upstream = net.connect({ port: this.#options.innerPort(protocol), host: "127.0.0.1" });
    this.#watch(upstream);
    client.upstream = upstream;
    upstream.on("error", () => this.#cut(client, false));
    upstream.on("close", () => {
      // The front end closed its side: let the client read what it sent first, then go.
      if (!client.closed) this.#later(client, 2000, () => this.#cut(client, false));
    });
    upstream.on("connect", () => {
      upstream.setNoDelay(true);
      client.innerPort = upstream.localPort;
      if (client.innerPort !== undefined) this.#byInnerPort.set(client.innerPort, client);
      if (protocol === "h2") {
        client.h2 = new H2Watch();
        this.#pumpH2(client, secure, upstream, client.h2);
        this.#armIdle(client);
      } else {
        // A close from the front end (Connection: close, an idle close) reaches the client as
        // close_notify then FIN, and the client's FIN reaches the front end.
        secure.pipe(upstream);
        upstream.pipe(secure);
      }
    });
  }

  /** Pipes both ways, watching the frames; after a GOAWAY nothing more from the client is passed on. */
  #pumpH2(client: Client, secure: tls.TLSSocket, upstream: net.Socket, watch: H2Watch): void {
    secure.on("data", (chunk: Uint8Array) => {
      if (client.goingAway) return;
      watch.fromClient(chunk);
      if (!upstream.write(chunk)) {
        secure.pause();
        upstream.once("drain", () => secure.resume());
      }
    });
    upstream.on("data", (chunk: Uint8Array) => {
      watch.toClient(chunk);
      if (!secure.write(chunk)) {
        upstream.pause();
        secure.once("drain", () => upstream.resume());
      }
    });
    secure.on("end", () => upstream.end());
    upstream.on("end", () => secure.end());
  }

  #armIdle(client: Client): void {
    const idleMs = this.#options.h2IdleMs;
    if (idleMs === undefined || !client.h2 || client.closed || client.goingAway) return;
    clearTimeout(client.idleTimer);
    client.idleTimer = setTimeout(() => this.#idle(client), idleMs);
  }

  /**
   * Idle only if no stream is in flight and every stream the client opened reached the front end
   * (else a request is on its way: wait again). GOAWAY names the last stream the relay will answer;
   * anything the client sends after it is not passed on, so a later stream is never processed.
   */
  #idle(client: Client): void {
    const watch = client.h2;
    if (!watch || client.closed || client.goingAway || !client.secure) return;
    if (client.inFlight > 0 || watch.opened !== client.begun || !watch.atBoundary) {
      this.#armIdle(client);
      return;
    }
    client.goingAway = true;
    client.secure.write(goaway(watch.lastStream));
    this.#later(client, GOAWAY_GRACE_MS, () => this.#closeGracefully(client));
  }

  /** close_notify and FIN now, the socket gone shortly after (destroying at once would lose both). */
  #closeGracefully(client: Client): void {
    if (client.closed || !client.secure) return this.#cut(client, false);
    client.secure.end();
    client.upstream?.destroy();
    this.#later(client, CLOSE_LINGER_MS, () => this.#cut(client, false));
  }

  #cut(client: Client, reset: boolean): void {
    if (client.closed) return;
    client.closed = true;
    clearTimeout(client.idleTimer);
    for (const timer of client.timers) clearTimeout(timer);
    client.timers.clear();
    if (reset) {
      client.raw.resetAndDestroy();
    } else {
      (client.secure ?? client.raw).destroy();
      client.raw.destroy();
    }
    client.upstream?.destroy();
  }

  /** One of the client's sockets closed: the others go with it. */
  #forget(client: Client): void {
    this.#cut(client, false);
    this.#clients.delete(client);
    if (client.raw.remotePort !== undefined) this.#byRemotePort.delete(client.raw.remotePort);
    // #byInnerPort keeps the entry (until the port is reused) for a front end asking late which
    // connection a request came on.
  }
}
