// Links (lib/resources/links.ts), as tables: for each kind and collection, what it links to and
// under which relation, IANA's first; both ways (room ⇄ thread, repository ⇄ issue and pull
// request, message ⇄ attachment, wiki page ⇄ redirect); a count where a link stands for several;
// at most 100 on a read, then a `tiny:links` link, and `?as=links` paging through them all.

import assert from "node:assert/strict";
import {
  cappedLinks,
  collectionLinks,
  type Link,
  linksOf,
  linksPage,
  MAX_LINKS,
  parentOf,
} from "../../lib/resources/links.ts";
import type { ResourceAddress } from "../../lib/resources/kinds.ts";
import {
  event,
  id,
  LIST_ISSUES,
  OWNER,
  READ_ISSUE,
  READ_JOB,
  READ_ROOM,
  READ_THREAD,
  READ_WIKI,
  T0,
} from "./fixtures.ts";

const BASE = { host: "relay.example" };
const R = "tiny://relay.example";
const SHA = "ef".repeat(32);
const REPO = `${R}/repo/${OWNER}/tinyagent`;

const pairs = (links: Link[]) => links.map((l) => [l.rel, l.href, ...(l.count ? [l.count] : [])]);

Deno.test("every kind and collection has its place: up to its collection, up to the root", () => {
  const cases: [ResourceAddress, string | undefined][] = [
    [{ kind: "root", values: {} }, undefined],
    [{ kind: "rooms", values: {} }, `${R}/`],
    [{ kind: "room", values: { id: "general" } }, `${R}/room/`],
    [{ kind: "threads", values: { id: "general" } }, `${R}/room/general`],
    [{ kind: "thread", values: { id: "general", event: id("11") } }, `${R}/room/general/thread/`],
    [{ kind: "repo", values: { owner: OWNER, name: "tinyagent" } }, `${R}/repo/`],
    [{ kind: "issues", values: { owner: OWNER, name: "tinyagent" } }, REPO],
    [{ kind: "pull", values: { owner: OWNER, name: "tinyagent", id: id("41") } }, `${REPO}/pull/`],
    [{ kind: "wiki", values: { d: "faq" } }, `${R}/wiki/`],
    [{ kind: "job", values: { id: id("61") } }, `${R}/job/`],
    [{ kind: "file", values: { sha256: SHA } }, `${R}/file/`],
    [{ kind: "files", values: {} }, `${R}/`],
  ];
  for (const [address, up] of cases) {
    assert.equal(parentOf(address) === undefined, up === undefined, address.kind);
    const links = linksOf(BASE, address);
    assert.equal(links.find((l) => l.rel === "up")?.href, up, address.kind);
  }
});

Deno.test("a room links to its threads (counting their events on the page) and to its attachments", () => {
  const withFile = event({
    id: id("16"),
    pubkey: OWNER,
    kind: 9,
    at: T0 + 700,
    tags: [["h", "general"], [
      "imeta",
      "url https://relay.example/media/" + SHA + ".txt",
      `x ${SHA}`,
      "m text/plain",
    ]],
    content: "the log",
  });
  const again = event({
    id: id("17"),
    pubkey: OWNER,
    kind: 9,
    at: T0 + 701,
    tags: [["h", "general"], ["imeta", `url https://relay.example/media/${SHA}.txt`]],
    content: "the log again",
  });
  const answer = { ...READ_ROOM, messages: [again, withFile, ...READ_ROOM.messages] };
  const links = linksOf(BASE, { kind: "room", values: { id: "general" } }, answer);
  assert.deepEqual(pairs(links), [
    ["up", `${R}/room/`],
    ["collection", `${R}/room/`],
    ["tiny:threads", `${R}/room/general/thread/`],
    ["tiny:attachment", `${R}/file/${SHA}`, 2],
    ["tiny:thread", `${R}/room/general/thread/${id("11")}`, 2],
  ]);
  const thread = links.find((l) => l.rel === "tiny:thread")!;
  assert.equal(thread.title, "Plans for March", "titled by its subject");
});

