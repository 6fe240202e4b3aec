// The grammar of what the relay sends back over HTTP/1.1 (RFC 9112), read
// strictly: the status line, field lines, Content-Length, Transfer-Encoding
// and chunk-size lines. Pure: bytes in, a value out, or a FramingError saying
// which rule the relay broke. A lenient reading here is how a client and a
// server come to disagree about where an answer ends.

/** The answer breaks HTTP/1.1's framing: the connection is closed and the call is a transport failure. */
export class FramingError extends Error {}

/** More fields than this in a head or a trailer section is not an answer anyone needs to read. */
export const MAX_FIELDS = 256;

export interface Head {
  version: "1.0" | "1.1";
  status: number;
  /** The reason phrase as the relay wrote it (possibly empty); set by parseHead. */
  reason?: string;
  /** Every field line's value, by lowercase name, in the order received. */
  fields: Map<string, string[]>;
}

/** tchar (RFC 9110, 5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Anything but HTAB, SP, VCHAR and obs-text: NUL, CR, LF, the other controls and DEL. */
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f]/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([0-9]{3})(?: ([^]*))?$/;

/** Bytes as Latin-1 text: one character per byte, so every byte is checked as itself. */
export function latin1(bytes: Uint8Array): string {
  let text = "";
  for (let at = 0; at < bytes.length; at += 8192) {
    text += String.fromCharCode(...bytes.subarray(at, at + 8192));
  }
  return text;
}

/** A response head: the status line and its field lines, without the final empty line. */
export function parseHead(raw: Uint8Array): Head {
  const [statusLine, ...lines] = latin1(raw).split("\r\n");
  const match = STATUS_LINE.exec(statusLine);
  if (!match) {
    throw new FramingError(`the relay's answer is not HTTP/1.1: ${JSON.stringify(statusLine.slice(0, 60))}`);
  }
  const status = Number(match[2]);
  if (status < 100 || status > 599) {
    throw new FramingError(`the relay's answer has status ${match[2]}, outside 100-599`);
  }
  if (match[3] !== undefined && CONTROL.test(match[3])) {
    throw new FramingError("the relay's status line has a control character in its reason phrase");
  }
  return {
    version: match[1] === "1" ? "1.1" : "1.0",
    status,
    reason: match[3] ?? "",
    fields: parseFields(lines),
  };
}

/** Field lines (a head's or a trailer section's): `token ":" OWS value OWS`, no obs-fold, no controls. */
export function parseFields(lines: string[]): Map<string, string[]> {
  if (lines.length > MAX_FIELDS) {
    throw new FramingError(`the relay's answer has more than ${MAX_FIELDS} header fields`);
  }
  const fields = new Map<string, string[]>();
  for (const line of lines) {
    if (line.startsWith(" ") || line.startsWith("\t")) {
      throw new FramingError("the relay's answer folds a header line (obs-fold), which HTTP/1.1 forbids");
    }
    const colon = line.indexOf(":");
    const name = colon === -1 ? line : line.slice(0, colon);
    if (colon === -1 || !TOKEN.test(name)) {
      throw new FramingError(
        `the relay's answer has a malformed header name ${JSON.stringify(name.slice(0, 40))}`,
      );
    }
    const value = line.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, "");
    if (CONTROL.test(value)) {
      throw new FramingError(`the relay's header ${name} has a control character (NUL, CR, LF) in its value`);
    }
    const key = name.toLowerCase();
    const values = fields.get(key);
    if (values) values.push(value);
    else fields.set(key, [value]);
  }
  return fields;
}

/** A field's values as one value, joined as HTTP joins repeated fields. */
export function fieldValue(fields: Map<string, string[]>, name: string): string | undefined {
  return fields.get(name)?.join(", ");
}

/** The elements of a comma-separated list field, trimmed, empty ones dropped (RFC 9110, 5.6.1). */
function listElements(values: string[]): string[] {
  return values.flatMap((value) => value.split(",")).map((item) => item.trim()).filter((item) => item !== "");
}

/**
 * Content-Length: `1*DIGIT`. Repeated (as fields or as a list), every value
 * must be the same number. Undefined when absent; Infinity for a number too
 * large to be safe, which every size bound refuses.
 */
export function contentLength(fields: Map<string, string[]>): number | undefined {
  const values = fields.get("content-length");
  if (values === undefined) return undefined;
  const items = values.flatMap((value) => value.split(",")).map((item) =>
    item.replace(/^[ \t]+|[ \t]+$/g, "")
  );
  if (items.length === 0 || !items.every((item) => /^[0-9]+$/.test(item))) {
    throw new FramingError(
      `the relay's Content-Length is not a number: ${JSON.stringify(values.join(", "))}`,
    );
  }
  const digits = new Set(items.map((item) => item.replace(/^0+(?=.)/, "")));
  if (digits.size > 1) throw new FramingError("the relay's answer has conflicting Content-Length values");
  const [only] = digits;
  return only.length > 15 ? Infinity : Number(only);
}

/**
 * Whether the body is chunked. The only transfer coding a client that asks
 * for none accepts is `chunked` alone; HTTP/1.0 has no transfer codings.
 */
export function isChunked(head: Head): boolean {
  const values = head.fields.get("transfer-encoding");
  if (values === undefined) return false;
  const codings = listElements(values).map((coding) => coding.toLowerCase());
  if (head.version === "1.0") throw new FramingError("the relay's HTTP/1.0 answer has a Transfer-Encoding");
  if (codings.length !== 1 || codings[0] !== "chunked") {
    throw new FramingError(
      `the relay's answer uses the transfer coding ${
        JSON.stringify(values.join(", "))
      }; only chunked is read`,
    );
  }
  return true;
}

const BWS = "[ \\t]*";
const QUOTED = '"(?:[\\t \\x21\\x23-\\x5b\\x5d-\\x7e\\x80-\\xff]|\\\\[\\t \\x21-\\x7e\\x80-\\xff])*"';
const TCHARS = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
/** chunk-size [ chunk-ext ] (RFC 9112, 7.1): `1*HEXDIG *( BWS ";" BWS name [ BWS "=" BWS value ] )`. */
const CHUNK_LINE = new RegExp(
  `^([0-9A-Fa-f]+)(?:${BWS};${BWS}${TCHARS}(?:${BWS}=${BWS}(?:${TCHARS}|${QUOTED}))?)*$`,
);

/** A chunk-size line's size; Infinity when too large to be safe, which every size bound refuses. */
export function chunkSize(line: Uint8Array): number {
  const match = CHUNK_LINE.exec(latin1(line));
  if (!match) throw new FramingError("the relay's chunked answer has a malformed chunk-size line");
  const hex = match[1].replace(/^0+(?=.)/, "");
  return hex.length > 13 ? Infinity : parseInt(hex, 16);
}
