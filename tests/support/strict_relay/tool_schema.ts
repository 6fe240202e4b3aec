// The small JSON Schema builders, annotation sets and shared fields the default tool table is
// written with, so each tool reads as one line of intent.

import type { ToolDef } from "./types.ts";

export type Schema = Record<string, unknown>;
export const str = (description: string): Schema => ({ type: "string", description });
export const int = (description: string): Schema => ({ type: "integer", description });
export const bool = (description: string): Schema => ({ type: "boolean", description });
export const obj = (description: string): Schema => ({ type: "object", description });
export const arr = (description: string, items: Schema = { type: "string" }): Schema => ({
  type: "array",
  description,
  items,
});
export const object = (properties: Record<string, Schema>, required: string[] = []): Schema =>
  required.length ? { type: "object", properties, required } : { type: "object", properties };

export const READ = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
export const MANAGE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
export const DESTRUCTIVE = { ...MANAGE, destructiveHint: true };
export const WRITE = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};

export const page = {
  cursor: str("Opaque cursor from a previous page."),
  limit: int("Page size, 1 to 100."),
};
export const repoRef = { owner: str("Repository owner, hex pubkey."), repo: str("Repository identifier.") };
export const event = obj("The signed event, on the second call.");
export const attachments = arr("Descriptors returned by upload_attachment, up to eight.", { type: "object" });
export const jobAnswer = {
  request: obj("The job request event."),
  e: str("The job request id."),
  p: str("The requester's hex pubkey."),
  room: str("Room id."),
  content: str("Text of the answer."),
  event,
};

/** The default read tools' structuredContent, so clients can check outputSchema handling. */
export const ECHO_OUTPUT = object({
  tool: { type: "string" },
  arguments: { type: "object" },
  caller: { type: "string" },
}, ["tool", "arguments", "caller"]);

export const DESCRIPTOR_OUTPUT = object({
  url: { type: "string" },
  sha256: { type: "string" },
  size: { type: "integer" },
  type: { type: "string" },
  filename: { type: "string" },
  uploaded: { type: "integer" },
  nip94: { type: "array" },
}, ["url", "sha256", "size", "type"]);

export function def(
  name: string,
  description: string,
  inputSchema: Schema,
  annotations: Record<string, unknown>,
  extra: Partial<ToolDef> = {},
): ToolDef {
  return { name, description, inputSchema, annotations, ...extra };
}
