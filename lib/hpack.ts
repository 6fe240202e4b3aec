// HPACK (RFC 7541) header compression for the HTTP/2 client: pure, no I/O.
//
// Decoding choices:
// - Names are returned as latin1 strings (one char per octet, lossless) and are NOT validated here:
//   uppercase or odd bytes in a name make the response malformed (a stream PROTOCOL_ERROR in RFC 9113
//   §8.2.1), not the compression context broken (a connection COMPRESSION_ERROR), so the HTTP/2 layer
//   checks them with `isValidFieldName`. Values are UTF-8 decoded with replacement (fatal: false).
// - Sizes (dynamic table, header list) are counted in octets as received, never in UTF-16 units.

import { concat } from "./bytes.ts";

/** A malformed header block: the connection must fail with COMPRESSION_ERROR. */
export class HpackError extends Error {
  override name = "HpackError";
}

export interface HpackLimits {
  /** SETTINGS_HEADER_TABLE_SIZE we advertise; default 4096 (the protocol default). */
  maxTableSize?: number;
  /** Cap on the sum over fields of name + value octets + 32; default 64 KiB. */
  maxHeaderListSize?: number;
}

/** Integers above this are refused: no legitimate length, index or size gets near it. */
const MAX_INT = 2 ** 32 - 1;
const ENTRY_OVERHEAD = 32;

// Appendix A, "name value" with the value after the first space; entries 17-61 have empty values.
export const STATIC_TABLE: readonly [string, string][] = (
  ":authority|:method GET|:method POST|:path /|:path /index.html|:scheme http|:scheme https|:status 200|" +
  ":status 204|:status 206|:status 304|:status 400|:status 404|:status 500|accept-charset|" +
  "accept-encoding gzip, deflate|accept-language|accept-ranges|accept|access-control-allow-origin|age|" +
  "allow|authorization|cache-control|content-disposition|content-encoding|content-language|" +
  "content-length|content-location|content-range|content-type|cookie|date|etag|expect|expires|from|" +
  "host|if-match|if-modified-since|if-none-match|if-range|if-unmodified-since|last-modified|link|" +
  "location|max-forwards|proxy-authenticate|proxy-authorization|range|referer|refresh|retry-after|" +
  "server|set-cookie|strict-transport-security|transfer-encoding|user-agent|vary|via|www-authenticate"
).split("|").map((entry): [string, string] => {
  const space = entry.indexOf(" ");
  return space < 0 ? [entry, ""] : [entry.slice(0, space), entry.slice(space + 1)];
});

/** First static index for each name, for the encoder. */
const STATIC_NAME_INDEX = new Map<string, number>();
STATIC_TABLE.forEach(([name], i) => STATIC_NAME_INDEX.has(name) || STATIC_NAME_INDEX.set(name, i + 1));

// Appendix B code lengths for symbols 0..256 (256 = EOS), one base-32 digit each. The code is canonical
// (RFC 7541 Appendix B), so the codes follow from the lengths; the test checks codes against the RFC.
const HUFFMAN_LENGTHS = Uint8Array.from(
  "dnsssssssoussussssssssusssssssss6aacd68baa8b8666555666666678f6cad67777777777777777777777878djde6" +
    "f56565666577666567655677777fbedskmkkmmmnmnnnnnonoomnonnnnlmnmnnomlkmmnnlnmmolmnnllmlnmnnkmmmnmmn" +
    "qqkjmnmpqqqrrqopjlqrrqrollqqsrrrkoklmllnmmppooqnqrqqrrrrrsrrrrrqu",
  (digit) => parseInt(digit, 32),
);
const EOS = 256;
const MAX_CODE_LENGTH = 30;

/** Canonical code tables: codes per symbol, and per length the first code, count and symbol offset. */
function buildHuffman() {
  const symbols = [...HUFFMAN_LENGTHS.keys()].sort((a, b) =>
    HUFFMAN_LENGTHS[a] - HUFFMAN_LENGTHS[b] || a - b
  );
  const codes = new Uint32Array(257);
  const firstCode = new Int32Array(MAX_CODE_LENGTH + 1);
  const count = new Int32Array(MAX_CODE_LENGTH + 1);
  const offset = new Int32Array(MAX_CODE_LENGTH + 1);
  let code = 0;
  let length = HUFFMAN_LENGTHS[symbols[0]];
  symbols.forEach((symbol, i) => {
    const len = HUFFMAN_LENGTHS[symbol];
    code *= 2 ** (len - length); // lengthen the code: append zeros
    length = len;
    if (count[len] === 0) [firstCode[len], offset[len]] = [code, i];
    count[len]++;
    codes[symbol] = code++;
  });
  return { codes, firstCode, count, offset, sorted: Uint16Array.from(symbols) };
}
const HUFFMAN = buildHuffman();

