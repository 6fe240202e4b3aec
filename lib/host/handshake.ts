// The `initialize` answer (facade.md, `initialize`): the version negotiated,
// the capabilities, serverInfo, and what this session adds to them: the
// orientation every host gives its model (`instructions`) and, with
// --listen or --approvers, Claude Code's `claude/channel` and
// `claude/channel/permission` under `experimental`. Pure.

import { isObject } from "../wire/json.ts";
import { NAME, VERSION } from "../wire/identity.ts";

/** Handshake versions answered as asked (facade.md, `initialize`); any other gets the fallback. */
export const HANDSHAKE_VERSIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
export const FALLBACK_VERSION = "2025-06-18";

/** What a session declares beyond the tools. */
export interface ServerFeatures {
  /** For the model, in every answer (hosts cut it at 2,048 characters; facade/instructions.ts keeps it under). */
  instructions?: string;
  /** Experimental capabilities by name, each `{}` (Claude Code checks only that the key is there). */
  experimental?: readonly string[];
  /** Capabilities beyond the tools, as declared: `resources`, `completions`. */
  capabilities?: Readonly<Record<string, unknown>>;
}

/** The version answered to an `initialize` that asked for `requested`. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && HANDSHAKE_VERSIONS.includes(requested)
    ? requested
    : FALLBACK_VERSION;
}

/** The `initialize` result for `params`. */
export function initializeResult(params: unknown, features: ServerFeatures = {}): Record<string, unknown> {
  const experimental = features.experimental ?? [];
  return {
    protocolVersion: negotiateVersion(isObject(params) ? params.protocolVersion : undefined),
    // Beyond the contract's {"tools": {}}: the table heals in the background, and hosts that list
    // once learn of it only through notifications/tools/list_changed.
    capabilities: {
      tools: { listChanged: true },
      ...features.capabilities,
      ...(experimental.length > 0
        ? { experimental: Object.fromEntries(experimental.map((key) => [key, {}])) }
        : {}),
    },
    serverInfo: { name: NAME, version: VERSION },
    ...(features.instructions === undefined ? {} : { instructions: features.instructions }),
  };
}
