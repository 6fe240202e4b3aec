// A collection's page: the call that lists it (the relay's own list tool and cursor, carried whole;
// a room's threads from its messages as read_room pages them; the root from the table, with no
// call), its children read off the answer, each a complete URI with its title, and the page as
// markdown or JSON, the next page's URI last. Pure.

import { isObject } from "../wire/json.ts";
import { shortNpub } from "../wire/bech32.ts";
import { COLLECTIONS, kindSpec, type ResourceAddress, toolsOf } from "./kinds.ts";
import { arr, num, str, tagValue } from "./fields.ts";
import { listedResources } from "./listing.ts";
import { code, inline, isoTime } from "./markdown.ts";
import { MAX_CURSOR } from "./query.ts";
import { count } from "./text.ts";
import { formatUri, type ResourceBase } from "./uri.ts";

/** A list tool is asked for this many children a page (a room's threads: messages), so a page's links stay under 100. */
export const PAGE_SIZE = 50;

/** One child of a collection. */
export interface Child {
  uri: string;
  title: string;
  description?: string;
  lastModified?: string;
}

export interface CollectionPage {
  children: Child[];
  /** The relay's cursor of the next page, when there is one. */
  next?: string;
}

/** The call that lists a page of `address` from `cursor` on; undefined for the root (no call). */
export function collectionCall(
  address: ResourceAddress,
  cursor?: string,
): { tool: string; arguments: Record<string, unknown> } | undefined {
  const spec = kindSpec(address.kind);
  if (spec.readTool === "") return undefined;
  const args: Record<string, unknown> = { limit: PAGE_SIZE };
  for (const [arg, variable] of Object.entries(spec.args)) args[arg] = address.values[variable] ?? "";
  if (address.kind === "jobs") args.state = "all";
  if (cursor !== undefined) args.cursor = cursor;
  return { tool: spec.readTool, arguments: args };
}

/** The collections the root lists: those whose tools are all exposed. */
export function rootChildren(base: ResourceBase, exposed: ReadonlySet<string>): Child[] {
  const titles: Record<string, string> = {
    rooms: "Rooms",
    repos: "Repositories",
    pages: "Wiki pages",
    jobs: "Long tasks",
    files: "Files",
  };
  return COLLECTIONS.filter((spec) =>
    titles[spec.kind] !== undefined && toolsOf(spec.kind).every((tool) => exposed.has(tool))
  ).map((spec) => ({ uri: formatUri(base, { kind: spec.kind, values: {} }), title: titles[spec.kind] }));
}

const HEX64 = /^[0-9a-f]{64}$/;

function threadChildren(base: ResourceBase, room: string, answer: unknown): Child[] {
  return arr(answer, "messages").filter(isObject).filter((m) =>
    m.kind === 11 && HEX64.test(str(m, "id") ?? "")
  )
    .map((m) => {
      const tags = arr(m, "tags").filter((t): t is string[] =>
        Array.isArray(t) && t.every((p) => typeof p === "string")
      );
      const title = tagValue(tags, "subject") ?? tagValue(tags, "title") ??
        (str(m, "content") ?? "").split("\n", 1)[0].trim();
      const by = shortNpub(str(m, "pubkey") ?? "");
      return withTime({
        uri: formatUri(base, { kind: "thread", values: { id: room, event: str(m, "id")! } }),
        title: inlineTitle(title || "(no subject)"),
        description: `Thread${by ? ` opened by ${by}` : ""}`,
      }, num(m, "created_at"));
    });
}

function collaborationChildren(base: ResourceBase, address: ResourceAddress, answer: unknown): Child[] {
  const kind = address.kind === "issues" ? "issue" : "pull";
  const { owner, name } = address.values;
  return arr(answer, "items").filter(isObject).filter((item) => HEX64.test(str(item, "id") ?? "")).map(
    (item) => {
      const by = shortNpub(str(item, "author") ?? "");
      return withTime({
        uri: formatUri(base, { kind, values: { owner, name, id: str(item, "id")! } }),
        title: inlineTitle(str(item, "title") || "(untitled)"),
        description: `${kind === "issue" ? "Issue" : "Pull request"} · ${
          str(item, "status") ?? "status unknown"
        }${by ? ` · opened by ${by}` : ""}`,
      }, num(item, "created_at"));
    },
  );
}

