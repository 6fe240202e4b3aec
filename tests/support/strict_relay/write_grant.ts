// request_grant (tinyrelay's mcp_grant_request.go and community/agent_grant_requests.go): an active
// agent asks its operator for more, as an unsigned kind 1111 NIP-22 comment on its current grant whose
// `grant` tag carries the base grant and the changes; the relay reviews the template before returning
// it and the signed event before publishing it. Pure: the caller supplies the agent's current grant.

import type { NostrEvent } from "nostr-tools/pure";
import {
  type BuildContext,
  type Built,
  str,
  tag,
  type Tags,
  tagValues,
  template,
  trim,
} from "./write_kit.ts";
import { SHAPES } from "./write_shapes.ts";
import { type Args, isRecord } from "./values.ts";

/** The current grant as a review reads it. */
export interface GrantUnderReview {
  eventId: string;
  owner: string;
  agent: string;
  active: boolean;
  kinds: number[];
  rooms: string[];
  rate: number;
  jobs?: string;
  wiki?: string;
}

const FIELDS = ["kinds", "rooms", "repos", "sites", "wiki", "jobs", "rate"];
const ALLOWED_TAGS = new Set(["request", "grant", "E", "K", "P", "e", "k", "p", "subject", "expiration"]);

/** A request's kind, rationale, grant JSON and tags (decodeGrantRequest), then its changes (validateGrantChanges). */
function decodeRequest(
  ev: NostrEvent,
): { base: string; changes: Record<string, unknown> } | { error: string } {
  if (ev.kind !== 1111 || tag(ev.tags, "request") !== "grant") {
    return { error: "invalid: not an agent grant request" };
  }
  if (trim(ev.content) === "" || [...ev.content].length > 500) {
    return { error: "invalid: grant request rationale must be 1 to 500 characters" };
  }
  let request: unknown;
  try {
    request = JSON.parse(tag(ev.tags, "grant"));
  } catch {
    request = undefined;
  }
  if (!isRecord(request)) return { error: "invalid: grant request needs a base and changes" };
  const known = Object.keys(request).every((k) => k === "base" || k === "changes") &&
    (request.changes === undefined ||
      (isRecord(request.changes) && Object.keys(request.changes).every((k) => FIELDS.includes(k))));
  if (!known || typeof request.base !== "string" || request.base === "") {
    return { error: "invalid: grant request needs a base and changes" };
  }
  const seen = new Set<string>();
  for (const t of ev.tags) {
    if (t.length === 0 || !ALLOWED_TAGS.has(t[0])) {
      return { error: "invalid: grant request contains an unsupported tag" };
    }
    if (seen.has(t[0])) return { error: "invalid: grant request contains duplicate tags" };
    seen.add(t[0]);
  }
  const changes = (request.changes ?? {}) as Record<string, unknown>;
  if (!FIELDS.some((field) => changes[field] !== undefined && changes[field] !== null)) {
    return { error: "invalid: grant request has no changes" };
  }
  const rooms = Array.isArray(changes.rooms) ? changes.rooms : [];
  if (rooms.some((room) => typeof room !== "string" || !/^[a-z0-9_-]{1,64}$/.test(room))) {
    return { error: "invalid: grant request room" };
  }
  const entries = (field: string) => (Array.isArray(changes[field]) ? changes[field] : []).filter(isRecord);
  const repos = entries("repos").map((repo) => `${repo.owner ?? ""}:${repo.identifier ?? ""}`);
  if (new Set(repos).size !== repos.length) return { error: "invalid: repeated repository in grant request" };
  const sites = entries("sites");
  const negative = sites.some((site) => typeof site.ttl === "number" && site.ttl < 0);
  if (negative || new Set(sites.map((site) => site.label)).size !== sites.length) {
    return { error: "invalid: duplicate site or negative TTL in grant request" };
  }
  return { base: request.base, changes };
}

