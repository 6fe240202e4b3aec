// A read shaped as its URI asks (lib/resources/read_shape.ts): the whole with its links in _meta;
// ?lines= under the URI asked, past the end refused with the span that fits; ?pointer= into the
// JSON, refused naming the member meant; ?as=links a page at a time; a text over the cap a note.

import assert from "node:assert/strict";
import { TEXT_CAP } from "../../lib/resources/cap_note.ts";
import { LINKS_KEY } from "../../lib/resources/links.ts";
import type { ReadQuery } from "../../lib/resources/query.ts";
import { type ReadParts, refusedSpan, shapeRead } from "../../lib/resources/read_shape.ts";
import { INVALID_PARAMS } from "../../lib/wire/mcp.ts";

const R = "tiny://relay.example/room/general";
const TEXT = "# General\n\nline three\nline four\n";
const LINKS = [{ rel: "up", href: "tiny://relay.example/room/" }];

function parts(query: ReadQuery, uri: string, text = TEXT): ReadParts {
  return {
    uri,
    plain: R,
    query,
    item: { uri, mimeType: "text/markdown", text },
    document: { room: { id: "general", tags: ["a", "b"] } },
    links: LINKS,
  };
}

Deno.test("the whole read, its links in _meta", () => {
  const shaped = shapeRead(parts({ as: "markdown" }, R));
  assert.deepEqual(shaped, {
    ok: true,
    result: { contents: [{ uri: R, mimeType: "text/markdown", text: TEXT }], _meta: { [LINKS_KEY]: LINKS } },
  });
});

Deno.test("lines: under the URI asked; past the end, the span that fits", () => {
  const uri = `${R}?lines=3-4`;
  const shaped = shapeRead(parts({ as: "markdown", lines: { first: 3, last: 4 } }, uri));
  assert.ok(shaped.ok);
  assert.deepEqual(shaped.result.contents, [{
    uri,
    mimeType: "text/markdown",
    text: "line three\nline four\n",
  }]);
  const past = shapeRead(parts({ as: "markdown", lines: { first: 3, last: 9 } }, `${R}?lines=3-9`));
  assert.ok(!past.ok);
  assert.equal(past.refusal.why, "lines=3-9 is past the end: there are 4 lines");
  assert.deepEqual(past.refusal.near, [{ as: "markdown", lines: { first: 3, last: 4 } }]);
  const refused = refusedSpan({ host: "relay.example" }, `${R}?lines=3-9`, {
    kind: "room",
    values: { id: "general" },
  }, past.refusal);
  assert.equal(refused.error.code, INVALID_PARAMS);
  assert.deepEqual(refused.error.data, {
    uri: `${R}?lines=3-9`,
    nearest: [`${R}?lines=3-4`],
    reason: "bad-query",
  });
});

Deno.test("pointer: the value as JSON; a member misspelt, refused naming it", () => {
  const uri = `${R}?as=json&pointer=/room/tags/1`;
  const shaped = shapeRead(parts({ as: "json", pointer: "/room/tags/1" }, uri));
  assert.ok(shaped.ok);
  assert.deepEqual(shaped.result.contents, [{ uri, mimeType: "application/json", text: '"b"' }]);
  const wrong = shapeRead(parts({ as: "json", pointer: "/rom" }, `${R}?as=json&pointer=/rom`));
  assert.ok(!wrong.ok);
  assert.deepEqual(wrong.refusal.near, [{ as: "json", pointer: "/room" }]);
});

Deno.test("as=links: the whole set a page at a time, each page ending in next", () => {
  const many = Array.from({ length: 150 }, (_, i) => ({ rel: "tiny:thread", href: `${R}/thread/${i}` }));
  const first = shapeRead({ ...parts({ as: "links" }, `${R}?as=links`), links: many });
  assert.ok(first.ok);
  const page = JSON.parse((first.result.contents[0] as { text: string }).text);
  assert.equal(page.total, 150);
  assert.deepEqual(page.links.at(-1), { rel: "next", href: `${R}?as=links&cursor=99` });
  const second = shapeRead({
    ...parts({ as: "links", cursor: "99" }, `${R}?as=links&cursor=99`),
    links: many,
  });
  assert.ok(second.ok);
  assert.equal(JSON.parse((second.result.contents[0] as { text: string }).text).links.length, 51);
  const beyond = shapeRead({
    ...parts({ as: "links", cursor: "500" }, `${R}?as=links&cursor=500`),
    links: many,
  });
  assert.ok(!beyond.ok);
  const capped = shapeRead({ ...parts({ as: "markdown" }, R), links: many });
  assert.ok(capped.ok);
  const meta = capped.result._meta![LINKS_KEY] as { rel: string; href: string; count?: number }[];
  assert.equal(meta.length, 100);
  assert.deepEqual(meta.at(-1), { rel: "tiny:links", href: `${R}?as=links`, count: 150 });
});

Deno.test("a text over the cap reads as a note naming its pieces; a piece over it is refused with one under", () => {
  const line = "x".repeat(999) + "\n";
  const big = line.repeat(Math.ceil((TEXT_CAP * 2) / line.length));
  const shaped = shapeRead(parts({ as: "markdown" }, R, big));
  assert.ok(shaped.ok);
  const text = (shaped.result.contents[0] as { text: string }).text;
  assert.match(text, /over the cap of 262,144 for one read, so it comes in 3 pieces of whole lines/);
  assert.ok(text.includes(`${R}?lines=1-262`));
  const wide = shapeRead(parts({ as: "markdown", lines: { first: 1, last: 500 } }, `${R}?lines=1-500`, big));
  assert.ok(!wide.ok);
  assert.deepEqual(wide.refusal.near, [{ as: "markdown", lines: { first: 1, last: 262 } }]);
});
