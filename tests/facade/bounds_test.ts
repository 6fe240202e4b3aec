// Bounds (facade.md, "Bounds"): text blocks cut at 64 KiB on a character
// boundary, structuredContent bounded to 256 KiB of JSON, other blocks
// untouched. Byte counts are computed independently with TextEncoder.

import assert from "node:assert/strict";
import {
  boundResult,
  STRUCTURED_LIMIT,
  TEXT_LIMIT,
  truncateText,
  utf8Length,
} from "../../lib/facade/bounds.ts";
import {
  STRUCTURED_LIMIT_BYTES,
  structuredTruncated,
  structuredTruncationNote as note,
  TEXT_LIMIT_BYTES,
  truncationMarker,
  truncationMarkerPattern,
} from "../support/contract.ts";

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text).length;

const MARKER = new RegExp(`\\n${truncationMarkerPattern().source}`);

/** Splits a truncated text into what was shown and the marker's numbers. */
function parseTruncated(text: string): { shown: string; shownBytes: number; totalBytes: number } {
  const match = MARKER.exec(text);
  assert.ok(match, `no truncation marker at the end of …${JSON.stringify(text.slice(-80))}`);
  return { shown: text.slice(0, match.index), shownBytes: Number(match[1]), totalBytes: Number(match[2]) };
}

/** Asserts `out` is `original` cut correctly at `limit` bytes. */
function assertCut(original: string, out: string, limit = TEXT_LIMIT_BYTES) {
  const { shown, shownBytes, totalBytes } = parseTruncated(out);
  assert.equal(totalBytes, bytes(original), "total is the original's UTF-8 length");
  assert.equal(shownBytes, bytes(shown), "shown is the kept text's UTF-8 length");
  assert.ok(shownBytes <= limit, `kept ${shownBytes} bytes, over ${limit}`);
  assert.ok(original.startsWith(shown), "the kept text is a prefix of the original");
  assert.ok(!shown.includes("\ufffd"), "no character is split");
  // Maximal: the next whole code point would not have fitted.
  const next = String.fromCodePoint(original.codePointAt(shown.length)!);
  assert.ok(shownBytes + bytes(next) > limit, "the cut keeps as much as fits");
}

Deno.test("limits are the contract's", () => {
  assert.equal(TEXT_LIMIT, TEXT_LIMIT_BYTES);
  assert.equal(STRUCTURED_LIMIT, STRUCTURED_LIMIT_BYTES);
});

Deno.test("text blocks: the 64 KiB cut", async (t) => {
  await t.step(`exactly ${TEXT_LIMIT_BYTES} bytes is untouched`, () => {
    const ascii = "a".repeat(TEXT_LIMIT_BYTES);
    assert.equal(truncateText(ascii), ascii);
    const mixed = "é".repeat(TEXT_LIMIT_BYTES / 2 - 2) + "😀"; // the limit: 4 bytes short in é, then a 4-byte character
    assert.equal(bytes(mixed), TEXT_LIMIT_BYTES);
    assert.equal(truncateText(mixed), mixed);
  });
  await t.step(`${TEXT_LIMIT_BYTES + 1} bytes is cut, with the exact marker`, () => {
    const text = "a".repeat(TEXT_LIMIT_BYTES + 1);
    const out = truncateText(text);
    assert.equal(
      out,
      `${"a".repeat(TEXT_LIMIT_BYTES)}\n${truncationMarker(TEXT_LIMIT_BYTES, TEXT_LIMIT_BYTES + 1)}`,
    );
  });
  await t.step("many short characters never reach the limit", () => {
    const text = "€".repeat(Math.floor((TEXT_LIMIT_BYTES - 1) / 3)); // 3 bytes each, under the limit
    assert.equal(truncateText(text), text);
  });

  const characters: [string, string][] = [
    ["2-byte é", "é"],
    ["2-byte ß", "ß"],
    ["3-byte €", "€"],
    ["3-byte 中", "中"],
    ["4-byte 𝄞", "𝄞"],
    ["4-byte emoji 😀", "😀"],
  ];
  for (const [name, char] of characters) {
    await t.step(`a ${name} straddling the cut is never split`, () => {
      const width = bytes(char);
      // Place the character so that it starts 1 … width-1 bytes before the limit.
      for (let before = 1; before < width; before++) {
        const head = "a".repeat(TEXT_LIMIT_BYTES - before);
        const text = head + char + "tail".repeat(10);
        const out = truncateText(text);
        assertCut(text, out);
        const { shown, shownBytes, totalBytes } = parseTruncated(out);
        assert.equal(shown, head, `${before} bytes before the limit: the character is dropped whole`);
        assert.equal(shownBytes, TEXT_LIMIT_BYTES - before);
        assert.equal(totalBytes, TEXT_LIMIT_BYTES - before + width + 40);
      }
      // A character that ends exactly at the limit is kept.
      const fits = "a".repeat(TEXT_LIMIT_BYTES - width) + char + "b";
      const { shown } = parseTruncated(truncateText(fits));
      assert.ok(shown.endsWith(char));
      assert.equal(bytes(shown), TEXT_LIMIT_BYTES);
    });
  }
  await t.step("a text made only of emoji (surrogate pairs) is cut on a pair boundary", () => {
    const text = "😀".repeat(20000); // 80000 bytes
    const out = truncateText(text);
    assertCut(text, out);
    const { shown } = parseTruncated(out);
    assert.equal(shown, "😀".repeat(16384));
  });
  await t.step("a ZWJ emoji sequence and combining marks are cut between code points", () => {
    const family = "👨‍👩‍👧‍👦";
    const text = "x".repeat(TEXT_LIMIT_BYTES - 10) + family.repeat(3);
    assertCut(text, truncateText(text));
    const combining = "e\u0301".repeat(30000);
    assertCut(combining, truncateText(combining));
  });
  await t.step("mixed widths at every offset around the limit", () => {
    const pattern = "aé€😀";
    for (let pad = 0; pad < 10; pad++) {
      const text = "z".repeat(pad) + pattern.repeat(7000);
      assertCut(text, truncateText(text));
    }
  });
  await t.step("a lone surrogate counts as three bytes, as TextEncoder writes it", () => {
    const text = "a".repeat(TEXT_LIMIT_BYTES - 2) + "\ud800" + "bbbb";
    const { totalBytes } = parseTruncated(truncateText(text));
    assert.equal(totalBytes, bytes(text));
  });
});

