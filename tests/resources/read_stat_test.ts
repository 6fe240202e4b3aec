// A stat read through the reader (lib/resources/read_stat.ts), against a fake call path and a fake
// download: a room from its summary with one message; a wiki page and a file from their listing,
// with no content; the long way when the listing does not find them; an unknown one refused.

import assert from "node:assert/strict";
import { CallCache } from "../../lib/resources/call_cache.ts";
import { FilePieces } from "../../lib/resources/file_pieces.ts";
import { Reader } from "../../lib/resources/reader.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { fakeDownload, fileOf } from "./fake_download.ts";
import { Failed, fakeRelay, type Handler } from "./fake_relay.ts";
import { LIST_ROOMS, LIST_WIKI, READ_JOB, READ_ROOM, READ_WIKI } from "./fixtures.ts";

const R = "tiny://relay.example";
const BYTES = new TextEncoder().encode("hello\n");

function reader(handlers: Record<string, Handler>) {
  const relay = fakeRelay(handlers);
  const download = fakeDownload([BYTES]);
  const read = new Reader({
    base: { host: "relay.example" },
    exposed: new Set(CONTRACT_READ),
    call: relay.call,
    cache: new CallCache(relay.call),
    files: new FilePieces(download.download),
  });
  return { read, relay, download };
}

const stat = (answer: unknown) => {
  assert.ok(answer && typeof answer === "object" && "result" in answer, JSON.stringify(answer));
  const [item] = (answer as { result: { contents: { mimeType: string; text: string }[] } }).result.contents;
  assert.equal(item.mimeType, "application/json");
  return JSON.parse(item.text);
};

Deno.test("a room: its summary with one message; a task: its read, with its room linked", async () => {
  const { read, relay } = reader({ read_room: () => READ_ROOM, read_job: () => READ_JOB });
  const room = stat(await read.read({ uri: `${R}/room/general?as=stat` }));
  assert.deepEqual(room.counts, { members: 3 });
  assert.deepEqual(relay.calls[0], ["read_room", { id: "general", limit: 1 }]);
  const job = await read.read({ uri: `${R}/job/${READ_JOB.item.id}?as=stat` });
  assert.equal(stat(job).state, "done");
  assert.ok("result" in job);
  const links = job.result._meta!["tinyagent/links"] as { rel: string }[];
  assert.deepEqual(links.map((l) => l.rel), ["up", "collection", "tiny:room", "tiny:thread"]);
});

Deno.test("a wiki page and a file from their listing; the long way when it does not find them", async () => {
  const { read, relay, download } = reader({
    list_wiki: () => LIST_WIKI,
    read_wiki_page: () => READ_WIKI,
    list_files: () => ({ items: [], next_cursor: "" }),
  });
  const listed = stat(await read.read({ uri: `${R}/wiki/${LIST_WIKI.items[0].d}?as=stat` }));
  assert.equal(listed.kind, "wiki");
  assert.deepEqual(relay.calls.map(([tool]) => tool), ["list_wiki"], "no content read");
  stat(await read.read({ uri: `${R}/wiki/getting-started-not?as=stat` }));
  assert.deepEqual(relay.calls.map(([tool]) => tool).slice(1), ["list_wiki", "read_wiki_page"]);
  const { sha } = fileOf(BYTES);
  const file = stat(await read.read({ uri: `${R}/file/${sha}?as=stat` }));
  assert.deepEqual({ size: file.size, kind: file.kind }, { size: BYTES.length, kind: "file" });
  assert.deepEqual(download.asked, [`/files/raw?hash=${sha} 0-0`], "one byte of it, for its size");
});

Deno.test("an unknown room is refused naming the nearest; a file nowhere, refused", async () => {
  const { read } = reader({
    read_room: () => new Failed("not found: room"),
    list_rooms: () => LIST_ROOMS,
    list_files: () => ({ items: [], next_cursor: "" }),
  });
  const room = await read.read({ uri: `${R}/room/generl?as=stat` });
  assert.ok("error" in room);
  assert.equal(
    (room.error.data as { nearest: string[] }).nearest[0],
    `${R}/room/general?as=stat`,
    "the nearest keeps the query",
  );
  const file = await read.read({ uri: `${R}/file/${"0".repeat(64)}?as=stat` });
  assert.ok("error" in file);
  assert.equal((file.error.data as { reason: string }).reason, "unknown-id");
});
