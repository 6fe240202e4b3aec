// Websocket peers for the stream tests, written by hand so they can break every rule: server
// frames with any header bits, a reading of the client's (masked) frames, and a loopback TCP
// server that reads the upgrade request and hands the connection to a script.

import { acceptFor } from "../../lib/stream/ws_handshake.ts";
import { closeQuietly, writeAll } from "../support/pipe.ts";

const encoder = new TextEncoder();

export interface FrameSpec {
  opcode: number;
  payload?: Uint8Array | string;
  fin?: boolean;
  /** RSV1-3 as the three bits 0b100, 0b010, 0b001. */
  rsv?: number;
  /** Masks the frame with this key, as no server may. */
  mask?: Uint8Array;
  /** Declares this length instead of the payload's own (the payload is still what is sent). */
  length?: number | bigint;
}

/** One frame as a server (or a rule-breaking one) would write it. */
export function serverFrame(spec: FrameSpec): Uint8Array {
  const payload = typeof spec.payload === "string"
    ? encoder.encode(spec.payload)
    : spec.payload ?? new Uint8Array(0);
  const length = BigInt(spec.length ?? payload.length);
  const head: number[] = [((spec.fin ?? true) ? 0x80 : 0) | ((spec.rsv ?? 0) << 4) | spec.opcode];
  const maskBit = spec.mask ? 0x80 : 0;
  if (length < 126n) head.push(maskBit | Number(length));
  else if (length < 65536n) head.push(maskBit | 126, Number(length >> 8n), Number(length & 0xffn));
  else {
    head.push(maskBit | 127);
    for (let shift = 56n; shift >= 0n; shift -= 8n) head.push(Number((length >> shift) & 0xffn));
  }
  const body = spec.mask ? payload.map((byte, i) => byte ^ spec.mask![i & 3]) : payload;
  if (spec.mask) head.push(...spec.mask);
  const frame = new Uint8Array(head.length + body.length);
  frame.set(head);
  frame.set(body, head.length);
  return frame;
}

/** A close frame's payload: the code, big-endian, then the reason. */
export function closeBody(code: number, reason: string | Uint8Array = ""): Uint8Array {
  const text = typeof reason === "string" ? encoder.encode(reason) : reason;
  const body = new Uint8Array(2 + text.length);
  body[0] = code >> 8;
  body[1] = code & 0xff;
  body.set(text, 2);
  return body;
}

export interface ClientFrame {
  fin: boolean;
  opcode: number;
  masked: boolean;
  payload: Uint8Array;
}

/** The whole frames in `bytes` a client wrote, unmasked (a trailing partial frame is left out). */
export function clientFrames(bytes: Uint8Array): ClientFrame[] {
  const frames: ClientFrame[] = [];
  for (let at = 0; at + 2 <= bytes.length;) {
    const masked = (bytes[at + 1] & 0x80) !== 0;
    let length = bytes[at + 1] & 0x7f;
    let head = 2;
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    if (length === 126) [length, head] = [view.getUint16(at + 2), 4];
    else if (length === 127) [length, head] = [Number(view.getBigUint64(at + 2)), 10];
    const key = masked ? bytes.subarray(at + head, at + head + 4) : undefined;
    const start = at + head + (masked ? 4 : 0);
    if (start + length > bytes.length) break;
    const payload = bytes.slice(start, start + length);
    if (key) { for (let i = 0; i < payload.length; i++) payload[i] ^= key[i & 3]; }
    frames.push({ fin: (bytes[at] & 0x80) !== 0, opcode: bytes[at] & 0x0f, masked, payload });
    at = start + length;
  }
  return frames;
}

/** The 101 a correct server answers `key` with. */
export async function switching(key: string): Promise<string> {
  return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
    `Sec-WebSocket-Accept: ${await acceptFor(key)}\r\n\r\n`;
}

