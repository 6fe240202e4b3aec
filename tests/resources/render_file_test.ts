// A stored file (lib/resources/render_file.ts): text types as text, images and other files as a
// blob with the relay's own base64 data, each with the file's own (well-formed) media type.

import assert from "node:assert/strict";
import { fileType, isTextType, renderFile } from "../../lib/resources/render_file.ts";
import { attachment } from "./fixtures.ts";

const URI = "tiny://relay.example/file/71";
const bytes = (text: string) => new TextEncoder().encode(text);

Deno.test("text files as text, with their type; other files as a blob of the relay's data", () => {
  assert.deepEqual(renderFile(attachment("text/plain", bytes("hi there")), URI), {
    uri: URI,
    mimeType: "text/plain",
    text: "hi there",
  });
  assert.deepEqual(renderFile(attachment("text/markdown; charset=utf-8", bytes("# x")), URI), {
    uri: URI,
    mimeType: "text/markdown; charset=utf-8",
    text: "# x",
  });
  // application/json has no `text` from the relay: its data is decoded, strictly.
  assert.deepEqual(renderFile(attachment("application/json", bytes('{"a":1}')), URI), {
    uri: URI,
    mimeType: "application/json",
    text: '{"a":1}',
  });
  const png = attachment("image/png", Uint8Array.of(137, 80, 78, 71, 13, 10, 26, 10));
  assert.deepEqual(renderFile(png, URI), { uri: URI, mimeType: "image/png", blob: png.data });
  const pdf = attachment("application/pdf", bytes("%PDF-1.7"));
  assert.deepEqual(renderFile(pdf, URI), { uri: URI, mimeType: "application/pdf", blob: pdf.data });
  // A "JSON" file that is not UTF-8 stays bytes.
  const latin = attachment("application/json", Uint8Array.of(0xff, 0xfe));
  assert.deepEqual(renderFile(latin, URI), { uri: URI, mimeType: "application/json", blob: latin.data });
});

Deno.test("the media type: a well-formed one, lowercased; anything else is application/octet-stream", () => {
  const cases: [string | undefined, string][] = [
    ["image/PNG", "image/png"],
    ["text/plain;charset=utf-8", "text/plain;charset=utf-8"],
    ["application/vnd.api+json", "application/vnd.api+json"],
    [undefined, "application/octet-stream"],
    ["", "application/octet-stream"],
    ["text", "application/octet-stream"],
    ["text/html\r\nX-Evil: 1", "application/octet-stream"],
    ["image/png\u202e", "application/octet-stream"],
    [`text/${"a".repeat(300)}`, "application/octet-stream"],
  ];
  for (const [type, want] of cases) assert.equal(fileType(type), want, String(type));
  assert.ok(isTextType("text/csv") && isTextType("application/ld+json") && isTextType("image/svg+xml"));
  assert.ok(!isTextType("image/png") && !isTextType("application/octet-stream"));
});

Deno.test("no file without data: missing or non-base64 data gives nothing to show", () => {
  for (
    const answer of [undefined, null, {}, { type: "image/png" }, { type: "image/png", data: "not base64!" }, {
      data: "abc",
    }]
  ) {
    assert.equal(renderFile(answer, URI), undefined, JSON.stringify(answer));
  }
  // A text type with a `text` field needs no data.
  assert.deepEqual(renderFile({ type: "text/plain", text: "only text" }, URI), {
    uri: URI,
    mimeType: "text/plain",
    text: "only text",
  });
});
