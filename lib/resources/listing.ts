// Concrete resources for `resources/list`, from the list tools' answers: rooms (list_rooms),
// repositories (list_repositories), wiki pages (list_wiki) and open long tasks (list_jobs), each
// with a title a person recognises, a short description, and when it last changed where the
// relay says; plus each list tool's paging fields, so the caller can page. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import type { Kind, ResourceAddress } from "./kinds.ts";
import { arr, bool, num, obj, str, strings } from "./fields.ts";
import { isoTime } from "./markdown.ts";
import { shortNpub } from "../wire/bech32.ts";
import { count, cut, oneLine } from "./text.ts";
import { formatUri, kindPath, parseUri, type ResourceBase } from "./uri.ts";

/** One entry of `resources/list`. */
export interface ListedResource {
  uri: string;
  /** Programmatic: the resource's kind path (`room/general`). */
  name: string;
  /** What a person recognises it by. */
  title: string;
  description?: string;
  mimeType: string;
  annotations?: { lastModified: string };
}

/** A list tool that yields resources, and its paging fields. */
export interface ListSource {
  tool: string;
  kind: Kind;
  /** The read tool its resources need. */
  readTool: string;
  /** Arguments always given. */
  fixed: Readonly<Record<string, unknown>>;
  /** The argument that asks for the next page… */
  cursorArgument: "cursor";
  /** …and the answer's field that gives it ("" or absent on the last page). */
  nextCursorField: "next_cursor";
}

const paging = { cursorArgument: "cursor", nextCursorField: "next_cursor" } as const;

/** The lists, in the order resources are listed. */
export const LIST_SOURCES: readonly ListSource[] = [
  { tool: "list_rooms", kind: "room", readTool: "read_room", fixed: { limit: 100 }, ...paging },
  { tool: "list_repositories", kind: "repo", readTool: "read_repository", fixed: { limit: 100 }, ...paging },
  { tool: "list_wiki", kind: "wiki", readTool: "read_wiki_page", fixed: { limit: 100 }, ...paging },
  { tool: "list_jobs", kind: "job", readTool: "read_job", fixed: { state: "open", limit: 100 }, ...paging },
];

/** The lists whose list tool and read tool are both exposed. */
export function exposedListSources(exposed: ReadonlySet<string>): ListSource[] {
  return LIST_SOURCES.filter((source) => exposed.has(source.tool) && exposed.has(source.readTool));
}

/** The call for one page of a list: the first page, or the one after `cursor`. */
export function listCall(
  source: ListSource,
  cursor?: string,
): { tool: string; arguments: Record<string, unknown> } {
  const args: Record<string, unknown> = { ...source.fixed };
  if (cursor !== undefined && cursor !== "") args[source.cursorArgument] = cursor;
  return { tool: source.tool, arguments: args };
}

const text = (value: string, max: number) => oneLine(value, max);
/** Escapes can lengthen a line: the whole of a title or description is bounded too. */
const clipped = (value: string, max: number) => {
  const { shown, left } = cut(value, max);
  return left > 0 ? `${shown}…` : shown;
};
const plural = (n: number, word: string) => `${count(n)} ${word}${n === 1 ? "" : "s"}`;

function roomEntry(item: JsonObject): [ResourceAddress, string, string, number | undefined] {
  const id = str(item, "id") ?? "";
  const name = str(item, "name")?.trim();
  const facts = [`Room #${id}`];
  const members = num(item, "members");
  if (members !== undefined) facts.push(plural(members, "member"));
  if (str(item, "access") === "members") facts.push("members only");
  const about = str(item, "about")?.trim();
  if (about) facts.push(text(about, 200));
  return [
    { kind: "room", values: { id } },
    name ? `${text(name, 80)} (#${id})` : `#${id}`,
    facts.join(" · "),
    num(item, "last_message_at"),
  ];
}

