// A websocket client (RFC 6455) to the relay: dial's connection (TCP, the
// proxy's CONNECT tunnel, TLS), ws_upgrade's handshake, then messages pulled
// one at a time, pings answered, a relay that sends no whole frame (or keeps a
// message unfinished) pinged and given up (ws_liveness), writes bounded
// (ws_writer), and a close handshake bounded by closeMs. Memory: one message
// being assembled and one read buffer.

import type { ConnReader } from "../transport/buffered_reader.ts";
import { dial, type DialOptions, type DialTarget, type Duplex } from "../transport/dial.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { closePayload, codeWords, peerCloseWords } from "./ws_close.ts";
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  encodeFrame,
  MessageDecoder,
  Opcode,
  type Received,
  WsProtocolError,
} from "./ws_frame.ts";
import { endpointOf } from "./ws_handshake.ts";
import { Liveness, WatchedConn } from "./ws_liveness.ts";
import { upgrade } from "./ws_upgrade.ts";
import { FrameWriter } from "./ws_writer.ts";

export interface WebSocketOptions {
  /** ws: or wss: */
  url: URL;
  proxy?: Proxy;
  /** Each opening step (TCP, CONNECT, TLS, the upgrade's answer) ends at this deadline; default 10 s. */
  stepMs?: number;
  /** The largest message taken from the relay; default 1 MiB. */
  maxMessageBytes?: number;
  /** No whole frame from the relay for this long while we wait on it: a ping is sent; default 30 s. */
  idleMs?: number;
  /**
   * After that ping, no whole frame for this long: the connection is dead; default 10 s. A message in
   * fragments must end within idleMs + pongMs of its first, whatever comes between.
   */
  pongMs?: number;
  /** A write that does not complete within this long ends the connection; default 10 s. */
  writeMs?: number;
  /** The close handshake waits at most this long for the relay's close; default 2 s. */
  closeMs?: number;
  /** Gives the opening up; everything opened is closed. */
  signal?: AbortSignal;
  /** Opens the connection; tests may script dials. */
  dial?: (target: DialTarget, options: DialOptions) => Promise<Duplex>;
}

export type Incoming = { type: "text"; text: string } | { type: "binary"; bytes: Uint8Array };

/** Why the connection ended. `reason` is in words; `peerReason` is the relay's close reason as sent. */
export interface Ended {
  by: "peer" | "local" | "error";
  code?: number;
  reason: string;
  peerReason?: string;
}

/** Opens a websocket; rejects with a DialError (TCP, proxy, TLS) or an UpgradeError (the upgrade). */
export async function openWebSocket(options: WebSocketOptions): Promise<WebSocketConnection> {
  const endpoint = endpointOf(options.url);
  const stepMs = options.stepMs ?? 10_000;
  // A plain ws: relay behind a proxy is reached by CONNECT too: a proxied GET cannot upgrade.
  const target: DialTarget = { ...endpoint, proxy: options.proxy, tunnel: true };
  const conn = new WatchedConn(await (options.dial ?? dial)(target, { stepMs, signal: options.signal }));
  const reader = await upgrade(conn, options.url, { stepMs, signal: options.signal });
  return new WebSocketConnection(conn, reader, options);
}

const READ_CHUNK = 64 * 1024;
const encoder = new TextEncoder();
const seconds = (ms: number) => `${ms / 1000} s`;

/** "open": reading and writing. "closing": our close is sent, the relay's awaited. "answering": ending after a close. */
type State = "open" | "closing" | "answering" | "ended";

export class WebSocketConnection {
  readonly ended: Promise<Ended>;
  #resolveEnded!: (ended: Ended) => void;
  #why: Ended | undefined;
  #conn: WatchedConn;
  #reader: ConnReader;
  #decoder: MessageDecoder;
  #closeMs: number;
  #state: State = "open";
  #ours: { code: number; reason: string } | undefined;
  #receiving: Promise<unknown> = Promise.resolve();
  #writer: FrameWriter;
  /** The payload of the pong queued and not yet written: a flood of pings queues one pong, the latest's. */
  #pong: Uint8Array | undefined;
  #liveness: Liveness;
  #closeTimer: ReturnType<typeof setTimeout> | undefined;

