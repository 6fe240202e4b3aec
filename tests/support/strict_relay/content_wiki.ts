// list_wiki and read_wiki_page from the kind 30818 pages in the event store, as the real relay's
// browsewiki and browsewikipage give them: one current version per author and page, the preferred
// one (the asked author's, else the most liked, else the newest), pages by name with the name as
// cursor, `q` on titles, summaries and names, merge requests (kind 818) with their answers,
// redirects (kind 30819) both ways, and the history of every revision, replaced ones included. The
// relay's can_approve says whether the caller may decide agents' proposals; content mode seeds no
// roles or grants, so it is always false and no version carries proposal fields.

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
import type { NostrEvent } from "nostr-tools/pure";
import { normalizeName } from "./content_wiki_links.ts";
import { revisions, type Version, versionOf } from "./content_wiki_versions.ts";

/** Why one version is shown: the asked author's, else the most liked, else the newest. */
function preferred(versions: Version[], author: string): { version: Version; by: string } {
  // The relay prefers its owner's version after the asked author's ("owner"); content mode knows
  // no relay owner, so that step never applies here.
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

const REDIRECT = 30819;

/** A "30818:<author>:<d>" coordinate's author and page, or empty strings. */
function coordinateParts(value: string): { author: string; d: string } {
  const [kind, author, ...rest] = value.split(":");
  const d = rest.join(":");
  return kind === "30818" && author?.length === 64 && d !== "" ? { author, d } : { author: "", d: "" };
}

/** The redirects from page d to another, and to page d from another (at one of `coordinates`). */
function redirectsOf(view: ContentView, d: string, coordinates: string[]) {
  const newest = new Map<string, NostrEvent>();
  for (const ev of view.events.filter((e) => e.kind === REDIRECT).sort(newestFirst)) {
    const key = `${ev.pubkey}:${tag(ev, "d")}`;
    if (!newest.has(key)) newest.set(key, ev);
  }
  const from: Record<string, unknown>[] = [], to: Record<string, unknown>[] = [];
  for (const ev of [...newest.values()].sort(newestFirst)) {
    const target = tag(ev, "a");
    const { author, d: targetD } = coordinateParts(target);
    const row = {
      id: ev.id,
      author: ev.pubkey,
      created_at: ev.created_at,
      d: tag(ev, "d"),
      target,
      target_d: targetD,
      target_author: author,
    };
    if (row.d === d && targetD !== "" && targetD !== d) from.push(row);
    else if (targetD === d && row.d !== d && coordinates.includes(target)) to.push(row);
  }
  return { redirects_to: to, redirects_from: from };
}

export const listWiki: Reader = (args, view) => {
  const author = text(args.author);
  if (author !== "" && author.length !== 64) return browseError("invalid: wiki author");
  const q = text(args.q).trim().toLowerCase();
  const all = revisions(view);
  const pages = new Map<string, NostrEvent[]>();
  for (const ev of all.current.sort(newestFirst)) {
    const [d, title, summary] = [tag(ev, "d"), tag(ev, "title") || tag(ev, "d"), tag(ev, "summary")];
    const found = q === "" || title.toLowerCase().includes(q) || summary.toLowerCase().includes(q) ||
      d.includes(q);
    if (d <= text(args.cursor) || !found) continue;
    pages.get(d)?.push(ev) ?? pages.set(d, [ev]);
  }
  const limit = limitOf(args.limit, 50);
  const names = [...pages.keys()].sort();
  const next = names.length > limit ? names[limit - 1] : "";
  const items = names.slice(0, limit).map((d) => {
    // Likes are counted only where they choose the version: when the asked author has none.
    const counted = !pages.get(d)!.some((ev) => ev.pubkey === author);
    const versions = pages.get(d)!.map((ev) => versionOf(view, ev, { full: false, counted, revisions: all }));
    const { version } = preferred(versions, author);
    const open = merges(view, versions.map((v) => v.coordinate)).filter((m) => m.status === "open");
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
  const all = revisions(view, d);
  const listed = { full: false, counted: true, revisions: all };
  const versions = all.current.sort(newestFirst).map((ev) => versionOf(view, ev, listed));
  const redirects = redirectsOf(view, d, versions.map((v) => v.coordinate));
  const history = [...all.current, ...all.replaced.keys()].sort(newestFirst).map((ev) =>
    versionOf(view, ev, listed)
  );
  const page = { d, title: d, version: null as Version | null };
  const rest = { versions, merges: [] as unknown[], ...redirects, history, can_approve: false };
  if (versions.length === 0) {
    // A page known only as a redirect's source is a page with no version of its own.
    return redirects.redirects_from.length
      ? browseOk({ ...page, ...rest })
      : browseError("not found: wiki page");
  }
  let { version, by } = preferred(versions, author);
  if (text(args.version) !== "") {
    const asked = history.find((v) => v.id === args.version);
    if (!asked) return browseError("not found: wiki version");
    [version, by] = [asked, "version"];
  }
  const shown = view.events.find((ev) => ev.id === version.id)!;
  const full = versionOf(view, shown, { ...listed, full: true });
  rest.merges = merges(view, versions.map((v) => v.coordinate));
  return browseOk({ ...page, title: full.title, version: full, preferred_by: by, ...rest });
};