function repoEntry(item: JsonObject): [ResourceAddress, string, string, number | undefined] {
  const owner = str(item, "owner") ?? "", name = str(item, "identifier") ?? "";
  const facts = ["Repository"];
  const privacy = bool(item, "private");
  if (privacy !== undefined) facts.push(privacy ? "private" : "public");
  const refs = obj(item, "refs");
  if (refs) {
    const n = Object.keys(refs).length;
    facts.push(`${count(n)} ${n === 1 ? "branch or tag" : "branches and tags"}`);
  }
  const clone = strings(item, "clone")[0];
  if (clone) facts.push(`clone ${text(clone, 200)}`);
  return [
    { kind: "repo", values: { owner, name } },
    `${text(name, 80)} by ${shortNpub(owner) ?? "?"}`,
    facts.join(" · "),
    undefined,
  ];
}

function wikiEntry(item: JsonObject): [ResourceAddress, string, string, number | undefined] {
  const d = str(item, "d") ?? "";
  const version = obj(item, "version");
  const facts = ["Wiki page"];
  const summary = str(item, "summary")?.trim();
  if (summary) facts.push(text(summary, 200));
  const versions = num(item, "versions");
  if (versions !== undefined) facts.push(plural(versions, "version"));
  const merges = num(item, "open_merges");
  if (merges) facts.push(plural(merges, "open merge request"));
  return [
    { kind: "wiki", values: { d } },
    text(str(item, "title")?.trim() || d, 120),
    facts.join(" · "),
    num(version, "created_at"),
  ];
}

function jobEntry(
  item: JsonObject,
  everyState = false,
): [ResourceAddress, string, string, number | undefined] | undefined {
  const state = str(item, "state");
  if (!everyState && state !== undefined && state !== "open") return undefined;
  const subject = str(item, "subject")?.trim() || (str(item, "content") ?? "").split("\n", 1)[0].trim() ||
    "(no subject)";
  const facts = [`Long task${str(item, "room") ? ` in #${text(str(item, "room")!, 64)}` : ""}`];
  if (everyState && state) facts.push(text(state, 20));
  const status = str(item, "status");
  if (status) facts.push(`status ${text(status, 20)}`);
  facts.push(
    `asked by ${shortNpub(str(item, "requester") ?? "") ?? "?"} of ${
      plural(strings(item, "assignees").length, "key")
    }`,
  );
  const changed = Math.max(num(item, "created_at") ?? 0, num(obj(item, "progress"), "created_at") ?? 0);
  return [
    { kind: "job", values: { id: str(item, "id") ?? "" } },
    `Task: ${text(subject, 100)}`,
    facts.join(" · "),
    changed,
  ];
}

const ENTRIES: Record<
  string,
  (
    item: JsonObject,
    everyState?: boolean,
  ) => [ResourceAddress, string, string, number | undefined] | undefined
> = {
  list_rooms: roomEntry,
  list_repositories: repoEntry,
  list_wiki: wikiEntry,
  list_jobs: jobEntry,
};

/**
 * The resources in one page of a list tool's answer, and the cursor of the next page when there
 * is one. Items that do not name a valid resource (a malformed id, say) are left out; so are the
 * tasks no longer open, unless `everyState` (a collection of every task).
 */
export function listedResources(
  base: ResourceBase,
  tool: string,
  answer: unknown,
  everyState = false,
): { resources: ListedResource[]; nextCursor?: string } {
  const entry = ENTRIES[tool];
  const resources: ListedResource[] = [];
  for (const item of entry === undefined ? [] : arr(answer, "items").filter(isObject)) {
    const made = entry(item, everyState);
    if (made === undefined) continue;
    const [address, title, description, changed] = made;
    const uri = formatUri(base, address);
    const parsed = parseUri(base, uri);
    // An empty id would name the collection, not the item: only what parses back to itself is listed.
    if (!parsed.ok || parsed.value.canonical !== uri || parsed.value.address.kind !== address.kind) continue;
    const resource: ListedResource = {
      uri,
      name: kindPath(address),
      title: clipped(title, 200),
      description: clipped(description, 300),
      mimeType: "text/markdown",
    };
    const lastModified = isoTime(changed);
    if (lastModified !== undefined) resource.annotations = { lastModified };
    resources.push(resource);
  }
  const next = str(answer, "next_cursor");
  return next ? { resources, nextCursor: next } : { resources };
}