/** Octets `text` takes Huffman-encoded, padding included. */
export function huffmanLength(text: Uint8Array): number {
  let bits = 0;
  for (const byte of text) bits += HUFFMAN_LENGTHS[byte];
  return Math.ceil(bits / 8);
}

export function huffmanEncode(text: Uint8Array): Uint8Array {
  const out = new Uint8Array(huffmanLength(text));
  let acc = 0; // fewer than 8 pending bits
  let pending = 0;
  let o = 0;
  for (const byte of text) {
    const code = HUFFMAN.codes[byte];
    let rest = HUFFMAN_LENGTHS[byte];
    while (rest > 0) {
      const take = Math.min(8 - pending, rest);
      acc = (acc << take) | ((code >>> (rest - take)) & ((1 << take) - 1));
      pending += take;
      rest -= take;
      if (pending === 8) [out[o++], acc, pending] = [acc, 0, 0];
    }
  }
  // Pad with the most significant bits of EOS, i.e. ones (§5.2).
  if (pending > 0) out[o] = (acc << (8 - pending)) | ((1 << (8 - pending)) - 1);
  return out;
}

/** Canonical decoding bit by bit: a code of length L is complete once it falls below firstCode+count. */
export function huffmanDecode(bytes: Uint8Array): Uint8Array {
  const { firstCode, count, offset, sorted } = HUFFMAN;
  const out = new Uint8Array(Math.floor((bytes.length * 8) / 5)); // the shortest code has 5 bits
  let o = 0;
  let code = 0;
  let len = 0;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      code = (code << 1) | ((byte >> bit) & 1);
      len++;
      const rank = code - firstCode[len];
      if (count[len] === 0 || rank >= count[len]) continue;
      const symbol = sorted[offset[len] + rank];
      if (symbol === EOS) throw new HpackError("Huffman string contains EOS");
      out[o++] = symbol;
      code = 0;
      len = 0;
    }
  }
  if (len > 7) throw new HpackError("Huffman padding longer than 7 bits");
  if (code !== (1 << len) - 1) throw new HpackError("Huffman padding is not all ones");
  return out.subarray(0, o);
}

