// Public keys as people give them and recognise them: 64 hex characters, or
// an npub (NIP-19, bech32), and its short form `npub1abcdefgh…wxyz`. Decoded
// and encoded here without the signing stack, so a command line naming keys
// costs the handshake nothing, and rendering a room no cryptography. Pure.

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let check = 1;
  for (const value of values) {
    const top = check >>> 25;
    check = ((check & 0x1ffffff) << 5) ^ value;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) check ^= GENERATORS[i];
  }
  return check;
}

function expandedPrefix(prefix: string): number[] {
  return [...prefix].map((c) => c.charCodeAt(0) >>> 5).concat(
    0,
    [...prefix].map((c) => c.charCodeAt(0) & 31),
  );
}

/** The bytes a bech32 string with `prefix` holds, or undefined when it is not one (a bad checksum, say). */
export function bech32Bytes(text: string, prefix: string): Uint8Array | undefined {
  const lower = text.toLowerCase();
  if (text !== lower && text !== text.toUpperCase()) return undefined; // mixed case is not bech32
  if (!lower.startsWith(`${prefix}1`) || lower.length > 90) return undefined;
  const data = [...lower.slice(prefix.length + 1)].map((c) => CHARSET.indexOf(c));
  if (data.length < 6 || data.includes(-1)) return undefined;
  if (polymod([...expandedPrefix(prefix), ...data]) !== 1) return undefined;
  // The 5-bit groups, less the checksum, regrouped into bytes; the padding must be zero.
  const bytes: number[] = [];
  let accumulator = 0, bits = 0;
  for (const value of data.slice(0, -6)) {
    accumulator = (accumulator << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((accumulator >>> bits) & 0xff);
    }
  }
  if (bits >= 5 || (accumulator & ((1 << bits) - 1)) !== 0) return undefined;
  return Uint8Array.from(bytes);
}

/** A public key given as 64 hex characters (either case) or an npub, as lower-case hex; undefined when neither. */
export function publicKeyHex(text: string): string | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return trimmed.toLowerCase();
  const bytes = bech32Bytes(trimmed, "npub");
  if (bytes?.length !== 32) return undefined;
  return [...bytes].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** `bytes` as 5-bit groups, the last one padded with zeros. */
function toWords(bytes: Uint8Array): number[] {
  const words: number[] = [];
  let accumulator = 0, bits = 0;
  for (const byte of bytes) {
    accumulator = (accumulator << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((accumulator >>> bits) & 31);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (bits > 0) words.push((accumulator << (5 - bits)) & 31);
  return words;
}

/** `bytes` as bech32 with `prefix`, its checksum appended. */
export function bech32Encode(prefix: string, bytes: Uint8Array): string {
  const words = toWords(bytes);
  const check = polymod([...expandedPrefix(prefix), ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (check >>> (5 * (5 - i))) & 31);
  return `${prefix}1${[...words, ...checksum].map((word) => CHARSET[word]).join("")}`;
}

/** The npub of a 64-hex (lower-case) public key; undefined when `hex` is not one. */
export function npubOf(hex: string): string | undefined {
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
  return bech32Encode("npub", Uint8Array.from(hex.match(/../g)!, (pair) => parseInt(pair, 16)));
}

/** A key's short npub (`npub1` and 8 characters, `…`, the last 4); undefined when `hex` is not a key. */
export function shortNpub(hex: string): string | undefined {
  const npub = npubOf(hex);
  return npub === undefined ? undefined : `${npub.slice(0, 13)}…${npub.slice(-4)}`;
}
