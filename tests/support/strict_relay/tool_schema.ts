// The vocabulary the real relay's tool table is written in (tinyrelay's internal/daemon/mcp_tools.go):
// its shared argument types, its five annotation sets and its closed objects, so each tool of the
// twin's table reads as the source's line does. tinyrelay_tools.json records the same facts apart.

import type { ToolDef } from "./types.ts";

export type Schema = Record<string, unknown>;

/** A closed object, as the relay's mcp.Object makes it: `required` only when something is. */
export const object = (properties: Record<string, Schema> = {}, ...required: string[]): Schema => ({
  type: "object",
  properties,
  additionalProperties: false,
  ...(required.length ? { required } : {}),
});

export const text: Schema = { type: "string" };
export const pubKey: Schema = { type: "string", pattern: "^[0-9a-f]{64}$", description: "Hex public key." };
export const hash: Schema = { type: "string", pattern: "^[0-9a-f]{64}$" };
export const id: Schema = { type: "string", minLength: 1 };
export const limit: Schema = { type: "integer", minimum: 1, maximum: 100 };
export const commit: Schema = {
  type: "string",
  pattern: "^[0-9a-f]{40}$",
  description: "Full Git commit ID.",
};
export const event: Schema = {
  type: "object",
  description: "A signed Nostr event: id, pubkey, created_at, kind, tags, content and sig.",
};
export const rootKind: Schema = {
  type: "integer",
  enum: [1617, 1618, 1621],
  description: "Kind of the conversation root: 1621 issue, 1618 pull request, 1617 patch.",
};
export const roomID: Schema = {
  type: "string",
  pattern: "^[a-z0-9_-]{1,64}$",
  description: "Room id: 1 to 64 lowercase letters, digits, hyphen or underscore.",
};
export const pageName: Schema = {
  type: "string",
  minLength: 1,
  description:
    "Wiki page name or title. Names are normalized: lowercase, spaces to hyphens, punctuation dropped.",
};
export const unixTime: Schema = { type: "integer", minimum: 1, description: "Unix time in seconds." };
export const jobEvent: Schema = {
  type: "object",
  description: "The kind 43001 job request event being answered; supplies e, p and room.",
};
export const assignees: Schema = {
  type: "array",
  items: pubKey,
  minItems: 1,
  description: "Keys asked to do the work, each becoming a p tag.",
};
export const artifacts: Schema = {
  type: "array",
  items: object(
    { type: { type: "string", enum: ["e", "a", "r"] }, value: { type: "string", minLength: 1 } },
    "type",
    "value",
  ),
  description:
    "Artifacts the result references, each becoming a tag: e an event id, a an addressable event coordinate, r an http or https URL.",
};
/** An upload_attachment descriptor as a room write takes it (mcp_attachments.go's mcpAttachment). */
export const attachments: Schema = {
  type: "array",
  items: object(
    {
      url: text,
      sha256: hash,
      size: { type: "integer", minimum: 0 },
      type: text,
      filename: text,
      room: roomID,
      uploaded: unixTime,
      nip94: { type: "array" },
    },
    "url",
    "sha256",
    "size",
    "type",
  ),
  maxItems: 8,
};
export const labels: Schema = { type: "array", items: text };
export const collaborationState: Schema = {
  type: "string",
  enum: ["open", "resolved", "merged", "closed", "draft"],
};
export const callbackSecret: Schema = {
  type: "string",
  minLength: 16,
  maxLength: 128,
  description: "Optional shared secret, 16 to 128 printable ASCII characters. Generated when omitted.",
};
export const enumOf = (...values: (string | number)[]): Schema => ({
  type: typeof values[0] === "number" ? "integer" : "string",
  enum: values,
});
export const described = (schema: Schema, description: string): Schema => ({ ...schema, description });

/** The annotation sets: reads, changes, controls, settings and publishes. */
export const READS = { readOnlyHint: true, openWorldHint: false };
export const CHANGES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const CONTROLS = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const SETTINGS = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
export const PUBLISHES = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: true,
};

export function def(
  name: string,
  description: string,
  inputSchema: Schema,
  annotations: Record<string, unknown>,
): ToolDef {
  return { name, description, inputSchema, annotations };
}
