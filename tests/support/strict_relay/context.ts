// What the two endpoints read of the relay core: its address, limits, checks, table and state.

import type { ToolStore } from "./default_tools.ts";
import type { Authentication } from "./nip98.ts";
import type { BrowsegrantFn, RecordedRequest, ToolDef, ToolHandler } from "./types.ts";

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
  readonly store: ToolStore;
}
