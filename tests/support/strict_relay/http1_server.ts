// The HTTP/1.1 front end, built on Deno.listen with its own framing because tests need faults that
// Deno.serve cannot produce: a dropped socket, a body cut short, a request that never answers.
//
// By default every answer carries `Connection: close`, so each request arrives on a fresh
// connection: Deno's fetch silently retries a request whose *reused* connection closes before any
// answer byte, which would hide a `drop`. With `keepAlive`, connections are reused and never closed
// while idle (unless `idleTimeoutMs` asks for it), so a client cannot race an idle close; faults that
// break framing always close.
//
// Over TLS it serves the decrypted side of tls_gate.ts, which owns the client's socket: numbering
// and cutting connections is then the gate's.

import { concatBytes } from "@noble/hashes/utils.js";
import type { Answer, HeaderList, RequestHandler } from "./exchange.ts";
import type { CutHow, RecordedRequest } from "./types.ts";
import { ByteReader, HttpError, type ParsedRequest, readRequest } from "./http1_reader.ts";
import { closeQuietly, responseHead, writeAll, writeHuge } from "./http1_writer.ts";
import { spliceWebSocket } from "./ws_splice.ts";

export interface Http1Options {
  /** Reuse connections the client keeps open (default: close after every answer). */
  keepAlive: boolean;
  /** Bodies larger than this are read but not kept; the core answers 413. */
  maxBody: number;
  /** Close a connection on which no request has begun this long after it opened or was last answered. */
  idleTimeoutMs?: number;
  /** The owner of the client's sockets when this serves a gate's decrypted side. */
  owner?: ConnectionOwner;
}

/** Who numbers and cuts the client connection behind one of this front end's connections. */
export interface ConnectionOwner {
  /** The client connection's number. */
  idOf(conn: Deno.Conn): number;
  /** Kills the client connection behind `conn` as `how` says; says what it did. */
  cut(conn: Deno.Conn, how: CutHow): CutHow;
  /** Closes the client connection behind `conn` as a server closing its socket would. */
  close(conn: Deno.Conn): void;
}

/** How a connection goes on after an answer: reused, closed after the client, or cut. */
type Ending = "keep" | "graceful" | "abrupt";

const encoder = new TextEncoder();

/** Serves the core over HTTP/1.1 on a listener it owns. */
export class Http1FrontEnd {
  #listener: Deno.Listener;
  #handle: RequestHandler;
  #options: Http1Options;
  #conns = new Map<Deno.Conn, number>();
  #accepted = 0;
  #tasks = new Set<Promise<void>>();
  #closed = false;
  #suspended = false;
  #closedPromise: Promise<void>;
  #signalClosed!: () => void;

  constructor(listener: Deno.Listener, handle: RequestHandler, options: Http1Options) {
    this.#listener = listener;
    this.#handle = handle;
    this.#options = options;
    this.#closedPromise = new Promise((r) => (this.#signalClosed = r));
    this.#track(this.#acceptLoop());
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.#accepted;
  }

  get openConnections(): number {
    return this.#conns.size;
  }

