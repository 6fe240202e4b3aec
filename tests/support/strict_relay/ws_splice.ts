// The websocket splice: an accepted upgrade's client connection is joined, byte for byte, to the
// internal websocket server (ws_server.ts), so that Deno's own websocket implementation frames,
// masks, pings and closes, never code of ours that tinyagent's hand-written client could agree with
// by mistake. The front end keeps owning the client connection: it is counted and cut as any other.
//
// The upgrade request was already parsed by the front end, so its head is written again on the hop;
// bytes the reader had buffered past it go after. With `stall` only the head of the answer passes
// back (the 101): then nothing more either way, not even a pong, until the client goes or is cut.

import { concatBytes } from "@noble/hashes/utils.js";
import type { WsSplice } from "./exchange.ts";
import type { ParsedRequest } from "./http1_reader.ts";
import { closeQuietly, writeAll } from "./http1_writer.ts";

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

/** Copies `from` to `to` up to the end of the answer's head (CRLFCRLF); never rejects. */
async function headOnly(from: Deno.Conn, to: Deno.Conn): Promise<void> {
  const buf = new Uint8Array(16 * 1024);
  let tail = new Uint8Array(0);
  try {
    for (;;) {
      const n = await from.read(buf);
      if (n === null) return;
      const seen = concatBytes(tail, buf.subarray(0, n));
      const end = findHeadEnd(seen);
      const fresh = seen.subarray(tail.length);
      if (end < 0) {
        await writeAll(to, fresh);
        tail = seen.slice(Math.max(0, seen.length - 3));
        continue;
      }
      await writeAll(to, fresh.subarray(0, end + 4 - tail.length));
      return;
    }
  } catch {
    // closed or cut
  }
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
    if (splice.stall) {
      await headOnly(hop, conn);
      closeQuietly(hop);
      await discard(conn);
      return;
    }
    const up = pump(conn, hop);
    const down = pump(hop, conn);
    await Promise.race([up, down]);
    // Either side ending ends both; wait for the other copy to see it, so no read outlives the splice.
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
