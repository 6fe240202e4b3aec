// Room attachments as tinyrelay stores them (room_attachments.go), the one store behind both doors
// (PUT /rooms/<id>/attachments and upload_attachment): who may upload into a room, in the relay's
// order and words, and the blob kept with its rooms and the descriptor the relay answers with.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { RoomFacts } from "./event_gates.ts";
import type { Role } from "./community.ts";
import { cleanFilename, extensionOf, parseMediaType, sniffMediaType } from "./media_types.ts";
import type { Attachment } from "./types.ts";

export const ATTACHMENT_MAX_BYTES = 32 * 1024 * 1024;

/** What the uploads read of the relay. */
export interface UploadDeps {
  /** The relay's base URL, prefix included, that media URLs are under. */
  url: string;
  /** Unix seconds. */
  now(): number;
  role(pubkey: string): Role;
  /** Members-only: uploads need a role on the relay (its writes are not open). */
  membersOnly(): boolean;
  room(id: string): RoomFacts | undefined;
  attachments: Map<string, Attachment>;
  /** Whether the bytes are already stored without a room: a seeded file. */
  unscoped(sha256: string): boolean;
}

/** A room attachment's descriptor, as both doors answer it. */
export type Descriptor = Record<string, unknown>;

/** Why `pubkey` may not upload into `room`, or undefined (roomAttachmentUploader). */
export function uploaderRefusal(deps: UploadDeps, pubkey: string, room: string): string | undefined {
  if (pubkey === "") return "auth-required: attachment uploader";
  const role = deps.role(pubkey);
  if (deps.membersOnly() && role === "") return "restricted: file upload is not allowed";
  const facts = /^[a-z0-9_-]{1,64}$/.test(room) ? deps.room(room) : undefined;
  if (!facts) return "not found: room";
  const roomRole = facts.roleOf(pubkey);
  if (facts.access === "members" && roomRole === undefined) return "restricted: this room is members-only";
  if (roomRole === undefined && !(facts.access === "open" && role !== "")) {
    return "restricted: join the room before uploading attachments";
  }
  return undefined;
}

/**
 * Stores the bytes for `room` (storeRoomAttachment): 1 byte to 32 MiB, the given type or one sniffed,
 * the same bytes kept once with one more room; the descriptor, or the refusal.
 */
export function storeAttachment(
  deps: UploadDeps,
  upload: { bytes: Uint8Array; type: string | null; filename: string | null; room: string },
): Descriptor | { error: string } {
  const { bytes, room } = upload;
  if (bytes.length === 0 || bytes.length > ATTACHMENT_MAX_BYTES) {
    return { error: "invalid: attachment must be between 1 byte and 32 MiB" };
  }
  const type = upload.type === null || upload.type === ""
    ? sniffMediaType(bytes)
    : parseMediaType(upload.type);
  if (type === undefined) return { error: "invalid: attachment media type" };
  const hash = bytesToHex(sha256(bytes));
  if (deps.unscoped(hash)) {
    return { error: "conflict: this file already exists without room restrictions; share its existing link" };
  }
  const filename = cleanFilename(upload.filename);
  const blob = deps.attachments.get(hash) ??
    { bytes: bytes.slice(), type, rooms: new Set<string>(), filename, uploaded: Math.floor(deps.now()) };
  blob.rooms.add(room);
  blob.filename = filename;
  deps.attachments.set(hash, blob);
  return descriptor(deps.url, hash, blob, room);
}

/** The relay's descriptor of a stored attachment in `room`. */
export function descriptor(url: string, hash: string, blob: Attachment, room: string): Descriptor {
  const ext = extensionOf(blob.type);
  const link = `${url}/media/${hash}${ext && `.${ext}`}`;
  const size = blob.bytes.length;
  return {
    filename: blob.filename,
    nip94: [["url", link], ["m", blob.type], ["x", hash], ["ox", hash], ["size", String(size)], [
      "filename",
      blob.filename,
    ]],
    room,
    sha256: hash,
    size,
    type: blob.type,
    uploaded: blob.uploaded,
    url: link,
  };
}
