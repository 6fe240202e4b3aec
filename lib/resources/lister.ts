// resources/list: the rooms, repositories, wiki pages and open long tasks a person would pick in a
// host's menu, one page of one list tool at a time (each list tool's own paging), in the order of
// listing.ts, with a cursor of tinyagent's own: which list, and that list's cursor, encoded so a
// host treats it as opaque and checked strictly when it comes back. A list the relay refuses
// (a tool it does not serve, a key it does not let see the wiki) is left out, said once on stderr;
// a relay that is rate-limiting or cannot be reached fails the page, saying when to retry.

import type { CallError } from "../wire/mcp.ts";
import { isObject } from "../wire/json.ts";
import type { CallCache } from "./call_cache.ts";
import { listCall, type ListedResource, listedResources, type ListSource } from "./listing.ts";
import { failureError } from "./outcome.ts";
import { INVALID_PARAMS } from "../wire/mcp.ts";
import type { ResourceBase } from "./uri.ts";

/** A list tool's cursor longer than this ends that list: no host should carry more. */
export const MAX_TOOL_CURSOR = 1024;
/** A cursor of ours is never longer than this. */
const MAX_CURSOR = 2 * MAX_TOOL_CURSOR;

/** Where a page starts: which list, and the cursor of that list's page (none: its first). */
export interface ListPosition {
  source: number;
  cursor?: string;
}

/** The position as the opaque cursor a host carries: `l1.` then base64url of [source, cursor]. */
export function encodeCursor(position: ListPosition): string {
  const json = JSON.stringify(
    position.cursor === undefined ? [position.source] : [position.source, position.cursor],
  );
  const bytes = new TextEncoder().encode(json);
  return `l1.${
    btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
  }`;
}

/** A cursor back into its position, when it is one of ours for a list there is (`sources` of them). */
export function decodeCursor(cursor: string, sources: number): ListPosition | undefined {
  if (cursor.length > MAX_CURSOR || !/^l1\.[A-Za-z0-9_-]*$/.test(cursor)) return undefined;
  let value: unknown;
  try {
    const binary = atob(cursor.slice(3).replace(/-/g, "+").replace(/_/g, "/"));
    value = JSON.parse(
      new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0))),
    );
  } catch {
    return undefined;
  }
  if (!Array.isArray(value) || value.length < 1 || value.length > 2) return undefined;
  const [source, listCursor] = value;
  if (!Number.isSafeInteger(source) || source < 0 || source >= sources) return undefined;
  if (value.length === 1) return { source };
  if (typeof listCursor !== "string" || listCursor === "" || listCursor.length > MAX_TOOL_CURSOR) {
    return undefined;
  }
  return { source, cursor: listCursor };
}

export interface ListerOptions {
  base: ResourceBase;
  /** The lists offered (their list and read tools exposed), in order. */
  sources: readonly ListSource[];
  cache: CallCache;
  log(line: string): void;
}

export type ListAnswer = { result: { resources: ListedResource[]; nextCursor?: string } } | {
  error: CallError;
};

export class Lister {
  #options: ListerOptions;
  /** Lists already said to be left out, by tool: said once. */
  #said = new Set<string>();

  constructor(options: ListerOptions) {
    this.#options = options;
  }

  /** One page: from the cursor's position on, skipping lists that have nothing there. */
  async list(params: unknown): Promise<ListAnswer> {
    const { sources, cache, base } = this.#options;
    const given = isObject(params) ? params.cursor : undefined;
    let at: ListPosition | undefined = { source: 0 };
    if (given !== undefined) {
      at = typeof given === "string" ? decodeCursor(given, sources.length) : undefined;
      if (!at) return invalidCursor();
    }
    const resources: ListedResource[] = [];
    for (let { source, cursor } = at; source < sources.length; source++, cursor = undefined) {
      const { tool, arguments: args } = listCall(sources[source], cursor);
      const reading = await cache.get(tool, args);
      if (!reading.ok) {
        if (reading.failure.kind === "rate-limited" || reading.failure.kind === "transport") {
          return { error: failureError("", reading.failure, "list") };
        }
        this.#leftOut(tool, reading.failure.text);
        continue;
      }
      const page = listedResources(base, tool, reading.answer);
      resources.push(...page.resources);
      const next = page.nextCursor !== undefined && page.nextCursor.length <= MAX_TOOL_CURSOR
        ? { source, cursor: page.nextCursor }
        : source + 1 < sources.length
        ? { source: source + 1 }
        : undefined;
      // A page holds what one list call gave; an empty one goes on to the next list at once.
      if (resources.length > 0 || next?.source === source) {
        return { result: next ? { resources, nextCursor: encodeCursor(next) } : { resources } };
      }
    }
    return { result: { resources } };
  }

  #leftOut(tool: string, why: string): void {
    if (this.#said.has(tool)) return;
    this.#said.add(tool);
    this.#options.log(`resources: ${tool} is left out of resources/list: ${why}`);
  }
}

function invalidCursor(): ListAnswer {
  return {
    error: {
      code: INVALID_PARAMS,
      message: "Invalid params: the cursor is not one this server gave; list again without a cursor",
    },
  };
}
