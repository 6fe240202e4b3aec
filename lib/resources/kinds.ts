// The tiny:// namespace's one table: each kind of resource, the path that names it, the rule each
// variable follows, and the read tool (with its arguments) that answers it; then the collections, a
// path ending in `/` whose read lists its children (the root lists the kinds). The URI grammar, the
// templates, the completions and the listings all read this table. Pure.

import { publicKeyHex } from "../wire/bech32.ts";

/** The URI scheme, exactly. */
export const SCHEME = "tiny";

/** A URI longer than this is refused before any other work. */
export const MAX_URI = 2048;

/** The kinds of single resource the namespace names. */
export type ItemKind = "room" | "thread" | "repo" | "issue" | "pull" | "wiki" | "job" | "file";
/** The collections: the root, and each kind's list (a URI ending in `/`). */
export type CollectionKind =
  | "root"
  | "rooms"
  | "threads"
  | "repos"
  | "issues"
  | "pulls"
  | "pages"
  | "jobs"
  | "files";
export type Kind = ItemKind | CollectionKind;

/** One named resource: its kind and its variables' decoded values, by variable name. */
export interface ResourceAddress {
  kind: Kind;
  values: Readonly<Record<string, string>>;
}

/** What one variable may hold, in words a person understands. */
export interface VariableRule {
  /** What the value is, with its article: "a room id". */
  what: string;
  /** Undefined when `value` is acceptable; otherwise why not. */
  problem(value: string): string | undefined;
  /** The value this one was probably meant to be (uppercase hex lowered, an npub as hex), if any. */
  suggest?(value: string): string | undefined;
}

/** A path segment: a literal word, or a variable with its rule. */
export type Segment = string | { variable: string; rule: VariableRule };

/** One row of the table. */
export interface KindSpec {
  kind: Kind;
  /** The path's segments; a collection's URI adds a trailing `/`. */
  path: readonly Segment[];
  /** The relay tool that reads it (a collection's: the tool that lists it; the root's: none, ""). */
  readTool: string;
  /** The read tool's arguments, each taken from the variable named. */
  args: Readonly<Record<string, string>>;
  /** A collection: the kind of its children. */
  lists?: Kind;
}

const HEX64 = /^[0-9a-f]{64}$/;
const ANY_HEX64 = /^[0-9a-fA-F]{64}$/;
const ROOM_ID = /^[a-z0-9_-]{1,64}$/;

function hexRule(what: string): VariableRule {
  return {
    what,
    problem: (value) => {
      if (HEX64.test(value)) return undefined;
      if (ANY_HEX64.test(value)) return `${what} is written in lowercase hex; this one has uppercase letters`;
      return `${what} is 64 lowercase hex characters`;
    },
    // Uppercase is refused rather than lowered, so each resource has one name; the refusal names it.
    suggest: (value) => ANY_HEX64.test(value) ? value.toLowerCase() : undefined,
  };
}

/** Rules of the variables, by what they hold. */
export const RULES = {
  room: {
    what: "a room id",
    problem: (value: string) =>
      ROOM_ID.test(value) ? undefined : "a room id is 1 to 64 lowercase letters, digits, - or _",
    suggest: (value: string) => ROOM_ID.test(value.toLowerCase()) ? value.toLowerCase() : undefined,
  },
  event: hexRule("an event id"),
  sha256: hexRule("a file's SHA-256"),
  owner: {
    what: "the owner's public key",
    problem: (value: string) =>
      HEX64.test(value) ? undefined : "the owner is a public key written as 64 lowercase hex characters",
    // An npub or uppercase hex names the same key: the refusal offers its hex form.
    suggest: (value: string) => publicKeyHex(value),
  },
  name: { what: "a repository name", problem: () => undefined },
  page: { what: "a wiki page name", problem: () => undefined },
} satisfies Record<string, VariableRule>;

const v = (variable: string, rule: VariableRule): Segment => ({ variable, rule });

