// read_repository from a seeded repository, as the real relay's browserepo page: the tree at a ref
// (entries with Git's own blob and tree ids, in Git's order, paged by offset), a file, the history,
// one commit and the activity (the repository's issues, pull requests, comments and statuses). The
// seed holds one tree, the head's: every commit shows it. 50 entries or commits a page unless
// `limit` (1 to 100) says otherwise; an empty page is null, as Go encodes a nil slice.

import type { NostrEvent } from "nostr-tools/pure";
import { sha1 } from "@noble/hashes/legacy.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import type { CommitSeed } from "./content_types.ts";
import { findRepository, NO_REPOSITORY, type Repository } from "./content_repos.ts";
import {
  browseError,
  browseOk,
  type ContentView,
  cutUtf8,
  limitOf,
  newestFirst,
  type Reader,
  text,
} from "./content_view.ts";

const enc = new TextEncoder();
const PREVIEW_BYTES = 256 * 1024;
const ACTIVITY_KINDS = new Set([1617, 1618, 1619, 1621, 1111, 1630, 1631, 1632, 1633]);

/** Git's id of a blob with this text. */
function blobOid(content: string): Uint8Array {
  const bytes = enc.encode(content);
  return sha1(concatBytes(enc.encode(`blob ${bytes.length}\0`), bytes));
}

interface Entry {
  name: string;
  path: string;
  type: "blob" | "tree";
}

/** The direct children of a directory ("" is the root), in Git's order (a tree sorts as name + "/"). */
function children(files: Record<string, string>, dir: string): Entry[] {
  const prefix = dir === "" ? "" : `${dir}/`;
  const found = new Map<string, Entry>();
  for (const path of Object.keys(files)) {
    if (!path.startsWith(prefix)) continue;
    const [name, ...rest] = path.slice(prefix.length).split("/");
    found.set(name, { name, path: prefix + name, type: rest.length ? "tree" : "blob" });
  }
  const key = (e: Entry) => e.type === "tree" ? `${e.name}/` : e.name;
  return [...found.values()].sort((a, b) => key(a) < key(b) ? -1 : 1);
}

/** Git's id of the tree at `dir`. */
function treeOid(files: Record<string, string>, dir: string): Uint8Array {
  const body = children(files, dir).map((e) => {
    const oid = e.type === "tree" ? treeOid(files, e.path) : blobOid(files[e.path]);
    return concatBytes(enc.encode(`${e.type === "tree" ? "40000" : "100644"} ${e.name}\0`), oid);
  });
  const bytes = concatBytes(...body);
  return sha1(concatBytes(enc.encode(`tree ${bytes.length}\0`), bytes));
}

const isDir = (files: Record<string, string>, path: string) =>
  path === "" || Object.keys(files).some((p) => p.startsWith(`${path}/`));

function validPath(path: string): boolean {
  if (path === "") return true;
  const parts = path.split("/");
  return !path.includes("\0") && parts.every((p) => p !== "" && p !== "." && p !== "..");
}

/** The commit a ref names, or the relay's refusal. */
function commitFor(repo: Repository, ref: string): string | { error: string } {
  if (ref === "" || ref === "HEAD") ref = repo.head.replace(/^ref: /, "");
  for (const name of [ref, `refs/heads/${ref}`, `refs/tags/${ref}`]) {
    if (repo.refs[name] !== undefined) return repo.refs[name];
  }
  if (!/^([0-9a-f]{40}|[0-9a-f]{64})$/.test(ref)) return { error: "not found: published ref" };
  return (repo.seed.commits ?? []).some((c) => c.oid === ref)
    ? ref
    : { error: "not found: published commit" };
}

/** The history from `commit` back, touching `path` when one is given. */
function history(repo: Repository, commit: string, path: string): CommitSeed[] {
  const commits = repo.seed.commits ?? [];
  const from = Math.max(0, commits.findIndex((c) => c.oid === commit));
  return commits.slice(from).filter((c) =>
    path === "" || (c.paths ?? []).some((p) => p === path || p.startsWith(`${path}/`))
  );
}

/** A page of a list, or null when it holds nothing (Go's nil slice). */
const pageOf = <T>(all: T[], offset: number, limit: number): T[] | null => {
  const page = all.slice(offset, offset + limit);
  return page.length === 0 ? null : page;
};

const commitRow = (c: CommitSeed) => ({
  oid: c.oid,
  parents: c.parents ?? [],
  author: c.author,
  time: c.time,
  subject: c.subject,
});

