// A CONNECT tunnel through an HTTP proxy to an https relay: the request,
// and the reading of the proxy's answer, said in words a user can act on (a
// 407 names the credentials variable, never its value). TLS then runs end to
// end with the relay through the tunnel (dial.ts), so the proxy never sees a
// token.

import { writeAll } from "./bytes.ts";
import { ConnReader } from "./buffered_reader.ts";

/** A proxy to reach the relay through. */
export interface Proxy {
  hostname: string;
  port: number;
  /** `host:port`: the second net permission the sandbox grants. */
  netHost: string;
  /** `Proxy-Authorization` for credentials in the proxy URL. */
  authorization?: string;
  /** The proxy URL without credentials, for messages. */
  display: string;
  /** The variable it was read from (HTTPS_PROXY, https_proxy, …), for messages. */
  variable: string;
}

const HEAD_END = new TextEncoder().encode("\r\n\r\n");
const MAX_PROXY_HEAD_BYTES = 16 * 1024;

/** The proxy did not open the tunnel; the message says why and what to do. */
export class TunnelError extends Error {}

/** Asks the proxy for a tunnel to `authority` (HTTP CONNECT) and checks that it opened. */
export async function tunnel(tcp: Deno.TcpConn, authority: string, proxy: Proxy): Promise<void> {
  let request = `CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n`;
  if (proxy.authorization) request += `Proxy-Authorization: ${proxy.authorization}\r\n`;
  await writeAll(tcp, new TextEncoder().encode(`${request}\r\n`));
  // The tunnel is silent until the TLS client speaks, so nothing past the head is read here.
  const reader = new ConnReader(tcp);
  const head = await reader.takeUntil(HEAD_END, MAX_PROXY_HEAD_BYTES);
  if (head === undefined) throw new TunnelError(`the proxy ${proxy.display} closed the connection`);
  if (head === "too long") throw new TunnelError(`the proxy ${proxy.display} answered oddly`);
  // The whole line is redacted first, then cut for the log: a cut could split a secret, and a split
  // secret would no longer be found.
  const line = head.subarray(0, head.indexOf(0x0d) === -1 ? head.length : head.indexOf(0x0d));
  const statusLine = printable(redact(latin1(line), proxy));
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(statusLine)?.[1];
  if (status === undefined) {
    throw new TunnelError(
      `the proxy ${proxy.display} did not answer in HTTP: ${JSON.stringify(statusLine)}`,
    );
  }
  const shown = statusLine;
  if (status === "407") {
    throw new TunnelError(
      proxy.authorization
        ? `the proxy ${proxy.display} refused the credentials in ${proxy.variable} (${shown})`
        : `the proxy ${proxy.display} wants credentials (${shown}): give them in ${proxy.variable} as ` +
          `http://user:password@${proxy.netHost}`,
    );
  }
  if (!status.startsWith("2")) {
    throw new TunnelError(`the proxy ${proxy.display} refused the tunnel: ${shown}`);
  }
  // A 2xx head followed by bytes would put the proxy's words in front of the relay's TLS.
  if (reader.available > 0) throw new TunnelError(`the proxy ${proxy.display} answered oddly`);
}

/** At most 80 characters, control characters shown as `?`: the proxy's words go into a log line. */
function printable(text: string): string {
  let shown = "";
  for (const char of text.slice(0, 80)) {
    const code = char.charCodeAt(0);
    shown += code >= 0x20 && code < 0x7f ? char : "?";
  }
  return shown;
}

/** Bytes as Latin-1 text, one character per byte (a status line is at most the head's 16 KiB). */
function latin1(bytes: Uint8Array): string {
  let text = "";
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/** A proxy that echoes our credentials in its status line still never gets them into a message. */
function redact(text: string, proxy: Proxy): string {
  if (!proxy.authorization) return text;
  const encoded = proxy.authorization.replace(/^Basic /, "");
  const decoded = new TextDecoder().decode(Uint8Array.fromBase64(encoded));
  const password = decoded.slice(decoded.indexOf(":") + 1);
  let shown = text;
  for (const secret of [encoded, decoded, password]) if (secret) shown = shown.replaceAll(secret, "***");
  return shown;
}
