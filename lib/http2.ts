// HTTP/2 (RFC 9113) on one kept connection to the relay, as its client: the
// preface and settings, one stream per request, flow control both ways, and
// the server's GOAWAY and RST_STREAM read for whether a request was
// processed. Enough of the protocol for a client that sends POSTs and reads
// whole answers; no server push (disabled in our settings), no priorities.

import { concat, writeAll } from "./bytes.ts";
import { ConnReader } from "./conn_reader.ts";
import { encodeHeaders, HpackDecoder, HpackError } from "./hpack.ts";
import type { Attempt, HttpRequest, RelayConnection } from "./http_exchange.ts";
import { Http2Stream } from "./http2_stream.ts";
import {
  DEFAULT_WINDOW,
  ErrorCode,
  Flag,
  Frame,
  frame,
  HeaderBlocks,
  headerFrames,
  MAX_HEADER_LIST,
  MAX_WINDOW,
  OUR_MAX_FRAME,
  parseFrameHeader,
  PREFACE,
  readSettings,
  readU32,
  RECEIVE_WINDOW,
  Setting,
  settingsPayload,
  u32,
  unpad,
} from "./http2_frames.ts";

export interface Http2Options {
  /** `:authority`: host, and the port when it is not the scheme's default. */
  authority: string;
}

export class Http2Connection implements RelayConnection {
  readonly protocol = "h2";
  #conn: Deno.Conn;
  #reader: ConnReader;
  #options: Http2Options;
  #decoder = new HpackDecoder({ maxTableSize: 4096, maxHeaderListSize: MAX_HEADER_LIST });
  #writes: Promise<void> = Promise.resolve();
  #nextStream = 1;
  #streams = new Map<number, Http2Stream>();
  #peerMaxFrame = 16_384;
  #peerInitialWindow = DEFAULT_WINDOW;
  #connectionSendWindow = DEFAULT_WINDOW;
  #connectionReceived = 0;
  #windowWaiters: (() => void)[] = [];
  /** Set by GOAWAY: the connection takes no new stream. */
  #goingAway = false;
  #closed = false;
  #closedWhy = "";
  #idleSince = Date.now();
  #blocks = new HeaderBlocks();

  constructor(conn: Deno.Conn, options: Http2Options) {
    this.#conn = conn;
    this.#reader = new ConnReader(conn);
    this.#options = options;
    const settings = settingsPayload([
      [Setting.ENABLE_PUSH, 0],
      [Setting.INITIAL_WINDOW_SIZE, RECEIVE_WINDOW],
      [Setting.MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST],
      [Setting.HEADER_TABLE_SIZE, 4096],
    ]);
    const windowUpdate = frame(Frame.WINDOW_UPDATE, 0, 0, u32(RECEIVE_WINDOW - DEFAULT_WINDOW));
    void this.#send(concat(PREFACE, frame(Frame.SETTINGS, 0, 0, settings), windowUpdate));
    void this.#readLoop();
  }

  get usable(): boolean {
    return !this.#closed && !this.#goingAway && this.#streams.size === 0 && this.#nextStream < MAX_WINDOW;
  }

  get idleSince(): number {
    return this.#idleSince;
  }

  close(): void {
    this.#goAway(ErrorCode.NO_ERROR, "closed");
  }

  exchange(request: HttpRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt> {
    if (!this.usable) {
      return Promise.resolve({ ok: false, unsent: true, detail: "the connection was closed" });
    }
    const id = this.#nextStream;
    this.#nextStream += 2;
    return new Promise<Attempt>((resolve) => {
      const onAbort = () => {
        void this.#send(frame(Frame.RST_STREAM, 0, id, u32(ErrorCode.CANCEL)));
        stream.end({ ok: false, unsent: false, detail: "cancelled" });
      };
      const stream = new Http2Stream(id, this.#peerInitialWindow, maxAnswerBytes, (attempt) => {
        this.#streams.delete(id);
        this.#idleSince = Date.now();
        signal.removeEventListener("abort", onAbort);
        resolve(attempt);
      });
      signal.addEventListener("abort", onAbort, { once: true });
      this.#streams.set(id, stream);
      this.#writeRequest(stream, request).catch(() => {
        stream.end({ ok: false, unsent: true, detail: this.#closedWhy || "the connection closed" });
      });
    });
  }