/** The repository's conversation events and what answers them, newest first. */
function activity(view: ContentView, repo: Repository, limit: number): NostrEvent[] {
  const coordinate = `30617:${repo.owner}:${repo.identifier}`;
  const roots = view.events.filter((ev) =>
    ACTIVITY_KINDS.has(ev.kind) && ev.tags.some((t) => (t[0] === "a" || t[0] === "A") && t[1] === coordinate)
  );
  const ids = new Set(roots.map((ev) => ev.id));
  const answers = view.events.filter((ev) =>
    ACTIVITY_KINDS.has(ev.kind) && ev.tags.some((t) => (t[0] === "e" || t[0] === "E") && ids.has(t[1]))
  );
  return [...new Set([...roots, ...answers])].sort(newestFirst).slice(0, limit);
}

type Page = Record<string, unknown>;

/** Fills the page for one view; a string is the relay's refusal. */
function fill(page: Page, repo: Repository, q: { path: string; offset: number; limit: number }) {
  const files = repo.seed.files ?? {};
  switch (page.view) {
    case "tree": {
      // Git cannot list a file or a missing path as a tree; the relay passes its exit on.
      if (!isDir(files, q.path)) return "exit status 128";
      const all = children(files, q.path);
      page.entries = pageOf(all, q.offset, q.limit)?.map((e) => ({
        name: e.name,
        path: e.path,
        mode: e.type === "tree" ? "040000" : "100644",
        type: e.type,
        oid: bytesToHex(e.type === "tree" ? treeOid(files, e.path) : blobOid(files[e.path])),
        size: e.type === "tree" ? 0 : enc.encode(files[e.path]).length,
      })) ?? null;
      if (all.length > q.offset + q.limit) page.next_offset = q.offset + q.limit;
      return undefined;
    }
    case "file": {
      if (q.path === "") return "invalid: file path";
      if (files[q.path] === undefined) return isDir(files, q.path) ? "not found: source file" : NO_REPOSITORY;
      const bytes = enc.encode(files[q.path]);
      page.truncated = bytes.length > PREVIEW_BYTES;
      page.content = new TextDecoder().decode(bytes.subarray(0, PREVIEW_BYTES));
      return undefined;
    }
    case "history": {
      const all = history(repo, page.commit as string, q.path);
      page.commits = pageOf(all, q.offset, q.limit)?.map(commitRow) ?? null;
      if (all.length > q.offset + q.limit) page.next_offset = q.offset + q.limit;
      return undefined;
    }
    case "commit": {
      // The relay reads this as a history page of one, so next_offset says whether more follow.
      const all = history(repo, page.commit as string, "");
      page.commits = all.length ? [commitRow(all[0])] : null;
      if (all.length > 1) page.next_offset = 1;
      const { text, cut } = cutUtf8(all[0]?.diff ?? "", PREVIEW_BYTES);
      [page.diff, page.truncated] = [text, cut];
      return undefined;
    }
    case "activity":
      return undefined;
  }
  return "invalid: unknown repository view";
}

export const readRepository: Reader = (args, view) => {
  const repo = findRepository(view, args.owner, args.repo);
  if (!repo) return browseError(NO_REPOSITORY);
  const path = text(args.path);
  const offset = typeof args.offset === "number" ? args.offset : 0;
  if (!validPath(path) || !Number.isInteger(offset) || offset < 0) {
    return browseError("invalid: repository path or offset");
  }
  const page: Page = {
    owner: repo.owner,
    identifier: repo.identifier,
    head: repo.head,
    private: repo.private,
    clone: repo.clone,
    relays: repo.relays,
    maintainers: repo.maintainers,
    refs: repo.refs,
    commit: "",
    path,
    view: text(args.view) || "tree",
    entries: null,
    content: "",
    binary: false,
    truncated: false,
    commits: null,
    diff: "",
    next_offset: -1,
  };
  const limit = limitOf(args.limit, 50);
  // The activity view is the page and the events after it, even for a repository with no refs yet.
  const withEvents = () =>
    browseOk(page.view === "activity" ? { ...page, events: activity(view, repo, limit) } : page);
  if (Object.keys(repo.refs).length === 0) return withEvents();
  const commit = commitFor(repo, text(args.ref));
  if (typeof commit !== "string") return browseError(commit.error);
  page.commit = commit;
  const refused = fill(page, repo, { path, offset, limit });
  return refused ? browseError(refused) : withEvents();
};
