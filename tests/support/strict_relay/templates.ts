// What each publishing tool publishes, as the real relay builds it: the kinds a tool accepts and
// the template's tags and content for its arguments. The relay answers a first call with this
// template and checks the signed event of the second call against it.

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type Args, isRecord, nonEmpty, strings } from "./values.ts";

type Tags = string[][];

/** A template's tags and content, or the reason the arguments are invalid. */
export type Template = { tags: Tags; content: string } | { invalid: string };

const STATUS_KINDS: Record<string, number> = {
  open: 1630,
  resolved: 1631,
  merged: 1631,
  closed: 1632,
  draft: 1633,
};

/** The kind each publishing tool signs, when it does not depend on the arguments. */
const FIXED_KINDS: Record<string, number> = {
  create_issue: 1621,
  create_pull_request: 1618,
  comment: 1111,
  post_message: 9,
  start_thread: 11,
  reply_in_thread: 12,
  react: 7,
  publish_wiki_page: 30818,
  propose_wiki_merge: 818,
  request_grant: 1111,
  request_job: 43001,
  accept_job: 43002,
  job_progress: 43003,
  job_result: 43004,
  job_error: 43006,
  cancel_job: 43005,
  create_room: 9007,
};

/**
 * The kinds a publishing tool accepts for these arguments, the first being the template's;
 * undefined for a tool that publishes nothing. publish_event accepts any kind.
 */
export function publishKinds(tool: string, args: Args): number[] | undefined {
  if (tool in FIXED_KINDS) return [FIXED_KINDS[tool]];
  switch (tool) {
    case "publish_event":
      return [];
    case "request_decision":
      return nonEmpty(args.root) && !nonEmpty(args.room) ? [1111] : [9];
    case "set_status":
      return STATUS_KINDS[String(args.status)] ? [STATUS_KINDS[String(args.status)]] : [];
    case "publish_site":
      return [nonEmpty(args.label) ? 35128 : 15128];
    default:
      return undefined;
  }
}

/** Fixed identities for the default grant, so templates and browsegrant agree. */
export const GRANT_OPERATOR = bytesToHex(sha256(new TextEncoder().encode("strict-relay operator")));
export const GRANT_EVENT_ID = bytesToHex(sha256(new TextEncoder().encode("strict-relay grant")));

/** Adds `[name, value]` when the value is a non-empty string or a number. */
function optional(t: Tags, name: string, v: unknown): void {
  if (nonEmpty(v)) t.push([name, v as string]);
  else if (typeof v === "number") t.push([name, String(v)]);
}

function imetaTags(args: Args): { tags: Tags; refs: string } {
  const tags: Tags = [];
  let refs = "";
  for (const a of Array.isArray(args.attachments) ? args.attachments : []) {
    if (!isRecord(a) || !nonEmpty(a.url)) continue;
    const tag = ["imeta", `url ${a.url}`];
    if (nonEmpty(a.type)) tag.push(`m ${a.type}`);
    if (nonEmpty(a.sha256)) tag.push(`x ${a.sha256}`);
    if (typeof a.size === "number") tag.push(`size ${a.size}`);
    tags.push(tag);
    refs += `\n![${nonEmpty(a.filename) ?? "attachment"}](${a.url})`;
  }
  return { tags, refs };
}

function jobRefs(args: Args): Tags {
  const request = isRecord(args.request) ? args.request : {};
  const tags: Tags = [];
  const id = nonEmpty(args.e) ?? nonEmpty(request.id);
  const p = nonEmpty(args.p) ?? nonEmpty(request.pubkey);
  if (id) tags.push(["e", id]);
  if (p) tags.push(["p", p]);
  if (nonEmpty(args.room)) tags.push(["h", args.room as string]);
  return tags;
}

/** Builds one tool family's template from the arguments and their `content` text. */
type Builder = (tool: string, args: Args, content: string) => Template;

const repositoryEvent: Builder = (tool, args, content) => {
  const t: Tags = [["a", `30617:${args.owner}:${args.repo}`], ["p", String(args.owner)], [
    "subject",
    String(args.title),
  ]];
  for (const label of strings(args.labels)) t.push(["t", label]);
  if (tool === "create_pull_request") {
    t.push(["c", String(args.commit)], ["clone", String(args.clone)]);
    optional(t, "branch-name", args.branch);
  }
  return { tags: t, content };
};

