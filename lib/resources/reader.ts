// resources/read: the URI parsed strictly, its tools checked against the exposed ones (a kind
// whose read tool --tools left out is not readable, as it is not listed), then read as it asks: a
// collection's page, a stat, a piece of a big file, or the resource itself through its read tool,
// called through the facade as a resource read (signed and bounded as a tool call is), the answer
// checked to be of the resource asked, rendered, shaped to its span and given its links; every item
// carries the URI as asked. A wrong URI, or an id the relay does not know, is refused (-32602)
// naming up to three nearest URIs that do resolve: for an unknown id, from the same listings
// completions use (cached briefly), the last variable's first, falling back to the ones before.

import { type CallError, INVALID_PARAMS } from "../wire/mcp.ts";
import { isObject } from "../wire/json.ts";
import type { CallCache, ToolCall } from "./call_cache.ts";
import { listedValues } from "./completer.ts";
import type { FilePieces } from "./file_pieces.ts";
import {
  isCollection,
  type ItemKind,
  kindSpec,
  MAX_URI,
  readCall,
  type ResourceAddress,
  toolsOf,
  variablesOf,
} from "./kinds.ts";
import { type LinkExtras, linksOf } from "./links.ts";
import { Memo } from "./memo.ts";
import { echoedUri, nearestUris, refusal } from "./nearest.ts";
import { failureError, readOutcome, RELAY_FAILED, type ToolFailure, type ToolReading } from "./outcome.ts";
import type { ReadQuery } from "./query.ts";
import { readCollection } from "./read_collection.ts";
import { bigFile, readFilePiece } from "./read_file.ts";
import type { ReadAnswer, ReadServices } from "./read_services.ts";
import { refusedSpan, shapeRead } from "./read_shape.ts";
import { readStat } from "./read_stat.ts";
import { answerMismatch, boundMarker, type ReadContents, renderRead } from "./render.ts";
import { shown } from "./text.ts";
import { formatUri, kindPath, type ParsedUri, parseUri, type ResourceBase } from "./uri.ts";

export type { ReadAnswer } from "./read_services.ts";

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
  /** Pieces of big files, through the relay's download. */
  files?: FilePieces;
}

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
  const { kind } = outcome.value.address;
  const missing = toolsOf(kind).filter((tool) => !exposed.has(tool));
  if (missing.length > 0) {
    const what = isCollection(kind)
      ? `the ${kindPath(outcome.value.address) || "root"} collection is`
      : `${kind} resources are`;
    const why =
      `${what} not offered here: ${missing.length === 1 ? "its tool" : "its tools"} ${missing.join(", ")} ` +
      `${missing.length === 1 ? "is" : "are"} not among this server's tools (--tools)`;
    return { error: refusal(uri, "not-offered", why, []) };
  }
  return { parsed: outcome.value };
}

/** URIs kept parsed, and reads kept, by what they were made from. */
const PARSED_KEPT = 256;
const RENDERED_KEPT = 16;
/** An answer longer than this (as JSON) is rendered each time rather than kept with its rendering. */
const RENDERED_MAX = 64 * 1024;
/** Files whose places are remembered, and places a file. */
const FILES_SEEN = 256;
const PLACES = 8;

