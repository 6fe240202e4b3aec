// resources/read: the URI parsed strictly, its read tool checked against the exposed ones (a kind
// whose tool --tools left out is not readable, as it is not listed), the tool called through the
// facade as a resource read (signed and bounded as a tool call is), the answer checked to be of
// the resource asked, then rendered; every item carries the URI as asked. A wrong URI, or an id
// the relay does not know, is refused (-32602) naming up to three nearest URIs that do resolve:
// for an unknown id, from the same listings completions use (cached briefly).

import { type CallError, INVALID_PARAMS } from "../wire/mcp.ts";
import { isObject } from "../wire/json.ts";
import type { CallCache, ToolCall } from "./call_cache.ts";
import { listedValues } from "./completer.ts";
import { kindSpec, MAX_URI, readCall, type ResourceAddress, variablesOf } from "./kinds.ts";
import { echoedUri, nearestUris, refusal } from "./nearest.ts";
import { failureError, readOutcome, RELAY_FAILED } from "./outcome.ts";
import { answerMismatch, type ReadContents, renderRead } from "./render.ts";
import { Memo } from "./memo.ts";
import { shown } from "./text.ts";
import { formatUri, kindPath, type ParsedUri, parseUri, type ResourceBase } from "./uri.ts";

export interface ReaderOptions {
  base: ResourceBase;
  /** The relay tools the host may reach (--tools): a kind whose read tool is not among them is not read. */
  exposed: ReadonlySet<string>;
  /** Reads are never kept: a host reads again because something changed. */
  call: ToolCall;
  /** The listings the nearest URIs come from. */
  cache: CallCache;
  /** The agent's own public key (hex), marked in what is shown. */
  self?: () => Promise<string | undefined>;
}

export type ReadAnswer = { result: ReadContents } | { error: CallError };

/** The URI of a request's params, or the error saying what is wrong with them. */
export function uriParam(params: unknown): { uri: string } | { error: CallError } {
  const uri = isObject(params) ? params.uri : undefined;
  if (typeof uri === "string") return { uri };
  return {
    error: { code: INVALID_PARAMS, message: "Invalid params: params.uri must be a string (a tiny:// URI)" },
  };
}

/** The URI parsed for this relay, offered (its read tool exposed), or the refusal. */
export function offeredUri(
  base: ResourceBase,
  exposed: ReadonlySet<string>,
  uri: string,
): { parsed: ParsedUri } | { error: CallError } {
  const outcome = parseUri(base, uri);
  if (!outcome.ok) {
    const { reason, message, nearest } = outcome.refusal;
    return { error: refusal(uri, reason, message, nearest) };
  }
  const { readTool, kind } = kindSpec(outcome.value.address.kind);
  if (!exposed.has(readTool)) {
    const why = `${kind} resources are not offered here: their read tool ${readTool} is not among this ` +
      `server's tools (--tools)`;
    return { error: refusal(uri, "not-offered", why, []) };
  }
  return { parsed: outcome.value };
}

/** URIs kept parsed, and renderings kept, by what they were made from. */
const PARSED_KEPT = 256;
const RENDERED_KEPT = 16;
/** An answer longer than this (as JSON) is rendered each time rather than kept with its rendering. */
const RENDERED_MAX = 64 * 1024;

/** An answer as compact JSON, what its rendering is kept by; undefined when it cannot be written. */
function compactJson(answer: unknown): string | undefined {
  try {
    return JSON.stringify(answer);
  } catch {
    return undefined;
  }
}

export class Reader {
  #options: ReaderOptions;
  #parsed = new Memo<ParsedUri>(PARSED_KEPT);
  #rendered = new Memo<ReadContents>(RENDERED_KEPT);

  constructor(options: ReaderOptions) {
    this.#options = options;
  }

  /** The URI parsed and offered; kept when it is, as its parse depends on nothing else. */
  #offered(uri: string): { parsed: ParsedUri } | { error: CallError } {
    const kept = this.#parsed.get(uri);
    if (kept) return { parsed: kept };
    const offered = offeredUri(this.#options.base, this.#options.exposed, uri);
    if ("parsed" in offered) this.#parsed.set(uri, offered.parsed);
    return offered;
  }

  /** The answer rendered under `uri`; an unchanged answer's rendering is the one made before. */
  async #render(parsed: ParsedUri, answer: unknown, uri: string): Promise<ReadContents> {
    const json = compactJson(answer);
    const key = json !== undefined && json.length <= RENDERED_MAX ? `${uri}\n${json}` : undefined;
    const kept = key === undefined ? undefined : this.#rendered.get(key);
    if (kept) return kept;
    const self = await this.#options.self?.().catch(() => undefined);
    const rendered = renderRead(parsed, answer, { uri, base: this.#options.base, ...(self ? { self } : {}) });
    return key === undefined ? rendered : this.#rendered.set(key, rendered);
  }

  async read(params: unknown): Promise<ReadAnswer> {
    const asked = uriParam(params);
    if ("error" in asked) return asked;
    const { uri } = asked;
    const offered = this.#offered(uri);
    if ("error" in offered) return offered;
    const { address } = offered.parsed;
    const { tool, arguments: args } = readCall(address);
    const reading = readOutcome(tool, await this.#options.call(tool, args));
    if (!reading.ok) {
      if (reading.failure.kind !== "unknown-id") return { error: failureError(uri, reading.failure) };
      const words = `${
        shown(kindPath(address), 200)
      } is not on this relay (${tool}: ${reading.failure.text})`;
      return { error: refusal(uri, "unknown-id", words, await this.nearest(uri, address)) };
    }
    const mismatch = answerMismatch(address, reading.answer);
    if (mismatch !== undefined) {
      return {
        error: {
          code: RELAY_FAILED,
          message: `Cannot read ${shown(echoedUri(uri), 200)}: ${mismatch}`,
          data: { uri: echoedUri(uri), reason: "mismatch" },
        },
      };
    }
    return { result: await this.#render(offered.parsed, reading.answer, uri) };
  }

  /**
   * The URIs nearest to `uri` that name what the relay has: the last variable's values listed
   * first (a room's threads, a repository's issues), then the one before it (the rooms), and so on,
   * until a listing gives some.
   */
  async nearest(uri: string, address: ResourceAddress): Promise<string[]> {
    const { base, exposed, cache } = this.#options;
    for (const variable of variablesOf(kindSpec(address.kind)).reverse()) {
      const found = await listedValues(cache, exposed, address.kind, variable, address.values);
      if ("failure" in found) continue;
      const uris = found.candidates.map((c) =>
        formatUri(base, { kind: address.kind, values: { ...address.values, [variable]: c.value } })
      ).filter((candidate) => candidate.length <= MAX_URI);
      const near = nearestUris(uri, uris);
      if (near.length > 0) return near;
    }
    return [];
  }
}
