// The documentation names only paths that exist and links only to what exists: the README's length
// and its map of docs/, every relative link and #anchor, every checkout path a code span names.
// Pure: the file set and the files' text come in as parameters (tests/docs_names_test.ts reads them).
// Every check returns its problems, each "<file>:<line>: <what is wrong>" (no line when the problem
// is the whole file's), and none when all is well.

import { asPath, type Doc, scan, splitFences, startsBlock } from "./markdown_scan.ts";

/** The README is the short way in; the rest is in docs/. */
export const README_MAX_LINES = 250;

/** Checkout paths the docs may name that no clean clone has: they are built, and git-ignored. */
export const GENERATED: readonly { path: string; why: string }[] = [
  { path: "dist/", why: "deno task compile and deno task package write the binaries and archives there" },
  { path: "bench/results/", why: "deno task bench writes its JSON results there" },
];

/** What a code span must start with, or be, to name a path of this checkout. */
const CHECKOUT_DIRS = [
  "lib/",
  "tests/",
  "scripts/",
  "bench/",
  "bin/",
  "demo/",
  "docs/",
  ".github/",
  ".ci/",
  "dist/",
];
const CHECKOUT_FILES = ["main.ts", "deno.json", "deno.lock", "install.sh", "README.md", "CONTRIBUTING.md"];

// --- The checkout's files -----------------------------------------------------------------------

/** The files of a clean clone, and the folders holding them. */
export interface FileTree {
  files: ReadonlySet<string>;
  /** A file, or a folder holding one (a trailing slash allowed). */
  has(path: string): boolean;
}

export function fileTree(paths: Iterable<string>): FileTree {
  const files = new Set(paths);
  const dirs = new Set<string>();
  for (const file of files) {
    for (let cut = file.lastIndexOf("/"); cut > 0; cut = file.lastIndexOf("/", cut - 1)) {
      dirs.add(file.slice(0, cut));
    }
  }
  return {
    files,
    has: (path) => {
      const bare = path.replace(/\/+$/, "");
      return (bare === path && files.has(path)) || dirs.has(bare) || (bare === "" && files.size > 0);
    },
  };
}

