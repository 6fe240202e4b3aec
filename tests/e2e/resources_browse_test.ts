// The namespace browsed end to end (the SDK client as the host, tinyagent on pipes, the strict relay
// seeded past one page of everything): every collection read page by page to its end; a 5 MB text
// attachment read in pieces through the relay's file download, the pieces put together equal to
// the file, its last 200 lines; ?lines= of a room; ?pointer= into an issue's JSON; ?as=stat of each
// kind; links both ways between a room and its thread, an issue and its repository; hostile spans
// and pointers refused while the session goes on.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { refusedWith, type ResourceHost, withResourceHost } from "../support/resources_host.ts";
import { genKeys, sign } from "../support/strict_relay/content_gen_kit.ts";
import { issuesContent, type Seed, wikiContent } from "../support/strict_relay/mod.ts";

const LINKS = "tinyagent/links";
type Link = { rel: string; href: string; title?: string; count?: number };
type Item = { uri: string; mimeType?: string; text?: string; blob?: string };

async function read(client: Client, uri: string): Promise<{ item: Item; links: Link[] }> {
  const answer = await client.readResource({ uri });
  assert.equal(answer.contents.length, 1, uri);
  const links = (answer._meta?.[LINKS] ?? []) as Link[];
  return { item: answer.contents[0] as Item, links };
}

/** The same page as JSON: `?as=json` added before its cursor. */
const asJson = (uri: string) =>
  uri.includes("?cursor=") ? uri.replace("?cursor=", "?as=json&cursor=") : `${uri}?as=json`;

/** Every child of a collection, page by page through `next`, and how many pages it took. */
async function everyChild(client: Client, first: string): Promise<{ uris: string[]; pages: number }> {
  const uris: string[] = [];
  let uri: string | undefined = first;
  let pages = 0;
  while (uri !== undefined && pages < 40) {
    const { item, links } = await read(client, uri);
    assert.equal(item.uri, uri, "the page under the URI asked");
    assert.equal(item.mimeType, "text/markdown");
    const json = await read(client, asJson(uri));
    const page = JSON.parse(json.item.text!) as { children: { uri: string; title: string }[]; next?: string };
    assert.deepEqual(
      links.filter((l) => l.rel === "item").map((l) => l.href),
      page.children.map((c) => c.uri),
    );
    for (const child of page.children) {
      assert.ok(item.text!.includes(child.uri), `the page names ${child.uri}`);
      assert.ok(child.title.length > 0, child.uri);
    }
    uris.push(...page.children.map((c) => c.uri));
    const next = links.find((l) => l.rel === "next")?.href;
    assert.equal(page.next && asJson(next ?? ""), page.next, "the next page, in both");
    uri = next;
    pages++;
  }
  assert.equal(uri, undefined, `${first} ends`);
  return { uris, pages };
}

/** A key's worth of more content: past one page (50) of each list, 105 threads in one room. */
function morePages(agent: string): Seed & { threads: NostrEvent[] } {
  const [someone] = genKeys(1, 9, "browse");
  const at = 1767225600 + 50_000;
  const threads = Array.from(
    { length: 105 },
    (_, i) =>
      sign(someone, 11, at + i, [["h", "room-002"], ["subject", `Topic ${i + 1}`]], `Opening ${i + 1}`),
  );
  const jobs = Array.from(
    { length: 50 },
    (_, i) =>
      sign(
        someone,
        43001,
        at + 500 + i,
        [["h", "general"], ["subject", `Chore ${i + 1}`], ["p", agent]],
        `Chore ${i + 1}`,
      ),
  );
  const files = Array.from({ length: 55 }, (_, i) => ({
    bytes: new TextEncoder().encode(`file ${i + 1}\n`),
    type: "text/plain",
    uploader: agent,
    uploaded: at + i,
  }));
  const repositories = Array.from({ length: 55 }, (_, i) => ({ owner: agent, identifier: `extra-${i + 1}` }));
  const issues = issuesContent(agent, "busy", 55, { pulls: 55, seed: 3 });
  const wiki = wikiContent(55, { seed: 4 });
  return {
    events: [...threads, ...jobs, ...issues.seed.events!, ...wiki.seed.events!],
    files,
    repositories: [...repositories, ...issues.seed.repositories!],
    threads,
  };
}

Deno.test("every collection lists its children, a page at a time, to its end", async () => {
  await withResourceHost({ rooms: 60 }, async ({ client, base, key, relay }: ResourceHost) => {
    relay.seed(morePages(key.pubkey));
    const root = await everyChild(client, `${base}/`);
    assert.deepEqual(root.uris, ["room/", "repo/", "wiki/", "job/", "file/"].map((p) => `${base}/${p}`));
    const expect: [string, number][] = [
      [`${base}/room/`, 61],
      [`${base}/room/room-002/thread/`, 105],
      [`${base}/repo/`, 57],
      [`${base}/repo/${key.pubkey}/busy/issue/`, 55],
      [`${base}/repo/${key.pubkey}/busy/pull/`, 55],
      [`${base}/wiki/`, 55],
      [`${base}/job/`, 56],
      [`${base}/file/`, 57],
    ];
    for (const [uri, count] of expect) {
      const { uris, pages } = await everyChild(client, uri);
      assert.ok(pages >= 2, `${uri}: paged past its first page (${pages})`);
      assert.equal(new Set(uris).size, count, `${uri}: every child once`);
      const child = await read(client, uris[uris.length - 1]);
      assert.ok(
        child.links.some((l) => l.rel === "collection" && l.href === uri.split("?")[0]),
        `${uri}'s child links back`,
      );
    }
  });
});