/** Encodes `value` with an N-bit prefix; `flags` fills the bits above the prefix in the first octet. */
export function encodeInteger(value: number, prefixBits: number, flags = 0): number[] {
  const max = (1 << prefixBits) - 1;
  if (value < max) return [flags | value];
  const out = [flags | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

/** Reads HPACK primitives from one header block, refusing truncation and oversized values. */
export class HpackReader {
  pos = 0;
  constructor(readonly bytes: Uint8Array) {}

  get done(): boolean {
    return this.pos >= this.bytes.length;
  }

  /** The next octet, not consumed. */
  peek(): number {
    if (this.done) throw new HpackError("truncated header block");
    return this.bytes[this.pos];
  }

  integer(prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    let value = this.peek() & max;
    this.pos++;
    if (value < max) return value;
    // At most 5 continuation octets (35 bits), so leading 0x80 padding cannot loop or overflow.
    for (let shift = 0; shift <= 28; shift += 7) {
      const byte = this.peek();
      this.pos++;
      value += (byte & 0x7f) * 2 ** shift;
      if (value > MAX_INT) break;
      if ((byte & 0x80) === 0) return value;
    }
    throw new HpackError("integer too large");
  }

  /** A string literal's octets, Huffman-decoded if flagged; `limit` bounds the decoded length. */
  string(limit: number): Uint8Array {
    const huffman = (this.peek() & 0x80) !== 0;
    const length = this.integer(7);
    if (length > this.bytes.length - this.pos) throw new HpackError("truncated string literal");
    const raw = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    const octets = huffman ? huffmanDecode(raw) : raw;
    if (octets.length > limit) throw new HpackError("header list too large");
    return octets;
  }
}

/** One header field with its size in octets (name + value + 32), as §4.1 defines it. */
interface Field {
  name: string;
  value: string;
  size: number;
}

// ignoreBOM keeps a leading U+FEFF in a value instead of silently dropping it.
const utf8 = new TextDecoder("utf-8", { fatal: false, ignoreBOM: true });
const utf8Encoder = new TextEncoder();

/** One char per octet; TextDecoder("latin1") would be windows-1252 and remap 0x80-0x9f. */
function latin1(octets: Uint8Array): string {
  let text = "";
  for (let i = 0; i < octets.length; i += 4096) {
    text += String.fromCharCode(...octets.subarray(i, i + 4096));
  }
  return text;
}
const STATIC_FIELDS: Field[] = STATIC_TABLE.map(([name, value]) => ({
  name,
  value,
  size: name.length + value.length + ENTRY_OVERHEAD,
}));

/** HTTP/2 field names: lowercase visible ASCII without separators (RFC 9110 token, RFC 9113 §8.2.1). */
export function isValidFieldName(name: string): boolean {
  return /^:?[!#$%&'*+\-.^_`|~0-9a-z]+$/.test(name);
}

export class HpackDecoder {
  readonly maxTableSize: number;
  readonly maxHeaderListSize: number;
  #table: Field[] = []; // newest first, so dynamic index 62 is #table[0]
  #tableSize = 0;
  #capacity: number; // the limit the peer's encoder last chose, at most maxTableSize

  constructor(limits: HpackLimits = {}) {
    this.maxTableSize = checkLimit(limits.maxTableSize ?? 4096, "maxTableSize");
    this.maxHeaderListSize = checkLimit(limits.maxHeaderListSize ?? 64 * 1024, "maxHeaderListSize");
    this.#capacity = this.maxTableSize;
  }

  /** Dynamic table entries, newest first (index 62 onwards): for tests and diagnostics. */
  get dynamicTable(): [string, string][] {
    return this.#table.map(({ name, value }) => [name, value]);
  }

  /** Current dynamic table size in octets (§4.1). */
  get tableSize(): number {
    return this.#tableSize;
  }

  decode(block: Uint8Array): [string, string][] {
    const reader = new HpackReader(block);
    const headers: [string, string][] = [];
    let listSize = 0;
    while (!reader.done) {
      const first = reader.peek();
      if ((first & 0xe0) === 0x20) {
        if (headers.length > 0) throw new HpackError("table size update after a header field");
        this.#resize(reader.integer(5));
        continue;
      }
      const field = this.#field(reader, this.maxHeaderListSize - listSize);
      listSize += field.size;
      if (listSize > this.maxHeaderListSize) throw new HpackError("header list too large");
      headers.push([field.name, field.value]);
    }
    return headers;
  }

  /** One field representation (§6.1, §6.2); `budget` is what the header list may still grow by. */
  #field(reader: HpackReader, budget: number): Field {
    const first = reader.peek();
    if (first & 0x80) return this.#lookup(reader.integer(7));
    const indexing = (first & 0x40) !== 0;
    const nameIndex = reader.integer(indexing ? 6 : 4); // 0001xxxx (never indexed) and 0000xxxx alike
    const name = nameIndex === 0 ? latin1(reader.string(budget)) : this.#lookup(nameIndex).name;
    const value = reader.string(budget);
    const field = { name, value: utf8.decode(value), size: name.length + value.length + ENTRY_OVERHEAD };
    if (indexing) this.#insert(field);
    return field;
  }

  #lookup(index: number): Field {
    if (index === 0) throw new HpackError("index 0");
    if (index <= STATIC_FIELDS.length) return STATIC_FIELDS[index - 1];
    const entry = this.#table[index - STATIC_FIELDS.length - 1];
    if (entry === undefined) throw new HpackError(`index ${index} beyond the tables`);
    return entry;
  }

  /** §4.4: evict oldest until the entry fits; an entry larger than the table just empties it. */
  #insert(field: Field): void {
    this.#evictTo(this.#capacity - field.size);
    if (field.size > this.#capacity) return;
    this.#table.unshift(field);
    this.#tableSize += field.size;
  }

  /** §6.3: the peer may shrink or regrow the table, but never above what we advertised. */
  #resize(size: number): void {
    if (size > this.maxTableSize) {
      throw new HpackError(`table size update ${size} above ${this.maxTableSize}`);
    }
    this.#capacity = size;
    this.#evictTo(size);
  }

  #evictTo(size: number): void {
    while (this.#tableSize > Math.max(size, 0)) this.#tableSize -= this.#table.pop()!.size;
  }
}

function checkLimit(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 0 || value > MAX_INT) throw new RangeError(`bad ${what}`);
  return value;
}

/** A string literal (§5.2), Huffman-coded when that is strictly shorter. */
function encodeString(octets: Uint8Array): Uint8Array[] {
  const huffman = huffmanLength(octets) < octets.length;
  const body = huffman ? huffmanEncode(octets) : octets;
  return [Uint8Array.from(encodeInteger(body.length, 7, huffman ? 0x80 : 0)), body];
}

/**
 * Encodes headers as literals without indexing (§6.2.2), reusing a static-table name index when there
 * is one. Names are sent exactly as given (the caller lowercases them); strings are sent as UTF-8.
 */
export function encodeHeaders(headers: [string, string][]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const [name, value] of headers) {
    const index = STATIC_NAME_INDEX.get(name);
    if (index !== undefined) parts.push(Uint8Array.from(encodeInteger(index, 4)));
    else parts.push(Uint8Array.of(0x00), ...encodeString(utf8Encoder.encode(name)));
    parts.push(...encodeString(utf8Encoder.encode(value)));
  }
  return concat(...parts);
}
