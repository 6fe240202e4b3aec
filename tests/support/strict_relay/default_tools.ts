// read_attachment's answer for stored bytes, kept here for content_files.ts until it answers with
// the relay's descriptor itself.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ToolResult } from "./types.ts";
import { latin1 } from "./values.ts";

/** read_attachment's answer for these bytes: native content for images, audio and text, always Base64. */
export function attachmentResult(bytes: Uint8Array, type: string): ToolResult {
  const data = btoa(latin1(bytes));
  const structured = { sha256: bytesToHex(sha256(bytes)), size: bytes.length, type, data };
  const content: Record<string, unknown>[] = [];
  if (type.startsWith("image/")) content.push({ type: "image", data, mimeType: type });
  else if (type.startsWith("audio/")) content.push({ type: "audio", data, mimeType: type });
  else if (type.startsWith("text/")) {
    content.push({ type: "text", text: new TextDecoder().decode(bytes) });
  } else content.push({ type: "text", text: `${type}, ${bytes.length} bytes` });
  return { content, structuredContent: structured, isError: false };
}
