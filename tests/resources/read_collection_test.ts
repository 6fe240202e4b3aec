// A collection read through the reader (lib/resources/read_collection.ts), against a fake call
// path: a page of the relay's listing under the URI asked, as markdown and JSON, its items and next
// page linked; the relay's cursor carried whole; the root from the table with no call; a cursor
// the relay refuses named back to the first page; a repository it does not have, the nearest.

import assert from "node:assert/strict";
import { CallCache } from "../../lib/resources/call_cache.ts";
import { LINKS_KEY } from "../../lib/resources/links.ts";
import { Reader } from "../../lib/resources/reader.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { Failed, fakeRelay, type Handler, roomPages } from "./fake_relay.ts";
import { LIST_REPOSITORIES, OWNER } from "./fixtures.ts";

const R = "tiny://relay.example";

function reader(handlers: Record<string, Handler>) {
  const relay = fakeRelay(handlers);
  const read = new Reader({
    base: { host: "relay.example" },
    exposed: new Set(CONTRACT_READ),
    call: relay.call,
    cache: new CallCache(relay.call),
  });
  return { read, relay };
}

type Meta = { [LINKS_KEY]: { rel: string; href: string }[] };

Deno.test("a page of rooms: the relay's listing, its items and the next page linked, the cursor carried whole", async () => {
  const { read, relay } = reader({ list_rooms: roomPages(120) });
  const first = await read.read({ uri: `${R}/room/` });
  assert.ok("result" in first);
  const [item] = first.result.contents;
  assert.equal(item.uri, `${R}/room/`);
  assert.ok("text" in item && item.text.includes(`${R}/room/room-000`));
  const links = (first.result._meta as Meta)[LINKS_KEY];
  assert.deepEqual(links[0], { rel: "up", href: `${R}/` });
  assert.equal(links.filter((l) => l.rel === "item").length, 50);
  assert.deepEqual(links.at(-1), { rel: "next", href: `${R}/room/?cursor=room-049` });
  const json = await read.read({ uri: `${R}/room/?as=json&cursor=room-049` });
  assert.ok("result" in json);
  const page = JSON.parse((json.result.contents[0] as { text: string }).text);
  assert.equal(page.children[0].uri, `${R}/room/room-050`);
  assert.equal(page.next, `${R}/room/?as=json&cursor=room-099`);
  assert.deepEqual(relay.calls.map(([, args]) => args), [{ limit: 50 }, { limit: 50, cursor: "room-049" }]);
  const pointer = await read.read({ uri: `${R}/room/?as=json&pointer=/children/0/uri` });
  assert.ok("result" in pointer);
  assert.equal((pointer.result.contents[0] as { text: string }).text, `"${R}/room/room-000"`);
});

Deno.test("the root: the kinds, no call", async () => {
  const { read, relay } = reader({});
  const root = await read.read({ uri: `${R}/` });
  assert.ok("result" in root);
  assert.match((root.result.contents[0] as { text: string }).text, /# Everything on this relay/);
  assert.equal(relay.calls.length, 0);
});

Deno.test("a cursor the relay refuses: the first page named; a repository it lacks: the nearest", async () => {
  const { read } = reader({
    list_rooms: (args) => args.cursor ? new Failed("invalid: room cursor") : roomPages(3)(args),
    list_issues: () => new Failed("file does not exist"),
    list_repositories: () => LIST_REPOSITORIES,
  });
  const bad = await read.read({ uri: `${R}/room/?cursor=nope` });
  assert.ok("error" in bad);
  assert.match(bad.error.message, /the relay does not take this cursor \(list_rooms: invalid: room cursor\)/);
  assert.deepEqual((bad.error.data as { nearest: string[] }).nearest, [`${R}/room/`]);
  const lacking = await read.read({ uri: `${R}/repo/${OWNER}/tinyagnet/issue/` });
  assert.ok("error" in lacking);
  assert.equal((lacking.error.data as { reason: string }).reason, "unknown-id");
  assert.deepEqual((lacking.error.data as { nearest: string[] }).nearest, [
    `${R}/repo/${OWNER}/tinyagent/issue/`,
  ]);
});