/** Whether the changes would leave the grant as it is: kinds and rooms added, the rest replaced. */
function changesNothing(grant: GrantUnderReview, changes: Record<string, unknown>): boolean {
  const kinds = Array.isArray(changes.kinds) ? changes.kinds : [];
  const rooms = Array.isArray(changes.rooms) ? changes.rooms : [];
  const repos = Array.isArray(changes.repos) ? changes.repos : [];
  const sites = Array.isArray(changes.sites) ? changes.sites : [];
  return kinds.every((k) => grant.kinds.includes(k as number)) &&
    rooms.every((r) => grant.rooms.includes(r as string)) &&
    repos.length === 0 && sites.length === 0 &&
    (changes.wiki === undefined || changes.wiki === grant.wiki) &&
    (changes.jobs === undefined || changes.jobs === grant.jobs) &&
    (changes.rate === undefined || changes.rate === grant.rate);
}

/** The relay's review of a grant request (ReviewAgentGrantRequest), in its order and words. */
export function reviewGrantRequest(ev: NostrEvent, grant: GrantUnderReview | undefined): string | undefined {
  const request = decodeRequest(ev);
  if ("error" in request) return request.error;
  const operator = tag(ev.tags, "p");
  if (request.base !== tag(ev.tags, "E") || request.base !== tag(ev.tags, "e")) {
    return "invalid: grant request base must match its NIP-22 references";
  }
  if (tagValues(ev.tags, "p").length !== 1 || operator === "") {
    return "invalid: grant request needs exactly one operator";
  }
  const references = tag(ev.tags, "E").length === 64 && tag(ev.tags, "K") === "30392" &&
    tag(ev.tags, "k") === "30392" && tag(ev.tags, "P") === operator;
  if (!references) return "invalid: grant request needs matching NIP-22 grant references";
  if (!grant || grant.eventId !== request.base) {
    return "conflict: grant request is no longer for the current grant";
  }
  if (grant.agent !== ev.pubkey || grant.owner !== operator || !grant.active) {
    return "restricted: grant request is not for the agent's active current grant";
  }
  return changesNothing(grant, request.changes) ? "invalid: grant request changes nothing" : undefined;
}

/** The grant tag's JSON: the base grant and the changes with their empty fields left out. */
function grantJson(base: string, changes: Record<string, unknown>): string {
  const kept = Object.fromEntries(
    FIELDS.filter((field) => changes[field] !== undefined && changes[field] !== null).map((
      f,
    ) => [f, changes[f]]),
  );
  return JSON.stringify({ base, changes: kept });
}

export function buildGrantRequest(args: Args, ctx: BuildContext, grant: GrantUnderReview | undefined): Built {
  const reason = trim(str(args, "reason"));
  if (reason === "" || [...reason].length > 500) {
    return { error: "reason must be 1 to 500 valid UTF-8 characters" };
  }
  if (!grant || !grant.active) return { error: "only an active granted agent can request more permissions" };
  const changes = isRecord(args.changes) ? args.changes : {};
  if (!FIELDS.some((field) => changes[field] !== undefined && changes[field] !== null)) {
    return { error: "changes must request at least one permission" };
  }
  const { eventId: id, owner } = grant;
  const tags: Tags = [
    ["E", id, "", owner],
    ["K", "30392"],
    ["P", owner],
    ["e", id, "", owner],
    ["k", "30392"],
    ["request", "grant"],
    ["grant", grantJson(id, changes)],
    ["p", owner],
  ];
  const built = template(1111, ctx.now, tags, reason);
  if ("error" in built) return built;
  const problem = reviewGrantRequest({ ...built.unsigned, pubkey: ctx.actor, id: "", sig: "" }, grant);
  return problem ? { error: problem } : built;
}

/** A signed grant request: the agent's own, then the review. */
export function checkGrantRequest(
  ev: NostrEvent,
  actor: string,
  grant: GrantUnderReview | undefined,
): string | undefined {
  if (ev.pubkey !== actor) return "the event pubkey must match the authenticated agent";
  return reviewGrantRequest(ev, grant);
}

export const GRANT_SHAPE = SHAPES.grantRequest;
