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

/** About 5 MB of text: numbered lines of varying length. */
function bigLog(): Uint8Array {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < 5 * 1024 * 1024; i++) {
    const line = `${String(i).padStart(6, "0")} ${"event ".repeat(i % 17)}ok\n`;
    lines.push(line);
    size += line.length;
  }
  return new TextEncoder().encode(lines.join(""));
}

Deno.test("a 5 MB text attachment: a note with its size and pieces, read in pieces equal to the file, its last 200 lines", async () => {
  await withResourceHost({}, async ({ client, base, key, relay, content }: ResourceHost) => {
    const bytes = bigLog();
    const sha = bytesToHex(sha256(bytes));
    const [someone] = genKeys(1, 11, "log poster");
    const thread = content.rooms.thread!;
    const reply = sign(someone, 12, 1767225600 + 70, [
      ["h", thread.room],
      ["e", thread.root.id],
      ["imeta", `url ${relay.url}/media/${sha}.txt`, "m text/plain", `x ${sha}`, `size ${bytes.length}`],
    ], "the log");
    relay.seed({
      files: [{ bytes, type: "text/plain", uploader: key.pubkey, uploaded: 1767229000 }],
      events: [reply],
    });
    const file = `${base}/file/${sha}`;
    // From the room to the thread, to the attachment.
    const room = await read(client, `${base}/room/${thread.room}`);
    const threadUri = room.links.find((l) => l.rel === "tiny:thread")!.href;
    assert.equal(threadUri, `${base}/room/${thread.room}/thread/${thread.root.id}`);
    const inThread = await read(client, threadUri);
    assert.ok(inThread.links.some((l) => l.rel === "tiny:attachment" && l.href === file));
    const note = await read(client, file);
    assert.equal(note.item.uri, file);
    assert.equal(note.item.mimeType, "text/markdown");
    const lines = new TextDecoder().decode(bytes).split("\n").length - 1;
    assert.match(note.item.text!, new RegExp(`${bytes.length.toLocaleString("en-US")} bytes`));
    assert.match(note.item.text!, new RegExp(`${lines.toLocaleString("en-US")} lines of text`));
    assert.ok(
      note.links.some((l) => l.rel === "tiny:attached-to" && l.href === threadUri),
      "back to its message's thread",
    );
    // Its last 200 lines, as the note names them.
    const last = `${file}?lines=${lines - 199}-${lines}`;
    assert.ok(note.item.text!.includes(last), "the note names the last 200 lines");
    const tail = await read(client, last);
    assert.equal(tail.item.uri, last, "the piece keeps its span");
    const text = new TextDecoder().decode(bytes);
    assert.equal(tail.item.text, text.split("\n").slice(-201, -1).join("\n") + "\n");
    // Every byte, in pieces of 256 KiB.
    const parts: Uint8Array[] = [];
    for (let first = 0; first < bytes.length; first += 262_144) {
      const last = Math.min(bytes.length, first + 262_144) - 1;
      const piece = await read(client, `${file}?range=${first}-${last}`);
      parts.push(
        piece.item.text !== undefined
          ? new TextEncoder().encode(piece.item.text)
          : Uint8Array.from(atob(piece.item.blob!), (c) => c.charCodeAt(0)),
      );
    }
    const whole = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
    parts.reduce((at, p) => (whole.set(p, at), at + p.length), 0);
    assert.equal(whole.length, bytes.length);
    assert.equal(bytesToHex(sha256(whole)), sha, "the pieces put together are the file");
    // A relay whose store cannot seek sends the file whole: the piece is still the one asked.
    relay.filesSeekable = false;
    const unseekable = await read(client, `${file}?range=100-199`);
    assert.equal(unseekable.item.text, text.slice(100, 200));
    relay.filesSeekable = true;
    // Past the end, reversed, zero, 10^30: refused naming one that is valid; the session goes on.
    const refusals: [string, string][] = [
      [`${file}?range=${bytes.length}-${bytes.length + 9}`, `${file}?range=`],
      [`${file}?lines=${lines + 1}-${lines + 5}`, `${file}?lines=${lines - 199}-${lines}`],
      [`${file}?lines=9-3`, `${file}?lines=3-9`],
      [`${file}?lines=0-3`, `${file}?lines=1-3`],
      [`${file}?lines=1-${"1" + "0".repeat(30)}`, `${file}?lines=1-200`],
    ];
    for (const [uri, near] of refusals) {
      const refused = await refusedWith(client.readResource({ uri }));
      assert.equal((refused.data as { reason: string }).reason, "bad-query", uri);
      assert.ok(
        (refused.data as { nearest: string[] }).nearest.some((n) => n.startsWith(near)),
        `${uri}: ${refused.message}`,
      );
      assert.deepEqual(await client.ping(), {});
    }
  });
});