function fileChildren(base: ResourceBase, answer: unknown): Child[] {
  return arr(answer, "items").filter(isObject).filter((item) => HEX64.test(str(item, "sha256") ?? "")).map(
    (item) => {
      const type = str(item, "type") ?? "a file";
      const size = num(item, "size");
      return withTime({
        uri: formatUri(base, { kind: "file", values: { sha256: str(item, "sha256")! } }),
        title: inlineTitle(str(item, "name") || type),
        description: `File · ${type}${size === undefined ? "" : ` · ${count(size)} bytes`}`,
      }, num(item, "uploaded"));
    },
  );
}

/** A title kept to one line, bounded. */
function inlineTitle(title: string): string {
  return title.replace(/\s+/g, " ").trim().slice(0, 200);
}

function withTime(child: Child, seconds: number | undefined): Child {
  const at = isoTime(seconds);
  return at === undefined ? child : { ...child, lastModified: at };
}

/** The children in one page of a collection's answer, and the relay's cursor of the next page. */
export function collectionPage(
  base: ResourceBase,
  address: ResourceAddress,
  answer: unknown,
): CollectionPage {
  let children: Child[];
  switch (address.kind) {
    case "threads":
      children = threadChildren(base, address.values.id, answer);
      break;
    case "issues":
    case "pulls":
      children = collaborationChildren(base, address, answer);
      break;
    case "files":
      children = fileChildren(base, answer);
      break;
    default: {
      const tool = kindSpec(address.kind).readTool;
      children = listedResources(base, tool, answer, true).resources.map((r) => ({
        uri: r.uri,
        title: r.title,
        ...(r.description ? { description: r.description } : {}),
        ...(r.annotations ? { lastModified: r.annotations.lastModified } : {}),
      }));
    }
  }
  const next = str(answer, "next_cursor");
  return next && next.length <= MAX_CURSOR ? { children, next } : { children };
}

/** What a collection is called, for its heading. */
const HEADINGS: Record<string, string> = {
  root: "Everything on this relay",
  rooms: "Rooms",
  threads: "Threads of room",
  repos: "Repositories",
  issues: "Issues",
  pulls: "Pull requests",
  pages: "Wiki pages",
  jobs: "Long tasks",
  files: "Files",
};

/** A page as markdown: the heading, each child on a line (title, URI, what it is), then the next page. */
export function collectionMarkdown(
  address: ResourceAddress,
  uri: string,
  page: CollectionPage,
  nextUri?: string,
): string {
  const room = address.kind === "threads" ? ` #${inline(address.values.id, 64)}` : "";
  const lines = [`# ${HEADINGS[address.kind]}${room}`, "", `Collection ${code(uri, 2100)}`, ""];
  if (page.children.length === 0) {
    lines.push(nextUri ? "Nothing on this page; more follow." : "Nothing here yet.", "");
  } else {
    lines.push(`${count(page.children.length)} on this page:`, "");
  }
  for (const child of page.children) {
    const about = child.description ? ` — ${inline(child.description, 300)}` : "";
    const when = child.lastModified ? ` · ${child.lastModified.replace("T", " ").replace("Z", " UTC")}` : "";
    lines.push(`- **${inline(child.title)}** · ${code(child.uri, 2100)}${about}${when}`);
  }
  if (page.children.length > 0) lines.push("");
  lines.push(nextUri ? `Next page: ${code(nextUri, 2100)}` : "This is the last page.");
  return lines.join("\n") + "\n";
}

/** A page as JSON: the children, and the next page's URI. */
export function collectionJson(page: CollectionPage, nextUri?: string): Record<string, unknown> {
  return nextUri ? { children: page.children, next: nextUri } : { children: page.children };
}
