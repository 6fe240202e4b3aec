// The markdown renderings are built from (lib/resources/markdown.ts): inline text that cannot open
// markup, code spans and fences that relay text cannot close, visible cuts, UTC times, keys.

import assert from "node:assert/strict";
import {
  code,
  cutNote,
  fenced,
  inline,
  isoTime,
  joined,
  moreNote,
  type RenderContext,
  shortId,
  when,
  who,
} from "../../lib/resources/markdown.ts";

const KEY = "3bf0c63fcb93463407af97a5e5ee64fa883d107ef9e558472c4eb9aaaefa459d";
const CTX: RenderContext = { uri: "tiny://h/room/x", base: { host: "h" } };

Deno.test("inline: one line, hiding characters escaped, markup punctuation escaped", () => {
  const cases: [string, string][] = [
    ["General", "General"],
    ["**bold** _it_ `code`", "\\*\\*bold\\*\\* \\_it\\_ \\`code\\`"],
    ["[link](https://x) ![img](https://x/p.png)", "\\[link\\](https://x) \\!\\[img\\](https://x/p.png)"],
    ["<script>alert(1)</script> &amp;", "\\<script\\>alert(1)\\</script\\> \\&amp;"],
    ["a | b ~~c~~", "a \\| b \\~\\~c\\~\\~"],
    ["two\nlines\r\n# Fake", "two lines # Fake"],
    ["rtl\u202eevil", "rtl\\\\u202eevil"],
  ];
  for (const [input, want] of cases) assert.equal(inline(input), want, JSON.stringify(input));
  assert.equal(inline("x".repeat(300), 5), "xxxxx…");
});

Deno.test("code spans: delimited past any backtick run, on one line", () => {
  assert.equal(code("general"), "`general`");
  assert.equal(code("a`b"), "``a`b``");
  assert.equal(code("``x"), "``` ``x ```");
  assert.equal(code("a\nb\u202e"), "`a b\\u202e`");
});

Deno.test("fenced: the fence outgrows every backtick run, lines kept, hiding escaped, cut visibly", () => {
  assert.deepEqual(fenced("hello\nworld\n", 100), ["```text", "hello", "world", "```"]);
  assert.deepEqual(fenced("x\r\ny\rz", 100), ["```text", "x", "y", "z", "```"]);
  assert.deepEqual(fenced("```\nend```", 100), ["````text", "```", "end```", "````"]);
  assert.deepEqual(fenced("``````", 100, "diff"), ["```````diff", "``````", "```````"]);
  assert.deepEqual(fenced("\u001b[2J\u202e", 100), ["```text", "\\u001b[2J\\u202e", "```"]);
  assert.deepEqual(fenced("abcdef", 3), ["```text", "abc", "```", cutNote(3)]);
  assert.equal(
    cutNote(1234567),
    "[cut: 1,234,567 more characters not shown; ?as=json gives the relay's whole answer]",
  );
  // Many backtick runs: measured without spreading them into arguments.
  const many = "`a".repeat(150_000);
  assert.equal(fenced(many, 300_000)[0], "```text");
});

Deno.test("times in UTC, ISO-like; anything else is an unknown time", () => {
  assert.equal(when(1767225600), "2026-01-01 00:00:00 UTC");
  assert.equal(when(1767225600.9), "2026-01-01 00:00:00 UTC");
  // The same however many times are written (past the bound on those kept, too).
  const seconds = Array.from({ length: 1500 }, (_, i) => 1767225600 + i * 7919);
  for (const round of [1, 2]) {
    for (const s of seconds) {
      const iso = new Date(s * 1000).toISOString();
      assert.equal(when(s), `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC`, `round ${round}: ${s}`);
    }
  }
  for (const bad of [undefined, -1, NaN, Infinity, 1e20]) assert.equal(when(bad), "an unknown time");
  assert.equal(isoTime(1767225600), "2026-01-01T00:00:00Z");
  assert.equal(isoTime(0), undefined);
  assert.equal(isoTime(undefined), undefined);
});

Deno.test("who: a short npub, a known name beside it (escaped), (you) for the agent", () => {
  assert.equal(who(KEY, CTX), "npub180cvv07t…h6w6");
  assert.equal(who(KEY, { ...CTX, names: new Map([[KEY, "alice"]]) }), "alice (npub180cvv07t…h6w6)");
  assert.equal(
    who(KEY, { ...CTX, names: new Map([[KEY, "**bob**\n# x"]]) }),
    "\\*\\*bob\\*\\* # x (npub180cvv07t…h6w6)",
  );
  assert.equal(who(KEY, { ...CTX, names: new Map([[KEY, "  "]]) }), "npub180cvv07t…h6w6");
  assert.equal(who(KEY, { ...CTX, self: KEY }), "npub180cvv07t…h6w6 (you)");
  assert.equal(who(undefined, CTX), "an unknown author");
  assert.equal(who("not-a-key`", CTX), "an invalid key `` not-a-key` ``");
});

Deno.test("short ids, joined names, notes of what is not shown", () => {
  assert.equal(shortId("ab".repeat(32)), "`abababababab…`");
  assert.equal(shortId(undefined), "an unknown event");
  assert.equal(joined(["a", "b", "c"], 2), "a, b and 1 more");
  assert.equal(joined(["a", "b"], 2), "a, b");
  assert.deepEqual(moreNote(10, 4, "older events"), ["[6 more older events not shown]", ""]);
  assert.deepEqual(moreNote(4, 4, "x"), []);
});
