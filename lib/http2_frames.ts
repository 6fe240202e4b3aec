// HTTP/2 framing (RFC 9113, 4 and 6): the frame types, flags, error codes and
// settings a client uses, and building and reading frames. Pure.

export const PREFACE = new TextEncoder().encode("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

/** Frame types (6). */
export const Frame = {
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

export const Flag = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** Error codes (7). */
export const ErrorCode = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  FLOW_CONTROL_ERROR: 0x3,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
} as const;

/** Settings (6.5.2). */
export const Setting = {
  HEADER_TABLE_SIZE: 0x1,
  ENABLE_PUSH: 0x2,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

export const DEFAULT_WINDOW = 65_535;
export const MAX_WINDOW = 2 ** 31 - 1;
/** Our receive window per stream and for the connection: an answer is read without waiting on us. */
export const RECEIVE_WINDOW = 16 * 1024 * 1024;
/** The largest frame we accept (the protocol's default; we never raise it). */
export const OUR_MAX_FRAME = 16_384;
export const MAX_HEADER_LIST = 64 * 1024;

/** A frame header's fields (4.1). */
export interface FrameHeader {
  length: number;
  type: number;
  flags: number;
  stream: number;
}

export function parseFrameHeader(header: Uint8Array): FrameHeader {
  return {
    length: (header[0] << 16) | (header[1] << 8) | header[2],
    type: header[3],
    flags: header[4],
    stream: readU32(header, 5) & 0x7fffffff,
  };
}

export function frame(type: number, flags: number, stream: number, payload: Uint8Array): Uint8Array {
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

/** A header block as HEADERS then CONTINUATION frames of at most `maxFrame` bytes each. */
export function headerFrames(
  stream: number,
  block: Uint8Array,
  maxFrame: number,
  endStream: boolean,
): Uint8Array[] {
  const frames: Uint8Array[] = [];
  for (let at = 0; at < block.length || at === 0; at += maxFrame) {
    const last = at + maxFrame >= block.length;
    const flags = (last ? Flag.END_HEADERS : 0) | (at === 0 && endStream ? Flag.END_STREAM : 0);
    frames.push(
      frame(at === 0 ? Frame.HEADERS : Frame.CONTINUATION, flags, stream, block.subarray(at, at + maxFrame)),
    );
  }
  return frames;
}

export function settingsPayload(settings: [number, number][]): Uint8Array {
  const bytes = new Uint8Array(settings.length * 6);
  settings.forEach(([key, value], i) => {
    bytes[i * 6] = key >>> 8;
    bytes[i * 6 + 1] = key & 0xff;
    bytes.set(u32(value), i * 6 + 2);
  });
  return bytes;
}

/** A frame's payload without its padding; undefined when the padding is impossible. */
export function unpad(flags: number, payload: Uint8Array): Uint8Array | undefined {
  if (!(flags & Flag.PADDED)) return payload;
  if (payload.length < 1 || payload[0] >= payload.length) return undefined;
  return payload.subarray(1, payload.length - payload[0]);
}

export function u32(value: number): Uint8Array {
  return Uint8Array.of(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
}

export function readU32(bytes: Uint8Array, at: number): number {
  return ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
}

/** The settings a client acts on, read from a SETTINGS payload; a string says what is wrong. */
export function readSettings(payload: Uint8Array): { initialWindow?: number; maxFrame?: number } | string {
  if (payload.length % 6 !== 0) return "malformed settings";
  const settings: { initialWindow?: number; maxFrame?: number } = {};
  for (let at = 0; at < payload.length; at += 6) {
    const key = (payload[at] << 8) | payload[at + 1];
    const value = readU32(payload, at + 2);
    if (key === Setting.INITIAL_WINDOW_SIZE) {
      if (value > MAX_WINDOW) return "a window setting too large";
      settings.initialWindow = value;
    } else if (key === Setting.MAX_FRAME_SIZE) {
      if (value < 16_384 || value > 16_777_215) return "a bad frame size";
      settings.maxFrame = value;
    }
  }
  return settings;
}

/** A header block arriving as HEADERS then CONTINUATION frames (4.3), joined whole. */
export class HeaderBlocks {
  #pending: { stream: number; fragments: Uint8Array[]; size: number; endStream: boolean } | undefined;

  /** Whether a block is open: only its CONTINUATION may come next. */
  get open(): boolean {
    return this.#pending !== undefined;
  }

  /** A HEADERS frame: the whole block when it ends here, else undefined; a string says what is wrong. */
  headers(
    flags: number,
    stream: number,
    payload: Uint8Array,
  ): { block: Uint8Array; endStream: boolean } | string | undefined {
    let fragment = unpad(flags, payload);
    if (fragment === undefined) return "a malformed HEADERS frame";
    if (flags & Flag.PRIORITY) fragment = fragment.subarray(5);
    const endStream = (flags & Flag.END_STREAM) !== 0;
    if (flags & Flag.END_HEADERS) return { block: fragment, endStream };
    this.#pending = { stream, fragments: [fragment], size: fragment.length, endStream };
    return undefined;
  }

  /** A CONTINUATION frame, likewise; a block is bounded, so a relay cannot grow it without end. */
  continuation(
    flags: number,
    stream: number,
    payload: Uint8Array,
  ): { block: Uint8Array; endStream: boolean } | string | undefined {
    const pending = this.#pending;
    if (!pending || pending.stream !== stream) return "a stray CONTINUATION";
    pending.fragments.push(payload);
    pending.size += payload.length;
    if (pending.size > 2 * MAX_HEADER_LIST) return "a header block too large";
    if (!(flags & Flag.END_HEADERS)) return undefined;
    this.#pending = undefined;
    const block = new Uint8Array(pending.size);
    let at = 0;
    for (const fragment of pending.fragments) {
      block.set(fragment, at);
      at += fragment.length;
    }
    return { block, endStream: pending.endStream };
  }
}
