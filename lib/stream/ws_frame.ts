// WebSocket framing (RFC 6455, 5): the client's frames, always masked, and a
// strict, incremental reading of the relay's frames into whole messages and
// control frames. Pure: bytes in, in any chunking, events out, or a
// WsProtocolError naming the rule broken and the close code to answer with.

import { concat } from "../transport/bytes.ts";
import { parseClosePayload } from "./ws_close.ts";

export const Opcode = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

/** A message is at most this large unless told otherwise: 1 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024;
/** A control frame's payload (RFC 6455, 5.5). */
export const MAX_CONTROL_PAYLOAD = 125;

/** The relay broke the protocol; `code` is what the close frame we answer with carries. */
export class WsProtocolError extends Error {
  constructor(message: string, readonly code: 1002 | 1007 | 1009) {
    super(message);
  }
}

/** What one whole frame, or a whole message, from the relay amounts to. */
export type Received =
  | { type: "text"; text: string }
  | { type: "binary"; bytes: Uint8Array }
  | { type: "ping"; payload: Uint8Array }
  | { type: "pong"; payload: Uint8Array }
  | { type: "close"; code?: number; reason: string };

export interface FrameHeader {
  fin: boolean;
  opcode: number;
  /** The payload's length, as declared. */
  length: number;
  /** How many bytes the header took (2 to 14). */
  size: number;
}

/** A fresh masking key from the runtime's CSPRNG (RFC 6455, 5.3: unpredictable per frame). */
export function newMaskKey(): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(4));
}

/** One whole client frame: FIN set, masked with `maskKey`, the shortest length encoding. */
export function encodeFrame(opcode: number, payload: Uint8Array, maskKey = newMaskKey()): Uint8Array {
  if (opcode >= 8 && payload.length > MAX_CONTROL_PAYLOAD) {
    throw new RangeError(`a control frame's payload is at most 125 bytes, not ${payload.length}`);
  }
  if (maskKey.length !== 4) throw new RangeError("a masking key is 4 bytes");
  const length = payload.length;
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const frame = new Uint8Array(2 + extra + 4 + length);
  const view = new DataView(frame.buffer);
  frame[0] = 0x80 | opcode;
  if (extra === 0) frame[1] = 0x80 | length;
  else if (extra === 2) {
    frame[1] = 0x80 | 126;
    view.setUint16(2, length);
  } else {
    frame[1] = 0x80 | 127;
    view.setBigUint64(2, BigInt(length));
  }
  const at = 2 + extra;
  frame.set(maskKey, at);
  for (let i = 0; i < length; i++) frame[at + 4 + i] = payload[i] ^ maskKey[i & 3];
  return frame;
}

const KNOWN_OPCODES = new Set<number>(Object.values(Opcode));

/**
 * A server frame's header from the bytes at hand: undefined until they are all
 * there; a rule it breaks is refused as soon as the bytes that break it arrive.
 */
export function parseHeader(bytes: Uint8Array): FrameHeader | undefined {
  if (bytes.length < 2) return undefined;
  const fin = (bytes[0] & 0x80) !== 0;
  const opcode = bytes[0] & 0x0f;
  if (bytes[0] & 0x70) {
    throw new WsProtocolError("the relay set a reserved bit in a frame, and no extension was agreed", 1002);
  }
  if (!KNOWN_OPCODES.has(opcode)) {
    throw new WsProtocolError(`the relay sent a frame with the unknown opcode ${opcode}`, 1002);
  }
  if (bytes[1] & 0x80) {
    throw new WsProtocolError("the relay sent a masked frame; a server's frames are never masked", 1002);
  }
  const short = bytes[1] & 0x7f;
  if (opcode >= 8) {
    if (!fin) throw new WsProtocolError(`the relay sent a fragmented ${controlName(opcode)} frame`, 1002);
    if (short > MAX_CONTROL_PAYLOAD) {
      throw new WsProtocolError(
        `the relay sent a ${controlName(opcode)} frame with more than 125 bytes of payload`,
        1002,
      );
    }
  }
  const size = short === 126 ? 4 : short === 127 ? 10 : 2;
  if (bytes.length < size) return undefined;
  const view = new DataView(bytes.buffer, bytes.byteOffset, size);
  if (short < 126) return { fin, opcode, length: short, size };
  if (short === 126) return { fin, opcode, length: view.getUint16(2), size };
  const long = view.getBigUint64(2);
  if (long >> 63n) throw new WsProtocolError("the relay sent a frame length with its top bit set", 1002);
  // Any length past 2^53 is over every message limit, so the loss of precision never matters.
  return { fin, opcode, length: Number(long), size };
}

function controlName(opcode: number): string {
  return opcode === Opcode.close ? "close" : opcode === Opcode.ping ? "ping" : "pong";
}