  /** Kills every open connection; returns how many. */
  cutAll(how: CutHow): number {
    const conns = [...this.#conns.keys()];
    for (const conn of conns) this.#cut(conn, how);
    return conns.length;
  }

  /** A plain socket can only close (a FIN, whatever `how` asks, so "rst" is recorded as "fin"). */
  #cut(conn: Deno.Conn, how: CutHow): CutHow {
    if (this.#options.owner) return this.#options.owner.cut(conn, how);
    closeQuietly(conn);
    return how === "rst" ? "fin" : how;
  }

  /** Stops listening and cuts every open connection (a FIN each); resume() listens again. */
  suspend(): void {
    if (this.#closed || this.#suspended) return;
    this.#suspended = true;
    closeQuietly(this.#listener);
    this.cutAll("fin");
  }

  /** Listens again on the port it had, keeping its count of connections. */
  resume(): void {
    if (this.#closed || !this.#suspended) return;
    const { hostname, port } = this.#listener.addr as Deno.NetAddr;
    this.#listener = Deno.listen({ hostname, port, transport: "tcp" });
    this.#suspended = false;
    this.#track(this.#acceptLoop());
  }

  /** Stops listening and closes every open socket (including hung ones). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#signalClosed();
    closeQuietly(this.#listener);
    for (const conn of this.#conns.keys()) closeQuietly(conn);
    this.#conns.clear();
    // Tasks may spawn no new work once closed; wait until every one has settled.
    while (this.#tasks.size) await Promise.allSettled([...this.#tasks]);
  }

  #track(task: Promise<void>): void {
    this.#tasks.add(task);
    task.finally(() => this.#tasks.delete(task));
  }

  async #acceptLoop(): Promise<void> {
    const listener = this.#listener;
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return; // listener closed
      }
      if (this.#closed) {
        conn.close();
        return;
      }
      this.#accepted++;
      this.#conns.set(conn, this.#accepted);
      // Behind the gate this is a loopback hop: Nagle there would hold an answer's last segment.
      if (this.#options.owner) (conn as Deno.TcpConn).setNoDelay(true);
      this.#track(this.#serveConn(conn));
    }
  }

  async #serveConn(conn: Deno.Conn): Promise<void> {
    const idleMs = this.#options.idleTimeoutMs;
    let idleTimer: ReturnType<typeof setTimeout> | undefined;
    const disarm = () => clearTimeout(idleTimer);
    const reader = new ByteReader(conn, disarm);
    let ending: Ending = "graceful";
    try {
      while (!this.#closed) {
        // Idle means waiting for a request's first byte; closing is what the relay does then.
        if (idleMs !== undefined && reader.buffered === 0) {
          idleTimer = setTimeout(() => {
            if (this.#options.owner) this.#options.owner.close(conn);
            closeQuietly(conn);
          }, idleMs);
        }
        const req = await this.#read(conn, reader);
        disarm();
        if (req === null) break;
        const outcome = await this.#exchange(conn, reader, req);
        if (outcome !== "keep") {
          ending = outcome;
          break;
        }
      }
      if (ending === "graceful" && !this.#closed) await this.#linger(conn, reader);
    } catch {
      // the peer went away, or relay.close(), a cut or the idle timer closed the socket
    } finally {
      disarm();
      this.#conns.delete(conn);
      closeQuietly(conn);
    }
  }

  /** The next request; null at the end of the connection, after answering one that cannot be framed. */
  async #read(conn: Deno.Conn, reader: ByteReader): Promise<ParsedRequest | null> {
    try {
      return await readRequest(
        reader,
        this.#options.maxBody,
        () => writeAll(conn, encoder.encode("HTTP/1.1 100 Continue\r\n\r\n")),
      );
    } catch (err) {
      if (!(err instanceof HttpError) || this.#closed) throw err;
      const body = encoder.encode(`${err.message}\n`);
      const head = responseHead(err.status, [
        ["Content-Type", "text/plain; charset=utf-8"],
        ["Content-Length", String(body.length)],
      ], true);
      await writeAll(conn, concatBytes(head, body));
      return null;
    }
  }

  /**
   * Half-closes and waits (briefly) for the client to close first: closing with unread input would
   * send a reset that can destroy the answer before the client reads it.
   */
  async #linger(conn: Deno.Conn, reader: ByteReader): Promise<void> {
    try {
      await conn.closeWrite();
    } catch {
      return;
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const wait = new Promise<void>((r) => (timer = setTimeout(r, 2000)));
    await Promise.race([reader.drain(), wait, this.#closedPromise]).finally(() => clearTimeout(timer));
  }

  /** Hands one request to the core, writes its answer, and says how the connection goes on. */
  async #exchange(conn: Deno.Conn, reader: ByteReader, req: ParsedRequest): Promise<Ending> {
    // Behind the gate, asked per request: the gate may learn of the connection after this accepted it.
    const connection = this.#options.owner ? this.#options.owner.idOf(conn) : this.#conns.get(conn);
    const { answer, release, record } = await this.#handle({ ...req, connection });
    try {
      if (this.#closed) return "abrupt";
      return await this.#write(conn, reader, req, answer, release, record);
    } finally {
      release();
    }
  }

  async #write(
    conn: Deno.Conn,
    reader: ByteReader,
    req: ParsedRequest,
    answer: Answer,
    release: () => void,
    record: RecordedRequest,
  ): Promise<Ending> {
    const keep = this.#options.keepAlive && req.keepAlive;
    switch (answer.kind) {
      case "drop":
        // Closing this side is a clean close for the client, over TLS too (the gate passes it on).
        release();
        record.cut = "close";
        return "abrupt";
      case "cut":
        release();
        record.cut = this.#cut(conn, answer.how);
        return "abrupt";
      case "hang":
        // Stays in flight until the client gives up (closes) or relay.close().
        await Promise.race([reader.drain(), this.#closedPromise]);
        return "abrupt";
      case "reset": {
        const headers: HeaderList = [...answer.headers, ["Content-Length", String(answer.announced)]];
        const head = responseHead(answer.status, headers, false);
        release();
        await writeAll(conn, concatBytes(head, answer.partial));
        return "abrupt";
      }
      case "websocket":
        // The connection is the websocket's now: it stays counted (and cuttable) until the splice ends.
        release();
        await spliceWebSocket(conn, req, reader.take(), answer.splice);
        return "abrupt";
      case "huge":
        release();
        await writeHuge(conn, answer.bytes, answer.chunked, keep);
        return keep ? "keep" : "graceful";
      case "reply": {
        const headers: HeaderList = [...answer.headers, ["Content-Length", String(answer.body.length)]];
        const head = responseHead(answer.status, headers, !keep);
        release();
        await writeAll(conn, req.method === "HEAD" ? head : concatBytes(head, answer.body));
        return keep ? "keep" : "graceful";
      }
    }
  }
}
