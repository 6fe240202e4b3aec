// A wiki page (lib/resources/render_wiki.ts): a short header, then the content exactly as written.

import assert from "node:assert/strict";
import { renderWikiPage } from "../../lib/resources/render_wiki.ts";
import { ALICE, CTX, READ_WIKI } from "./fixtures.ts";

const NAMED = { ...CTX, names: new Map([[ALICE, "alice"]]) };

Deno.test("the header, then the page's content unchanged", () => {
  const md = renderWikiPage(READ_WIKI, "getting-started", NAMED)!;
  assert.equal(
    md,
    [
      "# Getting started",
      "",
      "Wiki page `getting-started` · version by alice (npub15xs6rgdp…7wk8) at 2026-01-01 00:00:00 UTC (the version members liked most) · 2 likes · 2 versions · 1 open merge request",
      "",
      "Summary: First steps on this relay",
      "",
      "Redirected here from `start`.",
      "",
      "The page follows as its author wrote it.",
      "",
      "---",
      "",
      "# Getting started",
      "",
      "Read [the rules](rules) first.",
      "",
    ].join("\n"),
  );
  // Whatever the content holds, it passes through as written.
  const content = "## Anything *at all*\n\n<b>html</b> ![x](y)\n\u00e9 😀\n";
  const page = renderWikiPage(
    { ...READ_WIKI, version: { ...READ_WIKI.version, content } },
    "getting-started",
    CTX,
  )!;
  assert.ok(page.endsWith(`---\n\n${content}`));
});

Deno.test("a 10 MB page is cut visibly; a redirect-only page says where it goes", () => {
  const content = "word ".repeat(2 * 1024 * 1024);
  const md = renderWikiPage({ ...READ_WIKI, version: { ...READ_WIKI.version, content } }, "x", CTX)!;
  assert.ok(md.length < 201_000, String(md.length));
  assert.ok(
    md.endsWith("[cut: 10,285,760 more characters not shown; ?as=json gives the relay's whole answer]\n"),
  );
  const redirect = renderWikiPage(
    {
      d: "start",
      title: "start",
      version: null,
      versions: [],
      redirects_from: [{ d: "start", target_d: "getting-started" }],
    },
    "start",
    CTX,
  )!;
  assert.ok(redirect.includes("This page redirects to `tiny://relay.example/wiki/getting-started`."));
  assert.ok(redirect.includes("This page has no version of its own."));
});

Deno.test("an empty page: the relay leaves its content out, and it reads as empty", () => {
  const { content: _content, links: _links, ...empty } = READ_WIKI.version;
  for (const version of [empty, { ...empty, content: "" }]) {
    const md = renderWikiPage({ ...READ_WIKI, version }, "getting-started", CTX)!;
    assert.ok(md.endsWith("\n\nThis version of the page is empty.\n"), md);
    assert.ok(!md.includes("sent no content"));
  }
});

Deno.test("missing, mistyped and hostile fields", () => {
  const md = renderWikiPage(
    { d: "x", version: { title: "T\n# no\u202e", content: 5, fork: { a: `30818:${ALICE}:x` } } },
    "x",
    CTX,
  )!;
  assert.ok(md.startsWith("# T # no\\\\u202e\n"));
  assert.ok(md.includes(`Forked from \`30818:${ALICE}:x\`.`));
  assert.ok(md.includes("The relay sent no content."));
  for (const answer of [undefined, null, [], {}, { title: "x" }]) {
    assert.equal(renderWikiPage(answer, "x", CTX), undefined, JSON.stringify(answer));
  }
});
