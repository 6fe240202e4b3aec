// The resource templates this relay's namespace offers: one per kind and one per collection, its
// RFC 6570 URI template for this relay's base, a programmatic name, a title and a description
// written for a person and a model (what it reads, an example), its media type, its read tool and
// how the template's variables become that tool's arguments. Only templates whose tools are exposed
// are offered. Pure.

import { ALL_KINDS, isCollection, type Kind, type KindSpec, toolsOf, variablesOf } from "./kinds.ts";
import { baseUri, type ResourceBase } from "./uri.ts";

/** One entry of `resources/templates/list`, with what tinyagent needs to answer it. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  /** Omitted for files, which keep their own type. */
  mimeType?: string;
  kind: Kind;
  readTool: string;
  /** The template's variables, in the order they appear. */
  variables: string[];
  /** The read tool's arguments, each taken from the variable named. */
  args: Readonly<Record<string, string>>;
}

/** What `resources/templates/list` shows of a template (without tinyagent's own fields). */
export type TemplateEntry = Pick<
  ResourceTemplate,
  "uriTemplate" | "name" | "title" | "description" | "mimeType"
>;

// Examples only (random, no one's): what an event id and a public key look like.
const EXAMPLE_EVENT = "d6f65d61d9661f9295f5b119ddd81b95e57b373ac9c2591b1a18cdd5a9bd1441";
const EXAMPLE_KEY = "b612503289d8e10a7be35a976c99efce3712fdb4bc6f31e20a7390a89eb1a3c1";
/** The SHA-256 of no bytes at all. */
const EXAMPLE_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/** Names, titles and descriptions; `{base}` stands for this relay's `tiny://` base. */
const WORDS: Record<Kind, { name: string; title: string; description: string }> = {
  room: {
    name: "room",
    title: "Room",
    description:
      "A chat room as a transcript: its name and members, then its newest messages, oldest first, " +
      "each with who wrote it and when (UTC). {id} is the room id: lowercase letters, digits, - and _. " +
      "Example: {base}/room/general. Add ?as=json for the relay's answer as JSON.",
  },
  thread: {
    name: "thread",
    title: "Thread in a room",
    description:
      "A thread of a room: its opening message, then every reply, oldest first. {id} is the room id, " +
      `{event} the opening message's event id (64 lowercase hex). Example: {base}/room/general/thread/${EXAMPLE_EVENT}.`,
  },
  repo: {
    name: "repository",
    title: "Repository",
    description:
      "A hosted Git repository: its owner, clone URLs, branches and tags, and the files at the top " +
      "of its default branch. {owner} is the owner's public key (64 lowercase hex), {name} the repository's " +
      `name. Example: {base}/repo/${EXAMPLE_KEY}/tinyagent.`,
  },
  issue: {
    name: "issue",
    title: "Issue",
    description: "An issue of a hosted repository: title, status, labels, author and description, then the " +
      "replies oldest first and the status changes. {owner} and {name} name the repository, {id} is the " +
      `issue's event id (64 lowercase hex). Example: {base}/repo/${EXAMPLE_KEY}/tinyagent/issue/${EXAMPLE_EVENT}.`,
  },
  pull: {
    name: "pull_request",
    title: "Pull request",
    description: "A pull request of a hosted repository: title, status, labels, author, description, its " +
      "commits and diff (a long diff is cut, visibly), then the replies oldest first, review comments with " +
      `their file and line. {owner} and {name} name the repository, {id} is the pull request's event id. Example: {base}/repo/${EXAMPLE_KEY}/tinyagent/pull/${EXAMPLE_EVENT}.`,
  },
  wiki: {
    name: "wiki_page",
    title: "Wiki page",
    description: "A wiki page as its author wrote it (Djot markup), after a short header: title, author, " +
      "version, how many versions and open merge requests. {d} is the page's name, lowercase with hyphens. " +
      "Example: {base}/wiki/getting-started.",
  },
  job: {
    name: "job",
    title: "Long task",
    description:
      "A long task asked of agents or people: what was asked, by whom and of whom, its state, then " +
      "every answer oldest first (accepted, progress, result with its artifacts, cancel, error). {id} is the " +
      `request's event id (64 lowercase hex). Example: {base}/job/${EXAMPLE_EVENT}.`,
  },
  file: {
    name: "file",
    title: "File",
    description:
      "A stored file by its SHA-256: a text file as text, an image or any other file as its bytes " +
      "(base64) with the file's own media type. A larger one reads as a note giving its size and the " +
      "pieces to read: ?range=START-END of its bytes, ?lines=FIRST-LAST of a text file. {sha256} is 64 " +
      `lowercase hex. Example: {base}/file/${EXAMPLE_SHA256}.`,
  },
  root: {
    name: "kinds",
    title: "Everything on this relay",
    description:
      "The kinds of resource this relay offers, each a collection to list: {base}/room/, {base}/repo/, " +
      "{base}/wiki/, {base}/job/, {base}/file/.",
  },
  rooms: collectionWords("rooms", "Rooms", "The rooms this key can see", "room/"),
  threads: collectionWords(
    "threads",
    "Threads of a room",
    "The threads opened in a room, newest first, read page by page with the room's messages; {id} is the room id",
    "room/general/thread/",
  ),
  repos: collectionWords("repositories", "Repositories", "The hosted repositories", "repo/"),
  issues: collectionWords(
    "issues",
    "Issues of a repository",
    "A repository's issues, newest first; {owner} and {name} name the repository",
    `repo/${EXAMPLE_KEY}/tinyagent/issue/`,
  ),
  pulls: collectionWords(
    "pull_requests",
    "Pull requests of a repository",
    "A repository's pull requests, newest first; {owner} and {name} name the repository",
    `repo/${EXAMPLE_KEY}/tinyagent/pull/`,
  ),
  pages: collectionWords("wiki_pages", "Wiki pages", "The wiki's pages", "wiki/"),
  jobs: collectionWords("jobs", "Long tasks", "Every long task this key can see, in any state", "job/"),
  files: collectionWords("files", "Files", "The stored files this key can see, newest first", "file/"),
};

