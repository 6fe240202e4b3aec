// Content mode's wiki answers in the real relay's shapes (tinyrelay's wiki.go and wiki_browse.go):
// each version's number among its author's revisions, the links of the version shown in full,
// content left out when empty, redirects both ways, and likes counted only where they choose.

import assert from "node:assert/strict";
import { wikiContent } from "./mod.ts";
import { signed, withRelay } from "./nostr_test_kit.ts";
import { read, refused } from "./content_test_kit.ts";

const AT = 1_700_000_000;

Deno.test("content shapes: wiki versions numbered among their author's revisions, with links", async () => {
  const wiki = wikiContent(2);
  const [first, second] = wiki.authors;
  const linked = signed(second, {
    kind: 30818,
    created_at: AT,
    tags: [["d", "links"]],
    content: "See [[Release  Notes|the notes]], `[[code]]`, [a][Style Guide] and [n](nostr:npub1xyz).\n\n" +
      "```\n[[fenced]]\n```\n\n| [[table]] |\n",
  });
  const blank = signed(first, { kind: 30818, created_at: AT, tags: [["d", "blank"]], content: "" });
  await withRelay({}, async (relay) => {
    relay.seed({ events: [...wiki.seed.events!, linked, blank] });
    const page = await read(relay, "read_wiki_page", { d: "Getting__Started!" });
    assert.equal(page.d, "getting-started", "underscores and spaces are one hyphen");
    const revision = (v: Record<string, unknown>) => [v.author, v.revision, v.revisions, v.superseded_by];
    assert.deepEqual(page.history.map(revision), [
      [second.pk, 1, 1, undefined],
      [first.pk, 2, 2, undefined],
      [first.pk, 1, 2, wiki.pages[0].versions[1].id],
    ]);
    assert.deepEqual(page.versions.map(revision), page.history.slice(0, 2).map(revision));
    const mine = await read(relay, "read_wiki_page", { d: "getting-started", author: first.pk });
    assert.deepEqual([mine.version.revision, mine.version.revisions], [2, 2], "the full version keeps them");
    assert.equal("links" in page.version, false, "no links in its content");
    const links = await read(relay, "read_wiki_page", { d: "links" });
    assert.deepEqual(links.version.links, ["release-notes", "style-guide", "nostr:npub1xyz"]);
    assert.equal("links" in links.versions[0], false, "only the version shown in full");
    const empty = await read(relay, "read_wiki_page", { d: "blank" });
    assert.equal("content" in empty.version, false, "an empty content is left out");
    const listed = await read(relay, "list_wiki", { q: "links" });
    assert.deepEqual(Object.keys(listed.items[0].version), [
      ..."id author created_at d title coordinate likes revision revisions".split(" "),
    ]);
  });
});

Deno.test("content shapes: wiki redirects both ways; likes counted only where they choose", async () => {
  const wiki = wikiContent(1);
  const [first, second, third] = wiki.authors;
  const target = `30818:${first.pk}:getting-started`;
  const redirect = signed(third, { kind: 30819, created_at: AT, tags: [["d", "start"], ["a", target]] });
  const liked = [["a", `30818:${second.pk}:getting-started`]];
  const like = signed(third, { kind: 7, created_at: AT, tags: liked, content: "+" });
  await withRelay({}, async (relay) => {
    relay.seed({ events: [...wiki.seed.events!, redirect, like] });
    const page = await read(relay, "read_wiki_page", { d: "getting-started" });
    assert.deepEqual(page.redirects_to.map((r: { id: string }) => r.id), [redirect.id]);
    assert.deepEqual(Object.keys(page.redirects_to[0]), [
      ..."id author created_at d target target_d target_author".split(" "),
    ]);
    assert.deepEqual([page.preferred_by, page.version.author], ["reactions", second.pk]);
    const start = await read(relay, "read_wiki_page", { d: "start" });
    assert.deepEqual([start.title, start.version, "preferred_by" in start], ["start", null, false]);
    assert.deepEqual([start.versions, start.history, start.redirects_from[0].target_d], [
      [],
      [],
      "getting-started",
    ]);
    const likes = async (args: Record<string, unknown>) =>
      (await read(relay, "list_wiki", args)).items[0].version.likes;
    assert.equal(await likes({}), 1, "the liked version is the one listed");
    assert.equal(await likes({ author: first.pk }), 0, "the asked author's version: likes not counted");
    await refused(relay, "read_wiki_page", { d: "nowhere" }, "not found: wiki page");
  });
});
