// What the reads beside a single resource's (a collection's page, a stat, a piece of a file) need of
// the reader that sends them: the namespace, the exposed tools, the call path and its brief cache,
// the file download, where the session saw a file attached, and how a failed call becomes the
// answer's error (an unknown id refused naming the nearest URIs that resolve). Types only.

import type { CallError } from "../wire/mcp.ts";
import type { CallCache, ToolCall } from "./call_cache.ts";
import type { FilePieces } from "./file_pieces.ts";
import type { ResourceAddress } from "./kinds.ts";
import type { ToolFailure } from "./outcome.ts";
import type { ReadContents } from "./render.ts";
import type { ResourceBase } from "./uri.ts";

export interface ReadServices {
  base: ResourceBase;
  exposed: ReadonlySet<string>;
  /** A read: never kept, as a host reads again because something changed. */
  call: ToolCall;
  /** Listings, kept briefly. */
  cache: CallCache;
  /** Pieces of big files; without it, a file too big for one read says so and no more. */
  files?: FilePieces;
  /** The rooms and threads this session has seen a file attached in. */
  seenIn(sha256: string): { href: string; title?: string }[];
  /** The error for a call of `tool` that failed, made to read `uri`. */
  failure(
    uri: string,
    address: ResourceAddress,
    tool: string,
    failure: ToolFailure,
  ): Promise<{ error: CallError }>;
}

export type ReadAnswer = { result: ReadContents } | { error: CallError };