/** The namespace, in the order templates are listed. */
export const KINDS: readonly KindSpec[] = [
  { kind: "room", path: ["room", v("id", RULES.room)], readTool: "read_room", args: { id: "id" } },
  {
    kind: "thread",
    path: ["room", v("id", RULES.room), "thread", v("event", RULES.event)],
    readTool: "read_thread",
    args: { id: "id", event: "event" },
  },
  {
    kind: "repo",
    path: ["repo", v("owner", RULES.owner), v("name", RULES.name)],
    readTool: "read_repository",
    args: { owner: "owner", repo: "name" },
  },
  {
    // The relay reads an issue by its repository and event id (read_issue's schema requires all three).
    kind: "issue",
    path: ["repo", v("owner", RULES.owner), v("name", RULES.name), "issue", v("id", RULES.event)],
    readTool: "read_issue",
    args: { owner: "owner", repo: "name", event: "id" },
  },
  {
    kind: "pull",
    path: ["repo", v("owner", RULES.owner), v("name", RULES.name), "pull", v("id", RULES.event)],
    readTool: "read_pull_request",
    args: { owner: "owner", repo: "name", event: "id" },
  },
  { kind: "wiki", path: ["wiki", v("d", RULES.page)], readTool: "read_wiki_page", args: { d: "d" } },
  { kind: "job", path: ["job", v("id", RULES.event)], readTool: "read_job", args: { id: "id" } },
  {
    kind: "file",
    path: ["file", v("sha256", RULES.sha256)],
    readTool: "read_attachment",
    args: { sha256: "sha256" },
  },
];

/** The collections, in the order templates are listed (after the single resources). */
export const COLLECTIONS: readonly KindSpec[] = [
  { kind: "root", path: [], readTool: "", args: {} },
  { kind: "rooms", path: ["room"], readTool: "list_rooms", args: {}, lists: "room" },
  {
    // A room's threads are the thread openings among its messages, paged as read_room pages them.
    kind: "threads",
    path: ["room", v("id", RULES.room), "thread"],
    readTool: "read_room",
    args: { id: "id" },
    lists: "thread",
  },
  { kind: "repos", path: ["repo"], readTool: "list_repositories", args: {}, lists: "repo" },
  {
    kind: "issues",
    path: ["repo", v("owner", RULES.owner), v("name", RULES.name), "issue"],
    readTool: "list_issues",
    args: { owner: "owner", repo: "name" },
    lists: "issue",
  },
  {
    kind: "pulls",
    path: ["repo", v("owner", RULES.owner), v("name", RULES.name), "pull"],
    readTool: "list_pull_requests",
    args: { owner: "owner", repo: "name" },
    lists: "pull",
  },
  { kind: "pages", path: ["wiki"], readTool: "list_wiki", args: {}, lists: "wiki" },
  { kind: "jobs", path: ["job"], readTool: "list_jobs", args: {}, lists: "job" },
  { kind: "files", path: ["file"], readTool: "list_files", args: {}, lists: "file" },
];

/** Every row: the single resources, then the collections. */
export const ALL_KINDS: readonly KindSpec[] = [...KINDS, ...COLLECTIONS];

/** The row of a kind. */
export function kindSpec(kind: Kind): KindSpec {
  return ALL_KINDS.find((spec) => spec.kind === kind)!;
}

/** Whether a kind is a collection (its URI ends in `/`). */
export function isCollection(kind: Kind): kind is CollectionKind {
  return COLLECTIONS.some((spec) => spec.kind === kind);
}

/**
 * The relay tools a kind needs exposed: its read tool, and for a collection the tool that reads its
 * children (a list of rooms is offered only where a room can be read). The root needs none.
 */
export function toolsOf(kind: Kind): string[] {
  const spec = kindSpec(kind);
  if (spec.lists === undefined) return spec.readTool === "" ? [] : [spec.readTool];
  return [...new Set([spec.readTool, ...toolsOf(spec.lists)])];
}

/** A kind's variables, in path order. */
export function variablesOf(spec: KindSpec): string[] {
  return spec.path.flatMap((segment) => typeof segment === "string" ? [] : [segment.variable]);
}

/** The read tool and its arguments for an address. */
export function readCall(address: ResourceAddress): { tool: string; arguments: Record<string, string> } {
  const spec = kindSpec(address.kind);
  const args: Record<string, string> = {};
  for (const [arg, variable] of Object.entries(spec.args)) args[arg] = address.values[variable] ?? "";
  return { tool: spec.readTool, arguments: args };
}
