// A wiki page from read_wiki_page's answer (d, title, version {id, author, created_at, d, title,
// summary, coordinate, likes, fork, content (left out when empty), links, revision, …}, preferred_by,
// versions, merges, redirects_to, redirects_from, history, can_approve): a short header, then the
// page's content exactly as its author wrote it (Djot markup), cut only when over the page limit,
// visibly. Pure.

import { isObject } from "../wire/json.ts";
import { arr, num, obj, str } from "./fields.ts";
import { code, cutNote, inline, joined, LIMITS, type RenderContext, when, who } from "./markdown.ts";
import { count, cut } from "./text.ts";
import { formatUri } from "./uri.ts";

/** Why this version is the one shown, in words. */
const PREFERRED: Record<string, string> = {
  author: "the author asked for",
  owner: "the relay owner's version",
  reactions: "the version members liked most",
  newest: "the newest version",
  version: "the version asked for",
};

function pageUri(d: string, ctx: RenderContext): string {
  return code(formatUri(ctx.base, { kind: "wiki", values: { d } }), 400);
}

function redirectLines(answer: unknown, d: string, ctx: RenderContext): string[] {
  const lines: string[] = [];
  const away = arr(answer, "redirects_from").map((r) => str(r, "target_d")).filter((t): t is string =>
    !!t && t !== d
  );
  if (away.length > 0) {
    lines.push(
      "",
      `This page redirects to ${joined(away.map((t) => pageUri(t, ctx)), 5)}.`,
    );
  }
  const here = arr(answer, "redirects_to").map((r) => str(r, "d")).filter((t): t is string => !!t && t !== d);
  if (here.length > 0) lines.push("", `Redirected here from ${joined(here.map((t) => code(t, 100)), 10)}.`);
  return lines;
}

function factLine(answer: unknown, version: unknown, d: string, ctx: RenderContext): string {
  const facts = [`Wiki page ${code(d, 200)}`];
  if (isObject(version)) {
    const by = str(answer, "preferred_by");
    facts.push(
      `version by ${who(str(version, "author"), ctx)} at ${when(num(version, "created_at"))}${
        by ? ` (${PREFERRED[by] ?? inline(by, 30)})` : ""
      }`,
    );
    const likes = num(version, "likes");
    if (likes) facts.push(`${count(likes)} like${likes === 1 ? "" : "s"}`);
  }
  const versions = arr(answer, "versions").length;
  if (versions > 0) facts.push(`${count(versions)} version${versions === 1 ? "" : "s"}`);
  const open = arr(answer, "merges").filter((merge) => str(merge, "status") === "open").length;
  if (open > 0) facts.push(`${count(open)} open merge request${open === 1 ? "" : "s"}`);
  return facts.join(" · ");
}

/** read_wiki_page's answer; undefined when it is not one. */
export function renderWikiPage(answer: unknown, asked: string, ctx: RenderContext): string | undefined {
  const version = obj(answer, "version");
  if (!isObject(answer) || (version === undefined && str(answer, "d") === undefined)) return undefined;
  const d = str(answer, "d") ?? asked;
  const title = str(version, "title") ?? str(answer, "title") ?? d;
  const lines = [`# ${inline(title)}`, "", factLine(answer, version, d, ctx)];
  const summary = str(version, "summary")?.trim();
  if (summary) lines.push("", `Summary: ${inline(summary, 500)}`);
  const fork = obj(version, "fork");
  const forkOf = str(fork, "a") ?? str(fork, "e");
  if (forkOf) lines.push("", `Forked from ${code(forkOf, 200)}.`);
  lines.push(...redirectLines(answer, d, ctx));
  // The relay leaves an empty content out of the version it shows in full: absent is empty.
  const content = isObject(version) && version.content === undefined ? "" : str(version, "content");
  if (content === "") {
    lines.push("", "This version of the page is empty.");
    return lines.join("\n") + "\n";
  }
  if (content === undefined) {
    lines.push(
      "",
      version === undefined ? "This page has no version of its own." : "The relay sent no content.",
    );
    return lines.join("\n") + "\n";
  }
  const { shown, left } = cut(content, LIMITS.page);
  lines.push("", "The page follows as its author wrote it.", "", "---", "", shown);
  if (left > 0) lines.push("", cutNote(left));
  return lines.join("\n").trimEnd() + "\n";
}