Deno.test("a thread links back to its room; an issue and a pull request to their repository, and it to them", () => {
  const thread = linksOf(BASE, { kind: "thread", values: { id: "general", event: id("11") } }, READ_THREAD);
  assert.deepEqual(pairs(thread), [
    ["up", `${R}/room/general/thread/`],
    ["collection", `${R}/room/general/thread/`],
    ["tiny:room", `${R}/room/general`],
  ]);
  const issue = linksOf(
    BASE,
    { kind: "issue", values: { owner: OWNER, name: "tinyagent", id: id("31") } },
    READ_ISSUE,
  );
  assert.deepEqual(pairs(issue), [["up", `${REPO}/issue/`], ["collection", `${REPO}/issue/`], [
    "tiny:repository",
    REPO,
  ]]);
  const repo = linksOf(BASE, { kind: "repo", values: { owner: OWNER, name: "tinyagent" } }, {}, {
    issues: LIST_ISSUES,
    pulls: { items: [{ id: id("41"), title: "Add resources" }] },
  });
  assert.deepEqual(pairs(repo), [
    ["up", `${R}/repo/`],
    ["collection", `${R}/repo/`],
    ["tiny:issues", `${REPO}/issue/`],
    ["tiny:pulls", `${REPO}/pull/`],
    ["tiny:issue", `${REPO}/issue/${id("31")}`],
    ["tiny:issue", `${REPO}/issue/${id("35")}`],
    ["tiny:pull", `${REPO}/pull/${id("41")}`],
  ]);
  assert.equal(repo.find((l) => l.rel === "tiny:pull")?.title, "Add resources");
});

Deno.test("a job links to its room and thread; a wiki page both ways to its redirects; a file back to where it was seen", () => {
  const job = linksOf(BASE, { kind: "job", values: { id: id("61") } }, READ_JOB);
  assert.deepEqual(pairs(job).slice(2), [
    ["tiny:room", `${R}/room/general`],
    ["tiny:thread", `${R}/room/general/thread/${id("11")}`],
  ]);
  const wiki = linksOf(BASE, { kind: "wiki", values: { d: "getting-started" } }, {
    ...READ_WIKI,
    redirects_from: [{ d: "getting-started", target_d: "start-here" }],
  });
  assert.deepEqual(pairs(wiki).slice(2), [
    ["tiny:redirects-to", `${R}/wiki/start-here`],
    ["tiny:redirected-from", `${R}/wiki/start`],
  ]);
  const file = linksOf(BASE, { kind: "file", values: { sha256: SHA } }, undefined, {
    seenIn: [{ href: `${R}/room/general`, title: "attached in room/general" }],
  });
  assert.deepEqual(pairs(file).slice(2), [["tiny:attached-to", `${R}/room/general`]]);
  // Without an answer (a stat), only what the address says.
  assert.deepEqual(pairs(linksOf(BASE, { kind: "room", values: { id: "general" } })).map((p) => p[0]), [
    "up",
    "collection",
    "tiny:threads",
  ]);
});

Deno.test("a collection page: up, each child, the next page", () => {
  const links = collectionLinks(BASE, { kind: "rooms", values: {} }, [
    { uri: `${R}/room/a`, title: "A" },
    { uri: `${R}/room/b`, title: "B" },
  ], `${R}/room/?cursor=b`);
  assert.deepEqual(pairs(links), [
    ["up", `${R}/`],
    ["item", `${R}/room/a`],
    ["item", `${R}/room/b`],
    ["next", `${R}/room/?cursor=b`],
  ]);
  assert.deepEqual(collectionLinks(BASE, { kind: "root", values: {} }, []), []);
});

Deno.test("relay text in a title stays one line, its hiding characters escaped", () => {
  const links = collectionLinks(BASE, { kind: "rooms", values: {} }, [
    { uri: `${R}/room/a`, title: "line\nbreak \u202e reversed" },
  ]);
  assert.equal(links[1].title, "line break \\u202e reversed");
});

Deno.test("at most 100 links, then a tiny:links link; ?as=links pages through them all", () => {
  const many: Link[] = Array.from({ length: 250 }, (_, i) => ({ rel: "item", href: `${R}/room/r${i}` }));
  const capped = cappedLinks(many, `${R}/room/?as=links`);
  assert.equal(capped.length, MAX_LINKS);
  assert.deepEqual(capped.at(-1), { rel: "tiny:links", href: `${R}/room/?as=links`, count: 250 });
  assert.deepEqual(cappedLinks(many.slice(0, 100), "x").length, 100, "100 fit as they are");
  const seen: string[] = [];
  let offset = 0;
  for (let pages = 0; pages < 10; pages++) {
    const page = linksPage(many, offset, (next) => `next:${next}`);
    assert.equal(page.total, 250);
    assert.ok(page.links.length <= MAX_LINKS);
    const next = page.links.at(-1)?.rel === "next" ? page.links.at(-1)!.href : undefined;
    seen.push(...page.links.filter((l) => l.rel === "item").map((l) => l.href));
    if (next === undefined) break;
    offset = Number(next.slice(5));
  }
  assert.deepEqual(seen, many.map((l) => l.href), "every link once, in order");
});