/** A collection's words: what it lists, and how it pages. */
function collectionWords(name: string, title: string, what: string, example: string) {
  return {
    name,
    title,
    description: `${what}: each child's URI and title, a page at a time (the next page's URI, with ` +
      `?cursor=, comes last). Add ?as=json for the list as JSON. Example: {base}/${example}.`,
  };
}

/** The RFC 6570 template of a kind on this relay: literal base and words, `{variable}` expansions. */
export function uriTemplateOf(base: ResourceBase, spec: KindSpec): string {
  const path = spec.path.map((segment) => typeof segment === "string" ? segment : `{${segment.variable}}`);
  const slash = isCollection(spec.kind) && path.length > 0 ? "/" : "";
  return `${baseUri(base)}/${path.join("/")}${slash}`;
}

function templateOf(base: ResourceBase, spec: KindSpec): ResourceTemplate {
  const words = WORDS[spec.kind];
  const template: ResourceTemplate = {
    uriTemplate: uriTemplateOf(base, spec),
    name: words.name,
    title: words.title,
    description: words.description.replaceAll("{base}", baseUri(base)),
    kind: spec.kind,
    readTool: spec.readTool,
    variables: variablesOf(spec),
    args: spec.args,
  };
  if (spec.kind !== "file") template.mimeType = "text/markdown";
  return template;
}

/** Every template of this relay's namespace, in the table's order: the kinds, then the collections. */
export function allTemplates(base: ResourceBase): ResourceTemplate[] {
  return ALL_KINDS.map((spec) => templateOf(base, spec));
}

/** The templates offered: those whose tools are all among the exposed tools. */
export function exposedTemplates(base: ResourceBase, exposed: ReadonlySet<string>): ResourceTemplate[] {
  return allTemplates(base).filter((template) => toolsOf(template.kind).every((tool) => exposed.has(tool)));
}

/** A template as `resources/templates/list` carries it. */
export function templateEntry(template: ResourceTemplate): TemplateEntry {
  const { uriTemplate, name, title, description, mimeType } = template;
  return mimeType === undefined
    ? { uriTemplate, name, title, description }
    : { uriTemplate, name, title, description, mimeType };
}

/** The template a completion's `ref/resource` names (by its template string), among those offered. */
export function templateByUri(
  templates: readonly ResourceTemplate[],
  uriTemplate: string,
): ResourceTemplate | undefined {
  return templates.find((template) => template.uriTemplate === uriTemplate);
}
