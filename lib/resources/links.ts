// The links every read carries in its `_meta` (under one key), typed and both ways: IANA's `up`,
// `collection`, `item` and `next` where they fit, then tinyagent's own relations, each pair's
// inverse emitted by the other side: room ⇄ thread, repository ⇄ issue and pull request, job →
// room, message ⇄ attachment, wiki page ⇄ its redirects. Every href is a complete URI; a link
// standing for several occurrences says how many in `count`; at most 100 on one read, the rest
// behind a `tiny:links` link to `?as=links`, which pages through them all. Read off the answer in
// one pass, never by another call. Pure.

import { isObject } from "../wire/json.ts";
import { isCollection, type ResourceAddress } from "./kinds.ts";
import { arr, obj, str } from "./fields.ts";
import { oneLine } from "./text.ts";
import { formatUri, type ResourceBase } from "./uri.ts";

/** One link: what it is to this read (`rel`), where it goes, and what it is called. */
export interface Link {
  rel: string;
  href: string;
  title?: string;
  /** How many occurrences it stands for, when more than one. */
  count?: number;
}

/** The `_meta` key the links sit under. */
export const LINKS_KEY = "tinyagent/links";
/** At most this many links on one read (one of them, then, the way to the rest). */
export const MAX_LINKS = 100;

/** IANA's registered relations tinyagent uses, in the order they come. */
const IANA = ["up", "collection", "item", "next"];

/** What a link's builder knows besides the address and the answer. */
export interface LinkExtras {
  /** The repository's issues and pull requests, as list_issues and list_pull_requests answered. */
  issues?: unknown;
  pulls?: unknown;
  /** Where this session has seen a file attached: the rooms and threads, with a title. */
  seenIn?: readonly { href: string; title?: string }[];
}

const HEX64 = /^[0-9a-f]{64}$/;
const ROOM_ID = /^[a-z0-9_-]{1,64}$/;

/** Links gathered in order; the same relation and target twice is one link, counted. */
class Gathered {
  #links = new Map<string, Link>();

  add(rel: string, href: string, title?: string): void {
    const key = `${rel} ${href}`;
    const kept = this.#links.get(key);
    if (kept) {
      kept.count = (kept.count ?? 1) + 1;
      if (kept.title === undefined && title) kept.title = oneLine(title, 200);
      return;
    }
    this.#links.set(key, title ? { rel, href, title: oneLine(title, 200) } : { rel, href });
  }

