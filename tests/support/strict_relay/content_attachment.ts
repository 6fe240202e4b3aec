// read_attachment's answer for a stored file, as the real relay gives it: the file's Blossom
// descriptor (its URL with the extension the relay's type table names, NIP-94 tags) with the bytes
// as standard Base64 and, for a text type, the text; the bytes as native MCP content for an image,
// audio or text, and otherwise a sentence saying where they are. Too many bytes for max_bytes is a
// tool error that still says the size.

import type { FileSeed } from "./content_types.ts";
import { browseError, type ContentView } from "./content_view.ts";
import type { ToolResult } from "./types.ts";

/** The most a read may return, and what it returns when max_bytes is not given. */
export const READ_LIMIT = 4 * 1024 * 1024;

/** The extensions the relay gives a file's URL, by type; any other type gets none. */
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

export const BYTES_ELSEWHERE = "File bytes are in structuredContent.data as Base64.";

/** Standard Base64, a chunk at a time so a 4 MiB file does not overflow the call stack. */
function base64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** The file's descriptor with its bytes, a Go map: the keys sorted. */
function descriptor(sha: string, f: FileSeed, view: ContentView, data: string): Record<string, unknown> {
  const ext = EXTENSIONS[f.type];
  const url = `${view.url.replace(/\/+$/, "")}/${sha}${ext ? `.${ext}` : ""}`;
  const size = f.bytes.length;
  return {
    data,
    nip94: [["url", url], ["m", f.type], ["x", sha], ["ox", sha], ["size", String(size)]],
    sha256: sha,
    size,
    ...(f.type.startsWith("text/") ? { text: new TextDecoder().decode(f.bytes) } : {}),
    type: f.type,
    uploaded: f.uploaded,
    url,
  };
}

/** The answer for a file the caller may read; `maxBytes` as the call gave it (undefined or 0: 4 MiB). */
export function attachmentAnswer(sha: string, f: FileSeed, view: ContentView, maxBytes: unknown): ToolResult {
  const max = maxBytes === undefined || maxBytes === 0 ? READ_LIMIT : maxBytes;
  if (typeof max !== "number" || !Number.isInteger(max) || max < 1 || max > READ_LIMIT) {
    return browseError(`max_bytes must be between 1 and ${READ_LIMIT}`);
  }
  if (f.bytes.length > max) {
    return { ...browseError("attachment exceeds max_bytes"), structuredContent: { size: f.bytes.length } };
  }
  const data = base64(f.bytes);
  const structured = descriptor(sha, f, view, data);
  const kind = ["image", "audio"].find((k) => f.type.startsWith(`${k}/`));
  const block = kind
    ? { type: kind, data, mimeType: f.type }
    : { type: "text", text: structured.text ?? BYTES_ELSEWHERE };
  return { content: [block], structuredContent: structured, isError: false };
}
