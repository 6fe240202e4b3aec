// What the endpoints read of the relay core: its address, limits, checks, table and state.

import type { NostrEvent } from "nostr-tools/pure";
import type { ToolRelay } from "./tool_calls.ts";
import type { Receipt } from "./event_gates.ts";
import type { Authentication, PayloadRule } from "./nip98.ts";
import type { UploadDeps } from "./room_uploads.ts";
import type { Attachment, BrowsegrantFn, RecordedRequest, ToolDef, ToolHandler } from "./types.ts";

export interface RelayContext {
  /** Tenant prefix, "" or "/r/name". */
  readonly prefix: string;
  /** "127.0.0.1:<port>", when a request has no Host header. */
  readonly host: string;
  readonly maxBody: number;
  /** Unix seconds. */
  now(): number;
  /** NIP-98 for the request (the manage endpoint requires a payload tag). */
  authenticate(rec: RecordedRequest, requirePayload: boolean): Authentication;
  /** True when the relay is members-only and the signer is not a member. */
  refusesNonMember(pubkey: string): boolean;
  /** The current tool table. */
  table(): ToolDef[];
  /** A test's override for a tool, if any. */
  handler(name: string): ToolHandler | undefined;
  readonly browsegrant: BrowsegrantFn;
  /** What the relay's own tools read of it. */
  readonly tools: ToolRelay;
}

/** What the Nostr side's HTTP endpoints (/events, attachments, /media) read of the relay. */
export interface NostrContext {
  /** Tenant prefix, "" or "/r/name". */
  readonly prefix: string;
  readonly scheme: "http" | "https";
  /** "127.0.0.1:<port>", when a request has no Host header. */
  readonly host: string;
  /** The real relay's message size: the /events body limit. */
  readonly maxMessageBytes: number;
  /** Unix seconds. */
  now(): number;
  /** NIP-98 for the request, its `payload` tag checked as `payload` says. */
  authenticate(rec: RecordedRequest, payload: PayloadRule): Authentication;
  /** Gates and stores a complete signed event, published by a door that authenticated `session`. */
  publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt;
  readonly attachments: Map<string, Attachment>;
  /** Room attachments' store and who may upload. */
  readonly uploads: UploadDeps;
  /** The read gate (browseRead) for a caller ("" for nobody): its refusal, if it refuses. */
  readRefusal(pubkey: string): string | undefined;
  /** A stored file by hash: seeded, or a room attachment. */
  file(sha256: string): { bytes: Uint8Array; type: string; uploaded: number } | undefined;
  /** Whether the file store can seek (Range honoured). */
  seekable(): boolean;
}
