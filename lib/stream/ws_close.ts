// The close frame's payload (RFC 6455, 5.5.1 and 7.4): a status code and a
// UTF-8 reason, checked strictly when the relay sends one, built for ours, and
// said in words for whoever reads why a connection ended. Pure.

/** A close frame's reason is what is left of its 125 bytes after the 2-byte code. */
export const MAX_CLOSE_REASON_BYTES = 123;

const NAMES: Record<number, string> = {
  1000: "normal closure",
  1001: "going away",
  1002: "protocol error",
  1003: "unsupported data",
  1007: "invalid data",
  1008: "policy violation",
  1009: "message too big",
  1010: "missing extension",
  1011: "internal error",
  1012: "service restart",
  1013: "try again later",
  1014: "bad gateway",
};

/**
 * A code a close frame may carry: the registered ones (1012-1014 too, as
 * browsers accept them) and the private range 3000-4999. 1004-1006 and 1015
 * are never sent on the wire.
 */
export function isValidCloseCode(code: number): boolean {
  return Number.isInteger(code) && (Object.hasOwn(NAMES, code) || (code >= 3000 && code <= 4999));
}

/** The payload of our close frame: nothing for no code, else the code and the reason cut to fit. */
export function closePayload(code?: number, reason = ""): Uint8Array {
  if (code === undefined) return new Uint8Array(0);
  if (!isValidCloseCode(code)) throw new RangeError(`${code} is not a close code that may be sent`);
  const text = fitReason(reason);
  const payload = new Uint8Array(2 + text.length);
  new DataView(payload.buffer).setUint16(0, code);
  payload.set(text, 2);
  return payload;
}

/** The reason as UTF-8, cut at a character boundary to at most 123 bytes. */
function fitReason(reason: string): Uint8Array {
  const encoder = new TextEncoder();
  const chars = [...reason.slice(0, 2 * MAX_CLOSE_REASON_BYTES)].slice(0, MAX_CLOSE_REASON_BYTES);
  let bytes = encoder.encode(chars.join(""));
  while (bytes.length > MAX_CLOSE_REASON_BYTES) {
    chars.pop();
    bytes = encoder.encode(chars.join(""));
  }
  return bytes;
}

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The relay's close payload read, or the rule it broke and the close code to answer with. */
export type ClosePayload =
  | { ok: true; code?: number; reason: string }
  | { ok: false; problem: string; answer: 1002 | 1007 };

/** The relay's close payload: no code (empty), or a valid code and a UTF-8 reason. */
export function parseClosePayload(payload: Uint8Array): ClosePayload {
  if (payload.length === 0) return { ok: true, reason: "" };
  if (payload.length === 1) {
    return {
      ok: false,
      problem: "the relay sent a close frame of 1 byte, too short for a status code",
      answer: 1002,
    };
  }
  const code = new DataView(payload.buffer, payload.byteOffset, 2).getUint16(0);
  if (!isValidCloseCode(code)) {
    return {
      ok: false,
      problem: `the relay sent a close frame with the invalid status code ${code}`,
      answer: 1002,
    };
  }
  try {
    return { ok: true, code, reason: utf8.decode(payload.subarray(2)) };
  } catch {
    return {
      ok: false,
      problem: "the relay sent a close frame whose reason is not valid UTF-8",
      answer: 1007,
    };
  }
}

/** A close code in words: `1001 (going away)`, `4000`. */
export function codeWords(code: number): string {
  return Object.hasOwn(NAMES, code) ? `${code} (${NAMES[code]})` : `${code}`;
}

/** Why the relay closed, in words, its reason quoted (cut to what a log line shows). */
export function peerCloseWords(code: number | undefined, reason: string): string {
  if (code === undefined) return "the relay closed the connection without a status code";
  const shown = reason === "" ? "" : `: ${JSON.stringify(reason.slice(0, 200))}`;
  return `the relay closed the connection with code ${codeWords(code)}${shown}`;
}