const comment: Builder = (_tool, args, content) => {
  const anchors = [args.file, args.line, args.side].filter((v) => v !== undefined).length;
  if (anchors !== 0 && anchors !== 3) return { invalid: "file, line and side go together" };
  if (anchors === 3 && args.root_kind === 1621) {
    return { invalid: "a comment under an issue cannot carry file, line and side" };
  }
  if (anchors === 3 && args.side !== "old" && args.side !== "new") {
    return { invalid: "side must be old or new" };
  }
  const kind = String(args.root_kind);
  const t: Tags = [["E", String(args.root), "", String(args.root_pubkey)], ["K", kind], [
    "P",
    String(args.root_pubkey),
  ]];
  t.push(["e", nonEmpty(args.parent) ?? String(args.root)], ["k", nonEmpty(args.parent) ? "1111" : kind], [
    "p",
    String(args.root_pubkey),
  ]);
  if (anchors === 3) t.push(["file", String(args.file)], ["line", String(args.line), String(args.side)]);
  return { tags: t, content };
};

const roomEvent: Builder = (tool, args, content) => {
  const t: Tags = [["h", String(args.room)]];
  if (tool === "start_thread") optional(t, "title", args.title);
  if (tool === "reply_in_thread") t.push(["e", String(args.root), "", "root"]);
  if (tool === "post_message") { for (const p of strings(args.mentions)) t.push(["p", p]); }
  const meta = imetaTags(args);
  t.push(...meta.tags);
  return { tags: t, content: content + meta.refs };
};

const reaction: Builder = (_tool, args, content) => {
  const t: Tags = [["e", String(args.event_id)]];
  optional(t, "p", args.pubkey);
  optional(t, "k", args.kind);
  optional(t, "h", args.room);
  return { tags: t, content: content || "+" };
};

const wikiPage: Builder = (_tool, args, content) => {
  const t: Tags = [["d", String(args.d)]];
  optional(t, "title", args.title);
  optional(t, "summary", args.summary);
  if (nonEmpty(args.fork_author)) t.push(["a", `30818:${args.fork_author}:${args.d}`, "", "fork"]);
  if (nonEmpty(args.fork_event)) t.push(["e", String(args.fork_event), "", "fork"]);
  return { tags: t, content };
};

const wikiMerge: Builder = (_tool, args, content) => ({
  tags: [["a", `30818:${args.author}:${args.d}`], ["e", String(args.version), "", "source"], [
    "p",
    String(args.author),
  ]],
  content,
});

const decision: Builder = (_tool, args, content) => {
  if (!["approve", "decide", "question"].includes(String(args.request))) {
    return { invalid: "request must be approve, decide or question" };
  }
  const t: Tags = [];
  if (nonEmpty(args.room)) {
    t.push(["h", String(args.room)]);
    if (nonEmpty(args.root)) t.push(["e", String(args.root), "", "root"]);
  } else if (nonEmpty(args.root)) {
    const kind = String(args.root_kind ?? "");
    const author = String(args.root_pubkey ?? "");
    t.push(["E", String(args.root), "", author], ["K", kind], ["P", author]);
    t.push(["e", String(args.root)], ["k", kind], ["p", author]);
  } else {
    return { invalid: "room or root is required" };
  }
  t.push(["p", String(args.pubkey)], ["request", String(args.request)]);
  optional(t, "subject", args.subject);
  optional(t, "expiration", args.expiration);
  return { tags: t, content };
};

const grantRequest: Builder = (_tool, args) => {
  const reason = String(args.reason);
  const length = [...reason].length;
  if (length < 1 || length > 500) return { invalid: "reason must be 1 to 500 characters" };
  const changes = args.changes as Record<string, unknown>;
  const fields = ["kinds", "rooms", "repos", "sites", "wiki", "jobs", "rate"];
  if (!fields.some((f) => changes[f] !== undefined)) {
    return { invalid: "changes needs at least one field" };
  }
  const t: Tags = [["E", GRANT_EVENT_ID, "", GRANT_OPERATOR], ["K", "30392"], ["P", GRANT_OPERATOR]];
  t.push(["e", GRANT_EVENT_ID], ["k", "30392"], ["p", GRANT_OPERATOR]);
  t.push(["grant", JSON.stringify({ base: GRANT_EVENT_ID, changes })]);
  return { tags: t, content: reason };
};

