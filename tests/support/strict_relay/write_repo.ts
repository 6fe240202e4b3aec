// The repository write tools (create_issue, create_pull_request, comment, set_status): how tinyrelay
// builds each template from plain fields and what it checks of a signed event (mcp_tools.go and
// collaboration_review.go), in its words. Pure.

import type { NostrEvent } from "nostr-tools/pure";
import { SHAPES } from "./write_shapes.ts";
import {
  type Built,
  hex40,
  hex64,
  int,
  str,
  tag,
  type Tags,
  tagValues,
  template,
  trim,
  type WriteSpec,
} from "./write_kit.ts";
import type { Args } from "./values.ts";

const STATUS_KINDS: Record<string, number> = {
  open: 1630,
  resolved: 1631,
  merged: 1631,
  closed: 1632,
  draft: 1633,
};
const REPO_COORDINATE = /^30617:[0-9a-f]{64}:.+$/;

function repository(args: Args): { owner: string; tags: Tags } | { error: string } {
  const owner = str(args, "owner"), repo = str(args, "repo");
  if (owner === "" || repo === "") return { error: "owner and repo are required" };
  return { owner, tags: [["a", `30617:${owner}:${repo}`]] };
}

/** Labels as `t` tags: trimmed, blank ones and repeats dropped. */
function labels(args: Args, tags: Tags): Tags {
  const seen = new Set<string>();
  for (const label of Array.isArray(args.labels) ? args.labels : []) {
    const text = trim(typeof label === "string" ? label : "");
    if (text !== "" && !seen.has(text)) {
      seen.add(text);
      tags.push(["t", text]);
    }
  }
  return tags;
}

/** An http or https URL with a host and neither credentials nor a fragment. */
function cloneProblem(raw: string): string | undefined {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  const bad = !url || (url.protocol !== "http:" && url.protocol !== "https:") || url.host === "" ||
    url.username !== "" || url.password !== "" || raw.includes("#");
  return bad ? "clone must be an HTTP or HTTPS URL without credentials" : undefined;
}

function buildIssue(args: Args, ctx: { now: number }): Built {
  const repo = repository(args);
  if ("error" in repo) return repo;
  const title = trim(str(args, "title")), content = str(args, "content");
  if (title === "" || trim(content) === "") return { error: "title and content are required" };
  return template(
    1621,
    ctx.now,
    labels(args, [...repo.tags, ["p", repo.owner], ["subject", title]]),
    content,
  );
}

function buildPull(args: Args, ctx: { now: number }): Built {
  const repo = repository(args);
  if ("error" in repo) return repo;
  const title = trim(str(args, "title")), commit = str(args, "commit"), clone = str(args, "clone");
  if (title === "" || commit === "" || clone === "") return { error: "title, commit and clone are required" };
  const bad = cloneProblem(clone);
  if (bad) return { error: bad };
  const tags: Tags = [...repo.tags, ["p", repo.owner], ["subject", title], ["c", commit], ["clone", clone]];
  const base = str(args, "merge_base");
  if (base !== "") tags.push(["merge-base", base]);
  return template(1618, ctx.now, labels(args, tags), str(args, "content"));
}

/** file, line and side name one diff line, together, under a pull request or patch only. */
function anchorTags(args: Args, rootKind: number): Tags | { error: string } {
  const file = str(args, "file"), line = int(args, "line"), side = str(args, "side");
  if (file === "" && line === 0 && side === "") return [];
  if (trim(file) === "" || line < 1 || (side !== "old" && side !== "new")) {
    return { error: "file, line (a positive integer) and side (old or new) go together" };
  }
  if (rootKind !== 1618 && rootKind !== 1617) {
    return { error: "file and line anchor a comment to a pull request or patch diff" };
  }
  return [["file", file], ["line", String(line), side]];
}

function buildComment(args: Args, ctx: { now: number }): Built {
  const repo = repository(args);
  if ("error" in repo) return repo;
  const root = str(args, "root"), rootPubkey = str(args, "root_pubkey"), content = str(args, "content");
  const rootKind = int(args, "root_kind");
  if (root === "" || rootPubkey === "" || rootKind === 0 || trim(content) === "") {
    return { error: "root, root_kind, root_pubkey and content are required" };
  }
  let parent = str(args, "parent"),
    parentPubkey = str(args, "parent_pubkey"),
    parentKind = int(args, "parent_kind");
  if (parent === "") [parent, parentPubkey, parentKind] = [root, rootPubkey, rootKind];
  if (parentPubkey === "" || parentKind === 0) return { error: "parent needs parent_kind and parent_pubkey" };
  const anchor = anchorTags(args, rootKind);
  if ("error" in anchor) return anchor;
  const tags: Tags = [
    ...repo.tags,
    ["E", root, "", rootPubkey],
    ["K", String(rootKind)],
    ["P", rootPubkey],
    ["e", parent, "", parentPubkey],
    ["k", String(parentKind)],
    ["p", parentPubkey],
    ...anchor,
  ];
  return template(1111, ctx.now, tags, content);
}

