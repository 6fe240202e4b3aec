// The strict relay's room attachments and /media (tinyrelay's room_attachments.go), shown with Deno's
// fetch and NIP-98 tokens signed by hand: the upload and download round trip with the exact headers,
// the descriptor as Go writes it, media types, file names, one blob in many rooms, Range and HEAD.
// Refusals: nostr_attachment_refusals_test.ts.

import assert from "node:assert/strict";
import { getToken } from "nostr-tools/nip98";
import { finalizeEvent } from "nostr-tools/pure";
import { download, hex, MEMBER, PNG, upload } from "./attachment_test_kit.ts";
import { enc, now, withRelay } from "./nostr_test_kit.ts";

Deno.test("strict relay attachments: a PNG up (type sniffed) and down, with the exact headers", async () => {
  await withRelay({ membersOnly: true, members: [MEMBER.pk] }, async (relay) => {
    const sha = hex(PNG);
    const a = await upload(relay, PNG);
    assert.equal(a.status, 200, a.text);
    assert.equal(a.headers.get("content-type"), "application/json");
    assert.ok(a.text.endsWith("}\n"), "json.Encoder's trailing newline");
    const url = `${relay.url}/media/${sha}.png`;
    assert.deepEqual(Object.keys(a.json), [
      "filename",
      "nip94",
      "room",
      "sha256",
      "size",
      "type",
      "uploaded",
      "url",
    ], "Go marshals a map with its keys sorted");
    const size = String(PNG.length);
    assert.deepEqual(a.json, {
      url,
      sha256: sha,
      size: PNG.length,
      type: "image/png",
      uploaded: a.json.uploaded,
      nip94: [["url", url], ["m", "image/png"], ["x", sha], ["ox", sha], ["size", size], [
        "filename",
        "pixel.png",
      ]],
      filename: "pixel.png",
      room: "general",
    });
    assert.ok(Math.abs(a.json.uploaded - now()) <= 2);
    const stored = relay.attachments.get(sha);
    assert.deepEqual([stored?.bytes, stored?.type, [...stored!.rooms]], [PNG, "image/png", ["general"]]);
    const d = await download(relay, `/media/${sha}.png`);
    assert.equal(d.status, 200);
    assert.deepEqual(d.bytes, PNG);
    assert.equal(d.headers.get("content-type"), "image/png");
    assert.equal(d.headers.get("content-disposition"), `inline; filename=${sha}`);
    assert.equal(d.headers.get("cache-control"), "private, no-store");
    assert.equal(d.headers.get("content-security-policy"), "sandbox");
    assert.equal(d.headers.get("x-content-type-options"), "nosniff");
    assert.equal(d.headers.get("accept-ranges"), "bytes");
    assert.equal(d.headers.get("last-modified"), new Date(a.json.uploaded * 1000).toUTCString());
    assert.equal((await download(relay, `/media/${sha}`)).status, 200, "the extension is optional");
    assert.equal((await download(relay, `/media/${sha}.whatever`)).status, 200, "any 1-8 alnum extension");
  });
});

Deno.test("strict relay media: HEAD, ranges, anonymous, and a token made by nostr-tools' getToken", async () => {
  await withRelay({}, async (relay) => {
    const sha = (await upload(relay, PNG)).json.sha256;
    const h = await download(relay, `/media/${sha}.png`, { method: "HEAD" });
    assert.equal(h.status, 200);
    assert.equal(h.headers.get("content-length"), String(PNG.length));
    assert.equal(h.headers.get("content-type"), "image/png");
    assert.equal(h.bytes.length, 0);
    const range = async (value: string) =>
      await download(relay, `/media/${sha}.png`, { headers: { Range: value } });
    const r = await range("bytes=1-3");
    assert.equal(r.status, 206);
    assert.deepEqual(r.bytes, PNG.subarray(1, 4));
    assert.equal(r.headers.get("content-range"), `bytes 1-3/${PNG.length}`);
    const last = await range("bytes=-5");
    assert.deepEqual([last.status, last.bytes], [206, PNG.subarray(PNG.length - 5)]);
    const open = await range("bytes=60-");
    assert.deepEqual([open.status, open.headers.get("content-range")], [
      206,
      `bytes 60-${PNG.length - 1}/${PNG.length}`,
    ]);
    const headRange = await download(relay, `/media/${sha}.png`, {
      method: "HEAD",
      headers: { Range: "bytes=0-9" },
    });
    assert.deepEqual([headRange.status, headRange.headers.get("content-length"), headRange.bytes.length], [
      206,
      "10",
      0,
    ]);
    const anonymous = await download(relay, `/media/${sha}.png`, { authorization: null });
    assert.deepEqual([anonymous.status, anonymous.bytes], [200, PNG], "an open relay serves anyone");
    const url = `${relay.url}/media/${sha}.png`;
    const authorization = await getToken(url, "GET", (e) => finalizeEvent(e, MEMBER.sk), true);
    assert.equal((await download(relay, `/media/${sha}.png`, { authorization })).status, 200);
  });
});