  /** Use openWebSocket; `reader` holds what the relay sent after its 101. */
  constructor(conn: WatchedConn, reader: ConnReader, options: WebSocketOptions) {
    this.ended = new Promise((resolve) => this.#resolveEnded = resolve);
    this.#conn = conn;
    this.#reader = reader;
    this.#decoder = new MessageDecoder(options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES);
    this.#writer = new FrameWriter(conn, options.writeMs ?? 10_000, {
      failed: (reason) => this.#writeFailed(reason),
      refusal: () => this.#state === "ended" ? this.#endedError() : undefined,
    });
    this.#closeMs = options.closeMs ?? 2_000;
    this.#readAhead();
    this.#liveness = new Liveness(conn, options.idleMs ?? 30_000, options.pongMs ?? 10_000, {
      ping: () => this.#writer.write(encodeFrame(Opcode.ping, new Uint8Array(0))).catch(() => {}),
      dead: (reason) => this.#finish({ by: "error", reason }),
    });
  }

  /** The next message; undefined once the connection has ended (`ended` is then resolved). */
  async next(): Promise<Incoming | undefined> {
    const message = this.#state === "open" ? await this.#receive() : undefined;
    if (message && this.#state === "open") {
      this.#readAhead();
      return message;
    }
    await this.ended;
    return undefined;
  }

  /** Sends one text message; writes never interleave. Rejects once ended, or when the write stalls. */
  send(text: string): Promise<void> {
    if (this.#state !== "open") return Promise.reject(this.#endedError());
    return this.#writer.write(encodeFrame(Opcode.text, encoder.encode(text)));
  }

  /** The close handshake: our close, the relay's awaited at most closeMs, then the socket. Idempotent. */
  close(code = 1000, reason = ""): void {
    if (this.#state !== "open") return;
    const payload = closePayload(code, reason);
    this.#state = "closing";
    this.#ours = { code, reason };
    this.#liveness.stop();
    this.#closeTimer = setTimeout(
      () =>
        this.#finish(
          this.#localEnded(`; the relay did not answer the close within ${seconds(this.#closeMs)}`),
        ),
      this.#closeMs,
    );
    this.#writer.write(encodeFrame(Opcode.close, payload)).catch(() => {});
    void this.#receive(); // discards what still comes, up to the relay's close
  }

  /** Closes the socket at once. */
  abort(reason: string): void {
    this.#finish({ by: "local", reason });
  }

  /** One reader at a time: next() and the close's drain take turns. */
  #receive(): Promise<Incoming | undefined> {
    const run = this.#receiving.then(() => this.#receiveNow());
    this.#receiving = run.catch(() => {});
    return run;
  }

  /** Frames until a message (while open), the relay's close, an error, or the end; the wait is counted. */
  async #receiveNow(): Promise<Incoming | undefined> {
    this.#conn.clock.begin();
    try {
      return await this.#receiveFrames();
    } finally {
      this.#conn.clock.end();
    }
  }

  async #receiveFrames(): Promise<Incoming | undefined> {
    for (;;) {
      if (this.#state !== "open" && this.#state !== "closing") return undefined;
      let event: Received | undefined;
      try {
        event = this.#decoder.next();
      } catch (error) {
        if (!(error instanceof WsProtocolError)) throw error;
        this.#violation(error);
        return undefined;
      }
      this.#liveness.decoded(this.#decoder);
      if (event) {
        const message = this.#handle(event);
        if (message && this.#state === "open") return message;
      } else if (this.#reader.available > 0) {
        this.#decoder.push(this.#reader.takeSome(READ_CHUNK));
      } else if (this.#reader.closed) {
        this.#lost();
        return undefined;
      } else await this.#reader.fill();
    }
  }

  #handle(event: Received): Incoming | undefined {
    switch (event.type) {
      case "text":
      case "binary":
        return event;
      case "ping":
        if (this.#state === "open") this.#answerPing(event.payload);
        return undefined;
      case "pong":
        return undefined; // a whole frame: the liveness check has counted it
      case "close":
        if (this.#state === "closing") this.#finish(this.#localEnded(""));
        else {
          const { code, reason } = event;
          const ended: Ended = { by: "peer", code, reason: peerCloseWords(code, reason), peerReason: reason };
          this.#answerThenFinish(closePayload(code), ended);
        }
        return undefined;
    }
  }

  #answerPing(payload: Uint8Array): void {
    const queued = this.#pong !== undefined;
    this.#pong = payload;
    if (queued) return;
    this.#writer.write(() => {
      const frame = encodeFrame(Opcode.pong, this.#pong ?? new Uint8Array(0));
      this.#pong = undefined;
      return frame;
    }).catch(() => {});
  }

  /** Keeps one read waiting while the consumer works: a relay silent meanwhile is silent (ws_liveness). */
  #readAhead(): void {
    if (this.#state !== "open" || this.#reader.available > 0 || this.#decoder.pending > 0) return;
    void this.#reader.fill();
  }

  /** The connection ended under us: by the relay's TCP close, or a failed read. */
  #lost(): void {
    const cause = this.#reader.error ? ` (${this.#reader.error.message})` : "";
    const note = `; the relay closed the connection without answering the close${cause}`;
    if (this.#state === "closing") return this.#finish(this.#localEnded(note));
    this.#finish({ by: "error", reason: `the relay closed the connection without a close frame${cause}` });
  }

  /** A broken rule: our close says which (best effort, within closeMs), then the socket is closed. */
  #violation(error: WsProtocolError): void {
    const ended: Ended = { by: "error", code: error.code, reason: error.message };
    if (this.#state === "closing") this.#finish(ended); // our close is already on its way
    else this.#answerThenFinish(closePayload(error.code, error.message), ended);
  }

  /** Writes a close frame, then ends, at most closeMs later. */
  #answerThenFinish(payload: Uint8Array, ended: Ended): void {
    this.#state = "answering";
    this.#liveness.stop();
    const finish = () => this.#finish(ended);
    this.#closeTimer = setTimeout(finish, this.#closeMs);
    this.#writer.write(encodeFrame(Opcode.close, payload)).then(finish, finish);
  }

  #localEnded(note: string): Ended {
    const { code, reason } = this.#ours!;
    const said = reason === "" ? "" : `: ${JSON.stringify(reason)}`;
    return {
      by: "local",
      code,
      reason: `tinyagent closed the connection with code ${codeWords(code)}${said}${note}`,
    };
  }

  /** Ends once: timers cleared, the socket closed, and `ended` resolved when the reads and writes it ends have. */
  #finish(ended: Ended): void {
    if (this.#state === "ended") return;
    this.#state = "ended";
    this.#why = ended;
    this.#liveness.stop();
    clearTimeout(this.#closeTimer);
    this.#conn.close();
    void Promise.allSettled([this.#conn.reading, this.#conn.writing]).then(() => this.#resolveEnded(ended));
  }

  #endedError(): Error {
    return new Error(this.#why ? this.#why.reason : "the websocket is closing");
  }

  /** A write failed or stalled: the connection ends for it, unless it was ending for a reason of its own. */
  #writeFailed(reason: string): void {
    if (this.#state === "answering") return; // the close being answered says why; closeMs bounds it
    if (this.#state === "closing") return this.#finish(this.#localEnded(`; ${reason}`));
    this.#finish({ by: "error", reason });
  }
}