function buildStatus(args: Args, ctx: { now: number }): Built {
  const repo = repository(args);
  if ("error" in repo) return repo;
  const root = str(args, "root"), rootPubkey = str(args, "root_pubkey");
  const kind = STATUS_KINDS[str(args, "status")];
  if (root === "" || rootPubkey === "" || kind === undefined) {
    return { error: "root, root_pubkey and status are required" };
  }
  const tags: Tags = [...repo.tags, ["e", root, "", "root"], ["p", rootPubkey]];
  if (repo.owner !== rootPubkey) tags.push(["p", repo.owner]);
  return template(kind, ctx.now, tags, "");
}

function coordinateOwner(ev: NostrEvent): string | { error: string } {
  const coordinate = tag(ev.tags, "a");
  if (!REPO_COORDINATE.test(coordinate)) {
    return { error: "the a tag must name the repository as 30617:<owner>:<repo>" };
  }
  return coordinate.split(":")[1];
}

function rootProblem(ev: NostrEvent): string | undefined {
  const owner = coordinateOwner(ev);
  if (typeof owner !== "string") return owner.error;
  if (!tagValues(ev.tags, "p").includes(owner)) return "a p tag must name the repository owner";
  if (trim(tag(ev.tags, "subject")) === "") return "the subject tag carries the title and must not be empty";
  if (ev.kind === 1621 && trim(ev.content) === "") return "content must not be empty";
  return undefined;
}

/** A review comment's file and line tags (collaboration_review.go), without its `blocked: ` prefix. */
export function reviewAnchorProblem(ev: NostrEvent): string | undefined {
  if (ev.kind !== 1111) return undefined;
  const files = ev.tags.filter((t) => t[0] === "file"), lines = ev.tags.filter((t) => t[0] === "line");
  if (files.length === 0 && lines.length === 0) return undefined;
  if (files.length !== 1 || lines.length !== 1) {
    return "a review comment carries one file tag and one line tag";
  }
  const file = files[0], line = lines[0];
  if (file.length < 2 || trim(file[1]) === "" || file[1].length > 4096 || /[\n\r\0]/.test(file[1])) {
    return "a review comment file tag needs a path";
  }
  if (line.length < 3) return "a review comment line tag needs a line number and a side, old or new";
  if (!/^[1-9]\d*$/.test(line[1])) return "a review comment line must be a positive integer";
  if (line[2] !== "old" && line[2] !== "new") return "a review comment side must be old or new";
  const kind = tag(ev.tags, "K");
  if (kind !== "1617" && kind !== "1618") return "a review comment anchors to a pull request or patch";
  return undefined;
}

function checkComment(ev: NostrEvent): string | undefined {
  if (ev.kind !== 1111) return `kind ${ev.kind} is not a comment`;
  const owner = coordinateOwner(ev);
  if (typeof owner !== "string") return owner.error;
  const rootKind = tag(ev.tags, "K");
  if (
    !hex64(tag(ev.tags, "E")) || !hex64(tag(ev.tags, "P")) || !["1617", "1618", "1621"].includes(rootKind)
  ) {
    return "the E, K and P tags must name the root event, its kind (1617, 1618 or 1621) and its author";
  }
  if (
    !hex64(tag(ev.tags, "e")) || !hex64(tag(ev.tags, "p")) || !["1111", rootKind].includes(tag(ev.tags, "k"))
  ) {
    return "the e, k and p tags must name the parent event, its kind and its author";
  }
  if (trim(ev.content) === "") return "content must not be empty";
  return reviewAnchorProblem(ev);
}

export const REPO_WRITES: Record<string, WriteSpec> = {
  create_issue: {
    build: buildIssue,
    check: (ev) => ev.kind !== 1621 ? `kind ${ev.kind} is not an issue` : rootProblem(ev),
    shape: SHAPES.issue,
  },
  create_pull_request: {
    build: buildPull,
    check: (ev) => {
      if (ev.kind !== 1618) return `kind ${ev.kind} is not a pull request`;
      const root = rootProblem(ev);
      if (root) return root;
      const base = tag(ev.tags, "merge-base");
      if (!hex40(tag(ev.tags, "c")) || (base !== "" && !hex40(base))) {
        return "the c tag (and merge-base, when present) must be a full 40-hex commit ID";
      }
      return cloneProblem(tag(ev.tags, "clone"));
    },
    shape: SHAPES.pull,
  },
  comment: { build: buildComment, check: checkComment, shape: SHAPES.comment },
  set_status: {
    build: buildStatus,
    check: (ev) => {
      if (ev.kind < 1630 || ev.kind > 1633) return `kind ${ev.kind} is not a status`;
      const owner = coordinateOwner(ev);
      if (typeof owner !== "string") return owner.error;
      if (!hex64(tag(ev.tags, "e")) || !hex64(tag(ev.tags, "p"))) {
        return "the e and p tags must name the issue or pull request and its author";
      }
      return undefined;
    },
    shape: SHAPES.status,
  },
};
