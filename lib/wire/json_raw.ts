// A member of a JSON object exactly as it was written: how the helper echoes
// a request's id byte for byte (`1.0` stays `1.0`, a 20-digit number keeps
// every digit) and forwards a `request` body whitespace and all. Pure; the
// text has already parsed as JSON, so this only finds where values begin and
// end, without recursion (a value may nest thousands deep).

const QUOTE = 0x22, BACKSLASH = 0x5c, COLON = 0x3a, COMMA = 0x2c;
const OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++;
  return at;
}

/** The index just past the string that opens at `at`. */
function stringEnd(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === BACKSLASH) i++;
    else if (code === QUOTE) return i + 1;
  }
  return text.length;
}

/** The index just past the value that starts at `at` (a scalar, a string, or a whole object or array). */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    let i = at;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === COMMA || code === CLOSE_OBJECT || code === CLOSE_ARRAY || isSpace(code)) break;
      i++;
    }
    return i;
  }
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) i = stringEnd(text, i) - 1;
    else if (code === OPEN_OBJECT || code === OPEN_ARRAY) depth++;
    else if ((code === CLOSE_OBJECT || code === CLOSE_ARRAY) && --depth === 0) return i + 1;
  }
  return text.length;
}

/** The [start, end) of member `key`'s value in the object that opens at `at`; the last one wins, as JSON.parse has it. */
function memberSpan(text: string, at: number, key: string): [number, number] | undefined {
  let span: [number, number] | undefined;
  let i = skipSpace(text, at + 1);
  while (i < text.length && text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const name = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipSpace(text, keyEnd);
    if (text.charCodeAt(i) !== COLON) return span;
    const start = skipSpace(text, i + 1);
    const end = valueEnd(text, start);
    if (name === key) span = [start, end];
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return span;
}

/**
 * The text of the value at `path` (object keys, outermost first) in `json`, exactly as written;
 * undefined when some step is missing or not an object. `json` must be valid JSON.
 */
export function rawMember(json: string, path: readonly string[]): string | undefined {
  let start = skipSpace(json, 0);
  let end = valueEnd(json, start);
  for (const key of path) {
    if (json.charCodeAt(start) !== OPEN_OBJECT) return undefined;
    const span = memberSpan(json, start, key);
    if (!span) return undefined;
    [start, end] = span;
  }
  return json.slice(start, end);
}