Deno.test("strict relay attachments: media types, and what a download keeps of them", async () => {
  await withRelay({}, async (relay) => {
    const text = enc.encode("hello, room\n");
    const sniffed = await upload(relay, text, { filename: "notes.txt" });
    assert.equal(sniffed.json.type, "text/plain; charset=utf-8");
    assert.equal(sniffed.json.url, `${relay.url}/media/${hex(text)}.txt`);
    const given = await upload(relay, enc.encode("{}"), { type: "Application/JSON; Charset=UTF-8" });
    assert.equal(given.json.type, "application/json; charset=UTF-8");
    const bytes = new Uint8Array([0, 1, 2, 3]);
    const binary = await upload(relay, bytes, { filename: "x.bin" });
    assert.equal(binary.json.type, "application/octet-stream");
    assert.equal(binary.json.url, `${relay.url}/media/${hex(bytes)}`, "no extension");
    for (const a of [sniffed, given, binary]) {
      const d = await download(relay, new URL(a.json.url).pathname.slice("/r/acme".length));
      assert.equal(d.status, 200);
      assert.equal(d.headers.get("content-type"), "application/octet-stream");
      assert.equal(d.headers.get("content-disposition"), `attachment; filename=${a.json.sha256}`);
      assert.equal(d.headers.get("cache-control"), "private, no-store");
      assert.equal(d.headers.get("content-security-policy"), "sandbox");
    }
    const inline: [Uint8Array<ArrayBuffer>, string][] = [
      [enc.encode("%PDF-1.4\n"), "application/pdf"],
      [Uint8Array.from([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
      [enc.encode("GIF89a...."), "image/gif"],
    ];
    for (const [body, type] of inline) {
      const a = await upload(relay, body);
      assert.equal(a.json.type, type);
      const d = await download(relay, `/media/${a.json.sha256}`);
      assert.deepEqual([d.headers.get("content-type"), d.headers.get("content-disposition")], [
        type,
        `inline; filename=${a.json.sha256}`,
      ]);
    }
    const audio = await upload(relay, new Uint8Array([9, 9]), { type: "audio/ogg" });
    const d = await download(relay, `/media/${audio.json.sha256}.ogg`);
    assert.equal(d.headers.get("content-type"), "audio/ogg");
  });
});

Deno.test("strict relay attachments: file names", async () => {
  await withRelay({}, async (relay) => {
    const cases: [string, string][] = [
      ["filename=dir%2Fsub%2Freport.pdf", "report.pdf"],
      ["filename=dir%2F", "dir"],
      ["filename=", "file"],
      ["", "file"],
      ["filename=.", "file"],
      ["filename=%2F%2F", "file"],
      ["filename=a%09b%0Ac%7F", "a b c"],
      ["filename=%20%20spaced%20%20", "spaced"],
      ["filename=a+b.txt", "a b.txt"],
      ["filename=%C3%A9t%C3%A9.png", "été.png"],
      [`filename=${"n".repeat(300)}`, "n".repeat(255)],
    ];
    for (const [query, filename] of cases) {
      const a = await upload(relay, PNG, { query });
      assert.equal(a.status, 200, `${query}: ${a.text}`);
      assert.equal(a.json.filename, filename, query);
      assert.deepEqual(a.json.nip94.at(-1), ["filename", filename]);
    }
    assert.equal(relay.attachments.size, 1, "one blob, however many uploads");
    assert.equal(relay.attachments.get(hex(PNG))?.filename, "n".repeat(255));
  });
});

Deno.test("strict relay attachments: one blob in many rooms, each upload's descriptor its own room", async () => {
  await withRelay({ rooms: ["general", "lab"] }, async (relay) => {
    const first = await upload(relay, PNG, { room: "general", filename: "a.png" });
    const second = await upload(relay, PNG, { room: "lab", filename: "b.png" });
    assert.deepEqual([first.status, second.status], [200, 200]);
    assert.deepEqual([first.json.room, second.json.room], ["general", "lab"]);
    assert.equal(second.json.uploaded, first.json.uploaded, "the blob's first upload");
    assert.deepEqual([...relay.attachments.get(hex(PNG))!.rooms], ["general", "lab"]);
    assert.equal(relay.attachments.size, 1);
  });
});
