// list_wiki and read_wiki_page from the kind 30818 pages in the event store, as the real relay's
// browsewiki and browsewikipage give them: one current version per author and page, the preferred
// one (the asked author's, else the most liked, else the newest), pages by name with the name as
// cursor, `q` on titles, summaries and names, merge requests (kind 818) with their answers, and the
// history of every revision, replaced ones included.

import type { NostrEvent } from "nostr-tools/pure";
import {
  browseError,
  browseOk,
  type ContentView,
  limitOf,
  newestFirst,
  type Reader,
  tag,
  tagValues,
  text,
} from "./content_view.ts";

const ARTICLE = 30818;

type Version = Record<string, unknown> & {
  id: string;
  author: string;
  d: string;
  title: string;
  likes: number;
};

/** A page name as the relay normalizes it: lowercase, spaces to hyphens, punctuation dropped. */
export function normalizeName(raw: string): string {
  return raw.trim().toLowerCase().replace(/\s+/g, "-").replace(/[^\p{L}\p{N}_-]/gu, "");
}

/** Distinct keys that liked the version (a + or empty reaction to its id or coordinate). */
function likes(view: ContentView, id: string, coordinate: string): number {
  const keys = new Set<string>();
  for (const ev of view.events) {
    if (ev.kind !== 7 || !["+", ""].includes(ev.content.trim())) continue;
    if (tagValues(ev, "e").includes(id) || tagValues(ev, "a").includes(coordinate)) keys.add(ev.pubkey);
  }
  return keys.size;
}

function versionOf(view: ContentView, ev: NostrEvent, full: boolean): Version {
  const d = tag(ev, "d");
  const coordinate = `${ARTICLE}:${ev.pubkey}:${d}`;
  const summary = tag(ev, "summary") === "" ? {} : { summary: tag(ev, "summary") };
  const v: Version = {
    id: ev.id,
    author: ev.pubkey,
    created_at: ev.created_at,
    d,
    title: tag(ev, "title") || d,
    ...summary,
    coordinate,
    likes: likes(view, ev.id, coordinate),
  };
  for (const marker of ["fork", "defer"]) {
    const a = ev.tags.find((t) => t[0] === "a" && t[3] === marker)?.[1];
    const e = ev.tags.find((t) => t[0] === "e" && t[3] === marker)?.[1];
    if (a || e) v[marker] = { ...(a ? { a } : {}), ...(e ? { e } : {}) };
  }
  if (full) v.content = ev.content;
  return v;
}

/** Every revision of every page (or of one), split into each author's current one and the replaced. */
function revisions(
  view: ContentView,
  d?: string,
): { current: NostrEvent[]; replaced: Map<NostrEvent, string> } {
  const all = view.events.filter((ev) =>
    ev.kind === ARTICLE && tag(ev, "d") !== "" && (!d || tag(ev, "d") === d)
  )
    .sort(newestFirst);
  const latest = new Map<string, NostrEvent>();
  const replaced = new Map<NostrEvent, string>();
  for (const ev of all) {
    const key = `${ev.pubkey}:${tag(ev, "d")}`;
    const newer = latest.get(key);
    if (newer) replaced.set(ev, newer.id);
    else latest.set(key, ev);
  }
  return { current: [...latest.values()], replaced };
}

function preferred(versions: Version[], author: string): { version: Version; by: string } {
  const mine = versions.find((v) => author !== "" && v.author === author);
  if (mine) return { version: mine, by: "author" };
  const best = versions.reduce((a, b) => (b.likes > a.likes ? b : a), versions[0]);
  return best.likes > 0 ? { version: best, by: "reactions" } : { version: versions[0], by: "newest" };
}

/** The merge requests aimed at these versions, newest first, each with its destination's answer. */
function merges(view: ContentView, coordinates: string[]): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (
    const ev of view.events.filter((e) => e.kind === 818 && coordinates.includes(tag(e, "a"))).sort(
      newestFirst,
    )
  ) {
    const target = tag(ev, "a");
    const [, destination, targetD] = target.split(":");
    const source = ev.tags.find((t) => t[0] === "e" && t[3] === "source")?.[1];
    const base = ev.tags.find((t) => t[0] === "e" && t[3] !== "source")?.[1];
    const answer = view.events.filter((r) =>
      r.kind === 7 && r.pubkey === destination && tagValues(r, "e").includes(ev.id) &&
      ["+", "", "-"].includes(r.content.trim())
    ).sort(newestFirst)[0];
    rows.push({
      id: ev.id,
      author: ev.pubkey,
      created_at: ev.created_at,
      content: ev.content,
      target,
      target_d: targetD ?? "",
      destination: destination ?? "",
      ...(base ? { base } : {}),
      ...(source ? { source } : {}),
      status: !answer ? "open" : answer.content.trim() === "-" ? "rejected" : "accepted",
      ...(answer ? { answered_at: answer.created_at, reaction: answer.id } : {}),
    });
  }
  return rows;
}

export const listWiki: Reader = (args, view) => {
  const author = text(args.author);
  if (author !== "" && author.length !== 64) return browseError("invalid: wiki author");
  const q = text(args.q).trim().toLowerCase();
  const pages = new Map<string, Version[]>();
  for (const ev of revisions(view).current.sort(newestFirst)) {
    const v = versionOf(view, ev, false);
    const found = q === "" || v.title.toLowerCase().includes(q) ||
      String(v.summary ?? "").toLowerCase().includes(q) || v.d.includes(q);
    if (v.d <= text(args.cursor) || !found) continue;
    pages.get(v.d)?.push(v) ?? pages.set(v.d, [v]);
  }
  const limit = limitOf(args.limit, 50);
  const names = [...pages.keys()].sort();
  const next = names.length > limit ? names[limit - 1] : "";
  const items = names.slice(0, limit).map((d) => {
    const versions = pages.get(d)!;
    const { version } = preferred(versions, author);
    const open = merges(view, versions.map((v) => v.coordinate as string)).filter((m) => m.status === "open");
    const summary = version.summary === undefined ? {} : { summary: version.summary };
    return {
      d,
      title: version.title,
      ...summary,
      version,
      versions: versions.length,
      open_merges: open.length,
    };
  });
  return browseOk({ can_approve: false, items, next_cursor: next });
};

export const readWikiPage: Reader = (args, view) => {
  const author = text(args.author);
  if (author !== "" && author.length !== 64) return browseError("invalid: wiki author");
  const d = normalizeName(text(args.d));
  if (d === "") return browseError("invalid: wiki page name");
  const { current, replaced } = revisions(view, d);
  if (current.length === 0) return browseError("not found: wiki page");
  const versions = current.sort(newestFirst).map((ev) => versionOf(view, ev, false));
  const history = [...current, ...replaced.keys()].sort(newestFirst).map((ev) => {
    const v = versionOf(view, ev, false);
    return replaced.has(ev) ? { ...v, superseded_by: replaced.get(ev) } : v;
  });
  let { version, by } = preferred(versions, author);
  if (text(args.version) !== "") {
    const asked = history.find((v) => v.id === args.version);
    if (!asked) return browseError("not found: wiki version");
    [version, by] = [asked, "version"];
  }
  const shown = view.events.find((ev) => ev.id === version.id)!;
  const archived = version.superseded_by === undefined ? {} : { superseded_by: version.superseded_by };
  const full = { ...versionOf(view, shown, true), ...archived };
  return browseOk({
    d,
    title: full.title,
    version: full,
    preferred_by: by,
    versions,
    merges: merges(view, versions.map((v) => v.coordinate as string)),
    redirects_to: [],
    redirects_from: [],
    history,
    can_approve: false,
  });
};