/** An answer as compact JSON, what its read is kept by; undefined when it cannot be written. */
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
  /** Where the session saw each file attached: the rooms and threads whose reads linked to it. */
  #seen = new Memo<{ href: string; title?: string }[]>(FILES_SEEN);
  #services: ReadServices;

  constructor(options: ReaderOptions) {
    this.#options = options;
    this.#services = {
      ...options,
      seenIn: (sha) => this.#seen.get(sha) ?? [],
      failure: async (uri, address, tool, failure) => await this.#failed(uri, address, tool, failure),
    };
  }

  /** The URI parsed and offered; kept when it is, as its parse depends on nothing else. */
  #offered(uri: string): { parsed: ParsedUri } | { error: CallError } {
    const kept = this.#parsed.get(uri);
    if (kept) return { parsed: kept };
    const offered = offeredUri(this.#options.base, this.#options.exposed, uri);
    if ("parsed" in offered) this.#parsed.set(uri, offered.parsed);
    return offered;
  }

  async read(params: unknown): Promise<ReadAnswer> {
    const asked = uriParam(params);
    if ("error" in asked) return asked;
    const { uri } = asked;
    const offered = this.#offered(uri);
    if ("error" in offered) return offered;
    const { address, query } = offered.parsed;
    if (isCollection(address.kind)) return await readCollection(this.#services, address, query, uri);
    const item = address as ResourceAddress & { kind: ItemKind };
    if (query.as === "stat") return await readStat(this.#services, item, uri);
    if (item.kind === "file" && (query.range || query.lines)) {
      return await readFilePiece(this.#services, item, query, uri);
    }
    return await this.#item(offered.parsed, uri);
  }

  /** A single resource read through its read tool, rendered and shaped as its URI asks. */
  async #item(parsed: ParsedUri, uri: string): Promise<ReadAnswer> {
    const { address, query } = parsed;
    const { tool, arguments: args } = readCall(address);
    const [reading, extras] = await Promise.all([
      this.#options.call(tool, args).then((outcome) => readOutcome(tool, outcome)),
      this.#extras(address),
    ]);
    // A file over the facade's bound, or the relay's, is read in pieces: the read says which.
    if (address.kind === "file" && tooBig(reading)) return await bigFile(this.#services, address, query, uri);
    if (!reading.ok) return await this.#failed(uri, address, tool, reading.failure);
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
    return await this.#shaped(parsed, reading.answer, extras, uri);
  }

  /** What a read's links need besides its answer: a repository's issues and pull requests, a file's places. */
  async #extras(address: ResourceAddress): Promise<LinkExtras> {
    if (address.kind === "file") return { seenIn: this.#seen.get(address.values.sha256) ?? [] };
    if (address.kind !== "repo") return {};
    const { cache, exposed } = this.#options;
    const list = async (tool: string) => {
      if (!exposed.has(tool)) return undefined;
      const reading = await cache.get(tool, {
        owner: address.values.owner,
        repo: address.values.name,
        limit: 50,
      });
      return reading.ok ? reading.answer : undefined;
    };
    const [issues, pulls] = await Promise.all([list("list_issues"), list("list_pull_requests")]);
    return { issues, pulls };
  }

  /** The answer rendered, shaped and linked under `uri`; an unchanged answer's is the one made before. */
  async #shaped(parsed: ParsedUri, answer: unknown, extras: LinkExtras, uri: string): Promise<ReadAnswer> {
    const json = compactJson(answer);
    const more = Object.keys(extras).length === 0 ? "" : compactJson(extras) ?? "";
    const key = json !== undefined && json.length <= RENDERED_MAX ? `${uri}\n${json}\n${more}` : undefined;
    const kept = key === undefined ? undefined : this.#rendered.get(key);
    if (kept) return { result: kept };
    const { base } = this.#options;
    const self = await this.#options.self?.().catch(() => undefined);
    const rendered = renderRead(parsed, answer, { uri, base, ...(self ? { self } : {}) });
    const links = linksOf(base, parsed.address, answer, extras);
    this.#remember(parsed.address, links);
    const plain = formatUri(base, parsed.address);
    const shaped = shapeRead({
      uri,
      plain,
      query: parsed.query,
      item: rendered.contents[0],
      document: answer,
      links,
    });
    if (!shaped.ok) return refusedSpan(base, uri, parsed.address, shaped.refusal);
    return { result: key === undefined ? shaped.result : this.#rendered.set(key, shaped.result) };
  }

  /** The files a room or thread read links to, remembered with where they were seen. */
  #remember(address: ResourceAddress, links: readonly { rel: string; href: string }[]): void {
    if (address.kind !== "room" && address.kind !== "thread") return;
    const place = { href: formatUri(this.#options.base, address), title: `attached in ${kindPath(address)}` };
    for (const link of links) {
      if (link.rel !== "tiny:attachment") continue;
      const sha = link.href.slice(-64);
      const places = this.#seen.get(sha) ?? [];
      if (places.some((p) => p.href === place.href)) continue;
      this.#seen.set(sha, [place, ...places].slice(0, PLACES));
    }
  }

  /** A failed call's error: an unknown id refused naming the nearest that resolve; the rest said. */
  async #failed(uri: string, address: ResourceAddress, tool: string, failure: ToolFailure) {
    if (failure.kind !== "unknown-id") return { error: failureError(uri, failure) };
    const words = `${shown(kindPath(address), 200)} is not on this relay (${tool}: ${failure.text})`;
    const parsed = this.#parsed.get(uri);
    return { error: refusal(uri, "unknown-id", words, await this.nearest(uri, address, parsed?.query)) };
  }

  /**
   * The URIs nearest to `uri` that name what the relay has: the last variable's values listed
   * first (a room's threads, a repository's issues), then the one before it (the rooms), and so on,
   * until a listing gives some.
   */
  async nearest(
    uri: string,
    address: ResourceAddress,
    query: ReadQuery = { as: "markdown" },
  ): Promise<string[]> {
    const { base, exposed, cache } = this.#options;
    for (const variable of variablesOf(kindSpec(address.kind)).reverse()) {
      const found = await listedValues(cache, exposed, address.kind, variable, address.values);
      if ("failure" in found) continue;
      const uris = found.candidates.map((c) =>
        formatUri(base, { kind: address.kind, values: { ...address.values, [variable]: c.value } }, query)
      ).filter((candidate) => candidate.length <= MAX_URI);
      const near = nearestUris(uri, uris);
      if (near.length > 0) return near;
    }
    return [];
  }
}

/** Whether a file's read was over the facade's 256 KiB bound, or the relay's own. */
function tooBig(reading: ToolReading): boolean {
  if (reading.ok) return boundMarker(reading.answer) !== undefined;
  // The relay's words are "attachment exceeds max_bytes"; any refusal speaking of the size limit counts.
  return reading.failure.kind === "refused" && /too large|exceeds|max_bytes/i.test(reading.failure.text);
}