/** A size in words: "1 MiB", "64 KiB", "1000 bytes". */
export function sizeWords(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

const EMPTY = new Uint8Array(0);
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A message begun and not yet finished (its first frame had no FIN). */
interface Open {
  opcode: number;
  /** The fragments so far, from 0 to `size`: one buffer, so a thousand tiny fragments cost no more. */
  bytes: Uint8Array;
  size: number;
}

/**
 * The relay's frames, decoded incrementally. Feed bytes with `push`, take
 * events with `next` until it returns undefined, then push more. Holds at most
 * the bytes pushed and not yet decoded, plus the message being assembled, which
 * never passes `maxMessageBytes`: a frame that would take it past is refused as
 * soon as its header is read.
 */
export class MessageDecoder {
  #max: number;
  #chunk: Uint8Array = EMPTY;
  #at = 0;
  #head = new Uint8Array(14);
  #headLength = 0;
  #frame: FrameHeader | undefined;
  #payload: Uint8Array = EMPTY;
  #filled = 0;
  #open: Open | undefined;
  #frames = 0;

  constructor(maxMessageBytes = DEFAULT_MAX_MESSAGE_BYTES) {
    this.#max = maxMessageBytes;
  }

  /** Bytes pushed and not yet decoded. */
  get pending(): number {
    return this.#chunk.length - this.#at;
  }

  /** Whole frames decoded so far, of every kind (a message's fragments each count). */
  get frames(): number {
    return this.#frames;
  }

  /** A message is begun (its first fragment taken) and not yet finished. */
  get messageOpen(): boolean {
    return this.#open !== undefined;
  }

  /** Part of a frame is taken and the rest not yet: a frame is begun and not whole. */
  get midFrame(): boolean {
    return this.#frame !== undefined || this.#headLength > 0;
  }

  push(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.#chunk = this.pending === 0 ? bytes : concat(this.#chunk.subarray(this.#at), bytes);
    this.#at = 0;
  }

  /** The next event; undefined when more bytes are needed. Throws WsProtocolError. */
  next(): Received | undefined {
    for (;;) {
      if (!this.#frame && !this.#readHeader()) return undefined;
      const frame = this.#frame!;
      const take = Math.min(frame.length - this.#filled, this.pending);
      this.#payload.set(this.#chunk.subarray(this.#at, this.#at + take), this.#filled);
      this.#at += take;
      this.#filled += take;
      if (this.#filled < frame.length) return undefined;
      const payload = this.#payload;
      this.#frame = undefined;
      this.#payload = EMPTY;
      this.#frames++;
      const event = this.#complete(frame, payload);
      if (event) return event;
    }
  }

  /** Reads header bytes until the header is whole and checked; false when more bytes are needed. */
  #readHeader(): boolean {
    for (;;) {
      const header = parseHeader(this.#head.subarray(0, this.#headLength));
      if (header) {
        this.#check(header);
        this.#frame = header;
        this.#headLength = 0;
        this.#payload = header.length === 0 ? EMPTY : new Uint8Array(header.length);
        this.#filled = 0;
        return true;
      }
      if (this.pending === 0) return false;
      this.#head[this.#headLength++] = this.#chunk[this.#at++];
    }
  }

  /** The rules a header breaks in the context of the message around it, before any payload is read. */
  #check(header: FrameHeader): void {
    if (header.opcode >= 8) return;
    if (header.opcode === Opcode.continuation && !this.#open) {
      throw new WsProtocolError("the relay sent a continuation frame with no message begun", 1002);
    }
    if (header.opcode !== Opcode.continuation && this.#open) {
      throw new WsProtocolError(
        "the relay began a new message before finishing the one it was sending",
        1002,
      );
    }
    const size = (this.#open?.size ?? 0) + header.length;
    if (size > this.#max) {
      throw new WsProtocolError(
        this.#open
          ? `the relay sent a message of at least ${size} bytes in fragments, over the ${
            sizeWords(this.#max)
          } limit`
          : `the relay sent a ${size}-byte message, over the ${sizeWords(this.#max)} limit`,
        1009,
      );
    }
  }

  /** A whole frame: a control frame's event, a finished message, or nothing yet. */
  #complete(frame: FrameHeader, payload: Uint8Array): Received | undefined {
    switch (frame.opcode) {
      case Opcode.ping:
        return { type: "ping", payload };
      case Opcode.pong:
        return { type: "pong", payload };
      case Opcode.close: {
        const close = parseClosePayload(payload);
        if (!close.ok) throw new WsProtocolError(close.problem, close.answer);
        return { type: "close", code: close.code, reason: close.reason };
      }
    }
    if (frame.fin && !this.#open) return this.#message(frame.opcode, payload);
    const open = this.#open ??= { opcode: frame.opcode, bytes: EMPTY, size: 0 };
    append(open, payload, this.#max);
    if (!frame.fin) return undefined;
    this.#open = undefined;
    return this.#message(open.opcode, open.bytes.subarray(0, open.size));
  }

  #message(opcode: number, whole: Uint8Array): Received {
    if (opcode === Opcode.binary) return { type: "binary", bytes: whole };
    try {
      return { type: "text", text: utf8.decode(whole) };
    } catch {
      throw new WsProtocolError("the relay sent a text message that is not valid UTF-8", 1007);
    }
  }
}

/** Adds a fragment, growing the buffer by doubling up to `limit`, which #check has held `size` to. */
function append(open: Open, payload: Uint8Array, limit: number): void {
  const size = open.size + payload.length;
  if (size > open.bytes.length) {
    const grown = new Uint8Array(Math.min(Math.max(size, open.bytes.length * 2, 1024), limit));
    grown.set(open.bytes.subarray(0, open.size));
    open.bytes = grown;
  }
  open.bytes.set(payload, open.size);
  open.size = size;
}
