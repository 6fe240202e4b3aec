// tiny:// URIs: `tiny://<relay host>[/r/<tenant>]/<kind path>[?<query>]`, a path ending in `/`
// naming a collection (`tiny://<relay host>/` the root), the query as query.ts reads it; parsed
// strictly and formatted as the exact inverse. Every refusal has a reason code, words a person
// understands, and the nearest URIs that do resolve when a correction is certain (an uppercase id
// lowered, the right relay or tenant, a kind word misspelt, a span put right). Pure.

import type { RelayEndpoint } from "../relay/endpoint.ts";
import { ALL_KINDS, isCollection, type KindSpec, MAX_URI, type ResourceAddress, SCHEME } from "./kinds.ts";
import { nearestBy } from "../wire/nearest.ts";
import { resourcePart } from "./nearest.ts";
import { count, shown } from "./text.ts";
import { formatQuery, parseQuery, queryProblem, type ReadQuery, type Representation } from "./query.ts";
import {
  decodeSegment,
  decodeStrict,
  describeChar,
  encodeForbidden,
  encodeValue,
  firstRawForbidden,
} from "./uri_text.ts";

/** Whose namespace: the relay's host (port when not the default, lowercase) and its tenant, if any. */
export interface ResourceBase {
  host: string;
  tenant?: string;
}

export type { ReadQuery, Representation } from "./query.ts";

export type RefusalReason =
  | "too-long"
  | "syntax"
  | "scheme"
  | "fragment"
  | "other-relay"
  | "other-tenant"
  | "bad-segment"
  | "unknown-kind"
  | "bad-id"
  | "bad-query";

export interface UriRefusal {
  reason: RefusalReason;
  message: string;
  /** Corrected URIs that parse, nearest first. */
  nearest: string[];
}

export interface ParsedUri {
  address: ResourceAddress;
  /** How it reads: its representation, its span or page. */
  query: ReadQuery;
  as: Representation;
  /** The URI as this module formats it: equal to the input when the input was written canonically. */
  canonical: string;
}

/** A step of parsing: its value, or the refusal. */
export type Step<T> = { ok: true; value: T } | { ok: false; refusal: UriRefusal };

export type UriOutcome = Step<ParsedUri>;

/** The namespace of a relay URL: `/r/<tenant>` is the only path prefix a relay is served under. */
export function resourceBase(
  endpoint: RelayEndpoint,
): { ok: true; base: ResourceBase } | { ok: false; error: string } {
  const host = new URL(endpoint.origin).host.toLowerCase();
  const prefix = endpoint.base.slice(endpoint.origin.length);
  if (prefix === "") return { ok: true, base: { host } };
  const tenant = /^\/r\/([^/]+)$/.exec(prefix);
  const name = tenant ? decodeStrict(tenant[1]) : undefined;
  if (!name?.ok || name.value === "") {
    return { ok: false, error: `the relay's path ${shown(prefix)} is not a tenant prefix /r/<name>` };
  }
  return { ok: true, base: { host, tenant: name.value } };
}

/** `tiny://<host>[/r/<tenant>]`, without a trailing slash. */
export function baseUri(base: ResourceBase): string {
  return `${SCHEME}://${base.host}${base.tenant === undefined ? "" : `/r/${encodeValue(base.tenant)}`}`;
}

/** A row's path with these values, each encoded; a collection's ends in `/` (the root's is ""). */
function pathOf(spec: KindSpec, value: (variable: string, at: number) => string): string {
  const path = spec.path.map((segment, i) =>
    typeof segment === "string" ? segment : encodeValue(value(segment.variable, i))
  ).join("/");
  return isCollection(spec.kind) && path !== "" ? `${path}/` : path;
}

/** The kind path of an address, each value encoded: `room/general`, `room/`. */
export function kindPath(address: ResourceAddress): string {
  const spec = ALL_KINDS.find((row) => row.kind === address.kind)!;
  return pathOf(spec, (variable) => address.values[variable] ?? "");
}

/** The URI of an address on this relay, read as `query` says (default: a plain read). */
export function formatUri(
  base: ResourceBase,
  address: ResourceAddress,
  query: ReadQuery | Representation = "markdown",
): string {
  const asked = typeof query === "string" ? { as: query } : query;
  return `${baseUri(base)}/${kindPath(address)}${formatQuery(asked)}`;
}

