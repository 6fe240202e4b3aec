// The websocket splice: an accepted upgrade's client connection is joined, byte for byte, to the
// internal websocket server (ws_server.ts), so that Deno's own websocket implementation frames,
// masks, pings and closes, never code of ours that tinyagent's hand-written client could agree with
// by mistake. The front end keeps owning the client connection: it is counted and cut as any other.
//
// The upgrade request was already parsed by the front end, so its head is written again on the hop;
// bytes the reader had buffered past it go after. With `stall` only the head of the answer passes
// back (the 101): then nothing more either way, not even a pong, until the client goes or is cut.
// With `trickle` the head, then one frame a byte at a time (ws_trickle.ts); asked to trickle later,
// the relay's frames pass up to the next frame boundary, then the trickle takes their place.

import { concatBytes } from "@noble/hashes/utils.js";
import type { WsSplice } from "./exchange.ts";
import type { ParsedRequest } from "./http1_reader.ts";
import { closeQuietly, writeAll } from "./http1_writer.ts";
import { FrameBoundaries, trickle } from "./ws_trickle.ts";

/** The request head as the client sent it (headers as Deno's Headers keep them), in Latin-1. */
function requestHead(req: ParsedRequest): Uint8Array {
  let head = `${req.method} ${req.target} HTTP/${req.httpVersion ?? "1.1"}\r\n`;
  for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
  head += "\r\n";
  return Uint8Array.from(head, (c) => c.charCodeAt(0));
}

/** Copies `from` to `to` until either side ends; never rejects. */
async function pump(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      const n = await from.read(buf);
      if (n === null) return;
      await writeAll(to, buf.subarray(0, n));
    }
  } catch {
    // one side closed or was cut
  }
}

/** Reads and drops everything until `from` ends; never rejects. */
async function discard(from: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(64 * 1024);
  try {
    while ((await from.read(buf)) !== null) {
      // a stalled relay reads, and answers nothing
    }
  } catch {
    // closed or cut
  }
}

/**
 * Copies `from` to `to` up to the end of the answer's head (CRLFCRLF); returns the bytes read past it,
 * or undefined when either side ended first. Never rejects.
 */
async function headOnly(from: Deno.Conn, to: Deno.Conn): Promise<Uint8Array | undefined> {
  const buf = new Uint8Array(16 * 1024);
  let tail = new Uint8Array(0);
  try {
    for (;;) {
      const n = await from.read(buf);
      if (n === null) return undefined;
      const seen = concatBytes(tail, buf.subarray(0, n));
      const end = findHeadEnd(seen);
      const fresh = seen.subarray(tail.length);
      if (end < 0) {
        await writeAll(to, fresh);
        tail = seen.slice(Math.max(0, seen.length - 3));
        continue;
      }
      await writeAll(to, fresh.subarray(0, end + 4 - tail.length));
      return seen.slice(end + 4);
    }
  } catch {
    return undefined; // closed or cut
  }
}

/**
 * Copies the relay's frames to the client; once `asked`, from the next frame boundary on, drops the
 * relay's bytes and trickles one frame in their place until `signal` aborts. Resolves when the relay's
 * side has ended, and the trickle with it; never rejects.
 */
async function pumpFrames(from: Deno.Conn, to: Deno.Conn, asked: Promise<void>, signal: AbortSignal) {
  // The answer's head first: the frames begin after it.
  let chunk = await headOnly(from, to);
  if (chunk === undefined) return;
  const frames = new FrameBoundaries();
  let wanted = false;
  let writing: Promise<unknown> = Promise.resolve();
  let trickling: Promise<void> | undefined;
  const begin = () => trickling ??= writing.catch(() => {}).then(() => trickle(to, signal));
  void asked.then(() => {
    wanted = true;
    if (frames.atBoundary) begin();
  });
  const buf = new Uint8Array(64 * 1024);
  try {
    for (;;) {
      if (!trickling) { // else what the relay says now is dropped
        const passed = frames.take(chunk, wanted);
        writing = writeAll(to, chunk.subarray(0, passed));
        await writing;
        if (wanted && frames.atBoundary) begin();
      }
      const n = await from.read(buf);
      if (n === null) break;
      chunk = buf.subarray(0, n);
    }
  } catch {
    // one side closed or was cut
  }
  await trickling;
}

function findHeadEnd(bytes: Uint8Array): number {
  for (let i = 0; i + 3 < bytes.length; i++) {
    if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) return i;
  }
  return -1;
}

/**
 * Joins `conn` (whose upgrade request `req` was read, with `leftover` bytes buffered after it) to the
 * internal server until either side ends. The caller closes `conn` afterwards.
 */
export async function spliceWebSocket(
  conn: Deno.Conn,
  req: ParsedRequest,
  leftover: Uint8Array,
  splice: WsSplice,
): Promise<void> {
  let hop: Deno.TcpConn;
  const over = new AbortController();
  try {
    hop = await Deno.connect({ hostname: "127.0.0.1", port: splice.port });
  } catch {
    splice.ended();
    return;
  }
  try {
    // Websocket messages are written in pieces: Nagle would hold the last one back.
    hop.setNoDelay(true);
    if ("setNoDelay" in conn) (conn as Deno.TcpConn).setNoDelay(true);
    splice.opened((hop.localAddr as Deno.NetAddr).port);
    await writeAll(hop, concatBytes(requestHead(req), leftover));
    if (splice.stall || splice.trickle) {
      await headOnly(hop, conn);
      closeQuietly(hop);
      const trickled = splice.trickle ? trickle(conn, over.signal) : undefined;
      await discard(conn);
      over.abort();
      await trickled;
      return;
    }
    const up = pump(conn, hop);
    const down = pumpFrames(hop, conn, splice.trickleAsked, over.signal);
    await Promise.race([up, down]);
    // Either side ending ends both; wait for the other copy to see it, so no read outlives the splice.
    over.abort();
    closeQuietly(hop);
    closeQuietly(conn);
    await Promise.all([up, down]);
  } catch {
    // the hop or the client went away while the head was written
  } finally {
    closeQuietly(hop);
    splice.ended();
  }
}