const jobRequest: Builder = (_tool, args, content) => {
  const assignees = strings(args.assignees);
  if (!assignees.length) return { invalid: "assignees needs at least one key" };
  const t: Tags = [["h", String(args.room)]];
  for (const p of assignees) t.push(["p", p]);
  optional(t, "subject", args.subject);
  if (nonEmpty(args.root)) t.push(["e", String(args.root), "", "root"]);
  optional(t, "expiration", args.expiration);
  return { tags: t, content };
};

const jobAnswer: Builder = (_tool, args, content) => {
  const t = jobRefs(args);
  if (!t.some((r) => r[0] === "e")) return { invalid: "request or e is required" };
  if (!t.some((r) => r[0] === "h")) return { invalid: "room is required" };
  for (const a of Array.isArray(args.artifacts) ? args.artifacts : []) {
    if (!isRecord(a) || !["e", "a", "r"].includes(String(a.type)) || !nonEmpty(a.value)) {
      return { invalid: "each artifact needs a type of e, a or r and a value" };
    }
    t.push([String(a.type), String(a.value)]);
  }
  return { tags: t, content };
};

const statusChange: Builder = (_tool, args, content) => {
  if (!STATUS_KINDS[String(args.status)]) {
    return { invalid: "status must be open, resolved, merged, closed or draft" };
  }
  return { tags: [["e", String(args.target), "", "root"]], content };
};

const siteManifest: Builder = (_tool, args) => {
  const t: Tags = [];
  const seen = new Set<string>();
  for (const pair of Array.isArray(args.paths) ? args.paths : []) {
    const [path, hash] = Array.isArray(pair) ? pair : [];
    if (typeof path !== "string" || !/^\/.*\.[A-Za-z0-9]+$/.test(path)) {
      return { invalid: `path ${JSON.stringify(path)} must be absolute with a file extension` };
    }
    if (typeof hash !== "string" || !/^[0-9a-f]{64}$/.test(hash)) {
      return { invalid: `hash for ${path} must be 64 hex characters` };
    }
    if (seen.has(path)) return { invalid: `duplicate path ${path}` };
    seen.add(path);
    t.push(["path", path, hash]);
  }
  if (!seen.size) return { invalid: "paths needs at least one [path, sha256] pair" };
  if (nonEmpty(args.label)) t.unshift(["d", String(args.label)]);
  optional(t, "expiration", args.expiration);
  return { tags: t, content: "" };
};

const roomCreation: Builder = (_tool, args) => {
  const t: Tags = [["h", String(args.id)]];
  optional(t, "name", args.name);
  optional(t, "about", args.description);
  t.push([args.visibility === "private" ? "private" : "public"]);
  return { tags: t, content: "" };
};

const BUILDERS: Record<string, Builder> = {
  create_issue: repositoryEvent,
  create_pull_request: repositoryEvent,
  comment,
  post_message: roomEvent,
  start_thread: roomEvent,
  reply_in_thread: roomEvent,
  react: reaction,
  publish_wiki_page: wikiPage,
  propose_wiki_merge: wikiMerge,
  request_decision: decision,
  request_grant: grantRequest,
  request_job: jobRequest,
  accept_job: jobAnswer,
  job_progress: jobAnswer,
  job_result: jobAnswer,
  job_error: jobAnswer,
  cancel_job: jobAnswer,
  set_status: statusChange,
  publish_site: siteManifest,
  create_room: roomCreation,
};

/** The template's tags and content for a publishing tool, or a reason the arguments are invalid. */
export function templateOf(tool: string, args: Args): Template {
  const content = typeof args.content === "string" ? args.content : "";
  const build = BUILDERS[tool];
  return build ? build(tool, args, content) : { tags: [], content };
}