  async #writeRequest(stream: Http2Stream, request: HttpRequest): Promise<void> {
    const fields: [string, string][] = [
      [":method", "POST"],
      [":scheme", "https"],
      [":authority", this.#options.authority],
      [":path", request.target],
    ];
    for (const [name, value] of Object.entries(request.headers)) fields.push([name.toLowerCase(), value]);
    fields.push(["content-length", String(request.body.length)]);
    const block = encodeHeaders(fields);
    await this.#send(
      concat(...headerFrames(stream.id, block, this.#peerMaxFrame, request.body.length === 0)),
    );
    for (let at = 0; at < request.body.length;) {
      const room = await this.#sendRoom(stream);
      if (stream.finished) return;
      const piece = request.body.subarray(at, at + Math.min(room, this.#peerMaxFrame));
      at += piece.length;
      stream.sendWindow -= piece.length;
      this.#connectionSendWindow -= piece.length;
      const last = at >= request.body.length;
      await this.#send(frame(Frame.DATA, last ? Flag.END_STREAM : 0, stream.id, piece));
    }
  }

  /** Waits until the stream and the connection both allow sending, and says how much. */
  async #sendRoom(stream: Http2Stream): Promise<number> {
    const room = () => Math.min(stream.sendWindow, this.#connectionSendWindow);
    while (!stream.finished && !this.#closed && room() <= 0) {
      await new Promise<void>((resolve) => this.#windowWaiters.push(resolve));
    }
    if (this.#closed) throw new Error(this.#closedWhy);
    return room();
  }

  #wakeSenders(): void {
    const waiters = this.#windowWaiters;
    this.#windowWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Frames leave in order, one write at a time. */
  #send(bytes: Uint8Array): Promise<void> {
    const write = this.#writes.then(async () => {
      if (this.#closed) throw new Error(this.#closedWhy || "the connection closed");
      await writeAll(this.#conn, bytes);
    });
    this.#writes = write.catch(() => {});
    return write;
  }

  async #readLoop(): Promise<void> {
    try {
      while (await this.#reader.want(9)) {
        const { length, type, flags, stream } = parseFrameHeader(this.#reader.take(9));
        if (length > OUR_MAX_FRAME) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, "a frame over 16 KiB");
        if (!await this.#reader.want(length)) break;
        this.#onFrame(type, flags, stream, this.#reader.take(length));
        if (this.#closed) return;
      }
      const cause = this.#reader.error?.message;
      this.#shut(`the relay closed the connection${cause ? ` (${cause})` : ""}`);
    } catch (error) {
      if (error instanceof HpackError) {
        return this.#fail(ErrorCode.COMPRESSION_ERROR, `the relay's headers: ${error.message}`);
      }
      this.#shut(`the connection failed (${(error as Error).message})`);
    }
  }

  #onFrame(type: number, flags: number, id: number, payload: Uint8Array): void {
    if (this.#blocks.open && type !== Frame.CONTINUATION) {
      return this.#fail(ErrorCode.PROTOCOL_ERROR, "a header block was cut");
    }
    switch (type) {
      case Frame.DATA:
        return this.#onData(flags, id, payload);
      case Frame.HEADERS:
      case Frame.CONTINUATION:
        return this.#onBlockFrame(type, flags, id, payload);
      case Frame.RST_STREAM:
        return this.#onReset(id, payload);
      case Frame.SETTINGS:
        return this.#onSettings(flags, payload);
      case Frame.PING:
        if (!(flags & Flag.ACK)) void this.#send(frame(Frame.PING, Flag.ACK, 0, payload));
        return;
      case Frame.GOAWAY:
        return this.#onGoaway(payload);
      case Frame.WINDOW_UPDATE:
        return this.#onWindowUpdate(id, payload);
      case Frame.PUSH_PROMISE:
        return this.#fail(ErrorCode.PROTOCOL_ERROR, "the relay pushed though push is off");
    }
    // Any other type is ignored, as the protocol says.
  }

  #onData(flags: number, id: number, payload: Uint8Array): void {
    const data = unpad(flags, payload);
    if (data === undefined) return this.#fail(ErrorCode.PROTOCOL_ERROR, "a malformed DATA frame");
    // Give back what was read, so neither window ever stalls the relay.
    this.#connectionReceived += payload.length;
    if (this.#connectionReceived >= RECEIVE_WINDOW / 2) {
      void this.#send(frame(Frame.WINDOW_UPDATE, 0, 0, u32(this.#connectionReceived)));
      this.#connectionReceived = 0;
    }
    const stream = this.#streams.get(id);
    if (!stream) return;
    if (!stream.answered) return this.#fail(ErrorCode.PROTOCOL_ERROR, "the relay sent data before headers");
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if (stream.onData(data, endStream) === "too-large") return this.#reset(id, ErrorCode.CANCEL);
    stream.receivedSinceUpdate += payload.length;
    if (!endStream && stream.receivedSinceUpdate >= RECEIVE_WINDOW / 2) {
      void this.#send(frame(Frame.WINDOW_UPDATE, 0, id, u32(stream.receivedSinceUpdate)));
      stream.receivedSinceUpdate = 0;
    }
  }

  /** HEADERS and CONTINUATION frames, joined into blocks. */
  #onBlockFrame(frameType: number, flags: number, id: number, payload: Uint8Array): void {
    const result = frameType === Frame.HEADERS
      ? this.#blocks.headers(flags, id, payload)
      : this.#blocks.continuation(flags, id, payload);
    if (typeof result === "string") return this.#fail(ErrorCode.PROTOCOL_ERROR, result);
    if (result) this.#onHeaderBlock(id, result.block, result.endStream);
  }

  /** A whole header block: decoded even for a stream no longer tracked, to keep HPACK's table in step. */
  #onHeaderBlock(id: number, block: Uint8Array, endStream: boolean): void {
    const fields = this.#decoder.decode(block);
    const verdict = this.#streams.get(id)?.onFields(fields, endStream);
    if (verdict === "no-status") {
      return this.#fail(ErrorCode.PROTOCOL_ERROR, "the relay's answer has no :status");
    }
    // A malformed answer is the stream's error, not the connection's (RFC 9113, 8.1.1).
    if (verdict === "malformed") this.#reset(id, ErrorCode.PROTOCOL_ERROR);
  }

  #reset(id: number, code: number): void {
    void this.#send(frame(Frame.RST_STREAM, 0, id, u32(code)));
  }

