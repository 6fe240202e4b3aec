// HTTP/2 (RFC 9113) on one kept connection to the relay, as its client: the
// preface and settings, one stream per request, flow control both ways, and
// the server's GOAWAY and RST_STREAM read for whether a request was
// processed. Enough of the protocol for a client that sends POSTs and reads
// whole answers; no server push (disabled in our settings), no priorities.

import { ConnReader } from "./conn_reader.ts";
import { encodeHeaders, HpackDecoder, HpackError, isValidFieldName } from "./hpack.ts";
import { concat, writeAll } from "./bytes.ts";
import { type Attempt, type HttpRequest, type RelayConnection, tooLarge } from "./http_exchange.ts";

const PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** Frame types (RFC 9113, 6). */
const Frame = {
  DATA: 0x0,
  HEADERS: 0x1,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PUSH_PROMISE: 0x5,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

const END_STREAM = 0x1, ACK = 0x1, END_HEADERS = 0x4, PADDED = 0x8, PRIORITY = 0x20;
const NO_ERROR = 0x0, PROTOCOL_ERROR = 0x1, REFUSED_STREAM = 0x7, CANCEL = 0x8, COMPRESSION_ERROR = 0x9;
const FRAME_SIZE_ERROR = 0x6, FLOW_CONTROL_ERROR = 0x3;

const SETTINGS_HEADER_TABLE_SIZE = 0x1, SETTINGS_ENABLE_PUSH = 0x2, SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
const SETTINGS_MAX_FRAME_SIZE = 0x5, SETTINGS_MAX_HEADER_LIST_SIZE = 0x6;

const DEFAULT_WINDOW = 65_535;
const MAX_WINDOW = 2 ** 31 - 1;
/** Our receive window per stream and for the connection: an answer is read without waiting on us. */
const RECEIVE_WINDOW = 16 * 1024 * 1024;
const OUR_MAX_FRAME = 16_384;
const MAX_HEADER_LIST = 64 * 1024;

/** A stream this client opened, from HEADERS to its end. */
interface Stream {
  id: number;
  status?: number;
  headers: Map<string, string>;
  parts: string[];
  decoder: TextDecoder;
  size: number;
  limit: number;
  sendWindow: number;
  receivedSinceUpdate: number;
  done: (attempt: Attempt) => void;
  finished: boolean;
}

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
  #streams = new Map<number, Stream>();
  #peerMaxFrame = 16_384;
  #peerInitialWindow = DEFAULT_WINDOW;
  #connectionSendWindow = DEFAULT_WINDOW;
  #connectionReceived = 0;
  #windowWaiters: (() => void)[] = [];
  /** Set by GOAWAY: streams above it were not processed. */
  #lastProcessed: number | undefined;
  #closed = false;
  #closedWhy = "";
  #idleSince = Date.now();
  /** A header block being read across CONTINUATION frames. */
  #continuing: { stream: number; fragments: Uint8Array[]; endStream: boolean } | undefined;

  constructor(conn: Deno.Conn, options: Http2Options) {
    this.#conn = conn;
    this.#reader = new ConnReader(conn);
    this.#options = options;
    const settings = settingsPayload([
      [SETTINGS_ENABLE_PUSH, 0],
      [SETTINGS_INITIAL_WINDOW_SIZE, RECEIVE_WINDOW],
      [SETTINGS_MAX_HEADER_LIST_SIZE, MAX_HEADER_LIST],
      [SETTINGS_HEADER_TABLE_SIZE, 4096],
    ]);
    const windowUpdate = u32(RECEIVE_WINDOW - DEFAULT_WINDOW);
    void this.#send(
      concat(PREFACE, frame(Frame.SETTINGS, 0, 0, settings), frame(Frame.WINDOW_UPDATE, 0, 0, windowUpdate)),
    );
    void this.#readLoop();
  }

  get usable(): boolean {
    return !this.#closed && this.#lastProcessed === undefined && this.#streams.size === 0 &&
      this.#nextStream < MAX_WINDOW;
  }

  get idleSince(): number {
    return this.#idleSince;
  }

  close(): void {
    if (this.#closed) return;
    // A GOAWAY first, as the protocol asks; the socket is closed whether or not it leaves.
    void this.#send(frame(Frame.GOAWAY, 0, 0, concat(u32(0), u32(NO_ERROR)))).finally(() =>
      this.#shut("closed")
    );
  }

  exchange(request: HttpRequest, signal: AbortSignal, maxAnswerBytes: number): Promise<Attempt> {
    if (!this.usable) {
      return Promise.resolve({ ok: false, unsent: true, detail: "the connection was closed" });
    }
    const id = this.#nextStream;
    this.#nextStream += 2;
    return new Promise<Attempt>((resolve) => {
      const stream: Stream = {
        id,
        headers: new Map(),
        parts: [],
        decoder: new TextDecoder(),
        size: 0,
        limit: maxAnswerBytes,
        sendWindow: this.#peerInitialWindow,
        receivedSinceUpdate: 0,
        finished: false,
        done: (attempt) => {
          if (stream.finished) return;
          stream.finished = true;
          this.#streams.delete(id);
          this.#idleSince = Date.now();
          signal.removeEventListener("abort", onAbort);
          resolve(attempt);
        },
      };
      const onAbort = () => {
        void this.#send(frame(Frame.RST_STREAM, 0, id, u32(CANCEL)));
        stream.done({ ok: false, unsent: false, detail: "cancelled" });
      };
      signal.addEventListener("abort", onAbort, { once: true });
      this.#streams.set(id, stream);
      this.#writeRequest(stream, request).catch(() => {
        stream.done({ ok: false, unsent: true, detail: this.#closedWhy || "the connection closed" });
      });
    });
  }

  async #writeRequest(stream: Stream, request: HttpRequest): Promise<void> {
    const fields: [string, string][] = [
      [":method", "POST"],
      [":scheme", "https"],
      [":authority", this.#options.authority],
      [":path", request.target],
    ];
    for (const [name, value] of Object.entries(request.headers)) fields.push([name.toLowerCase(), value]);
    fields.push(["content-length", String(request.body.length)]);
    const block = encodeHeaders(fields);
    const empty = request.body.length === 0;
    const frames: Uint8Array[] = [];
    for (let at = 0; at < block.length || at === 0; at += this.#peerMaxFrame) {
      const piece = block.subarray(at, at + this.#peerMaxFrame);
      const last = at + this.#peerMaxFrame >= block.length;
      const flags = (last ? END_HEADERS : 0) | (at === 0 && empty ? END_STREAM : 0);
      frames.push(frame(at === 0 ? Frame.HEADERS : Frame.CONTINUATION, flags, stream.id, piece));
    }
    await this.#send(concat(...frames));
    for (let at = 0; at < request.body.length;) {
      const room = await this.#sendRoom(stream);
      if (stream.finished) return;
      const piece = request.body.subarray(at, at + Math.min(room, this.#peerMaxFrame));
      at += piece.length;
      stream.sendWindow -= piece.length;
      this.#connectionSendWindow -= piece.length;
      await this.#send(frame(Frame.DATA, at >= request.body.length ? END_STREAM : 0, stream.id, piece));
    }
  }

  /** Waits until the stream and the connection both allow sending, and says how much. */
  async #sendRoom(stream: Stream): Promise<number> {
    while (
      !stream.finished && !this.#closed && Math.min(stream.sendWindow, this.#connectionSendWindow) <= 0
    ) {
      await new Promise<void>((resolve) => this.#windowWaiters.push(resolve));
    }
    if (this.#closed) throw new Error(this.#closedWhy);
    return Math.min(stream.sendWindow, this.#connectionSendWindow);
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
      for (;;) {
        if (!await this.#reader.want(9)) break;
        const header = this.#reader.take(9);
        const length = (header[0] << 16) | (header[1] << 8) | header[2];
        const type = header[3], flags = header[4];
        const stream = ((header[5] & 0x7f) << 24 | header[6] << 16 | header[7] << 8 | header[8]) >>> 0;
        if (length > OUR_MAX_FRAME) return this.#fail(FRAME_SIZE_ERROR, "the relay sent a frame over 16 KiB");
        if (!await this.#reader.want(length)) break;
        this.#onFrame(type, flags, stream, this.#reader.take(length));
        if (this.#closed) return;
      }
      const cause = this.#reader.error?.message;
      this.#shut(`the relay closed the connection${cause ? ` (${cause})` : ""}`);
    } catch (error) {
      if (error instanceof HpackError) {
        return this.#fail(COMPRESSION_ERROR, `the relay's headers: ${error.message}`);
      }
      this.#shut(`the connection failed (${(error as Error).message})`);
    }
  }

  #onFrame(type: number, flags: number, id: number, payload: Uint8Array): void {
    if (this.#continuing && type !== Frame.CONTINUATION) {
      return this.#fail(PROTOCOL_ERROR, "a header block was cut");
    }
    switch (type) {
      case Frame.DATA:
        return this.#onData(flags, id, payload);
      case Frame.HEADERS:
        return this.#onHeaders(flags, id, payload);
      case Frame.CONTINUATION:
        return this.#onContinuation(flags, id, payload);
      case Frame.RST_STREAM:
        return this.#onReset(id, payload);
      case Frame.SETTINGS:
        return this.#onSettings(flags, payload);
      case Frame.PING:
        if (!(flags & ACK)) void this.#send(frame(Frame.PING, ACK, 0, payload));
        return;
      case Frame.GOAWAY:
        return this.#onGoaway(payload);
      case Frame.WINDOW_UPDATE:
        return this.#onWindowUpdate(id, payload);
      case Frame.PUSH_PROMISE:
        return this.#fail(PROTOCOL_ERROR, "the relay pushed though push is off");
    }
    // Any other type is ignored, as the protocol says.
  }

  #onData(flags: number, id: number, payload: Uint8Array): void {
    const data = unpad(flags, payload);
    if (data === undefined) return this.#fail(PROTOCOL_ERROR, "the relay sent a malformed DATA frame");
    this.#connectionReceived += payload.length;
    // Give back what was read, so neither window ever stalls the relay.
    if (this.#connectionReceived >= RECEIVE_WINDOW / 2) {
      void this.#send(frame(Frame.WINDOW_UPDATE, 0, 0, u32(this.#connectionReceived)));
      this.#connectionReceived = 0;
    }
    const stream = this.#streams.get(id);
    if (!stream) return;
    if (stream.status === undefined) return this.#fail(PROTOCOL_ERROR, "the relay sent data before headers");
    stream.size += data.length;
    if (stream.size > stream.limit) {
      void this.#send(frame(Frame.RST_STREAM, 0, id, u32(CANCEL)));
      return stream.done(tooLarge(stream.limit));
    }
    stream.parts.push(stream.decoder.decode(data, { stream: true }));
    stream.receivedSinceUpdate += payload.length;
    if (!(flags & END_STREAM) && stream.receivedSinceUpdate >= RECEIVE_WINDOW / 2) {
      void this.#send(frame(Frame.WINDOW_UPDATE, 0, id, u32(stream.receivedSinceUpdate)));
      stream.receivedSinceUpdate = 0;
    }
    if (flags & END_STREAM) this.#finish(stream);
  }

  #onHeaders(flags: number, id: number, payload: Uint8Array): void {
    let fragment = unpad(flags, payload);
    if (fragment === undefined) return this.#fail(PROTOCOL_ERROR, "the relay sent a malformed HEADERS frame");
    if (flags & PRIORITY) fragment = fragment.subarray(5);
    const endStream = (flags & END_STREAM) !== 0;
    if (flags & END_HEADERS) return this.#onHeaderBlock(id, fragment, endStream);
    this.#continuing = { stream: id, fragments: [fragment], endStream };
  }

  #onContinuation(flags: number, id: number, payload: Uint8Array): void {
    const block = this.#continuing;
    if (!block || block.stream !== id) return this.#fail(PROTOCOL_ERROR, "an unexpected CONTINUATION frame");
    block.fragments.push(payload);
    if (!(flags & END_HEADERS)) return;
    this.#continuing = undefined;
    this.#onHeaderBlock(id, concat(...block.fragments), block.endStream);
  }

  /** A whole header block: decoded even for a stream we no longer track, to keep HPACK's table in step. */
  #onHeaderBlock(id: number, block: Uint8Array, endStream: boolean): void {
    const fields = this.#decoder.decode(block);
    const stream = this.#streams.get(id);
    if (!stream) return;
    if (!fields.every(([name]) => isValidFieldName(name))) {
      // A malformed answer is the stream's error, not the connection's (RFC 9113, 8.1.1).
      void this.#send(frame(Frame.RST_STREAM, 0, id, u32(PROTOCOL_ERROR)));
      return stream.done({
        ok: false,
        unsent: false,
        detail: "the relay's answer has a malformed header name",
      });
    }
    const status = Number(fields.find(([name]) => name === ":status")?.[1]);
    if (stream.status === undefined) {
      if (!Number.isInteger(status)) return this.#fail(PROTOCOL_ERROR, "the relay's answer has no :status");
      if (status >= 100 && status < 200) return; // an interim answer; the real one follows
      stream.status = status;
      for (const [name, value] of fields) if (!name.startsWith(":")) stream.headers.set(name, value);
    }
    // A second block is trailers: nothing in them matters here.
    if (endStream) this.#finish(stream);
  }

  #finish(stream: Stream): void {
    stream.parts.push(stream.decoder.decode());
    stream.done({
      ok: true,
      answer: { status: stream.status!, headers: stream.headers, body: stream.parts.join("") },
    });
  }

  #onReset(id: number, payload: Uint8Array): void {
    const stream = this.#streams.get(id);
    if (!stream || payload.length !== 4) return;
    const code = readU32(payload, 0);
    // REFUSED_STREAM promises the stream was not processed (RFC 9113, 8.7).
    stream.done({
      ok: false,
      unsent: code === REFUSED_STREAM,
      detail: `the relay reset the request (HTTP/2 error ${code})`,
    });
  }

  #onSettings(flags: number, payload: Uint8Array): void {
    if (flags & ACK) return;
    if (payload.length % 6 !== 0) return this.#fail(FRAME_SIZE_ERROR, "the relay sent malformed settings");
    for (let at = 0; at < payload.length; at += 6) {
      const key = (payload[at] << 8) | payload[at + 1];
      const value = readU32(payload, at + 2);
      if (key === SETTINGS_INITIAL_WINDOW_SIZE) {
        if (value > MAX_WINDOW) {
          return this.#fail(FLOW_CONTROL_ERROR, "the relay's window setting is too large");
        }
        // A change applies to every open stream's window (RFC 9113, 6.9.2).
        for (const stream of this.#streams.values()) stream.sendWindow += value - this.#peerInitialWindow;
        this.#peerInitialWindow = value;
      } else if (key === SETTINGS_MAX_FRAME_SIZE) {
        if (value < 16_384 || value > 16_777_215) {
          return this.#fail(PROTOCOL_ERROR, "the relay's frame size is invalid");
        }
        this.#peerMaxFrame = value;
      }
    }
    void this.#send(frame(Frame.SETTINGS, ACK, 0, new Uint8Array()));
    this.#wakeSenders();
  }

  #onGoaway(payload: Uint8Array): void {
    if (payload.length < 8) return this.#fail(FRAME_SIZE_ERROR, "the relay sent a malformed GOAWAY");
    const last = readU32(payload, 0) & 0x7fffffff;
    this.#lastProcessed = Math.min(last, this.#lastProcessed ?? last);
    // Streams above the last one the relay will process were not processed (RFC 9113, 6.8).
    for (const stream of [...this.#streams.values()]) {
      if (stream.id > last) {
        stream.done({ ok: false, unsent: true, detail: "the relay is closing the connection (GOAWAY)" });
      }
    }
  }

  #onWindowUpdate(id: number, payload: Uint8Array): void {
    if (payload.length !== 4) return this.#fail(FRAME_SIZE_ERROR, "the relay sent a malformed WINDOW_UPDATE");
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
    void this.#send(frame(Frame.GOAWAY, 0, 0, concat(u32(0), u32(code))));
    this.#shut(why);
  }

  /** Ends the connection; every stream still open ends with it, as possibly processed. */
  #shut(why: string): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closedWhy = why;
    for (const stream of [...this.#streams.values()]) stream.done({ ok: false, unsent: false, detail: why });
    this.#wakeSenders();
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
  }
}

function frame(type: number, flags: number, stream: number, payload: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(9 + payload.length);
  bytes[0] = payload.length >>> 16;
  bytes[1] = (payload.length >>> 8) & 0xff;
  bytes[2] = payload.length & 0xff;
  bytes[3] = type;
  bytes[4] = flags;
  bytes.set(u32(stream & 0x7fffffff), 5);
  bytes.set(payload, 9);
  return bytes;
}

function settingsPayload(settings: [number, number][]): Uint8Array {
  const bytes = new Uint8Array(settings.length * 6);
  settings.forEach(([key, value], i) => {
    bytes[i * 6] = key >>> 8;
    bytes[i * 6 + 1] = key & 0xff;
    bytes.set(u32(value), i * 6 + 2);
  });
  return bytes;
}

/** A frame's payload without its padding; undefined when the padding is impossible. */
function unpad(flags: number, payload: Uint8Array): Uint8Array | undefined {
  if (!(flags & PADDED)) return payload;
  if (payload.length < 1 || payload[0] >= payload.length) return undefined;
  return payload.subarray(1, payload.length - payload[0]);
}

function u32(value: number): Uint8Array {
  return Uint8Array.of(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}
