// Attachment metadata as the real relay derives it (rpc-facts 6.4): the media type from Content-Type
// or sniffed from the bytes, the URL extension it implies, the cleaned file name, and which types a
// download may keep.

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_TYPE_RE = new RegExp(`^(${TOKEN})/(${TOKEN})$`);
const PARAM_RE = new RegExp(`^(${TOKEN})=(${TOKEN}|"(?:[^"\\\\]|\\\\.)*")$`);

/**
 * A Content-Type value as the relay stores it, the type and subtype lower-cased, parameters kept (as
 * Go's mime.ParseMediaType reads it), or undefined when it does not parse.
 */
export function parseMediaType(value: string): string | undefined {
  const [essence, ...params] = value.split(";").map((part) => part.trim());
  const m = MEDIA_TYPE_RE.exec(essence);
  if (!m) return undefined;
  const kept: string[] = [];
  for (const param of params) {
    if (param === "") continue;
    const p = PARAM_RE.exec(param);
    if (!p) return undefined;
    kept.push(`${p[1].toLowerCase()}=${p[2]}`);
  }
  return [`${m[1]}/${m[2]}`.toLowerCase(), ...kept].join("; ");
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((b, i) => bytes[i] === b);
}

/** Bytes Go's http.DetectContentType counts as binary: control characters other than \t \n \f \r ESC. */
function looksBinary(bytes: Uint8Array): boolean {
  return bytes.some((b) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f));
}

/** The type sniffed from the bytes, as Go's http.DetectContentType names the kinds it knows. */
export function sniffMediaType(bytes: Uint8Array): string {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg";
  const head = String.fromCharCode(...bytes.subarray(0, 6));
  if (head === "GIF87a" || head === "GIF89a") return "image/gif";
  if (head.startsWith("%PDF-")) return "application/pdf";
  if (!looksBinary(bytes)) {
    try {
      new TextDecoder("utf-8", { fatal: true }).decode(bytes);
      return "text/plain; charset=utf-8";
    } catch {
      // not UTF-8
    }
  }
  return "application/octet-stream";
}

/** The relay's extension for each type it names one for (blob.go); any other type's URL has none. */
const EXTENSIONS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
  "image/avif": "avif",
  "image/svg+xml": "svg",
  "video/mp4": "mp4",
  "video/webm": "webm",
  "video/quicktime": "mov",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/wav": "wav",
  "audio/mp4": "m4a",
  "application/pdf": "pdf",
  "application/json": "json",
  "text/plain": "txt",
  "text/markdown": "md",
  "application/vnd.blossom.directory+msgpack": "bdir",
};

/** The URL extension for a type ("" for a type without a known one: the URL then has none). */
export function extensionOf(type: string): string {
  return EXTENSIONS[type.split(";")[0].trim()] ?? "";
}

/** Whether a download keeps the stored type (else it is application/octet-stream, as an attachment). */
export function servedInline(type: string): boolean {
  const essence = type.split(";")[0].trim();
  return /^(image|video|audio)\//.test(essence) || essence === "application/pdf";
}

/** Go's path.Base: the last element, trailing slashes ignored; "." for "", "/" for only slashes. */
function baseName(path: string): string {
  if (path === "") return ".";
  const trimmed = path.replace(/\/+$/, "");
  if (trimmed === "") return "/";
  return trimmed.slice(trimmed.lastIndexOf("/") + 1);
}

/**
 * The stored file name: the last path element of the query's `filename`, control characters
 * replaced by spaces, trimmed, at most 255 characters; empty, "." or "/" become "file".
 */
export function cleanFilename(raw: string | null): string {
  // deno-lint-ignore no-control-regex
  const name = [...baseName(raw ?? "").replace(/[\u0000-\u001f\u007f]/g, " ").trim()].slice(0, 255)
    .join("");
  return name === "" || name === "." || name === "/" ? "file" : name;
}
