// A repository from read_repository's answer (owner, identifier, head, private, clone, relays,
// maintainers, refs, commit, path, view, entries, content, binary, truncated, commits, diff,
// next_offset): who owns it, where to clone it, its branches and tags, then whatever view the
// relay answered (the tree by default, a file, the history or a commit's diff). Pure.

import { isObject } from "../wire/json.ts";
import { arr, bool, num, obj, str, strings } from "./fields.ts";
import { code, fenced, inline, joined, LIMITS, moreNote, type RenderContext, when, who } from "./markdown.ts";
import { count } from "./text.ts";
import { baseUri } from "./uri.ts";
import { encodeValue } from "./uri_text.ts";

/** A ref's name as people say it: `main` for refs/heads/main, `v1.0` for refs/tags/v1.0. */
function refName(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, "");
}

/** A maintainer as the relay lists it: a key, or an object naming one. */
function maintainerName(entry: unknown, ctx: RenderContext): string | undefined {
  if (typeof entry === "string") return who(entry, ctx);
  const key = str(entry, "pubkey") ?? str(entry, "key");
  return key === undefined ? undefined : who(key, ctx);
}

function factsLines(answer: unknown, owner: string, ctx: RenderContext): string[] {
  const facts = [`Owner ${who(str(answer, "owner") ?? owner, ctx)}`];
  const privacy = bool(answer, "private");
  if (privacy !== undefined) facts.push(privacy ? "private" : "public");
  const head = str(answer, "head");
  if (head) facts.push(`default branch ${code(refName(head.replace(/^ref: /, "")), 100)}`);
  const commit = str(answer, "commit");
  if (commit) facts.push(`at commit ${code(commit, 64)}`);
  const lines = [facts.join(" · ")];
  const clone = strings(answer, "clone").map((url) => code(url, 300));
  if (clone.length > 0) lines.push("", `Clone: ${joined(clone, 10)}`);
  const relays = strings(answer, "relays").map((url) => code(url, 300));
  if (relays.length > 0) lines.push("", `Relays: ${joined(relays, 10)}`);
  const maintainers = arr(answer, "maintainers").map((entry) => maintainerName(entry, ctx)).filter((name) =>
    name !== undefined
  ) as string[];
  if (maintainers.length > 0) lines.push("", `Maintainers: ${joined(maintainers)}`);
  const refs = obj(answer, "refs");
  if (refs) {
    const named = Object.entries(refs).filter(([, oid]) => typeof oid === "string").map(([ref, oid]) =>
      `${code(refName(ref), 100)} ${code(String(oid).slice(0, 12), 16)}`
    );
    if (named.length > 0) lines.push("", `Branches and tags: ${joined(named)}`);
  }
  return lines;
}

function treeLines(answer: unknown, path: string): string[] {
  const entries = arr(answer, "entries").filter(isObject);
  if (entries.length === 0) return [];
  const shown = entries.slice(0, LIMITS.items).map((entry) => {
    const name = str(entry, "name") ?? str(entry, "path") ?? "?";
    const type = str(entry, "type");
    const size = num(entry, "size");
    if (type === "tree") return `- ${code(`${name}/`)} (directory)`;
    if (type === "commit") return `- ${code(name)} (submodule)`;
    return `- ${code(name)}${size !== undefined ? ` · ${count(size)} bytes` : ""}`;
  });
  const next = num(answer, "next_offset");
  return [
    `## Files in ${path ? code(`/${path}`) : "the top directory"}`,
    "",
    ...shown,
    "",
    ...moreNote(entries.length, shown.length, "entries"),
    ...(next !== undefined && next >= 0 ? [`[more entries follow from offset ${next}]`, ""] : []),
  ];
}

function historyLines(answer: unknown): string[] {
  const commits = arr(answer, "commits").filter(isObject);
  if (commits.length === 0) return [];
  const shown = commits.slice(0, LIMITS.items).map((commit) =>
    `- ${code((str(commit, "oid") ?? "?").slice(0, 12), 16)} · ${when(num(commit, "time"))} · ${
      inline(str(commit, "author") ?? "unknown author", 80)
    } · ${inline(str(commit, "subject") ?? "", 200)}`
  );
  return ["## History", "", ...shown, "", ...moreNote(commits.length, shown.length, "commits")];
}

function contentLines(answer: unknown, path: string): string[] {
  const lines: string[] = [];
  const content = str(answer, "content");
  if (bool(answer, "binary")) {
    lines.push(`## File ${code(path)}`, "", "A binary file: its bytes are not shown here.", "");
  } else if (content !== undefined && content !== "") {
    lines.push(`## File ${code(path)}`, "", ...fenced(content, LIMITS.diff), "");
    if (bool(answer, "truncated")) lines.push("[the relay sent only the start of this file]", "");
  }
  const diff = str(answer, "diff");
  if (diff) {
    lines.push("## Diff", "", ...fenced(diff, LIMITS.diff, "diff"), "");
    if (bool(answer, "truncated")) lines.push("[the relay cut this diff]", "");
  }
  return lines;
}

/** read_repository's answer; undefined when it is not one. */
export function renderRepository(
  answer: unknown,
  owner: string,
  name: string,
  ctx: RenderContext,
): string | undefined {
  if (!isObject(answer) || (str(answer, "identifier") === undefined && str(answer, "owner") === undefined)) {
    return undefined;
  }
  const identifier = str(answer, "identifier") ?? name;
  const path = str(answer, "path") ?? "";
  const repoUri = `${baseUri(ctx.base)}/repo/${encodeValue(owner)}/${encodeValue(name)}`;
  const lines = [
    `# Repository ${inline(identifier)}`,
    "",
    ...factsLines(answer, owner, ctx),
    "",
    `Its issues read as ${code(`${repoUri}/issue/{id}`, 400)} and its pull requests as ${
      code(`${repoUri}/pull/{id}`, 400)
    }.`,
    "",
    ...treeLines(answer, path),
    ...historyLines(answer),
    ...contentLines(answer, path),
  ];
  return lines.join("\n").trimEnd() + "\n";
}
