// What a write means, in words a person can check (lib/oversight/write_summary.ts): places from
// tags, one phrase per kind, and every relay string made safe to show.

import assert from "node:assert/strict";
import {
  meaningOf,
  placeOf,
  placeText,
  printable,
  printableBlock,
  quoted,
  tagLines,
  tagValue,
  uploadMeaning,
} from "../../lib/oversight/write_summary.ts";

const ID = "ab".repeat(32);
const KEY = "cd".repeat(32);

Deno.test("printable and quoted: controls, C1 and direction marks become visible escapes", () => {
  assert.equal(printable("a\u001b[31mred\u001b[0m", 100), "a\\u001b[31mred\\u001b[0m");
  assert.equal(printable("x\u202Eevil\u2066y\u0085", 100), "x\\u202eevil\\u2066y\\u0085");
  assert.equal(printable("line\nbreak\ttab", 100), "line\\u000abreak\\u0009tab");
  assert.equal(quoted("line\nbreak \u202E", 100), '"line\\nbreak \\u202e"');
  assert.equal(quoted('say "hi"', 100), '"say \\"hi\\""');
});

Deno.test("printable cuts by characters, never inside one, and says so with an ellipsis", () => {
  assert.equal(printable("abcdef", 3), "abc…");
  assert.equal(printable("abc", 3), "abc");
  assert.equal(printable("😀😀😀😀", 2), "😀😀…");
  assert.equal(quoted("😀😀😀", 1), '"😀…"');
});

Deno.test("printableBlock keeps lines, escapes the rest, and says how much was cut", () => {
  assert.equal(printableBlock("one\r\ntwo\rthree\u001b", 100), "one\ntwo\nthree\\u001b");
  assert.equal(
    printableBlock("x".repeat(2_500), 2_000),
    `${"x".repeat(2_000)}\n[cut: 500 more characters not shown]`,
  );
  assert.equal(printableBlock("short", 2_000), "short");
});

Deno.test("places: the room (h), and a thread when the event names its root", () => {
  assert.deepEqual(placeOf({ kind: 9, tags: [["h", "general"]], content: "" }), { room: "general" });
  assert.deepEqual(placeOf({ kind: 12, tags: [["h", "general"], ["e", ID, "", "root"]], content: "" }), {
    room: "general",
    thread: ID,
  });
  // A kind 12 reply names its root with an e tag whatever its marker.
  assert.deepEqual(placeOf({ kind: 12, tags: [["h", "r"], ["e", ID]], content: "" }), {
    room: "r",
    thread: ID,
  });
  // Another kind's unmarked e tag is a reference, not a thread.
  assert.deepEqual(placeOf({ kind: 7, tags: [["e", ID], ["h", "r"]], content: "+" }), { room: "r" });
  assert.deepEqual(placeOf({ kind: 1111, tags: [["E", ID]], content: "" }), {});
  assert.equal(placeText({}), "");
  assert.equal(placeText({ room: "general" }), ' in room "general"');
  assert.equal(placeText({ room: "general", thread: ID }), ` in thread ${ID} of room "general"`);
  assert.equal(placeText({ room: "a\nb" }), ' in room "a\\nb"');
  assert.equal(tagValue([["h"], ["h", "x"]], "h"), "x");
});

Deno.test("what a write means, kind by kind", () => {
  const cases: [string, { kind: number; tags: string[][]; content: string }, string][] = [
    ["post_message", { kind: 9, tags: [["h", "general"]], content: "hi" }, 'a message in room "general"'],
    [
      "request_decision",
      { kind: 9, tags: [["h", "ops"], ["p", KEY], ["request", "approve"]], content: "ok?" },
      `a request to ${KEY.slice(0, 16)}… to approve, as a message in room "ops"`,
    ],
    [
      "start_thread",
      { kind: 11, tags: [["h", "g"], ["title", "Plans"]], content: "" },
      'a new thread "Plans" in room "g"',
    ],
    [
      "reply_in_thread",
      { kind: 12, tags: [["h", "g"], ["e", ID, "", "root"]], content: "" },
      `a reply in thread ${ID} of room "g"`,
    ],
    ["react", { kind: 7, tags: [["e", ID]], content: "+" }, `a reaction "+" to event ${ID.slice(0, 16)}…`],
    [
      "comment",
      { kind: 1111, tags: [["E", ID, "", KEY], ["K", "1621"]], content: "" },
      `a comment on issue ${ID.slice(0, 16)}…`,
    ],
    [
      "comment",
      { kind: 1111, tags: [["E", ID], ["K", "1618"]], content: "" },
      `a comment on pull request ${ID.slice(0, 16)}…`,
    ],
    [
      "request_grant",
      {
        kind: 1111,
        tags: [["grant", JSON.stringify({ base: ID, changes: { rooms: ["ops"] } })]],
        content: "",
      },
      'a request to the grant\'s operator for more permissions: {"rooms":["ops"]}',
    ],
    [
      "create_issue",
      { kind: 1621, tags: [["a", `30617:${KEY}:seedmark`], ["subject", "Broken"]], content: "" },
      `an issue "Broken" on repository "seedmark" of ${KEY.slice(0, 16)}…`,
    ],
    ["create_pull_request", { kind: 1618, tags: [], content: "" }, "a pull request on a repository"],
    [
      "publish_wiki_page",
      { kind: 30818, tags: [["d", "howto"]], content: "" },
      'this key\'s version of the wiki page "howto"',
    ],
    [
      "propose_wiki_merge",
      { kind: 818, tags: [["a", `30818:${KEY}:howto`]], content: "" },
      'a merge request for the wiki page "howto"',
    ],
    [
      "request_job",
      { kind: 43001, tags: [["h", "g"], ["p", KEY]], content: "" },
      `a job request to ${KEY.slice(0, 16)}… in room "g"`,
    ],
    [
      "accept_job",
      { kind: 43002, tags: [["e", ID], ["h", "g"]], content: "" },
      `taking on job ${ID.slice(0, 16)}… in room "g"`,
    ],
    ["job_progress", { kind: 43003, tags: [["e", ID]], content: "" }, `progress on job ${ID.slice(0, 16)}…`],
    ["job_result", { kind: 43004, tags: [["e", ID]], content: "" }, `the result of job ${ID.slice(0, 16)}…`],
    ["job_error", { kind: 43006, tags: [["e", ID]], content: "" }, `the failure of job ${ID.slice(0, 16)}…`],
    ["cancel_job", { kind: 43005, tags: [], content: "" }, "the cancellation of job an unnamed event"],
    ["post_message", { kind: 30023, tags: [["h", "g"]], content: "" }, 'a kind 30023 event in room "g"'],
  ];
  for (const [tool, event, meaning] of cases) {
    assert.equal(meaningOf(tool, event), meaning, `${tool} ${event.kind}`);
  }
});

Deno.test("an upload's meaning, from its arguments alone", () => {
  assert.equal(
    uploadMeaning({ room: "general", filename: "cat.png", type: "image/png", data: "A".repeat(4_000) }),
    'a file "cat.png" stored in room "general", image/png, about 3,000 bytes',
  );
  assert.equal(uploadMeaning({}), "a file stored");
});

Deno.test("tag lines: each value cut, at most twelve, the rest counted", () => {
  const tags = Array.from({ length: 15 }, (_, i) => ["p", `${i}`.repeat(150)]);
  const lines = tagLines(tags);
  assert.equal(lines.length, 13);
  assert.equal(lines.at(-1), "(and 3 more tags)");
  assert.ok(lines[0].length < 110);
  assert.deepEqual(tagLines([["h", "a\u001bb"]]), ["h: a\\u001bb"]);
});