Deno.test("boundResult: text blocks", async (t) => {
  await t.step("every text block is bounded independently", () => {
    const long1 = "1".repeat(TEXT_LIMIT_BYTES + 5);
    const long2 = "€".repeat(30000);
    const result = {
      content: [
        { type: "text", text: "short" },
        { type: "text", text: long1 },
        { type: "text", text: long2, annotations: { audience: ["user"] } },
      ],
      isError: false,
    };
    const out = boundResult(result);
    const content = out.content as { type: string; text: string; annotations?: unknown }[];
    assert.equal(content.length, 3);
    assert.equal(content[0].text, "short");
    assertCut(long1, content[1].text);
    assertCut(long2, content[2].text);
    assert.deepEqual(content[2].annotations, { audience: ["user"] }, "other block fields are kept");
    assert.equal(out.isError, false);
    assert.equal((result.content[1] as { text: string }).text, long1, "the input is not modified");
  });
  await t.step("image, audio, blob and link blocks pass through unchanged; resource text is bounded", () => {
    const big = "A".repeat(300_000);
    const blocks = [
      { type: "image", data: big, mimeType: "image/png" },
      { type: "audio", data: big, mimeType: "audio/wav" },
      { type: "resource", resource: { uri: "file:///x", text: big, mimeType: "text/plain" } },
      { type: "resource", resource: { uri: "file:///y", blob: big, mimeType: "application/octet-stream" } },
      { type: "resource_link", uri: "https://relay.example.test/r/acme/x", name: "x" },
      { type: "something_new", text: big },
    ];
    const out = boundResult({ content: structuredClone(blocks) });
    const textResource = out.content[2] as unknown as { resource: { text: string; uri: string } };
    assertCut(big, textResource.resource.text);
    assert.equal(textResource.resource.uri, "file:///x");
    assert.deepEqual([...out.content.slice(0, 2), ...out.content.slice(3)], [
      ...blocks.slice(0, 2),
      ...blocks.slice(3),
    ]);
  });
  await t.step("URLs and addresses in text are not rewritten", () => {
    const text = "see https://relay.example.test/r/acme/mcp and 30617:abc:repo and /r/acme/files/x";
    assert.deepEqual(boundResult({ content: [{ type: "text", text }] }).content, [{ type: "text", text }]);
  });
});

/** An object whose JSON is exactly `size` UTF-8 bytes: {"d":"xxx…"}. */
function structuredOf(size: number, filler = "x"): Record<string, unknown> {
  const value = { d: filler.repeat(Math.floor((size - 8) / bytes(filler))) };
  const json = JSON.stringify(value);
  const missing = size - bytes(json);
  value.d += "y".repeat(missing);
  assert.equal(bytes(JSON.stringify(value)), size);
  return value;
}

