// What a tool does when no test has overridden it, as the real relay does it: arguments checked
// against the input schema first; uploads stored and read back; a publishing tool answers plain
// fields with an unsigned template and a signed event with its publish result; once content is
// seeded the read tools answer from it (content_store.ts); any other tool echoes its call.

import { type NostrEvent, validateEvent, verifyEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { toolError, toolOk } from "./results.ts";
import { canonical } from "./signed_event.ts";
import { publishKinds, templateOf } from "./templates.ts";
import type { CallContext, ToolDef, ToolResult } from "./types.ts";
import { type Args, isRecord, latin1, nonEmpty, strings } from "./values.ts";

/** The relay state default tools read and write. */
export interface ToolStore {
  /** The relay's base URL, for upload descriptors. */
  url: string;
  /** Unix seconds. */
  now(): number;
  uploads: Map<string, { bytes: Uint8Array; type: string }>;
  /** Every event accepted by a publishing tool, in order (duplicates once). */
  published: NostrEvent[];
  /** Told of every event a publishing tool accepts (the relay's event store keeps it too). */
  onPublished?(ev: NostrEvent): void;
  /** Content mode (content_store.ts): a read tool's answer from seeded content, once seeded. */
  content?: { answer(tool: string, args: Args, caller: string): ToolResult | undefined };
}

const TYPE_CHECKS: Record<string, (v: unknown) => boolean> = {
  integer: Number.isInteger,
  number: (v) => typeof v === "number",
  string: (v) => typeof v === "string",
  boolean: (v) => typeof v === "boolean",
  array: Array.isArray,
  object: isRecord,
};

/** Checks the arguments against the top level of a tool's input schema, as the relay does first. */
function schemaProblem(schema: Record<string, unknown>, args: Args): string | undefined {
  const props = isRecord(schema.properties) ? schema.properties : {};
  for (const key of strings(schema.required)) {
    if (args[key] === undefined) return `${key} is required`;
  }
  for (const [key, value] of Object.entries(args)) {
    const want = isRecord(props[key]) ? props[key].type : undefined;
    if (typeof want !== "string" || value === undefined) continue;
    if (!(TYPE_CHECKS[want]?.(value) ?? true)) return `${key} must be of type ${want}`;
  }
  return undefined;
}

/** A tiny PNG (1x1, opaque) that read_attachment serves for hashes it does not hold. */
const SAMPLE_PNG = Uint8Array.from(
  atob(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
  ),
  (c) => c.charCodeAt(0),
);

/** Decodes standard Base64 only, as upload_attachment requires; undefined when it is not. */
function decodeStdBase64(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) return undefined;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/** Checks a signed event for its tool: shape, signature, signer, kind, then the template's tags. */
function publishProblem(tool: string, args: Args, ev: unknown, signer: string): string | undefined {
  if (
    !isRecord(ev) || !validateEvent(ev) || !Number.isInteger(ev.kind) || !Number.isInteger(ev.created_at) ||
    typeof ev.id !== "string" || typeof ev.sig !== "string"
  ) {
    return "malformed event";
  }
  if (!verifyEvent(ev as NostrEvent)) return "bad event signature";
  if (ev.pubkey !== signer) return "event pubkey does not match the signing key";
  if (tool === "publish_event") return undefined;
  const kinds = publishKinds(tool, args) ?? [];
  if (!kinds.includes(ev.kind as number)) {
    return `kind ${ev.kind} is not published by ${tool}; expected ${kinds.join(" or ")}`;
  }
  const template = templateOf(tool, args);
  if ("invalid" in template) return template.invalid;
  if (JSON.stringify(ev.tags) !== JSON.stringify(template.tags)) {
    return `tags do not match; expected ${JSON.stringify(template.tags)}`;
  }
  if (ev.content !== template.content) return "content does not match the template";
  return undefined;
}

function uploadAttachment(args: Args, store: ToolStore, now: number): ToolResult {
  const data = String(args.data);
  if (data.length > 700 * 1024) return toolError("invalid: data exceeds 700 KiB of Base64");
  const bytes = decodeStdBase64(data);
  if (!bytes || !bytes.length) return toolError("invalid: data must be non-empty standard Base64");
  const hash = bytesToHex(sha256(bytes));
  const type = String(args.type);
  const ext = (/^[a-z]+\/([a-z0-9]+)/.exec(type)?.[1] ?? "bin").replace("jpeg", "jpg");
  const url = `${store.url}/media/${hash}.${ext}`;
  const filename = nonEmpty(args.filename) ?? `${hash.slice(0, 12)}.${ext}`;
  store.uploads.set(hash, { bytes, type });
  return toolOk({
    url,
    sha256: hash,
    size: bytes.length,
    type,
    filename,
    uploaded: now,
    nip94: [["url", url], ["m", type], ["x", hash], ["size", String(bytes.length)]],
  });
}

function readAttachment(args: Args, store: ToolStore): ToolResult {
  const stored = store.uploads.get(String(args.sha256));
  return attachmentResult(stored?.bytes ?? SAMPLE_PNG, stored?.type ?? "image/png");
}

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

/** The first call's unsigned template and `next` instruction. */
function unsignedTemplate(tool: string, args: Args, kind: number, now: number): ToolResult {
  if (tool === "publish_event") return toolError("invalid: event is required");
  const template = templateOf(tool, args);
  if ("invalid" in template) {
    return toolError(`invalid: ${template.invalid}`, {
      accepted: false,
      message: `invalid: ${template.invalid}`,
    });
  }
  const unsigned = { kind, created_at: now, tags: template.tags, content: template.content };
  const next = `Sign this event and call ${tool} again with it as event.`;
  return {
    content: [{ type: "text", text: `${JSON.stringify(unsigned)}\n${next}` }],
    structuredContent: { unsigned, next },
    isError: false,
  };
}

/** The second call: the signed event checked against the template, then published once. */
function publish(tool: string, args: Args, signer: string, store: ToolStore): ToolResult {
  const why = publishProblem(tool, args, args.event, signer);
  if (why) return toolError(`invalid: ${why}`, { accepted: false, message: `invalid: ${why}` });
  const ev = args.event as unknown as NostrEvent;
  const duplicate = store.published.some((p) => p.id === ev.id);
  if (!duplicate) store.published.push(ev);
  store.onPublished?.(canonical(ev));
  return toolOk({
    event_id: ev.id,
    accepted: true,
    message: duplicate ? "duplicate: already have this event" : "",
  });
}

/** A tool's answer when no test has overridden it. */
export function defaultTool(tool: ToolDef, ctx: CallContext, store: ToolStore): ToolResult {
  const { args, pubkey } = ctx;
  const problem = schemaProblem(tool.inputSchema, args);
  if (problem) return toolError(`invalid: ${problem}`);
  const seeded = store.content?.answer(tool.name, args, pubkey);
  if (seeded) return seeded;
  const now = Math.floor(store.now());
  if (tool.name === "upload_attachment") return uploadAttachment(args, store, now);
  if (tool.name === "read_attachment") return readAttachment(args, store);
  const kinds = publishKinds(tool.name, args);
  if (kinds === undefined) return toolOk({ tool: tool.name, arguments: args, caller: pubkey });
  if (args.event === undefined) return unsignedTemplate(tool.name, args, kinds[0], now);
  return publish(tool.name, args, pubkey, store);
}