  /** IANA's relations first, then tinyagent's, each in the order they were found. */
  list(): Link[] {
    const all = [...this.#links.values()];
    const rank = (link: Link) => IANA.includes(link.rel) ? 0 : 1;
    return all.map((link, i) => ({ link, i })).sort((a, b) => rank(a.link) - rank(b.link) || a.i - b.i)
      .map(({ link }) => link);
  }
}

/** The collection a single resource belongs to, or a collection's parent. */
export function parentOf(address: ResourceAddress): ResourceAddress | undefined {
  const v = address.values;
  const repo = { owner: v.owner, name: v.name };
  switch (address.kind) {
    case "root":
      return undefined;
    case "room":
    case "rooms":
    case "repos":
    case "pages":
    case "jobs":
    case "files":
      return address.kind === "room" ? { kind: "rooms", values: {} } : { kind: "root", values: {} };
    case "thread":
      return { kind: "threads", values: { id: v.id } };
    case "threads":
      return { kind: "room", values: { id: v.id } };
    case "repo":
      return { kind: "repos", values: {} };
    case "issue":
      return { kind: "issues", values: repo };
    case "pull":
      return { kind: "pulls", values: repo };
    case "issues":
    case "pulls":
      return { kind: "repo", values: repo };
    case "wiki":
      return { kind: "pages", values: {} };
    case "job":
      return { kind: "jobs", values: {} };
    case "file":
      return { kind: "files", values: {} };
  }
}

/** The SHA-256 of each attachment an event carries (its NIP-92 imeta tags: `x`, or a /media/ URL). */
function attachmentsOf(tags: unknown[]): string[] {
  const found: string[] = [];
  for (const tag of tags) {
    if (!Array.isArray(tag) || tag[0] !== "imeta") continue;
    let sha: string | undefined;
    for (const part of tag) {
      if (typeof part !== "string") continue;
      if (part.startsWith("x ") && HEX64.test(part.slice(2))) sha = part.slice(2);
      const media = /^url \S*\/media\/([0-9a-f]{64})(?:\.[A-Za-z0-9]{1,8})?$/.exec(part);
      if (sha === undefined && media) sha = media[1];
    }
    if (sha !== undefined) found.push(sha);
  }
  return found;
}

/** The thread an event of a room belongs to: its own id when it opens one, else its root `e` tag. */
function threadOf(event: Record<string, unknown>): string | undefined {
  if (event.kind === 11) return typeof event.id === "string" ? event.id : undefined;
  if (event.kind !== 9 && event.kind !== 12) return undefined;
  const tags = Array.isArray(event.tags) ? event.tags : [];
  const marked = tags.find((t) => Array.isArray(t) && t[0] === "e" && t[3] === "root");
  const first = tags.find((t) => Array.isArray(t) && t[0] === "e");
  const root = (marked ?? (event.kind === 12 ? first : undefined))?.[1];
  return typeof root === "string" ? root : undefined;
}

/** A thread's title from its opening event: its subject, or its first line. */
function subjectOf(event: Record<string, unknown>): string | undefined {
  const tags = Array.isArray(event.tags) ? event.tags : [];
  const subject = tags.find((t) => Array.isArray(t) && (t[0] === "subject" || t[0] === "title"))?.[1];
  if (typeof subject === "string" && subject.trim() !== "") return subject;
  const content = typeof event.content === "string" ? event.content.split("\n", 1)[0].trim() : "";
  return content === "" ? undefined : content;
}

/** A room's or a thread's events: each thread they belong to, each file they carry. */
function eventLinks(links: Gathered, base: ResourceBase, room: string, events: unknown[], threads: boolean) {
  const titles = new Map<string, string>();
  for (const event of events) {
    if (!isObject(event)) continue;
    if (event.kind === 11 && typeof event.id === "string") {
      const subject = subjectOf(event);
      if (subject) titles.set(event.id, subject);
    }
  }
  for (const event of events) {
    if (!isObject(event)) continue;
    const thread = threads ? threadOf(event) : undefined;
    if (thread !== undefined && HEX64.test(thread)) {
      links.add(
        "tiny:thread",
        formatUri(base, { kind: "thread", values: { id: room, event: thread } }),
        titles.get(thread),
      );
    }
    for (const sha of attachmentsOf(Array.isArray(event.tags) ? event.tags : [])) {
      links.add("tiny:attachment", formatUri(base, { kind: "file", values: { sha256: sha } }));
    }
  }
}

/** A repository's listed issues or pull requests, each as a link. */
function listedLinks(
  links: Gathered,
  base: ResourceBase,
  rel: "issue" | "pull",
  v: Record<string, string>,
  answer: unknown,
) {
  for (const item of arr(answer, "items")) {
    const id = str(item, "id");
    if (id === undefined || !HEX64.test(id)) continue;
    links.add(
      `tiny:${rel}`,
      formatUri(base, { kind: rel, values: { owner: v.owner, name: v.name, id } }),
      str(item, "title"),
    );
  }
}

/** What an item's answer names: its room and threads, its repository, its files, its redirects. */
function itemLinks(
  links: Gathered,
  base: ResourceBase,
  address: ResourceAddress,
  answer: unknown,
  extras: LinkExtras,
) {
  const v = address.values;
  const uri = (kind: ResourceAddress["kind"], values: Record<string, string>) =>
    formatUri(base, { kind, values });
  switch (address.kind) {
    case "room":
      links.add("tiny:threads", uri("threads", { id: v.id }));
      if (answer !== undefined) eventLinks(links, base, v.id, arr(answer, "messages"), true);
      return;
    case "thread":
      links.add("tiny:room", uri("room", { id: v.id }), str(obj(answer, "room"), "name") || undefined);
      if (answer !== undefined) {
        eventLinks(links, base, v.id, [obj(answer, "root"), ...arr(answer, "replies")], false);
      }
      return;
    case "repo":
      links.add("tiny:issues", uri("issues", { owner: v.owner, name: v.name }));
      links.add("tiny:pulls", uri("pulls", { owner: v.owner, name: v.name }));
      listedLinks(links, base, "issue", v, extras.issues);
      listedLinks(links, base, "pull", v, extras.pulls);
      return;
    case "issue":
    case "pull":
      links.add("tiny:repository", uri("repo", { owner: v.owner, name: v.name }));
      return;
    case "wiki":
      for (const entry of arr(answer, "redirects_from")) {
        const target = str(entry, "target_d");
        if (target && target !== v.d) links.add("tiny:redirects-to", uri("wiki", { d: target }));
      }
      for (const entry of arr(answer, "redirects_to")) {
        const source = str(entry, "d");
        if (source && source !== v.d) links.add("tiny:redirected-from", uri("wiki", { d: source }));
      }
      return;
    case "job": {
      const item = obj(answer, "item"), room = str(item, "room"), root = str(item, "root");
      if (room === undefined || !ROOM_ID.test(room)) return;
      links.add("tiny:room", uri("room", { id: room }));
      if (root !== undefined && HEX64.test(root)) {
        links.add("tiny:thread", uri("thread", { id: room, event: root }));
      }
      return;
    }
    case "file":
      for (const place of extras.seenIn ?? []) links.add("tiny:attached-to", place.href, place.title);
      return;
  }
}

/**
 * The links of a read of `address`: where it belongs (`up`, `collection`), then what its answer
 * names. Without an answer (a stat), only what the address itself says.
 */
export function linksOf(
  base: ResourceBase,
  address: ResourceAddress,
  answer?: unknown,
  extras: LinkExtras = {},
): Link[] {
  const links = new Gathered();
  const parent = parentOf(address);
  if (parent) {
    const href = formatUri(base, parent);
    links.add("up", href);
    if (!isCollection(address.kind)) links.add("collection", href);
  }
  if (!isCollection(address.kind)) itemLinks(links, base, address, answer, extras);
  return links.list();
}

/** A collection page's links: where it belongs, each child (`item`), and the next page. */
export function collectionLinks(
  base: ResourceBase,
  address: ResourceAddress,
  children: readonly { uri: string; title?: string }[],
  next?: string,
): Link[] {
  const links = new Gathered();
  const parent = parentOf(address);
  if (parent) links.add("up", formatUri(base, parent));
  for (const child of children) links.add("item", child.uri, child.title);
  if (next !== undefined) links.add("next", next);
  return links.list();
}

/** At most MAX_LINKS: past it, the first ones and a `tiny:links` link to `?as=links`, counting them all. */
export function cappedLinks(links: readonly Link[], linksUri: string): Link[] {
  if (links.length <= MAX_LINKS) return [...links];
  return [...links.slice(0, MAX_LINKS - 1), { rel: "tiny:links", href: linksUri, count: links.length }];
}

/** One page of `?as=links`: MAX_LINKS links from `offset`, then `next` (the next page's URI) while more remain. */
export function linksPage(
  links: readonly Link[],
  offset: number,
  pageUri: (offset: number) => string,
): { links: Link[]; total: number } {
  const page = links.slice(offset, offset + MAX_LINKS - 1);
  const end = offset + page.length;
  return {
    links: end < links.length ? [...page, { rel: "next", href: pageUri(end) }] : page,
    total: links.length,
  };
}
