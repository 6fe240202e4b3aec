// `tiny_read {uri}` (--read-tool), for the hosts that show tools and no resources (Cursor, Zed,
// Windsurf): the same read as `resources/read`, collections and pieces included, as tool content —
// each text item a text block, an image an image block, other bytes an embedded resource — then
// the links as a line each, since a model there sees only the content; `structuredContent` says
// each item's URI and type and carries the links. A refusal is an `isError` result whose text
// names the nearest URIs that resolve. Its entry loads nothing of the namespace. Pure.

import {
  type CallError,
  type CallToolResult,
  type ContentBlock,
  type JsonObject,
  type Tool,
  toolError,
} from "../wire/mcp.ts";
import { isObject } from "../wire/json.ts";

export const READ_TOOL = "tiny_read";

/** The tool's entry, its description naming this relay's namespace (`tiny://<host>[/r/<tenant>]`). */
export function readToolEntry(base: string): Tool {
  return {
    name: READ_TOOL,
    title: "Read a tiny:// resource",
    description: `Read what this relay holds by its URI: ${base}/ lists the kinds; ${base}/room/<id>, ` +
      `${base}/room/<id>/thread/<event>, ${base}/repo/<owner hex>/<name> (and /issue/<id>, /pull/<id>), ` +
      `${base}/wiki/<page>, ${base}/job/<id>, ${base}/file/<sha256>; a URI ending in / lists its children, ` +
      "a page at a time (?cursor=). ?as=json gives the relay's answer, ?as=stat what a thing is without its " +
      "body, ?lines=FIRST-LAST lines of a text, ?range=START-END bytes of a file, ?pointer=/a/0 a part of " +
      "?as=json. Each answer lists its links: URIs to read next. A wrong URI is refused naming the nearest " +
      "that resolve.",
    inputSchema: {
      type: "object",
      properties: { uri: { type: "string", description: `A tiny:// URI, such as ${base}/room/general.` } },
      required: ["uri"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
  };
}

/** The uri argument, or the refusal of the arguments. */
export function readToolArgs(args: JsonObject): { uri: string } | { refused: CallToolResult } {
  const extra = Object.keys(args).find((name) => name !== "uri");
  if (extra !== undefined) {
    return { refused: toolError(`invalid arguments: unknown field ${extra.slice(0, 64)}`) };
  }
  if (typeof args.uri !== "string") {
    return { refused: toolError("invalid arguments: uri must be a string, a tiny:// URI") };
  }
  return { uri: args.uri };
}

type Item = { uri: string; mimeType: string; text: string } | { uri: string; mimeType: string; blob: string };
interface Link {
  rel: string;
  href: string;
  title?: string;
  count?: number;
}

/** One item as a content block: text as text, an image as an image, other bytes embedded. */
function blockOf(item: Item): ContentBlock {
  if ("text" in item) return { type: "text", text: item.text };
  if (/^image\/(png|jpeg|gif|webp)$/.test(item.mimeType)) {
    return { type: "image", data: item.blob, mimeType: item.mimeType };
  }
  return { type: "resource", resource: { uri: item.uri, mimeType: item.mimeType, blob: item.blob } };
}

/** The links as the model reads them: one a line, relation first. */
function linksText(links: readonly Link[]): string {
  const lines = links.map((link) =>
    `- ${link.rel}: ${link.href}${link.title ? ` (${link.title})` : ""}${link.count ? ` ×${link.count}` : ""}`
  );
  return ["Links:", ...lines].join("\n");
}

/** What `resources/read` answered, as tiny_read's result. */
export function readToolResult(
  answer: { result: { contents: Item[]; _meta?: Record<string, unknown> } } | { error: CallError },
  linksKey: string,
): CallToolResult {
  if ("error" in answer) return toolError(answer.error.message, answer.error.data);
  const { contents, _meta } = answer.result;
  const found = _meta?.[linksKey];
  const links = Array.isArray(found)
    ? found.filter((l): l is Link => isObject(l) && typeof l.rel === "string" && typeof l.href === "string")
    : [];
  const content = contents.map(blockOf);
  if (links.length > 0) content.push({ type: "text", text: linksText(links) });
  return {
    content,
    structuredContent: { contents: contents.map(({ uri, mimeType }) => ({ uri, mimeType })), links },
    isError: false,
  };
}
