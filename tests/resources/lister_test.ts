// resources/list (lib/resources/lister.ts): one page of one list at a time, in the lists' order,
// with a cursor of our own checked strictly when it comes back; a list the relay refuses is left
// out, said once; a relay that rate-limits or cannot be reached fails the page.

import assert from "node:assert/strict";
import { CallCache } from "../../lib/resources/call_cache.ts";
import { decodeCursor, encodeCursor, Lister, MAX_TOOL_CURSOR } from "../../lib/resources/lister.ts";
import { LIST_SOURCES } from "../../lib/resources/listing.ts";
import { RELAY_FAILED } from "../../lib/resources/outcome.ts";
import { INVALID_PARAMS } from "../../lib/wire/mcp.ts";
import { Failed, fakeRelay, type Handler, roomPages } from "./fake_relay.ts";
import { LIST_JOBS, LIST_REPOSITORIES, LIST_WIKI } from "./fixtures.ts";

const BASE = { host: "relay.example" };

function lister(handlers: Record<string, Handler>) {
  const relay = fakeRelay(handlers);
  const lines: string[] = [];
  const list = new Lister({
    base: BASE,
    sources: LIST_SOURCES,
    cache: new CallCache(relay.call),
    log: (line) => lines.push(line),
  });
  return { list, relay, lines };
}

/** Every page, following the cursors; the URIs in order. */
async function everyPage(list: Lister) {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const answer = await list.list(cursor === undefined ? {} : { cursor });
    assert.ok("result" in answer, JSON.stringify(answer));
    pages.push(answer.result.resources.map((r) => r.uri));
    cursor = answer.result.nextCursor;
  } while (cursor !== undefined && pages.length < 50);
  return pages;
}

Deno.test("the cursor: ours, opaque, the exact inverse", () => {
  for (
    const position of [{ source: 0 }, { source: 3 }, { source: 1, cursor: "dev" }, {
      source: 2,
      cursor: "ü:/+=",
    }]
  ) {
    const cursor = encodeCursor(position);
    assert.match(cursor, /^l1\.[A-Za-z0-9_-]+$/);
    assert.deepEqual(decodeCursor(cursor, 4), position);
  }
});

Deno.test("a cursor that is not ours, or names no list, is not read", () => {
  const b64 = (value: unknown) => `l1.${btoa(JSON.stringify(value)).replace(/=+$/, "")}`;
  const hostile = [
    "",
    "dev",
    "l1.",
    "l1.!!!!",
    "l2." + encodeCursor({ source: 0 }).slice(3),
    b64([4]),
    b64([-1]),
    b64([1.5]),
    b64(["0"]),
    b64([0, ""]),
    b64([0, 7]),
    b64([0, "a", "b"]),
    b64({ source: 0 }),
    b64([0, "x".repeat(MAX_TOOL_CURSOR + 1)]),
    `l1.${"A".repeat(100_000)}`,
    "l1./w", // not UTF-8 once decoded
  ];
  for (const cursor of hostile) assert.equal(decodeCursor(cursor, 4), undefined, cursor.slice(0, 40));
});

Deno.test("250 rooms page by page, then the repositories, the wiki and the open tasks", async () => {
  const { list, relay } = lister({
    list_rooms: roomPages(250),
    list_repositories: () => LIST_REPOSITORIES,
    list_wiki: () => LIST_WIKI,
    list_jobs: (args) => args.cursor ? { items: [], next_cursor: "" } : LIST_JOBS,
  });
  const pages = await everyPage(list);
  assert.deepEqual(pages.map((page) => page.length), [100, 100, 50, 2, 1, 1, 0]);
  const rooms = pages.slice(0, 3).flat();
  assert.equal(new Set(rooms).size, 250);
  assert.equal(rooms[0], "tiny://relay.example/room/room-000");
  assert.equal(rooms[249], "tiny://relay.example/room/room-249");
  assert.match(pages[3][0], /^tiny:\/\/relay\.example\/repo\//);
  assert.equal(pages[4][0], "tiny://relay.example/wiki/getting-started");
  assert.match(pages[5][0], /^tiny:\/\/relay\.example\/job\//);
  // list_jobs said there was a next page: it was empty, and the listing ends with it.
  assert.deepEqual(relay.calls.map(([tool]) => tool), [
    "list_rooms",
    "list_rooms",
    "list_rooms",
    "list_repositories",
    "list_wiki",
    "list_jobs",
    "list_jobs",
  ]);
});

Deno.test("a page asked again within 10 s is not asked of the relay again", async () => {
  const { list, relay } = lister({ list_rooms: roomPages(3) });
  await list.list({});
  await list.list({});
  assert.equal(relay.count("list_rooms"), 1);
});

Deno.test("a list the relay refuses is left out, said once; the rest are listed", async () => {
  const { list, lines } = lister({
    list_rooms: () => new Failed("permission: restricted: rooms are members-only"),
    list_wiki: () => LIST_WIKI,
    list_jobs: () => ({ items: [], next_cursor: "" }),
  });
  const pages = await everyPage(list);
  assert.deepEqual(pages, [["tiny://relay.example/wiki/getting-started"], []]);
  await everyPage(list);
  assert.deepEqual(lines, [
    "resources: list_rooms is left out of resources/list: permission: restricted: rooms are members-only",
    "resources: list_repositories is left out of resources/list: Unknown tool: list_repositories",
  ]);
});

Deno.test("a relay that rate-limits, or cannot be reached, fails the page, saying when to retry", async () => {
  const { list } = lister({
    list_rooms: () => new Failed("relay: rate-limited: slow down; retry after 30 s", 30),
  });
  const answer = await list.list({});
  assert.ok("error" in answer);
  assert.equal(answer.error.code, RELAY_FAILED);
  assert.match(answer.error.message, /retry after 30 s/);
  assert.deepEqual(answer.error.data, { uri: "", reason: "rate-limited", retryAfter: 30 });
  const down = lister({ list_rooms: () => new Failed("transport: cannot reach http://x/mcp") });
  const failed = await down.list.list({});
  assert.ok("error" in failed);
  assert.deepEqual(failed.error.data, { uri: "", reason: "transport" });
});

Deno.test("a cursor that is not ours is refused, saying to list again", async () => {
  const { list, relay } = lister({ list_rooms: roomPages(3) });
  for (const cursor of ["dev", 7, null, "l1.", `l1.${"A".repeat(100_000)}`]) {
    const answer = await list.list({ cursor });
    assert.ok("error" in answer, String(cursor));
    assert.equal(answer.error.code, INVALID_PARAMS);
    assert.match(answer.error.message, /not one this server gave; list again without a cursor/);
  }
  assert.equal(relay.calls.length, 0);
});

Deno.test("a list's cursor too long to carry ends that list", async () => {
  const { list } = lister({
    list_rooms: () => ({ items: [{ id: "general" }], next_cursor: "x".repeat(MAX_TOOL_CURSOR + 1) }),
    list_jobs: () => ({ items: [], next_cursor: "" }),
  });
  const first = await list.list({});
  assert.ok("result" in first);
  assert.deepEqual(decodeCursor(first.result.nextCursor!, 4), { source: 1 });
});
