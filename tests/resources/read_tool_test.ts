// tiny_read (lib/resources/read_tool.ts): its entry naming this relay's URIs; its one argument,
// checked; a read's answer as tool content (text as text, an image as an image, other bytes
// embedded, then the links a line each) with the items' URIs and the links structured; a refusal
// as an isError result naming the nearest.

import assert from "node:assert/strict";
import { READ_TOOL, readToolArgs, readToolEntry, readToolResult } from "../../lib/resources/read_tool.ts";

const B = "tiny://relay.example";

Deno.test("the entry: read-only, one uri argument, a description naming this relay's namespace", () => {
  const entry = readToolEntry(B);
  assert.equal(entry.name, READ_TOOL);
  assert.equal(READ_TOOL, "tiny_read");
  for (
    const words of [`${B}/ lists the kinds`, `${B}/room/<id>`, "?lines=FIRST-LAST", "?as=stat", "nearest"]
  ) {
    assert.ok(entry.description!.includes(words), words);
  }
  assert.deepEqual(entry.inputSchema.required, ["uri"]);
  assert.equal(entry.inputSchema.additionalProperties, false);
  assert.equal((entry.annotations as { readOnlyHint: boolean }).readOnlyHint, true);
});

Deno.test("its argument: a uri, a string, and nothing else", () => {
  assert.deepEqual(readToolArgs({ uri: `${B}/room/general` }), { uri: `${B}/room/general` });
  for (const args of [{}, { uri: 5 }, { uri: `${B}/`, limit: 5 }]) {
    const got = readToolArgs(args);
    assert.ok("refused" in got && got.refused.isError === true, JSON.stringify(args));
  }
});

Deno.test("a read as tool content: text, image, other bytes embedded, then the links; URIs and links structured", () => {
  const links = [
    { rel: "up", href: `${B}/room/` },
    { rel: "tiny:thread", href: `${B}/room/general/thread/x`, title: "Plans", count: 3 },
  ];
  const result = readToolResult({
    result: {
      contents: [
        { uri: `${B}/room/general?lines=1-2`, mimeType: "text/markdown", text: "# General\n\n" },
        { uri: `${B}/file/a`, mimeType: "image/png", blob: "iVBO" },
        { uri: `${B}/file/b`, mimeType: "application/pdf", blob: "JVBE" },
      ],
      _meta: { "tinyagent/links": [...links, { rel: 5 }] },
    },
  }, "tinyagent/links");
  assert.deepEqual(result, {
    content: [
      { type: "text", text: "# General\n\n" },
      { type: "image", data: "iVBO", mimeType: "image/png" },
      { type: "resource", resource: { uri: `${B}/file/b`, mimeType: "application/pdf", blob: "JVBE" } },
      {
        type: "text",
        text: `Links:\n- up: ${B}/room/\n- tiny:thread: ${B}/room/general/thread/x (Plans) ×3`,
      },
    ],
    structuredContent: {
      contents: [
        { uri: `${B}/room/general?lines=1-2`, mimeType: "text/markdown" },
        { uri: `${B}/file/a`, mimeType: "image/png" },
        { uri: `${B}/file/b`, mimeType: "application/pdf" },
      ],
      links,
    },
    isError: false,
  });
});

Deno.test("a refusal: an isError result, its words naming the nearest, its data structured", () => {
  const data = { uri: `${B}/room/generl`, nearest: [`${B}/room/general`], reason: "unknown-id" };
  const result = readToolResult({
    error: {
      code: -32602,
      message: `"room/generl" is not on this relay. Nearest that resolves: ${B}/room/general.`,
      data,
    },
  }, "tinyagent/links");
  assert.equal(result.isError, true);
  assert.match(
    (result.content[0] as { text: string }).text,
    /Nearest that resolves: tiny:\/\/relay\.example\/room\/general\./,
  );
  assert.deepEqual(result.structuredContent, data);
});
