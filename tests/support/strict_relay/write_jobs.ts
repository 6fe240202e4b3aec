// The long-task write tools (request_job, accept_job, job_progress, job_result, job_error, cancel_job):
// how tinyrelay builds each template from plain fields or from the request event, and checks a signed
// one (mcp_tools.go), its shape judged by the gates' own rules (job_rules.ts). Pure.

import type { NostrEvent } from "nostr-tools/pure";
import { jobName, jobShapeProblem } from "./job_rules.ts";
import {
  type BuildContext,
  type Built,
  expirationProblem,
  expirationTag,
  hex64,
  str,
  tag,
  type Tags,
  template,
  trim,
  validRoomId,
  type WriteSpec,
} from "./write_kit.ts";
import { SHAPES } from "./write_shapes.ts";
import { type Args, isRecord } from "./values.ts";

/** The gates' shape verdict without its `invalid: ` prefix, so the tool's message reads as one sentence. */
const shape = (ev: NostrEvent) => jobShapeProblem(ev)?.replace(/^invalid: /, "");

function buildRequest(args: Args, ctx: BuildContext): Built {
  const room = trim(str(args, "room"));
  if (!validRoomId(room)) return { error: "room is required and must be a room id" };
  const tags: Tags = [["h", room]];
  const assignees = Array.isArray(args.assignees) ? args.assignees : [];
  for (const key of assignees) {
    if (typeof key !== "string" || !hex64(key)) return { error: "assignees must be hex public keys" };
    tags.push(["p", key]);
  }
  if (assignees.length === 0) return { error: "assignees must name at least one key to ask" };
  const subject = trim(str(args, "subject")), content = str(args, "content");
  if (subject === "" && trim(content) === "") return { error: "content or subject is required" };
  if (subject) tags.push(["subject", subject]);
  const root = str(args, "root");
  if (root !== "") {
    if (!hex64(root)) return { error: "root must be an event id" };
    tags.push(["e", root, "", "root"]);
  }
  const expiration = expirationTag(args, ctx.now);
  if ("error" in expiration) return expiration;
  return template(43001, ctx.now, [...tags, ...expiration.tags], content);
}

/** The request event an answer or cancel was given, when it was given one. */
function requestArgument(args: Args): NostrEvent | undefined | { error: string } {
  if (!isRecord(args.request)) return undefined;
  const r = args.request;
  const ok = r.kind === 43001 && typeof r.id === "string" && hex64(r.id) && typeof r.pubkey === "string" &&
    hex64(r.pubkey) && (r.tags === undefined || r.tags === null || Array.isArray(r.tags));
  if (!ok) return { error: "request must be a kind 43001 job request event with id and pubkey" };
  const tags = Array.isArray(r.tags) ? r.tags.filter(Array.isArray).map((t) => t.map(String)) : [];
  return { ...(r as unknown as NostrEvent), tags };
}

/** The request an answer names: its id, requester and room, from the request event or from e, p and room. */
function target(args: Args): { id: string; requester: string; room: string } | { error: string } {
  let id = str(args, "e"), requester = str(args, "p"), room = trim(str(args, "room"));
  const request = requestArgument(args);
  if (request && "error" in request) return request;
  if (request) {
    id ||= request.id;
    requester ||= request.pubkey;
    room ||= tag(request.tags, "h");
    if (id !== request.id || requester !== request.pubkey || room !== tag(request.tags, "h")) {
      return { error: "e, p and room must match the request: its id, its author and its h tag" };
    }
  }
  if (!hex64(id) || !hex64(requester) || !validRoomId(room)) {
    return { error: "request, or e (the request id), p (the requester) and room, are required" };
  }
  return { id, requester, room };
}

/** e an event id, a a kind:pubkey:identifier coordinate, r an http or https URL. */
export function artifactOk(name: string, value: string): boolean {
  if (name === "e") return hex64(value);
  if (name === "r") return value.startsWith("https://") || value.startsWith("http://");
  if (name !== "a") return false;
  const parts = value.split(":");
  return parts.length >= 3 && hex64(parts[1]) && /^[+-]?\d+$/.test(parts[0]);
}

const buildAnswer = (kind: number) => (args: Args, ctx: BuildContext): Built => {
  const named = target(args);
  if ("error" in named) return named;
  const content = str(args, "content");
  if (kind !== 43002 && trim(content) === "") return { error: "content is required" };
  const tags: Tags = [["h", named.room], ["e", named.id], ["p", named.requester]];
  if (kind === 43004 && Array.isArray(args.artifacts)) {
    for (const raw of args.artifacts) {
      const item = isRecord(raw) ? raw : {};
      const name = str(item, "type"), value = trim(str(item, "value"));
      if (!artifactOk(name, value)) {
        return {
          error:
            "each artifact needs a type of e (an event id), a (a kind:pubkey:identifier coordinate) or r (an http or https URL) and a matching value",
        };
      }
      tags.push([name, value]);
    }
  }
  return template(kind, ctx.now, tags, content);
};

const checkAnswer = (kind: number) => (ev: NostrEvent): string | undefined => {
  if (ev.kind !== kind) return `kind ${ev.kind} is not a ${jobName(kind)}`;
  if (kind !== 43002 && trim(ev.content) === "") return "content must not be empty";
  if (kind === 43004) {
    let first = true;
    for (const t of ev.tags) {
      if (t.length < 2) continue;
      if (t[0] === "e" && first) {
        first = false;
        continue;
      }
      if ((t[0] === "e" || t[0] === "a" || t[0] === "r") && !artifactOk(t[0], t[1])) {
        return `the ${t[0]} artifact tag ${
          JSON.stringify(t[1])
        } is not an event id, a coordinate or an http or https URL`;
      }
    }
  }
  return shape(ev);
};

function buildCancel(args: Args, ctx: BuildContext): Built {
  let id = str(args, "e"), room = trim(str(args, "room"));
  const request = requestArgument(args);
  if (request && "error" in request) return request;
  if (request) {
    id ||= request.id;
    room ||= tag(request.tags, "h");
    if (id !== request.id || room !== tag(request.tags, "h")) {
      return { error: "e and room must match the request: its id and its h tag" };
    }
  }
  if (!hex64(id) || !validRoomId(room)) {
    return { error: "request, or e (the request id) and room, are required" };
  }
  const tags: Tags = [["h", room], ["e", id]];
  const assignee = str(args, "p");
  if (assignee !== "") {
    if (!hex64(assignee)) return { error: "p must be a hex public key" };
    tags.push(["p", assignee]);
  }
  return template(43005, ctx.now, tags, str(args, "content"));
}

const answer = (kind: number): WriteSpec => ({
  build: buildAnswer(kind),
  check: checkAnswer(kind),
  shape: SHAPES.jobAnswer,
});

export const JOB_WRITES: Record<string, WriteSpec> = {
  request_job: {
    build: buildRequest,
    check: (ev, now) => {
      if (ev.kind !== 43001) return `kind ${ev.kind} is not a job request`;
      const expired = expirationProblem(ev.tags, now);
      if (expired) return expired;
      if (trim(ev.content) === "" && trim(tag(ev.tags, "subject")) === "") {
        return "content or a subject tag is required";
      }
      return shape(ev);
    },
    shape: SHAPES.jobRequest,
  },
  accept_job: answer(43002),
  job_progress: answer(43003),
  job_result: answer(43004),
  job_error: answer(43006),
  cancel_job: {
    build: buildCancel,
    check: (ev) => ev.kind !== 43005 ? `kind ${ev.kind} is not a job cancel` : shape(ev),
    shape: SHAPES.jobCancel,
  },
};
