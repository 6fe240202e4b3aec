// Writing on an HTTP/1.1 connection: status lines and heads, whole writes, huge bodies, quiet closes. Shared by the
// HTTP/1.1 front end and the websocket splice.

import { concatBytes } from "@noble/hashes/utils.js";
import type { HeaderList } from "./exchange.ts";

const REASONS: Record<number, string> = {
  100: "Continue",
  101: "Switching Protocols",
  200: "OK",
  202: "Accepted",
  204: "No Content",
  206: "Partial Content",
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  406: "Not Acceptable",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  416: "Range Not Satisfiable",
  429: "Too Many Requests",
  431: "Request Header Fields Too Large",
  500: "Internal Server Error",
  501: "Not Implemented",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

const encoder = new TextEncoder();

export function responseHead(status: number, headers: HeaderList, close: boolean): Uint8Array {
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? "Status"}\r\nDate: ${new Date().toUTCString()}\r\n`;
  for (const [k, v] of headers) head += `${k}: ${v}\r\n`;
  if (close) head += "Connection: close\r\n";
  return encoder.encode(head + "\r\n");
}

export async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
  let off = 0;
  while (off < bytes.length) off += await conn.write(bytes.subarray(off));
}

export function closeQuietly(closable: { close(): void }): void {
  try {
    closable.close();
  } catch {
    // already closed
  }
}

/** A JSON string of exactly `total` bytes, streamed in 64 KiB pieces. */
export async function writeHuge(
  conn: Deno.Conn,
  total: number,
  chunked: boolean,
  keep: boolean,
): Promise<void> {
  const framing: [string, string] = chunked
    ? ["Transfer-Encoding", "chunked"]
    : ["Content-Length", String(total)];
  await writeAll(conn, responseHead(200, [["Content-Type", "application/json"], framing], !keep));
  const block = new Uint8Array(64 * 1024).fill(0x61); // 'a'
  let left = total;
  while (left > 0) {
    const n = Math.min(left, block.length);
    const chunk = block.subarray(0, n).slice();
    if (left === total) chunk[0] = 0x22; // opening quote
    if (n === left) chunk[n - 1] = 0x22; // closing quote
    if (chunked) {
      await writeAll(
        conn,
        concatBytes(encoder.encode(`${n.toString(16)}\r\n`), chunk, encoder.encode("\r\n")),
      );
    } else {
      await writeAll(conn, chunk);
    }
    left -= n;
  }
  if (chunked) await writeAll(conn, encoder.encode("0\r\n\r\n"));
}