/** Parses `uri` as a resource of this relay. */
export function parseUri(base: ResourceBase, uri: string): UriOutcome {
  return parseAt(base, uri, 0);
}

/** How deep corrections are tried: a fix may reveal another problem, which may be fixed in turn. */
const MAX_FIXES = 4;

function refuse(
  reason: RefusalReason,
  message: string,
  nearest: string[] = [],
): { ok: false; refusal: UriRefusal } {
  return { ok: false, refusal: { reason, message, nearest } };
}

function parseAt(base: ResourceBase, uri: string, depth: number): UriOutcome {
  // Corrections are offered only when they resolve; each one is parsed with the same rules.
  const fix = (candidate: string): string[] => {
    if (depth >= MAX_FIXES || candidate === uri) return [];
    const outcome = parseAt(base, candidate, depth + 1);
    return outcome.ok ? [outcome.value.canonical] : outcome.refusal.nearest;
  };
  if (uri.length > MAX_URI) {
    return refuse(
      "too-long",
      `this URI is ${count(uri.length)} characters long; a tiny:// URI is at most 2,048`,
    );
  }
  const hash = uri.indexOf("#");
  if (hash >= 0) return refuse("fragment", "a tiny:// URI has no fragment (#…)", fix(uri.slice(0, hash)));
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri);
  if (!scheme) {
    return refuse("syntax", `${shown(uri)} is not a URI; resources here are ${baseUri(base)}/<kind>/…`);
  }
  if (scheme[1] !== SCHEME) {
    const lower = scheme[1].toLowerCase() === SCHEME;
    const words = lower
      ? "the scheme is tiny, in lowercase"
      : `${shown(scheme[1], 20)} URIs are not read here, only tiny://`;
    return refuse("scheme", words, lower ? fix(`${SCHEME}${uri.slice(SCHEME.length)}`) : []);
  }
  if (!uri.startsWith(`${SCHEME}://`)) return refuse("syntax", `a tiny URI starts with ${baseUri(base)}/`);
  const rest = uri.slice(SCHEME.length + 3);
  const end = rest.search(/[/?]/);
  const authority = end === -1 ? rest : rest.slice(0, end);
  const tail = end === -1 ? "" : rest.slice(end);
  const question = tail.indexOf("?");
  const path = question === -1 ? tail : tail.slice(0, question);
  const query = question === -1 ? undefined : tail.slice(question + 1);
  const bad = firstRawForbidden(path, false) ??
    (query === undefined ? undefined : firstRawForbidden(query, true));
  if (bad !== undefined) {
    const encoded = `${SCHEME}://${authority}${encodeForbidden(path, false)}${
      query === undefined ? "" : `?${encodeForbidden(query, true)}`
    }`;
    return refuse("syntax", `the character ${describeChar(bad)} must be percent-encoded`, fix(encoded));
  }
  if (authority === "") {
    return refuse("syntax", "this URI names no relay", fix(`${SCHEME}://${base.host}${tail}`));
  }
  if (authority.toLowerCase() !== base.host) {
    return refuse(
      "other-relay",
      `this URI names relay ${shown(authority)}; this server reads relay ${base.host} (${baseUri(base)}/…)`,
      fix(`${SCHEME}://${base.host}${tail}`),
    );
  }
  return parsePath(base, path, query, fix);
}

