// A read's contents (lib/resources/render.ts): every kind rendered from the real relay's shapes,
// ?as=json as the relay's answer itself, an unrecognised answer as JSON with a note, the bound's
// marker explained, never a throw whatever the answer, and an answer for another resource caught.

import assert from "node:assert/strict";
import { answerMismatch, jsonText, renderRead, unrecognised } from "../../lib/resources/render.ts";
import { parseUri } from "../../lib/resources/uri.ts";
import {
  attachment,
  CTX,
  id,
  OWNER,
  READ_ISSUE,
  READ_JOB,
  READ_PULL,
  READ_REPOSITORY,
  READ_ROOM,
  READ_THREAD,
  READ_WIKI,
} from "./fixtures.ts";

const BASE = CTX.base;
const R = "tiny://relay.example";
const REPO = `${R}/repo/${OWNER}/tinyagent`;

/** Each kind's URI with a realistic answer, and how its markdown begins. */
const READS: [string, unknown, string][] = [
  [`${R}/room/general`, READ_ROOM, "# General (#general)\n"],
  [`${R}/room/general/thread/${id("11")}`, READ_THREAD, "# Thread in General (#general): Plans for March\n"],
  [REPO, READ_REPOSITORY, "# Repository tinyagent\n"],
  [`${REPO}/issue/${id("31")}`, READ_ISSUE, "# Issue: Rooms do not list\n"],
  [`${REPO}/pull/${id("41")}`, READ_PULL, "# Pull request: Add resources\n"],
  [`${R}/wiki/getting-started`, READ_WIKI, "# Getting started\n"],
  [`${R}/job/${id("61")}`, READ_JOB, "# Long task: Summarise the week\n"],
];

function read(uri: string, answer: unknown) {
  const parsed = parseUri(BASE, uri);
  assert.ok(parsed.ok, uri);
  return renderRead(parsed.value, answer, { ...CTX, uri });
}

Deno.test("every kind reads as text/markdown under the URI as asked", () => {
  for (const [uri, answer, start] of READS) {
    const { contents } = read(uri, answer);
    assert.equal(contents.length, 1);
    const [item] = contents;
    assert.equal(item.uri, uri);
    assert.equal(item.mimeType, "text/markdown");
    assert.ok(
      "text" in item && item.text.startsWith(start),
      `${uri}: ${"text" in item ? item.text.slice(0, 80) : ""}`,
    );
  }
  // The URI as asked, even written in another (accepted) spelling.
  const asked = "tiny://RELAY.example/room/gen%65ral";
  assert.equal(read(asked, READ_ROOM).contents[0].uri, asked);
});

Deno.test("?as=json: the relay's answer pretty-printed as application/json, hiding characters escaped", () => {
  for (const [uri, answer] of READS) {
    const { contents } = read(`${uri}?as=json`, answer);
    assert.deepEqual(contents, [{
      uri: `${uri}?as=json`,
      mimeType: "application/json",
      text: JSON.stringify(answer, null, 2),
    }]);
  }
  const hostile = { name: "a\u202eb\u0000c\u2028" };
  assert.equal(jsonText(hostile), '{\n  "name": "a\\u202eb\\u0000c\\u2028"\n}');
  assert.deepEqual(JSON.parse(jsonText(hostile)), hostile);
  assert.equal(jsonText(undefined), "null");
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(jsonText(cyclic), "null");
  assert.equal(jsonText(10n), "null");
});

Deno.test("files keep their own type: text as text, other files as a blob", () => {
  const file = `${R}/file/${id("71")}`;
  assert.deepEqual(read(file, attachment("text/csv", new TextEncoder().encode("a,b\n1,2\n"))).contents, [
    { uri: file, mimeType: "text/csv", text: "a,b\n1,2\n" },
  ]);
  const png = attachment("image/png", Uint8Array.of(137, 80, 78, 71));
  assert.deepEqual(read(file, png).contents, [{ uri: file, mimeType: "image/png", blob: png.data }]);
  const [fallback] = read(file, { type: "image/png" }).contents;
  assert.equal(fallback.mimeType, "text/markdown");
  assert.ok(
    "text" in fallback &&
      fallback.text.startsWith("tinyagent does not recognise this answer of read_attachment"),
  );
});

