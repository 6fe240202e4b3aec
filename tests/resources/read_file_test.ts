// A file past one read through the reader (lib/resources/read_file.ts), against a fake call path
// and a fake download: a piece as text or bytes under the URI asked; a span past the end refused
// with the one that fits; a read over the facade's bound a note with its size and pieces; a file
// the download does not have refused naming the nearest; the rooms it was seen in linked.

import assert from "node:assert/strict";
import { CallCache } from "../../lib/resources/call_cache.ts";
import { FilePieces } from "../../lib/resources/file_pieces.ts";
import { Reader } from "../../lib/resources/reader.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { fakeDownload, fileOf } from "./fake_download.ts";
import { Failed, fakeRelay, type Handler } from "./fake_relay.ts";
import { READ_ROOM } from "./fixtures.ts";

const R = "tiny://relay.example";
const TEXT = new TextEncoder().encode("one\ntwo\nthree\n");
const BINARY = Uint8Array.from({ length: 400_000 }, (_, i) => i % 256);

function reader(handlers: Record<string, Handler>) {
  const relay = fakeRelay(handlers);
  const download = fakeDownload([TEXT, BINARY]);
  const read = new Reader({
    base: { host: "relay.example" },
    exposed: new Set(CONTRACT_READ),
    call: relay.call,
    cache: new CallCache(relay.call),
    files: new FilePieces(download.download),
  });
  return { read, relay, download };
}

Deno.test("a piece: text as text, bytes as a blob, under the URI asked", async () => {
  const { read } = reader({});
  const text = fileOf(TEXT).sha, bin = fileOf(BINARY).sha;
  const lines = await read.read({ uri: `${R}/file/${text}?lines=2-3` });
  assert.ok("result" in lines);
  assert.deepEqual(lines.result.contents, [{
    uri: `${R}/file/${text}?lines=2-3`,
    mimeType: "text/plain",
    text: "two\nthree\n",
  }]);
  const bytes = await read.read({ uri: `${R}/file/${bin}?range=0-3` });
  assert.ok("result" in bytes);
  assert.deepEqual(bytes.result.contents, [{
    uri: `${R}/file/${bin}?range=0-3`,
    mimeType: "application/octet-stream",
    blob: Uint8Array.of(0, 1, 2, 3).toBase64(),
  }]);
  const past = await read.read({ uri: `${R}/file/${text}?lines=3-9` });
  assert.ok("error" in past);
  assert.deepEqual((past.error.data as { nearest: string[] }).nearest, [`${R}/file/${text}?lines=3-3`]);
});

Deno.test("over the facade's bound: a note with its size and pieces, linked to where it was seen", async () => {
  const bin = fileOf(BINARY).sha;
  const room = {
    ...READ_ROOM,
    messages: [{ ...READ_ROOM.messages[0], tags: [["h", "general"], ["imeta", `url x`, `x ${bin}`]] }],
  };
  const { read } = reader({
    read_attachment: () => ({ truncated: true, bytes: 533_400 }),
    read_room: () => room,
  });
  await read.read({ uri: `${R}/room/general` });
  const note = await read.read({ uri: `${R}/file/${bin}` });
  assert.ok("result" in note);
  const text = (note.result.contents[0] as { text: string }).text;
  assert.match(text, /too big to read whole \(400,000 bytes\)/);
  assert.ok(text.includes(`${R}/file/${bin}?range=393216-399999`));
  const links = note.result._meta!["tinyagent/links"] as { rel: string; href: string }[];
  assert.ok(links.some((l) => l.rel === "tiny:attached-to" && l.href === `${R}/room/general`));
  const json = await read.read({ uri: `${R}/file/${bin}?as=json` });
  assert.ok("result" in json);
  assert.equal(JSON.parse((json.result.contents[0] as { text: string }).text).size, 400_000);
});

Deno.test("the relay's own limit reads as the note too; a file the download lacks is refused naming the nearest", async () => {
  const { read } = reader({
    read_attachment: () => new Failed("attachment exceeds max_bytes"),
    list_files: () => ({ items: [{ sha256: fileOf(TEXT).sha }], next_cursor: "" }),
  });
  const note = await read.read({ uri: `${R}/file/${fileOf(BINARY).sha}` });
  assert.ok("result" in note);
  const missing = await read.read({ uri: `${R}/file/${fileOf(TEXT).sha.replace(/^./, "0")}?range=0-1` });
  assert.ok("error" in missing);
  assert.equal((missing.error.data as { reason: string }).reason, "unknown-id");
});

Deno.test("a file the relay does not hold: its read_attachment refusal names the nearest file", async () => {
  const { read } = reader({
    read_attachment: () => new Failed("attachment unavailable: not found: file"),
    list_files: () => ({ items: [{ sha256: fileOf(TEXT).sha }], next_cursor: "" }),
  });
  const uri = `${R}/file/${fileOf(TEXT).sha.replace(/^./, "0")}`;
  const missing = await read.read({ uri });
  assert.ok("error" in missing);
  assert.equal((missing.error.data as { reason: string }).reason, "unknown-id");
  assert.deepEqual((missing.error.data as { nearest: string[] }).nearest, [`${R}/file/${fileOf(TEXT).sha}`]);
});
