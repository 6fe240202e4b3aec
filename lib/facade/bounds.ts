// Size bounds on what reaches the host (facade.md, "Bounds"). Pure.

import { isObject } from "../wire/json.ts";
import type { CallToolResult, ContentBlock, JsonObject } from "../wire/mcp.ts";

export const TEXT_LIMIT = 64 * 1024;
export const STRUCTURED_LIMIT = 256 * 1024;

const encoder = new TextEncoder();

/** UTF-8 length of a string without encoding it (lone surrogates count as U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * Cuts `text` to at most `limit` UTF-8 bytes on a character boundary and
 * appends `[truncated: <shown> of <total> bytes shown]` on its own line.
 * Text within the limit is returned as it is.
 */
export function truncateText(text: string, limit = TEXT_LIMIT): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes, so short strings need no count.
  if (text.length * 3 <= limit) return text;
  const total = utf8Length(text);
  if (total <= limit) return text;
  // encodeInto never writes a partial character, so `read` ends on a boundary.
  const { read, written } = encoder.encodeInto(text, new Uint8Array(limit));
  return `${text.slice(0, read)}\n[truncated: ${written} of ${total} bytes shown]`;
}

/** A block's text bounded wherever the model reads it: a text block's text, an embedded resource's text. */
function boundBlock(block: unknown): ContentBlock {
  if (!isObject(block)) return block as ContentBlock;
  if (block.type === "text" && typeof block.text === "string") {
    return { ...block, type: "text", text: truncateText(block.text) };
  }
  const resource = block.resource;
  if (block.type === "resource" && isObject(resource) && typeof resource.text === "string") {
    return { ...block, type: "resource", resource: { ...resource, text: truncateText(resource.text) } };
  }
  return block as ContentBlock;
}

/**
 * Bounds a tool result: every text block and embedded resource text to
 * 64 KiB, `structuredContent` to 256 KiB of JSON. Oversized structured
 * content becomes `{"truncated": true, "bytes": <total>}` and the first text
 * block gains a note line (a new text block when there is none). Image,
 * audio, blob and link blocks pass through untouched.
 */
export function boundResult(result: JsonObject): CallToolResult {
  const content: ContentBlock[] = Array.isArray(result.content) ? result.content.map(boundBlock) : [];
  const bounded: CallToolResult = { ...result, content };
  if (result.structuredContent !== undefined) {
    const json = JSON.stringify(result.structuredContent);
    const total = json === undefined ? 0 : utf8Length(json);
    if (total > STRUCTURED_LIMIT) {
      bounded.structuredContent = { truncated: true, bytes: total };
      const note = `[structuredContent truncated: ${total} bytes exceeds the ${STRUCTURED_LIMIT} byte limit]`;
      const first = content.findIndex((block) =>
        isObject(block) && block.type === "text" && typeof block.text === "string"
      );
      if (first === -1) content.push({ type: "text", text: note });
      else {
        const block = content[first];
        content[first] = { ...block, text: `${block.text}\n${note}` };
      }
    }
  }
  return bounded;
}
