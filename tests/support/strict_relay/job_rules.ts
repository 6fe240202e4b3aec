// Long tasks (kinds 43001 to 43006) as tinyrelay's gates judge them (internal/gates/jobs.go): each
// kind's name, the shape every job event must have, and what an answer or a cancel must name of the
// request it belongs to. Pure: the stored request is looked up by the caller.

import type { NostrEvent } from "nostr-tools/pure";
import { hex64, tag, tagValues, validRoomId } from "./write_kit.ts";

export const JOB_NAMES: Record<number, string> = {
  43001: "job request",
  43002: "job accepted",
  43003: "job progress",
  43004: "job result",
  43005: "job cancel",
  43006: "job error",
};

export const isJobKind = (kind: number): boolean => kind >= 43001 && kind <= 43006;
export const jobName = (kind: number): string => JOB_NAMES[kind] ?? "job event";

function requestShape(ev: NostrEvent): string | undefined {
  if (!validRoomId(tag(ev.tags, "h"))) return "invalid: job request must name its room in an h tag";
  let asked = 0;
  for (const t of ev.tags) {
    if (t.length < 2) continue;
    if (t[0] === "p") {
      if (!hex64(t[1])) return "invalid: job request p tags must be hex public keys";
      asked++;
    }
    if (t[0] === "e" && !hex64(t[1])) return "invalid: job request e tag must name the thread root event id";
  }
  return asked === 0 ? "invalid: job request must name at least one asked key in a p tag" : undefined;
}

/** Why a job event's tags are malformed (an `invalid:` reason), or undefined; any other kind passes. */
export function jobShapeProblem(ev: NostrEvent): string | undefined {
  if (ev.kind === 43001) return requestShape(ev);
  if (ev.kind === 43005) {
    if (!hex64(tag(ev.tags, "e"))) return "invalid: job cancel must name the job request in an e tag";
    if (!validRoomId(tag(ev.tags, "h"))) {
      return "invalid: job cancel must keep the request's room in an h tag";
    }
    const p = tag(ev.tags, "p");
    return p !== "" && !hex64(p) ? "invalid: job cancel p tag must be a hex public key" : undefined;
  }
  if (!isJobKind(ev.kind)) return undefined;
  const what = jobName(ev.kind);
  if (!hex64(tag(ev.tags, "e"))) return `invalid: ${what} must name the job request in an e tag`;
  if (!hex64(tag(ev.tags, "p"))) return `invalid: ${what} must name the requester in a p tag`;
  if (!validRoomId(tag(ev.tags, "h"))) return `invalid: ${what} must keep the request's room in an h tag`;
  return undefined;
}

/**
 * Why an answer or a cancel may not be published against the request it names (`request`: that stored
 * event as its publisher may see it), or undefined; a request itself passes.
 */
export function jobReplyProblem(ev: NostrEvent, request: NostrEvent | undefined): string | undefined {
  if (!isJobKind(ev.kind) || ev.kind === 43001) return undefined;
  const what = jobName(ev.kind);
  if (!request || request.kind !== 43001) return `restricted: ${what} must name a request this relay holds`;
  if (tag(ev.tags, "h") !== tag(request.tags, "h")) {
    return `invalid: ${what} must keep the request's room h tag`;
  }
  if (ev.kind === 43005) {
    return ev.pubkey === request.pubkey ? undefined : "restricted: only the requester may cancel a long task";
  }
  if (tag(ev.tags, "p") !== request.pubkey) return `invalid: ${what} p tag must name the requester`;
  return tagValues(request.tags, "p").includes(ev.pubkey)
    ? undefined
    : `restricted: ${what} must come from a key the request asked`;
}
