// Public keys as people recognise them: NIP-19 npub (bech32) and its short form, `npub1abcdefgh…wxyz`.
// Encoded here, without the signing stack, so rendering a room costs the session no cryptography. Pure.

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

/** The npub of a 64-hex public key; undefined when `hex` is not one. */
export function npubOf(hex: string): string | undefined {
  if (!/^[0-9a-f]{64}$/.test(hex)) return undefined;
  const words: number[] = [];
  let accumulator = 0, bits = 0;
  for (let i = 0; i < 64; i += 2) {
    accumulator = (accumulator << 8) | parseInt(hex.slice(i, i + 2), 16);
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((accumulator >>> bits) & 31);
    }
    accumulator &= (1 << bits) - 1;
  }
  if (bits > 0) words.push((accumulator << (5 - bits)) & 31);
  const prefix = [..."npub"].map((c) => c.charCodeAt(0));
  const expanded = [...prefix.map((c) => c >>> 5), 0, ...prefix.map((c) => c & 31)];
  const check = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = Array.from({ length: 6 }, (_, i) => (check >>> (5 * (5 - i))) & 31);
  return `npub1${[...words, ...checksum].map((word) => CHARSET[word]).join("")}`;
}

/** A key's short npub (`npub1` and 8 characters, `…`, the last 4); undefined when `hex` is not a key. */
export function shortNpub(hex: string): string | undefined {
  const npub = npubOf(hex);
  return npub === undefined ? undefined : `${npub.slice(0, 13)}…${npub.slice(-4)}`;
}