Deno.test("?lines= of a room, ?pointer= into an issue's JSON: each under its URI, with its span", async () => {
  await withResourceHost({}, async ({ client, base, key, content }: ResourceHost) => {
    const room = `${base}/room/room-001`;
    const whole = await read(client, room);
    const lines = whole.item.text!.split("\n");
    const piece = await read(client, `${room}?lines=1-3`);
    assert.equal(piece.item.uri, `${room}?lines=1-3`);
    assert.equal(piece.item.text, lines.slice(0, 3).join("\n") + "\n");
    assert.deepEqual(piece.links, whole.links, "a piece has the whole read's links");
    const issue = content.issues.issues[0];
    const uri = `${base}/repo/${key.pubkey}/demo/issue/${issue.event.id}?as=json&pointer=/item/title`;
    const title = await read(client, uri);
    assert.equal(title.item.uri, uri);
    assert.equal(title.item.mimeType, "application/json");
    assert.equal(JSON.parse(title.item.text!), issue.title);
    const labels = await read(client, uri.replace("/item/title", "/item/labels"));
    assert.deepEqual(JSON.parse(labels.item.text!), issue.labels);
    const wrong = await refusedWith(client.readResource({ uri: uri.replace("/item/title", "/item/titel") }));
    assert.equal((wrong.data as { reason: string }).reason, "bad-query");
    assert.deepEqual((wrong.data as { nearest: string[] }).nearest, [uri], "the member meant");
    const past = await refusedWith(
      client.readResource({ uri: `${room}?lines=${lines.length + 5}-${lines.length + 9}` }),
    );
    assert.match(past.message, /past the end/);
    assert.deepEqual(await client.ping(), {});
  });
});