function parsePath(
  base: ResourceBase,
  path: string,
  query: string | undefined,
  fix: (candidate: string) => string[],
): UriOutcome {
  const suffix = query === undefined ? "" : `?${query}`;
  // A path ending in "/" names a collection; "/" alone, the root.
  const collection = path.endsWith("/");
  const inner = collection ? path.slice(0, -1) : path;
  const raw = inner === "" ? [] : inner.slice(1).split("/");
  const values: string[] = [];
  for (const [i, segment] of raw.entries()) {
    const decoded = decodeSegment(segment);
    if (!decoded.ok) {
      const kept = raw.filter((part) => part !== "" && part !== "." && part !== "..");
      const retry = kept.length === raw.length ? [] : fix(
        `${SCHEME}://${base.host}/${kept.join("/")}${collection && kept.length > 0 ? "/" : ""}${suffix}`,
      );
      return refuse("bad-segment", `segment ${i + 1} of the path: ${decoded.why}`, retry);
    }
    values.push(decoded.value);
  }
  const tenantShape = values[0] === "r" && values.length >= 2;
  const given = tenantShape ? values[1] : undefined;
  const kindValues = tenantShape ? values.slice(2) : values;
  if (given !== base.tenant) {
    const kindRaw = (tenantShape ? raw.slice(2) : raw).join("/");
    const words = base.tenant === undefined
      ? `relay ${base.host} has no tenants, so its URIs have no /r/<tenant> prefix`
      : `this server reads tenant ${shown(base.tenant)} of relay ${base.host}: its URIs begin ${
        baseUri(base)
      }/`;
    const slash = collection && kindRaw !== "" ? "/" : "";
    return refuse("other-tenant", words, fix(`${baseUri(base)}/${kindRaw}${slash}${suffix}`));
  }
  const matched = matchKind(base, kindValues, collection, fix, suffix);
  if (!matched.ok) return matched;
  const read = readQuery(base, matched.value, query, fix);
  if (!read.ok) return read;
  const canonical = formatUri(base, matched.value, read.value);
  return { ok: true, value: { address: matched.value, query: read.value, as: read.value.as, canonical } };
}

function fill(spec: KindSpec, values: readonly string[]): ResourceAddress {
  const filled: Record<string, string> = {};
  spec.path.forEach((segment, i) => {
    if (typeof segment !== "string") filled[segment.variable] = values[i];
  });
  return { kind: spec.kind, values: filled };
}

function matchKind(
  base: ResourceBase,
  values: readonly string[],
  collection: boolean,
  fix: (candidate: string) => string[],
  suffix: string,
): Step<ResourceAddress> {
  const spec = ALL_KINDS.find((row) =>
    isCollection(row.kind) === collection && row.path.length === values.length &&
    row.path.every((segment, i) => typeof segment !== "string" || segment === values[i])
  );
  if (!spec) {
    const wrong = values.map(encodeValue).join("/") + (collection && values.length > 0 ? "/" : "");
    // A guess of either shape: `room` means `room/`, and `room/general/` means `room/general`.
    const guesses = ALL_KINDS.filter((row) => row.path.length === values.length).map((row) =>
      `${baseUri(base)}/${pathOf(row, (_, i) => values[i])}${suffix}`
    ).flatMap(fix);
    const kinds = ALL_KINDS.filter((row) => row.kind !== "root").map((row) =>
      pathOf(row, (variable) => `{${variable}}`).replaceAll("%7B", "{").replaceAll("%7D", "}")
    );
    const words = values.length === 0
      ? `this URI names no resource; ${baseUri(base)}/ lists the kinds`
      : `${shown(wrong)} is not a kind path here; the kinds are ${kinds.join(", ")}`;
    // With no path at all, the root is the one guess, whatever the query.
    return refuse(
      "unknown-kind",
      words,
      values.length === 0 ? guesses : nearestBy(wrong, guesses, resourcePart),
    );
  }
  for (const [i, segment] of spec.path.entries()) {
    if (typeof segment === "string") continue;
    const problem = segment.rule.problem(values[i]);
    if (problem === undefined) continue;
    const better = segment.rule.suggest?.(values[i]);
    const corrected = better === undefined
      ? []
      : fix(`${baseUri(base)}/${pathOf(spec, (_, j) => j === i ? better : values[j])}${suffix}`);
    return refuse("bad-id", `{${segment.variable}} is ${shown(values[i], 70)}: ${problem}`, corrected);
  }
  return { ok: true, value: fill(spec, values) };
}

/** The query read and checked against what it asks of; a refusal names the queries that would do. */
function readQuery(
  base: ResourceBase,
  address: ResourceAddress,
  query: string | undefined,
  fix: (candidate: string) => string[],
): Step<ReadQuery> {
  const plain = `${baseUri(base)}/${kindPath(address)}`;
  const parsed = parseQuery(query);
  const problem = parsed.ok
    ? queryProblem(parsed.value, { collection: isCollection(address.kind), file: address.kind === "file" })
    : parsed.refusal;
  if (problem === undefined && parsed.ok) return { ok: true, value: parsed.value };
  const { why, near } = problem ?? { why: "", near: [] };
  const nearest = [...new Set(near.flatMap((q) => fix(`${plain}${formatQuery(q)}`)))];
  return refuse("bad-query", why, nearest);
}
