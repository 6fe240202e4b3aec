// The id of a request line exactly as the host wrote it, found without
// holding the line: how an over-long line is refused with its request's id
// (so the host is not left waiting), and how a numeric id is echoed digit for
// digit (JSON.parse rounds integers past 2^53). Tracks nesting and strings,
// and keeps only the key at depth 1 being read and the id's own characters.

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;
/** No spelling of "id" is longer than 12 bytes (`"\u0069\u0064"` unescaped), nor a usable id than 1 KiB. */
const MAX_KEY_BYTES = 12;
const MAX_ID_BYTES = 1024;

function isSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a;
}

export class IdScanner {
  #started = false;
  #done = false;
  #depth = 0;
  #inString = false;
  #escaped = false;
  #expectKey = false;
  /** The depth-1 key being read, raw (escapes included), while it is short enough to matter. */
  #key: number[] | undefined;
  #lastKey = "";
  /** The id value's bytes while they are being read. */
  #value: number[] | undefined;
  #raw: string | undefined;
  /** Fed UTF-8 bytes (an over-long line) or UTF-16 code units (a line already decoded). */
  #units: "bytes" | "text" = "bytes";

  feed(bytes: Uint8Array): void {
    for (let i = 0; i < bytes.length && !this.#done; i++) this.#step(bytes[i]);
  }

  feedText(text: string): void {
    this.#units = "text";
    for (let i = 0; i < text.length && !this.#done; i++) this.#step(text.charCodeAt(i));
  }

  /** The id's JSON text as written, when the line had a top-level id that is a string or a number. */
  raw(): string | undefined {
    return this.#raw;
  }

  /** The id's value, or null when there is none usable. */
  id(): string | number | null {
    if (this.#raw === undefined) return null;
    const value = JSON.parse(this.#raw);
    return typeof value === "string" || (typeof value === "number" && Number.isFinite(value)) ? value : null;
  }

  #step(byte: number): void {
    if (!this.#started) {
      if (isSpace(byte)) return;
      this.#started = byte === OPEN_OBJECT;
      this.#done = !this.#started; // Not an object: no id to find.
      this.#depth = 1;
      this.#expectKey = true;
    } else if (this.#value) this.#readValue(byte);
    else if (this.#inString) this.#readString(byte);
    else this.#readStructure(byte);
  }

  #readString(byte: number): void {
    const closing = byte === QUOTE && !this.#escaped;
    if (this.#key && !closing && this.#key.length <= MAX_KEY_BYTES) this.#key.push(byte);
    if (this.#escaped) this.#escaped = false;
    else if (byte === BACKSLASH) this.#escaped = true;
    else if (closing) {
      this.#inString = false;
      if (this.#key) this.#lastKey = unescapeKey(this.#key);
      this.#key = undefined;
    }
  }

  #readStructure(byte: number): void {
    if (byte === QUOTE) {
      this.#inString = true;
      if (this.#depth === 1 && this.#expectKey) this.#key = [];
      this.#expectKey = false;
    } else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.#depth++;
    else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) this.#done = --this.#depth === 0;
    else if (byte === COMMA) this.#expectKey = this.#depth === 1;
    else if (byte === COLON) {
      if (this.#depth === 1 && this.#lastKey === "id") this.#value = [];
      this.#lastKey = "";
    }
  }

  /** Collects the id's bytes until the value ends: a closing quote, or a delimiter after a number. */
  #readValue(byte: number): void {
    const value = this.#value!;
    if (value.length === 0 && isSpace(byte)) return;
    const isString = value.length > 0 && value[0] === QUOTE;
    let ended = false;
    if (isString) {
      value.push(byte);
      if (this.#escaped) this.#escaped = false;
      else if (byte === BACKSLASH) this.#escaped = true;
      else ended = byte === QUOTE && value.length > 1;
    } else if (byte === COMMA || byte === CLOSE_OBJECT || isSpace(byte)) ended = true;
    else value.push(byte);
    if (value.length > MAX_ID_BYTES) this.#done = true;
    if (!ended || this.#done) return;
    this.#done = true;
    const raw = this.#units === "text"
      ? String.fromCharCode(...value)
      : new TextDecoder().decode(new Uint8Array(value));
    if (isJsonScalarId(raw)) this.#raw = raw;
  }
}

/** Whether `raw` is the JSON text of a string or a finite number. */
function isJsonScalarId(raw: string): boolean {
  try {
    const value = JSON.parse(raw);
    return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
  } catch {
    return false;
  }
}

/** A captured key's raw bytes as JSON reads them; "" when too long to be "id" or not valid. */
function unescapeKey(raw: number[]): string {
  if (raw.length > MAX_KEY_BYTES) return "";
  try {
    return JSON.parse(`"${String.fromCharCode(...raw)}"`);
  } catch {
    return "";
  }
}

/** The JSON text of the top-level `"id"` in a decoded line, as written; undefined when it has none usable. */
export function rawIdOf(line: string): string | undefined {
  const scanner = new IdScanner();
  scanner.feedText(line);
  return scanner.raw();
}
