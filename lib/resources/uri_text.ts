// The characters of a tiny:// URI, strictly: which may appear raw, percent-decoding that refuses
// broken escapes and invalid UTF-8 (overlong forms included), segments that are empty, dot
// segments, or hold a `/`, a control or an invisible formatting character once decoded; and the
// RFC 6570 encoding that formatting uses. Pure.

/** RFC 3986 pchar, raw: unreserved, sub-delims, ":" and "@" (and "%" of an escape). */
const PCHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@%]/;
/** In a query "/" and "?" may also appear raw. */
const QCHAR = /[A-Za-z0-9\-._~!$&'()*+,;=:@%/?]/;

/** Characters a decoded value may not hold: controls, line separators and format characters. */
const HIDDEN = /[\p{Cc}\p{Cf}\u2028\u2029]/u;

/** A character that may not appear raw in a path (which may hold "/"), or in a query; whole code points. */
const NOT_PATH = /[^A-Za-z0-9\-._~!$&'()*+,;=:@%/]/u;
const NOT_QUERY = /[^A-Za-z0-9\-._~!$&'()*+,;=:@%/?]/u;

/** The first character of `text` that may not appear raw in a path (`query`: in a query), if any. */
export function firstRawForbidden(text: string, query: boolean): string | undefined {
  return (query ? NOT_QUERY : NOT_PATH).exec(text)?.[0];
}

/** `text` with each character that may not appear raw percent-encoded (a URI's nearest spelling). */
export function encodeForbidden(text: string, query: boolean): string {
  let out = "";
  for (const char of text) {
    const keep = (char === "/" && !query) || (query ? QCHAR : PCHAR).test(char);
    out += keep ? char : percentEncode(char);
  }
  return out;
}

/** The character named for a person: itself when visible, and its code point. */
export function describeChar(char: string): string {
  const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  return /^[\x21-\x7e]$/.test(char) ? `${code} (${char})` : code;
}

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A segment or query part decoded, or why it cannot be. */
export type Decoded = { ok: true; value: string } | { ok: false; why: string };

/** Percent-decodes `raw` strictly: every "%" starts two hex digits, and the bytes are valid UTF-8. */
export function decodeStrict(raw: string): Decoded {
  if (!raw.includes("%")) return { ok: true, value: raw };
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const code = raw.charCodeAt(i);
    if (code !== 0x25) {
      bytes.push(code);
      continue;
    }
    const hex = raw.slice(i + 1, i + 3);
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) {
      return { ok: false, why: `"%${hex}" is not a percent-escape (two hex digits)` };
    }
    bytes.push(parseInt(hex, 16));
    i += 2;
  }
  try {
    return { ok: true, value: STRICT_UTF8.decode(Uint8Array.from(bytes)) };
  } catch {
    return { ok: false, why: "its escapes are not valid UTF-8 (a broken or overlong sequence)" };
  }
}

/** Why a raw segment cannot name anything once decoded, or its decoded value. */
export function decodeSegment(raw: string): Decoded {
  if (raw === "") return { ok: false, why: "an empty segment (// or a trailing /) names nothing" };
  if (raw === "." || raw === "..") return { ok: false, why: "dot segments are refused: nothing here climbs" };
  const decoded = decodeStrict(raw);
  if (!decoded.ok) return decoded;
  const value = decoded.value;
  if (value === "." || value === "..") {
    return { ok: false, why: "dot segments are refused, encoded or not: nothing here climbs" };
  }
  if (value.includes("/")) return { ok: false, why: "ids cannot contain /, not even as %2F" };
  if (HIDDEN.test(value)) {
    return { ok: false, why: "controls and invisible formatting characters are refused" };
  }
  return { ok: true, value };
}

/** One character as its UTF-8 percent-escapes, uppercase hex. */
function percentEncode(char: string): string {
  return [...new TextEncoder().encode(char.toWellFormed())].map((byte) =>
    `%${byte.toString(16).toUpperCase().padStart(2, "0")}`
  ).join("");
}

const UNRESERVED = /^[A-Za-z0-9\-._~]*$/;

/** A variable's value as RFC 6570 simple expansion writes it: all but unreserved characters escaped. */
export function encodeValue(value: string): string {
  if (UNRESERVED.test(value)) return value;
  let out = "";
  for (const char of value.toWellFormed()) out += /[A-Za-z0-9\-._~]/.test(char) ? char : percentEncode(char);
  return out;
}