  #onReset(id: number, payload: Uint8Array): void {
    if (payload.length !== 4) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, "a malformed RST_STREAM");
    const code = readU32(payload, 0);
    // REFUSED_STREAM promises the stream was not processed (RFC 9113, 8.7).
    this.#streams.get(id)?.end({
      ok: false,
      unsent: code === ErrorCode.REFUSED_STREAM,
      detail: `the relay reset the request (HTTP/2 error ${code})`,
    });
  }

  #onSettings(flags: number, payload: Uint8Array): void {
    if (flags & Flag.ACK) return;
    const settings = readSettings(payload);
    if (typeof settings === "string") return this.#fail(ErrorCode.PROTOCOL_ERROR, settings);
    if (settings.initialWindow !== undefined) {
      // A change applies to every open stream's window (RFC 9113, 6.9.2).
      const change = settings.initialWindow - this.#peerInitialWindow;
      for (const stream of this.#streams.values()) stream.sendWindow += change;
      this.#peerInitialWindow = settings.initialWindow;
    }
    if (settings.maxFrame !== undefined) this.#peerMaxFrame = settings.maxFrame;
    void this.#send(frame(Frame.SETTINGS, Flag.ACK, 0, new Uint8Array()));
    this.#wakeSenders();
  }

  #onGoaway(payload: Uint8Array): void {
    if (payload.length < 8) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, "a malformed GOAWAY");
    const last = readU32(payload, 0) & 0x7fffffff;
    this.#goingAway = true;
    // Streams above the last one the relay will process were not processed (RFC 9113, 6.8).
    for (const stream of [...this.#streams.values()]) {
      if (stream.id > last) {
        stream.end({ ok: false, unsent: true, detail: "the relay is closing the connection" });
      }
    }
  }

  #onWindowUpdate(id: number, payload: Uint8Array): void {
    if (payload.length !== 4) return this.#fail(ErrorCode.FRAME_SIZE_ERROR, "a malformed WINDOW_UPDATE");
    const increment = readU32(payload, 0) & 0x7fffffff;
    if (id === 0) this.#connectionSendWindow += increment;
    else {
      const stream = this.#streams.get(id);
      if (stream) stream.sendWindow += increment;
    }
    this.#wakeSenders();
  }

  /** A connection error: say why to the relay, then close. */
  #fail(code: number, why: string): void {
    this.#goAway(code, `the relay broke HTTP/2: ${why}`);
  }

  /** A GOAWAY after what is already queued, as the protocol asks, then the end of the connection. */
  #goAway(code: number, why: string): void {
    if (this.#closed) return;
    const goaway = frame(Frame.GOAWAY, 0, 0, concat(u32(0), u32(code)));
    this.#writes = this.#writes.then(() => writeAll(this.#conn, goaway)).catch(() => {});
    this.#shut(why);
  }

  /**
   * Ends the connection; every stream still open ends with it, as possibly processed. The socket
   * closes once queued frames are out, or after a second if the relay stopped reading.
   */
  #shut(why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedWhy = why;
    for (const stream of [...this.#streams.values()]) stream.end({ ok: false, unsent: false, detail: why });
    this.#wakeSenders();
    const closeSocket = () => {
      clearTimeout(timer);
      try {
        this.#conn.close();
      } catch {
        // already closed
      }
    };
    const timer = setTimeout(closeSocket, 1_000);
    void this.#writes.finally(closeSocket);
  }
}