/** `target` resolved against the folder of `from`, both relative to the checkout; undefined outside it. */
function resolvePath(from: string, target: string): string | undefined {
  const base = target.startsWith("/") ? [] : from.split("/").slice(0, -1);
  const parts = [...base];
  for (const part of target.split("/")) {
    if (part === "" || part === ".") continue;
    if (part !== "..") parts.push(part);
    else if (parts.pop() === undefined) return undefined;
  }
  return parts.join("/") + (target.endsWith("/") && parts.length > 0 ? "/" : "");
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// --- 1 and 2: the README and the map ------------------------------------------------------------

export function lineCount(text: string): number {
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

export function readmeLengthProblems(markdown: string, file = "README.md", max = README_MAX_LINES): string[] {
  const count = lineCount(markdown);
  return count > max ? [`${file}: ${count} lines, more than ${max}`] : [];
}

/** Every docs/ page is in `docs` (DOCS), every one of `docs` exists, and the README links to each. */
export function mapProblems(docs: readonly string[], tree: FileTree, readme: string): string[] {
  const problems: string[] = [];
  for (const file of [...tree.files].sort()) {
    if (/^docs\/.+\.md$/.test(file) && !docs.includes(file)) {
      problems.push(`${file}: not in DOCS (tests/support/docs.ts)`);
    }
  }
  for (const file of docs) {
    if (!tree.files.has(file)) {
      problems.push(`${file}: in DOCS (tests/support/docs.ts) but not in the checkout`);
    }
  }
  const linked = new Set<string>();
  for (const { target } of links(scan(readme))) {
    const path = target.split("#")[0];
    if (path !== "" && !/^[a-z][a-z0-9+.-]*:/i.test(path)) {
      linked.add(resolvePath("README.md", decoded(path)) ?? "");
    }
  }
  for (const file of docs) {
    if (file !== "README.md" && !linked.has(file)) problems.push(`README.md: no link to ${file}`);
  }
  return problems;
}

// --- 3: links -----------------------------------------------------------------------------------

const INLINE_LINK =
  /!?\[(?:[^[\]]|\[[^[\]]*\])*\]\(\s*(?:<([^<>\n]*)>|([^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*))(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
const REFERENCE = /^ {0,3}\[([^\]^][^\]]*)\]:[ \t]*<?([^\s>]+)>?/;

/** The links of the prose, outside fences and code spans: inline, image and reference definitions. */
function links(doc: Doc): { line: number; target: string }[] {
  const found: { line: number; target: string }[] = [];
  for (const par of doc.paragraphs) {
    const text = par.map((line) => line.text).join("\n");
    for (const link of text.matchAll(INLINE_LINK)) {
      const target = link[1] ?? link[2];
      const at = link.index + link[0].lastIndexOf("](");
      if (target) found.push({ line: par[0].n + text.slice(0, at).split("\n").length - 1, target });
    }
    for (const line of par) {
      const reference = REFERENCE.exec(line.text);
      if (reference) found.push({ line: line.n, target: reference[2] });
    }
  }
  return found.sort((a, b) => a.line - b.line);
}

/** A heading's anchor as GitHub makes it. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replaceAll("`", "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");
}

/** The anchors of a markdown file's headings (fenced ones are not headings), repeats numbered. */
export function anchors(markdown: string): Set<string> {
  const { prose } = splitFences(markdown);
  const texts: string[] = [];
  for (let i = 0; i < prose.length; i++) {
    const { n, text } = prose[i];
    const atx = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(text);
    if (atx) texts.push(atx[1] ?? "");
    const next = prose[i + 1];
    const underline = next?.n === n + 1 && /^ {0,3}(?:=+|-+)[ \t]*$/.test(next.text);
    if (!atx && underline && text.trim() !== "" && !startsBlock(text)) texts.push(text);
  }
  const counts = new Map<string, number>();
  const found = new Set<string>();
  for (const text of texts) {
    const base = slug(text);
    const count = counts.get(base) ?? 0;
    counts.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  for (const named of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) found.add(named[1]);
  return found;
}

function targetProblem(
  file: string,
  markdown: string,
  target: string,
  tree: FileTree,
  markdownOf: (path: string) => string | undefined,
): string | undefined {
  // No network here: a link with a scheme is the web's to keep.
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith("//")) return undefined;
  const hash = target.indexOf("#");
  const pathPart = (hash < 0 ? target : target.slice(0, hash)).split("?")[0];
  const fragment = hash < 0 ? "" : decoded(target.slice(hash + 1));
  const path = pathPart === "" ? file : resolvePath(file, decoded(pathPart));
  if (path === undefined) return "it points outside the checkout";
  if (pathPart !== "" && !tree.has(path)) return `${path} is not a file or folder of the checkout`;
  if (fragment === "" || !/\.md$/i.test(path) || !(pathPart === "" || tree.files.has(path))) return undefined;
  const text = pathPart === "" ? markdown : markdownOf(path);
  if (text === undefined) return `${path} cannot be read to find #${fragment}`;
  return anchors(text).has(fragment) ? undefined : `no heading of ${path} has the anchor #${fragment}`;
}

/** Every relative link resolves to a file (or folder) of `tree`, and its #fragment to a heading. */
export function linkProblems(
  file: string,
  markdown: string,
  tree: FileTree,
  markdownOf: (path: string) => string | undefined,
): string[] {
  const problems: string[] = [];
  for (const { line, target } of links(scan(markdown))) {
    const problem = targetProblem(file, markdown, target, tree, markdownOf);
    if (problem !== undefined) problems.push(`${file}:${line}: link ${target}: ${problem}`);
  }
  return problems;
}

// --- 7: files -----------------------------------------------------------------------------------

/** The checkout path a span names, or undefined: not a path, a placeholder or glob, or generated. */
export function checkoutPath(span: string): string | undefined {
  const path = asPath(span);
  if (/[<>*…{$\s]/.test(path)) return undefined;
  if (!CHECKOUT_DIRS.some((dir) => path.startsWith(dir)) && !CHECKOUT_FILES.includes(path)) return undefined;
  if (GENERATED.some(({ path: built }) => path.startsWith(built) || `${path}/` === built)) return undefined;
  return path;
}

/** Every code span naming a path of this checkout names a file or folder of `tree`. */
export function fileProblems(file: string, markdown: string, tree: FileTree): string[] {
  const problems: string[] = [];
  for (const span of scan(markdown).spans) {
    const path = checkoutPath(span.text);
    if (path !== undefined && !tree.has(path)) {
      problems.push(`${file}:${span.line}: ${path}: no such file or folder in the checkout`);
    }
  }
  return problems;
}
