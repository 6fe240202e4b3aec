// read_attachment in content mode, in the real relay's shape (tinyrelay's mcp_attachments.go and the
// blob service's descriptor): the descriptor with its extension and NIP-94 tags, the bytes and the
// text, the content block for each kind of file, and the refusals.

import assert from "node:assert/strict";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { filesContent } from "./mod.ts";
import { BYTES_ELSEWHERE } from "./content_attachment.ts";
import { withRelay } from "./nostr_test_kit.ts";
import { AGENT, call, viewOf } from "./content_test_kit.ts";
import { readAttachment } from "./content_files.ts";

const AT = 1_700_000_000;
const shaOf = (bytes: Uint8Array) => bytesToHex(sha256(bytes));

Deno.test("content shapes: read_attachment's descriptor, content block and refusals", async () => {
  const files = filesContent({ uploader: AGENT.pk });
  const pdf = {
    bytes: new TextEncoder().encode("%PDF-1.4"),
    type: "application/pdf",
    uploader: AGENT.pk,
    uploaded: AT,
  };
  const odd = { ...pdf, bytes: new Uint8Array([1, 2, 3]), type: "application/x-odd" };
  await withRelay({}, async (relay) => {
    relay.seed({ files: [...files.seed.files!, pdf, odd] });
    const attach = async (sha256: string, extra = {}) =>
      (await call(relay, "read_attachment", { sha256, ...extra })).result;
    const image = await attach(files.image.sha256);
    const url = `${relay.url}/${files.image.sha256}.png`;
    assert.deepEqual(image.structuredContent, {
      data: image.content[0].data,
      nip94: [["url", url], ["m", "image/png"], ["x", files.image.sha256], ["ox", files.image.sha256], [
        "size",
        String(files.image.bytes.length),
      ]],
      sha256: files.image.sha256,
      size: files.image.bytes.length,
      type: "image/png",
      uploaded: files.image.uploaded,
      url,
    });
    const text = await attach(files.text.sha256);
    const words = new TextDecoder().decode(files.text.bytes);
    assert.deepEqual([text.structuredContent.text, text.content, text.structuredContent.url.slice(-4)], [
      words,
      [{ type: "text", text: words }],
      ".txt",
    ]);
    const other = await attach(shaOf(pdf.bytes));
    assert.deepEqual([other.content, other.structuredContent.url.slice(-4)], [[{
      type: "text",
      text: BYTES_ELSEWHERE,
    }], ".pdf"]);
    const none = await attach(shaOf(odd.bytes));
    assert.ok(none.structuredContent.url.endsWith(shaOf(odd.bytes)), "no extension for other types");
    const big = await attach(files.image.sha256, { max_bytes: 10 });
    assert.deepEqual([big.isError, big.content, big.structuredContent], [
      true,
      [{ type: "text", text: "attachment exceeds max_bytes" }],
      { size: files.image.bytes.length },
    ]);
  });
});

Deno.test("content shapes: read_attachment's own max_bytes rule, behind the relay's schema", () => {
  const files = filesContent({ uploader: AGENT.pk });
  const view = viewOf(files.seed);
  const read = (max_bytes: unknown) => readAttachment({ sha256: files.image.sha256, max_bytes }, view);
  assert.deepEqual(read(5 * 1024 * 1024), {
    content: [{ type: "text", text: "max_bytes must be between 1 and 4194304" }],
    structuredContent: null,
    isError: true,
  });
  assert.equal(read(0).isError, false, "0 is the default, 4 MiB");
  assert.equal(read(undefined).isError, false);
});