Deno.test("boundResult: structuredContent", async (t) => {
  await t.step(`exactly ${STRUCTURED_LIMIT_BYTES} bytes of JSON is kept`, () => {
    const structured = structuredOf(STRUCTURED_LIMIT_BYTES);
    const out = boundResult({ content: [{ type: "text", text: "ok" }], structuredContent: structured });
    assert.equal(out.structuredContent, structured);
    assert.deepEqual(out.content, [{ type: "text", text: "ok" }]);
  });
  await t.step(
    `${STRUCTURED_LIMIT_BYTES + 1} bytes is replaced, and the first text block gains the note`,
    () => {
      const structured = structuredOf(STRUCTURED_LIMIT_BYTES + 1);
      const out = boundResult({
        content: [
          { type: "image", data: "iVBOR", mimeType: "image/png" },
          { type: "text", text: "first" },
          { type: "text", text: "second" },
        ],
        structuredContent: structured,
        isError: false,
      });
      assert.deepEqual(out.structuredContent, structuredTruncated(STRUCTURED_LIMIT_BYTES + 1));
      assert.deepEqual(out.content, [
        { type: "image", data: "iVBOR", mimeType: "image/png" },
        { type: "text", text: `first\n${note(STRUCTURED_LIMIT_BYTES + 1)}` },
        { type: "text", text: "second" },
      ]);
      assert.equal(out.isError, false);
    },
  );
  await t.step("the count is UTF-8 bytes of the JSON, not UTF-16 units", () => {
    // 131068 two-byte characters: about 131k UTF-16 units but 262145 UTF-8 bytes.
    const structured = structuredOf(STRUCTURED_LIMIT_BYTES + 1, "é");
    assert.ok(JSON.stringify(structured).length < STRUCTURED_LIMIT_BYTES);
    const out = boundResult({ content: [{ type: "text", text: "t" }], structuredContent: structured });
    assert.deepEqual(out.structuredContent, structuredTruncated(STRUCTURED_LIMIT_BYTES + 1));
    assert.equal((out.content[0] as { text: string }).text, `t\n${note(STRUCTURED_LIMIT_BYTES + 1)}`);
  });
  await t.step("with no text block, the note is added as a new text block", () => {
    const structured = structuredOf(300_000);
    const image = { type: "image", data: "R0lGOD", mimeType: "image/gif" };
    const out = boundResult({ content: [image], structuredContent: structured });
    assert.deepEqual(out.content, [image, { type: "text", text: note(300_000) }]);
    assert.deepEqual(out.structuredContent, structuredTruncated(300_000));
  });
  await t.step("with no content at all, the note is the only block", () => {
    const out = boundResult({ structuredContent: structuredOf(STRUCTURED_LIMIT_BYTES + 10) });
    assert.deepEqual(out.content, [{ type: "text", text: note(STRUCTURED_LIMIT_BYTES + 10) }]);
  });
  await t.step("a truncated first text block still gains the note after its marker", () => {
    const long = "a".repeat(TEXT_LIMIT_BYTES + 1);
    const out = boundResult({
      content: [{ type: "text", text: long }],
      structuredContent: structuredOf(STRUCTURED_LIMIT_BYTES + 1),
    });
    const text = (out.content[0] as { text: string }).text;
    assert.ok(text.endsWith(`\n${note(STRUCTURED_LIMIT_BYTES + 1)}`));
    assertCut(long, text.slice(0, -(note(STRUCTURED_LIMIT_BYTES + 1).length + 1)));
  });
  await t.step("small structuredContent of any JSON type is kept as is", () => {
    for (const value of [{ a: 1 }, [1, 2], "text", 0, null, false]) {
      const out = boundResult({ content: [], structuredContent: value });
      assert.deepEqual(out.structuredContent, value);
      assert.deepEqual(out.content, []);
    }
  });
  await t.step("a result without structuredContent gets none", () => {
    const out = boundResult({ content: [{ type: "text", text: "x" }] });
    assert.ok(!("structuredContent" in out));
  });
});

/** A small deterministic generator so failures reproduce. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

Deno.test("utf8Length equals TextEncoder's length", async (t) => {
  await t.step("fixed cases, including lone and reversed surrogates", () => {
    const cases = [
      "",
      "a",
      "\u007f",
      "\u0080",
      "\u07ff",
      "\u0800",
      "\uffff",
      "😀",
      "\ud83d",
      "\ude00",
      "\ude00\ud83d",
      "a\ud800b",
      "\ud800\ud800\udc00",
      "\udbff\udfff",
      "x\ud800",
    ];
    for (const text of cases) assert.equal(utf8Length(text), bytes(text), JSON.stringify(text));
  });
  await t.step("random strings over every range, with lone surrogates", () => {
    const random = prng(0x5eed);
    const ranges: [number, number][] = [
      [0x00, 0x7f],
      [0x80, 0x7ff],
      [0x800, 0xd7ff],
      [0xd800, 0xdbff], // high surrogates, paired or not
      [0xdc00, 0xdfff], // low surrogates, paired or not
      [0xe000, 0xffff],
    ];
    for (let round = 0; round < 2000; round++) {
      const length = Math.floor(random() * 40);
      const units: number[] = [];
      for (let i = 0; i < length; i++) {
        const [low, high] = ranges[Math.floor(random() * ranges.length)];
        units.push(low + Math.floor(random() * (high - low + 1)));
      }
      const text = String.fromCharCode(...units);
      assert.equal(utf8Length(text), bytes(text), JSON.stringify(text));
    }
  });
});