Deno.test("?as=stat of each kind: what it is, its counts and last change, without its body", async () => {
  await withResourceHost({}, async ({ client, base, key, content, relay }: ResourceHost) => {
    const { rooms, issues, jobs, files } = content;
    const cases: [string, string, (stat: Record<string, unknown>) => void][] = [
      [
        `${base}/room/room-001`,
        "room",
        (s) => assert.equal((s.counts as { members: number }).members > 0, true),
      ],
      [
        `${base}/room/room-001/thread/${rooms.thread!.root.id}`,
        "thread",
        (s) => assert.deepEqual(s.counts, { replies: 2 }),
      ],
      [`${base}/repo/${key.pubkey}/demo`, "repo", (s) => assert.equal(s.title, "demo")],
      [
        `${base}/repo/${key.pubkey}/demo/issue/${issues.issues[0].event.id}`,
        "issue",
        (s) => assert.equal(s.title, issues.issues[0].title),
      ],
      [
        `${base}/repo/${key.pubkey}/demo/pull/${issues.pulls[0].event.id}`,
        "pull",
        (s) => assert.equal(s.state, issues.pulls[0].status),
      ],
      [
        `${base}/wiki/getting-started`,
        "wiki",
        (s) => assert.equal((s.counts as { versions: number }).versions, 2),
      ],
      [`${base}/job/${jobs.jobs[3].request.id}`, "job", (s) => assert.equal(s.state, "done")],
      [`${base}/file/${files.text.sha256}`, "file", (s) => {
        assert.equal(s.size, files.text.bytes.length);
        assert.equal(s.type, "text/plain");
      }],
    ];
    for (const [uri, kind, check] of cases) {
      const before = relay.requests.length;
      const { item, links } = await read(client, `${uri}?as=stat`);
      assert.equal(item.mimeType, "application/json", kind);
      const stat = JSON.parse(item.text!);
      assert.equal(stat.kind, kind);
      assert.equal(stat.uri, `${uri}?as=stat`);
      assert.ok(kind === "repo" || /^\d{4}-\d\d-\d\dT/.test(stat.lastChange), `${kind}: ${stat.lastChange}`);
      check(stat);
      assert.ok(links.some((l) => l.rel === "up"), `${kind} links up`);
      const tools = relay.requests.slice(before).map((r) =>
        r.json as { method?: string; params?: { name?: string } }
      )
        .filter((call) => call?.method === "tools/call").map((call) => call.params?.name);
      if (kind === "wiki") {
        assert.deepEqual(tools, ["list_wiki"], "a page's stat from its listing, no content");
      }
      if (kind === "file") {
        assert.deepEqual(tools, ["list_files"], "a file's stat from its listing, no bytes");
      }
      if (kind === "room") assert.deepEqual(tools, ["read_room"]);
    }
  });
});

Deno.test("links both ways: a room and its thread, an issue and its repository", async () => {
  await withResourceHost({}, async ({ client, base, key, content }: ResourceHost) => {
    const { thread } = content.rooms;
    const room = `${base}/room/${thread!.room}`;
    const threadUri = `${room}/thread/${thread!.root.id}`;
    const fromRoom = await read(client, room);
    const toThread = fromRoom.links.find((l) => l.rel === "tiny:thread" && l.href === threadUri);
    assert.ok(toThread, "the room links to its thread");
    assert.equal(toThread.title, "Plans");
    assert.equal(toThread.count, 3, "its opening and two replies on the page");
    const fromThread = await read(client, threadUri);
    assert.ok(
      fromThread.links.some((l) => l.rel === "tiny:room" && l.href === room),
      "the thread links back",
    );
    assert.deepEqual(fromRoom.links.slice(0, 2).map((l) => l.rel), ["up", "collection"], "IANA's first");
    const repo = `${base}/repo/${key.pubkey}/demo`;
    const issue = `${repo}/issue/${content.issues.issues[0].event.id}`;
    const fromIssue = await read(client, issue);
    assert.ok(fromIssue.links.some((l) => l.rel === "tiny:repository" && l.href === repo));
    assert.ok(fromIssue.links.some((l) => l.rel === "up" && l.href === `${repo}/issue/`));
    const fromRepo = await read(client, repo);
    assert.ok(
      fromRepo.links.some((l) => l.rel === "tiny:issue" && l.href === issue),
      "the repository links to it",
    );
    const pull = `${repo}/pull/${content.issues.pulls[0].event.id}`;
    assert.ok(fromRepo.links.some((l) => l.rel === "tiny:pull" && l.href === pull));
    const fromPull = await read(client, pull);
    assert.ok(fromPull.links.some((l) => l.rel === "tiny:repository" && l.href === repo));
    const job = await read(client, `${base}/job/${content.jobs.jobs[0].request.id}`);
    assert.ok(
      job.links.some((l) => l.rel === "tiny:room" && l.href === `${base}/room/general`),
      "a job to its room",
    );
    for (const { links } of [fromRoom, fromThread, fromIssue, fromRepo, job]) {
      for (const link of links) assert.ok(link.href.startsWith(`${base}/`), `complete: ${link.href}`);
    }
  });
});
