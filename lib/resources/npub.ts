// Public keys as people recognise them: NIP-19 npub (bech32) and its short form, `npub1abcdefgh…wxyz`.
// Encoded here, without the signing stack, so rendering a room costs the session no cryptography. Pure.

const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

/** One step of bech32's checksum over a 5-bit value. */
function step(check: number, value: number): number {
  const top = check >>> 25;
  check = ((check & 0x1ffffff) << 5) ^ value;
  for (let i = 0; i < 5; i++) if ((top >>> i) & 1) check ^= GENERATORS[i];
  return check;
}

/** The checksum's state after the expanded prefix "npub" (high bits, a zero, low bits). */
const AFTER_PREFIX = (() => {
  const prefix = [..."npub"].map((c) => c.charCodeAt(0));
  return [...prefix.map((c) => c >>> 5), 0, ...prefix.map((c) => c & 31)].reduce(step, 1);
})();

/** Encodings already made, at most this many: a room names the same few keys again and again. */
const KEPT = 1024;
const kept = new Map<string, string>();

/** The npub of a 64-hex public key; undefined when `hex` is not one. */
export function npubOf(hex: string): string | undefined {
  const known = kept.get(hex);
  if (known !== undefined) return known;
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
  let out = "npub1", check = AFTER_PREFIX, accumulator = 0, bits = 0;
  const word = (value: number) => {
    check = step(check, value);
    out += CHARSET[value];
  };
  for (let i = 0; i < 64; i += 2) {
    accumulator = (accumulator << 8) | parseInt(hex.slice(i, i + 2), 16);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      word((accumulator >>> bits) & 31);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (bits > 0) word((accumulator << (5 - bits)) & 31);
  for (let i = 0; i < 6; i++) check = step(check, 0);
  check ^= 1;
  for (let i = 0; i < 6; i++) out += CHARSET[(check >>> (5 * (5 - i))) & 31];
  if (kept.size >= KEPT) kept.clear();
  kept.set(hex, out);
  return out;
}

/** A key's short npub (`npub1` and 8 characters, `…`, the last 4); undefined when `hex` is not a key. */
export function shortNpub(hex: string): string | undefined {
  const npub = npubOf(hex);
  return npub === undefined ? undefined : `${npub.slice(0, 13)}…${npub.slice(-4)}`;
}
