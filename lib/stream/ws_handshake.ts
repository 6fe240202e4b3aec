// The websocket opening handshake (RFC 6455, 4.1): the upgrade request for a
// ws:/wss: URL, and the strict reading of the relay's answer, said in words a
// user can act on when it is not a switch to the websocket protocol. Pure but
// for SHA-1, which the runtime computes asynchronously.

import { concat } from "../transport/bytes.ts";
import {
  fieldValue,
  FramingError,
  type Head,
  isChunked,
  latin1,
  parseHead,
} from "../transport/http1_grammar.ts";

/** RFC 6455, 1.3: appended to the key before hashing. */
const ACCEPT_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
/** How much of a refusal's body its message shows. */
export const PREVIEW_CHARS = 200;

/** The relay refused, or answered the upgrade wrongly; `status` is its HTTP status when it sent one. */
export class UpgradeError extends Error {
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

/** A Sec-WebSocket-Key: 16 random bytes, base64 (RFC 6455, 4.1). */
export function newKey(random = crypto.getRandomValues(new Uint8Array(16))): string {
  if (random.length !== 16) throw new RangeError("a websocket key is 16 bytes");
  return random.toBase64();
}

/** The port dial should reach for a ws:/wss: URL, and whether it is TLS; refuses any other scheme. */
export function endpointOf(url: URL): { hostname: string; port: number; tls: boolean } {
  if (url.protocol !== "ws:" && url.protocol !== "wss:") {
    throw new TypeError(`${url.protocol}// is not a websocket URL: use ws:// or wss://`);
  }
  const tls = url.protocol === "wss:";
  return {
    hostname: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? (tls ? 443 : 80) : Number(url.port),
    tls,
  };
}

/**
 * The upgrade request, in origin form (through a proxy too: the connection is
 * a CONNECT tunnel). Host carries the port only when it is not the scheme's
 * default, which URL has already dropped. No Origin, subprotocol or extension.
 */
export function upgradeRequest(url: URL, key: string): string {
  endpointOf(url);
  return `GET ${url.pathname || "/"}${url.search} HTTP/1.1\r\n` +
    `Host: ${url.host}\r\n` +
    "Upgrade: websocket\r\n" +
    "Connection: Upgrade\r\n" +
    `Sec-WebSocket-Key: ${key}\r\n` +
    "Sec-WebSocket-Version: 13\r\n\r\n";
}

/** Sec-WebSocket-Accept for `key`: base64(SHA-1(key + GUID)). */
export async function acceptFor(key: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-1", new TextEncoder().encode(key + ACCEPT_GUID));
  return new Uint8Array(digest).toBase64();
}

/** The answer's head as read, and its reason phrase (for messages). */
export interface AnswerHead extends Head {
  reason: string;
}

/** Parses the answer head (everything before its empty line); malformed HTTP is an UpgradeError. */
export function readAnswerHead(raw: Uint8Array): AnswerHead {
  try {
    const head = parseHead(raw);
    const line = latin1(raw.subarray(0, Math.min(raw.length, 512))).split("\r\n")[0];
    return { ...head, reason: /^HTTP\/1\.[01] [0-9]{3} ?(.*)$/.exec(line)?.[1] ?? "" };
  } catch (error) {
    if (error instanceof FramingError) {
      throw new UpgradeError(`the relay's answer to the websocket upgrade is malformed: ${error.message}`);
    }
    throw error;
  }
}

/** Checks a 101 answer: the upgrade, the accept for our key, and nothing we did not offer. */
export async function checkSwitch(head: AnswerHead, key: string): Promise<void> {
  const fail = (why: string) => {
    throw new UpgradeError(`the relay's answer to the websocket upgrade ${why}`, head.status);
  };
  if (head.status !== 101) throw new UpgradeError(refusalMessage(head, new Uint8Array(0)), head.status);
  if (head.version !== "1.1") fail("is HTTP/1.0, which cannot switch protocols");
  const upgrade = fieldValue(head.fields, "upgrade");
  if (upgrade?.toLowerCase() !== "websocket") {
    fail(`has Upgrade: ${JSON.stringify(upgrade ?? "")}, not websocket`);
  }
  const connection = (fieldValue(head.fields, "connection") ?? "").split(",").map((t) => t.trim());
  if (!connection.some((token) => token.toLowerCase() === "upgrade")) {
    fail("lacks Connection: Upgrade");
  }
  const accept = fieldValue(head.fields, "sec-websocket-accept");
  if (accept === undefined) fail("lacks Sec-WebSocket-Accept");
  if (accept !== await acceptFor(key)) {
    fail(
      `has the wrong Sec-WebSocket-Accept ${JSON.stringify(printable(accept!, 40))}, not the one for our key`,
    );
  }
  for (const name of ["sec-websocket-extensions", "sec-websocket-protocol"]) {
    const value = fieldValue(head.fields, name);
    if (value !== undefined) {
      fail(`names ${headerName(name)}: ${JSON.stringify(printable(value, 60))}, which was not offered`);
    }
  }
}

function headerName(lower: string): string {
  return lower === "sec-websocket-extensions" ? "Sec-WebSocket-Extensions" : "Sec-WebSocket-Protocol";
}

/**
 * A refusal (any status but 101) in words: the status, its reason phrase, a
 * redirect's Location, and the start of the body, printable characters only.
 */
export function refusalMessage(head: AnswerHead, body: Uint8Array): string {
  let message = `the relay answered the websocket upgrade with ${head.status}`;
  if (head.reason !== "") message += ` ${printable(head.reason, 80)}`;
  const location = fieldValue(head.fields, "location");
  if (head.status >= 300 && head.status < 400 && location) message += ` (to ${printable(location, 200)})`;
  const shown = printable(new TextDecoder().decode(bodyOf(head, body)), PREVIEW_CHARS);
  return shown === "" ? message : `${message}: ${shown}`;
}

/** The body bytes at hand: chunked framing removed as far as it goes, Content-Length respected. */
function bodyOf(head: AnswerHead, bytes: Uint8Array): Uint8Array {
  let chunked = false;
  try {
    chunked = isChunked(head);
  } catch {
    // a transfer coding we cannot read: show the bytes as they came
  }
  if (!chunked) {
    const length = Number(fieldValue(head.fields, "content-length"));
    return Number.isSafeInteger(length) && length >= 0 ? bytes.subarray(0, length) : bytes;
  }
  const parts: Uint8Array[] = [];
  for (let at = 0; at < bytes.length;) {
    const end = bytes.indexOf(0x0a, at);
    const size = end === -1 ? NaN : parseInt(latin1(bytes.subarray(at, end)), 16);
    if (!(size > 0)) break;
    parts.push(bytes.subarray(end + 1, end + 1 + size));
    at = end + 1 + size + 2;
  }
  return concat(...parts);
}

/** Controls and runs of white space made one space, trimmed, cut to `max` characters with "…". */
export function printable(text: string, max: number): string {
  // deno-lint-ignore no-control-regex -- the controls are what is replaced
  const flat = text.replace(/[\x00-\x20\x7f-\x9f\u2028\u2029]+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= max ? flat : `${chars.slice(0, max).join("")}…`;
}
