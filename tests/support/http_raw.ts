// Raw HTTP/1.1 over TCP for tests that need bytes fetch will not send or show: several requests on
// one connection, hand-made chunked bodies, malformed heads.

import { concatBytes } from "@noble/hashes/utils.js";

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  text: string;
}

/**
 * Writes `request` on a fresh connection to 127.0.0.1:port and returns every byte the server sends
 * until it closes the connection (end the last request with `Connection: close`) or timeoutMs passes.
 */
export async function rawExchange(
  port: number,
  request: string | Uint8Array,
  timeoutMs = 5000,
): Promise<Uint8Array> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  const timer = setTimeout(() => {
    try {
      conn.close();
    } catch {
      // already closed
    }
  }, timeoutMs);
  const parts: Uint8Array[] = [];
  try {
    const bytes = typeof request === "string" ? new TextEncoder().encode(request) : request;
    for (let off = 0; off < bytes.length;) off += await conn.write(bytes.subarray(off));
    const buf = new Uint8Array(64 * 1024);
    for (;;) {
      const n = await conn.read(buf).catch(() => null);
      if (n === null) break;
      parts.push(buf.slice(0, n));
    }
  } finally {
    clearTimeout(timer);
    try {
      conn.close();
    } catch {
      // closed by the timer
    }
  }
  return concatBytes(...parts);
}

/** Splits raw bytes into consecutive responses framed by Content-Length (absent means no body). */
export function parseResponses(bytes: Uint8Array): RawResponse[] {
  const out: RawResponse[] = [];
  let at = 0;
  while (at < bytes.length) {
    let end = -1;
    for (let i = at; i + 3 < bytes.length; i++) {
      if (bytes[i] === 13 && bytes[i + 1] === 10 && bytes[i + 2] === 13 && bytes[i + 3] === 10) {
        end = i;
        break;
      }
    }
    if (end < 0) throw new Error(`incomplete response head at byte ${at}`);
    const [statusLine, ...lines] = new TextDecoder().decode(bytes.subarray(at, end)).split("\r\n");
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    const headers = new Headers();
    for (const line of lines) {
      const colon = line.indexOf(":");
      headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
    }
    const length = Number(headers.get("content-length") ?? 0);
    const body = bytes.slice(end + 4, end + 4 + length);
    out.push({ status, headers, body, text: new TextDecoder().decode(body) });
    at = end + 4 + length;
  }
  return out;
}
