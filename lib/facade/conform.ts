// What reaches the host is valid MCP, whatever the relay sent: every tool
// entry and every tool result passes through here on its way out, is
// repaired where it can be, and is bounded (facade.md, "Bounds"). Pure: each
// repair is also returned as a note, for one line on stderr.

import { boundResult, truncateText } from "./bounds.ts";
import { isObject } from "../wire/json.ts";
import type { CallToolResult, ContentBlock, JsonObject, Tool } from "../wire/mcp.ts";

/** A value and what had to change to make it valid. */
export interface Conformed<T> {
  value: T;
  notes: string[];
}

const HINTS = ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const;

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** MCP's input schema: an object schema whose properties are objects and whose required is a list of names. */
function isInputSchema(value: unknown): value is JsonObject {
  if (!isObject(value) || value.type !== "object") return false;
  const { properties, required } = value;
  if (properties !== undefined && (!isObject(properties) || !Object.values(properties).every(isObject))) {
    return false;
  }
  return required === undefined ||
    (Array.isArray(required) && required.every((name) => typeof name === "string"));
}

/** Tool annotations with only the fields MCP defines, each of its type; undefined when none is left. */
function toolAnnotations(value: JsonObject): JsonObject | undefined {
  const kept: JsonObject = {};
  if (typeof value.title === "string") kept.title = value.title;
  for (const hint of HINTS) if (typeof value[hint] === "boolean") kept[hint] = value[hint];
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * One exposed relay tool as the host will see it: the relay's title,
 * description (bounded like any text the model reads), input schema and
 * annotations (facade.md, `tools/list`). A field of the wrong type is left
 * out; an input schema that is not an object schema becomes `{"type":
 * "object"}` (the relay still checks the arguments). The relay's
 * outputSchema is not passed on: the contract's list does not name it, and a
 * host that checks results against it would refuse every bounded result.
 */
export function conformTool(name: string, entry: JsonObject): Conformed<Tool> {
  const notes: string[] = [];
  const tool: Tool = { name, inputSchema: { type: "object" } };
  for (const field of ["title", "description"] as const) {
    const value = entry[field];
    if (value === undefined || value === null) continue;
    if (typeof value === "string") tool[field] = truncateText(value);
    else notes.push(`${name}: ${field} is ${describe(value)}, not a string; left out`);
  }
  if (isInputSchema(entry.inputSchema)) tool.inputSchema = entry.inputSchema;
  else if (entry.inputSchema !== undefined && entry.inputSchema !== null) {
    notes.push(`${name}: inputSchema is not an object schema; replaced by {"type":"object"}`);
  }
  const annotations = entry.annotations;
  if (isObject(annotations)) {
    const kept = toolAnnotations(annotations);
    if (kept) tool.annotations = kept;
    if (Object.keys(kept ?? {}).length !== Object.keys(annotations).length) {
      notes.push(`${name}: annotations fields MCP does not define, or of the wrong type, left out`);
    }
  } else if (annotations !== undefined && annotations !== null) {
    notes.push(`${name}: annotations is ${describe(annotations)}, not an object; left out`);
  }
  return { value: tool, notes };
}

/** Whether `value` is Base64 as MCP hosts check it (the runtime's own decoder accepts it). */
function isBase64(value: unknown): value is string {
  if (typeof value !== "string") return false;
  try {
    atob(value);
    return true;
  } catch {
    return false;
  }
}

/** Content annotations as MCP defines them: audience, priority from 0 to 1, lastModified. */
function isContentAnnotations(value: unknown): boolean {
  if (!isObject(value)) return false;
  const { audience, priority, lastModified } = value;
  if (
    audience !== undefined &&
    !(Array.isArray(audience) && audience.every((role) => role === "user" || role === "assistant"))
  ) return false;
  if (priority !== undefined && !(typeof priority === "number" && priority >= 0 && priority <= 1)) {
    return false;
  }
  return lastModified === undefined || (typeof lastModified === "string" && !isNaN(Date.parse(lastModified)));
}

/** The fields every block may carry, kept only when valid: annotations and `_meta`. */
function commonFields(block: JsonObject, into: ContentBlock): ContentBlock {
  if (block.annotations !== undefined && isContentAnnotations(block.annotations)) {
    into.annotations = block.annotations;
  }
  if (isObject(block._meta)) into._meta = block._meta;
  return into;
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
}

function optionalString(from: JsonObject, field: string, into: JsonObject): void {
  if (typeof from[field] === "string") into[field] = from[field];
}

/** An embedded resource's contents: a uri and either text or a Base64 blob. */
function resourceContents(resource: unknown): JsonObject | string {
  if (!isObject(resource) || typeof resource.uri !== "string") return "a resource block without a uri";
  const kept: JsonObject = { uri: resource.uri };
  optionalString(resource, "mimeType", kept);
  if (isObject(resource._meta)) kept._meta = resource._meta;
  if (typeof resource.text === "string") kept.text = resource.text;
  else if (isBase64(resource.blob)) kept.blob = resource.blob;
  else return "a resource block with neither text nor a Base64 blob";
  return kept;
}

/** A resource link: a uri and a name, with the optional fields MCP defines when of their type. */
function resourceLink(block: JsonObject): ContentBlock | string {
  if (typeof block.uri !== "string" || typeof block.name !== "string") {
    return "a resource_link block without a uri and a name";
  }
  const link: ContentBlock = { type: "resource_link", uri: block.uri, name: block.name };
  for (const field of ["title", "description", "mimeType"]) optionalString(block, field, link);
  if (typeof block.size === "number") link.size = block.size;
  return commonFields(block, link);
}

/** One content block made valid, or the reason it is left out; `notes` gets what was repaired. */
function conformBlock(block: unknown, notes: string[]): ContentBlock | string {
  if (!isObject(block)) return `a content block is ${describe(block)}, not an object`;
  switch (block.type) {
    case "text":
      if (block.text === undefined) return "a text block without text";
      if (typeof block.text !== "string") {
        notes.push(`a text block's text is ${describe(block.text)}; given as JSON`);
      }
      return commonFields(block, { type: "text", text: textOf(block.text) });
    case "image":
    case "audio":
      if (!isBase64(block.data) || typeof block.mimeType !== "string") {
        return `an ${block.type} block without Base64 data and a MIME type`;
      }
      return commonFields(block, { type: block.type, data: block.data, mimeType: block.mimeType });
    case "resource": {
      const resource = resourceContents(block.resource);
      return typeof resource === "string" ? resource : commonFields(block, { type: "resource", resource });
    }
    case "resource_link":
      return resourceLink(block);
    default:
      // The words of a block MCP does not define still reach the model, as text.
      if (typeof block.text === "string") {
        notes.push(
          `a ${
            JSON.stringify(String(block.type)).slice(0, 40)
          } block is not an MCP content type; given as text`,
        );
        return { type: "text", text: block.text };
      }
      return `a ${JSON.stringify(String(block.type)).slice(0, 40)} block is not an MCP content type`;
  }
}

/**
 * A relay tool result as the host may receive it: valid content blocks
 * (repaired or left out), `structuredContent` only as an object (anything
 * else becomes a text block of its JSON), `isError` only as a boolean, then
 * the contract's bounds on every text the model reads.
 */
export function conformResult(result: JsonObject): Conformed<CallToolResult> {
  const notes: string[] = [];
  const raw = result.content;
  if (raw !== undefined && !Array.isArray(raw)) {
    notes.push(`content is ${describe(raw)}, not a list; left out`);
  }
  const content: ContentBlock[] = [];
  for (const block of Array.isArray(raw) ? raw : []) {
    const conformed = conformBlock(block, notes);
    if (typeof conformed === "string") notes.push(`${conformed}; left out`);
    else content.push(conformed);
  }
  const repaired: JsonObject = { ...result, content };
  const structured = result.structuredContent;
  if (structured === null) delete repaired.structuredContent;
  else if (structured !== undefined && !isObject(structured)) {
    delete repaired.structuredContent;
    content.push({ type: "text", text: textOf(structured) });
    notes.push(`structuredContent is ${describe(structured)}, not an object; given as text`);
  }
  if (result.isError !== undefined && typeof result.isError !== "boolean") {
    delete repaired.isError;
    notes.push(`isError is ${describe(result.isError)}, not a boolean; left out`);
  }
  if (result._meta !== undefined && !isObject(result._meta)) {
    delete repaired._meta;
    notes.push(`_meta is ${describe(result._meta)}, not an object; left out`);
  }
  return { value: boundResult(repaired), notes };
}