export interface RawPeer {
  conn: Deno.Conn;
  /** The upgrade request's head, as received. */
  request: string;
  key: string;
  write(bytes: Uint8Array | string): Promise<void>;
  /** Everything the client sent after its request, so far (the reading goes on while the script runs). */
  received(): Uint8Array;
  /** Resolves when the client has closed its side (or the connection failed). */
  clientGone: Promise<void>;
  /** Set before the script's first await: nothing the client sends is read (a peer that stops reading). */
  stopReading: boolean;
  /** Resolves when the server is closed: a script holds a connection open, and silent, with it. */
  held: Promise<void>;
}

export interface RawServer {
  port: number;
  url(path?: string): URL;
  /** Each accepted connection's peer, once its request is read. */
  peers: RawPeer[];
  close(): Promise<void>;
}

/** Reads up to the end of the request head: the head, and the bytes after it; undefined at the end. */
async function readRequest(conn: Deno.Conn): Promise<{ request: string; rest: Uint8Array } | undefined> {
  const buffer = new Uint8Array(64 * 1024);
  let text = "";
  while (!text.includes("\r\n\r\n")) {
    const n = await conn.read(buffer).catch(() => null);
    if (n === null) return undefined;
    text += String.fromCharCode(...buffer.subarray(0, n));
  }
  const end = text.indexOf("\r\n\r\n");
  return { request: text.slice(0, end), rest: Uint8Array.from(text.slice(end + 4), (c) => c.charCodeAt(0)) };
}

/** The peer of one connection, and its reading of what the client sends, until the end or `stopReading`. */
function startPeer(conn: Deno.Conn, request: string, rest: Uint8Array, held: Promise<void>) {
  const chunks: Uint8Array[] = rest.length ? [rest] : [];
  let gone!: () => void;
  const peer: RawPeer = {
    conn,
    request,
    key: /\r\nSec-WebSocket-Key: ([^\r]*)/i.exec(request)?.[1] ?? "",
    write: (bytes) => writeAll(conn, typeof bytes === "string" ? encoder.encode(bytes) : bytes),
    received: () => {
      const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const chunk of chunks) [all.set(chunk, at), at += chunk.length];
      return all;
    },
    clientGone: new Promise<void>((resolve) => gone = resolve),
    stopReading: false,
    held,
  };
  const reading = (async () => {
    await Promise.resolve(); // the script's first synchronous part may stop the reading
    const buffer = new Uint8Array(64 * 1024);
    while (!peer.stopReading) {
      const n = await conn.read(buffer).catch(() => null);
      if (n === null) break;
      chunks.push(buffer.slice(0, n));
    }
    if (!peer.stopReading) gone();
  })();
  return { peer, reading };
}

/**
 * A loopback server that reads each upgrade request, then runs `script` with the connection. What
 * the client sends after is collected while the script runs and after, until the client closes.
 * `readRequest: false` leaves the request unread (a server that never reads at all).
 */
export function rawServer(script: (peer: RawPeer) => Promise<void>, options: { readRequest?: boolean } = {}) {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  const peers: RawPeer[] = [];
  const conns = new Set<Deno.Conn>();
  const tasks = new Set<Promise<void>>();
  const closing = Promise.withResolvers<void>();
  const serveOne = async (conn: Deno.Conn) => {
    const read = options.readRequest === false
      ? { request: "", rest: new Uint8Array(0) }
      : await readRequest(conn);
    if (!read) return;
    const { peer, reading } = startPeer(conn, read.request, read.rest, closing.promise);
    peers.push(peer);
    try {
      await script(peer);
    } catch {
      // the client went away mid-script
    }
    await reading;
  };
  const loop = (async () => {
    for (;;) {
      let conn: Deno.Conn;
      try {
        conn = await listener.accept();
      } catch {
        return;
      }
      conns.add(conn);
      const task = serveOne(conn).finally(() => {
        closeQuietly(conn);
        conns.delete(conn);
        tasks.delete(task);
      });
      tasks.add(task);
    }
  })();
  return {
    port,
    url: (path = "/") => new URL(`ws://127.0.0.1:${port}${path}`),
    peers,
    async close() {
      closing.resolve();
      listener.close();
      for (const conn of conns) closeQuietly(conn);
      await loop;
      while (tasks.size) await Promise.allSettled([...tasks]);
    },
  } satisfies RawServer;
}
