// A wiki version as the real relay shows one (wikiVersion, in Go's field order): who wrote which
// page when, its likes, what it forks or defers to, its content and links when shown in full, and
// its place among its author's revisions of the page (revision 1 the oldest kept, of revisions).
// The store keeps every kind 30818 event, so a replaced revision is an older event of the same
// author and page, superseded by the next newer one.

import type { NostrEvent } from "nostr-tools/pure";
import { type ContentView, newestFirst, tag, tagValues } from "./content_view.ts";
import { wikiLinks } from "./content_wiki_links.ts";

export const ARTICLE = 30818;

export type Version = Record<string, unknown> & {
  id: string;
  author: string;
  d: string;
  title: string;
  likes: number;
  coordinate: string;
};

/** Every revision of the pages (or of one): each author's current one, and the replaced ones. */
export interface Revisions {
  /** Each author's newest version of each page. */
  current: NostrEvent[];
  /** A replaced revision and the id of the revision that replaced it. */
  replaced: Map<NostrEvent, string>;
  /** Each revision's number among its author's revisions of its page, and how many there are. */
  numbers: Map<string, { revision: number; revisions: number }>;
}

export function revisions(view: ContentView, d?: string): Revisions {
  const all = view.events.filter((ev) =>
    ev.kind === ARTICLE && tag(ev, "d") !== "" && (!d || tag(ev, "d") === d)
  ).sort(newestFirst);
  const byPage = new Map<string, NostrEvent[]>();
  for (const ev of all) {
    const key = `${ev.pubkey}:${tag(ev, "d")}`;
    byPage.get(key)?.push(ev) ?? byPage.set(key, [ev]);
  }
  const current: NostrEvent[] = [];
  const replaced = new Map<NostrEvent, string>();
  const numbers = new Map<string, { revision: number; revisions: number }>();
  for (const page of byPage.values()) {
    current.push(page[0]);
    page.forEach((ev, i) => {
      if (i > 0) replaced.set(ev, page[i - 1].id);
      numbers.set(ev.id, { revision: page.length - i, revisions: page.length });
    });
  }
  return { current, replaced, numbers };
}

/**
 * Distinct keys that liked the version (a + or empty reaction to its id or coordinate). The relay
 * counts the owner's and members' reactions only; the twin knows no membership and counts every key.
 */
function likes(view: ContentView, id: string, coordinate: string): number {
  const keys = new Set<string>();
  for (const ev of view.events) {
    if (ev.kind !== 7 || !["+", ""].includes(ev.content.trim())) continue;
    if (tagValues(ev, "e").includes(id) || tagValues(ev, "a").includes(coordinate)) keys.add(ev.pubkey);
  }
  return keys.size;
}

/** The version's fork or defer reference: the last a and e tags marked so. */
function reference(ev: NostrEvent, marker: string): Record<string, string> | undefined {
  const a = ev.tags.findLast((t) => t[0] === "a" && t[3] === marker)?.[1];
  const e = ev.tags.findLast((t) => t[0] === "e" && t[3] === marker)?.[1];
  return a || e ? { ...(a ? { a } : {}), ...(e ? { e } : {}) } : undefined;
}

/** How a version is shown: in full (content and links), liked or not counted, and its revision. */
export interface VersionOptions {
  full: boolean;
  /** False where the relay leaves likes uncounted (0). */
  counted: boolean;
  revisions: Revisions;
}

export function versionOf(view: ContentView, ev: NostrEvent, o: VersionOptions): Version {
  const d = tag(ev, "d");
  const coordinate = `${ARTICLE}:${ev.pubkey}:${d}`;
  const summary = tag(ev, "summary");
  const [fork, deferTo] = [reference(ev, "fork"), reference(ev, "defer")];
  const links = o.full ? wikiLinks(ev.content) : [];
  const superseded = o.revisions.replaced.get(ev);
  const { revision, revisions } = o.revisions.numbers.get(ev.id) ?? { revision: 1, revisions: 1 };
  // Go's omitempty: an empty summary, content or link list is left out.
  return {
    id: ev.id,
    author: ev.pubkey,
    created_at: ev.created_at,
    d,
    title: tag(ev, "title") || d,
    ...(summary === "" ? {} : { summary }),
    coordinate,
    likes: o.counted ? likes(view, ev.id, coordinate) : 0,
    ...(fork ? { fork } : {}),
    ...(deferTo ? { defer: deferTo } : {}),
    ...(o.full && ev.content !== "" ? { content: ev.content } : {}),
    ...(links.length ? { links } : {}),
    revision,
    revisions,
    ...(superseded === undefined ? {} : { superseded_by: superseded }),
  };
}