Deno.test("an answer that is not recognised is its JSON in a fence, with one line saying so", () => {
  const garbage: unknown[] = [undefined, null, 0, "text", [], {}, { unexpected: ["```", "\u202e"] }, [
    READ_ROOM,
  ]];
  for (const [uri] of READS) {
    for (const answer of garbage) {
      const [item] = read(uri, answer).contents;
      assert.equal(item.mimeType, "text/markdown");
      assert.ok("text" in item);
      const tool = uri.includes("/thread/") ? "read_thread" : "";
      if (tool) assert.ok(item.text.includes(tool));
      assert.ok(
        item.text.startsWith("tinyagent does not recognise this answer of read_"),
        `${uri} ${JSON.stringify(answer)}`,
      );
      assert.ok(!item.text.includes("\u202e"));
    }
  }
  assert.equal(
    unrecognised("read_job", { a: "````" }),
    'tinyagent does not recognise this answer of read_job; here it is as the relay gave it.\n\n`````json\n{\n  "a": "````"\n}\n`````\n',
  );
});

Deno.test("tinyagent's 256 KiB marker is explained, not shown as a resource", () => {
  const [item] = read(`${R}/room/general`, { truncated: true, bytes: 300_000 }).contents;
  assert.ok("text" in item && item.text.includes("(300,000 bytes) was over tinyagent's 256 KiB bound"));
  assert.ok(item.text.includes("Call read_room with a smaller limit"));
  const [json] = read(`${R}/room/general?as=json`, { truncated: true, bytes: 300_000 }).contents;
  assert.deepEqual(json, {
    uri: `${R}/room/general?as=json`,
    mimeType: "application/json",
    text: '{\n  "truncated": true,\n  "bytes": 300000\n}',
  });
});

Deno.test("an answer naming another resource than the one asked is caught", () => {
  const address = (uri: string) => {
    const parsed = parseUri(BASE, uri);
    assert.ok(parsed.ok);
    return parsed.value.address;
  };
  for (const [uri, answer] of READS) assert.equal(answerMismatch(address(uri), answer), undefined, uri);
  const cases: [string, unknown, string][] = [
    [`${R}/room/random`, READ_ROOM, "{id}"],
    [`${R}/room/general/thread/${id("99")}`, READ_THREAD, "{event}"],
    [`${R}/repo/${OWNER}/other`, READ_REPOSITORY, "{name}"],
    [`${R}/repo/${"ee".repeat(32)}/tinyagent/issue/${id("31")}`, READ_ISSUE, "{owner}"],
    [`${REPO.replace("tinyagent", "other")}/issue/${id("31")}`, READ_ISSUE, "{name}"],
    [`${REPO}/pull/${id("99")}`, READ_PULL, "{id}"],
    [`${R}/job/${id("99")}`, READ_JOB, "{id}"],
    [`${R}/file/${id("99")}`, attachment("text/plain", new Uint8Array()), "{sha256}"],
  ];
  for (const [uri, answer, variable] of cases) {
    const words = answerMismatch(address(uri), answer);
    assert.ok(words?.includes(variable) && words.includes("not the one asked"), `${uri}: ${words}`);
  }
  // What the answer does not say is not compared; a wiki page's name is the relay's to normalize.
  assert.equal(answerMismatch(address(`${R}/room/x`), { messages: [] }), undefined);
  assert.equal(answerMismatch(address(`${R}/wiki/Getting%20Started`), READ_WIKI), undefined);
  const hostile = answerMismatch(address(`${R}/room/x`), { room: { id: `y\u202e${"z".repeat(500)}` } })!;
  assert.ok(!hostile.includes("\u202e") && hostile.length < 200, hostile);
});
