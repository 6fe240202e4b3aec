// Client-side filter matching (lib/stream/filter.ts), rpc-facts.md 4.6: each condition alone and
// combined, tag conditions on a tag's second element, a condition of the wrong JSON type never
// matching, limit/search/other keys ignored, and matchesAny.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import { matchesAny, matchesFilter } from "../../lib/stream/filter.ts";
import type { SignedEvent } from "../../lib/key/signer.ts";

const secret = generateSecretKey();
const AUTHOR = getPublicKey(secret);
const OTHER = "ab".repeat(32);
const ROOT = "cd".repeat(32);
const AT = 1_700_000_000;

function eventWith(tags: string[][]): SignedEvent {
  const { id, pubkey, created_at, kind, content, sig } = finalizeEvent(
    { kind: 9, created_at: AT, tags, content: "hello" },
    secret,
  );
  return { id, pubkey, created_at, kind, tags, content, sig };
}

const EVENT = eventWith([["h", "general"], ["e", ROOT, "", "root"], ["p", OTHER], ["t"], [
  "x",
  "a",
  "general",
]]);

function table(cases: [string, unknown, boolean][], event = EVENT) {
  return async (t: Deno.TestContext) => {
    for (const [name, filter, expected] of cases) {
      await t.step(`${expected ? "matches" : "no match"}: ${name}`, () => {
        assert.equal(matchesFilter(event, filter), expected, JSON.stringify(filter));
      });
    }
  };
}

Deno.test("no condition: everything matches", table([["{}", {}, true]]));

Deno.test(
  "ids and authors: exact strings",
  table([
    ["its id", { ids: [EVENT.id] }, true],
    ["its id among others", { ids: [OTHER, EVENT.id] }, true],
    ["another id", { ids: [OTHER] }, false],
    ["an empty list", { ids: [] }, false],
    ["its id uppercased", { ids: [EVENT.id.toUpperCase()] }, false],
    ["a prefix of its id", { ids: [EVENT.id.slice(0, 8)] }, false],
    ["its author", { authors: [AUTHOR] }, true],
    ["another author", { authors: [OTHER] }, false],
    ["no authors", { authors: [] }, false],
  ]),
);

Deno.test(
  "kinds",
  table([
    ["its kind", { kinds: [9] }, true],
    ["among others", { kinds: [1, 9, 12] }, true],
    ["another kind", { kinds: [1] }, false],
    ["no kinds", { kinds: [] }, false],
  ]),
);

Deno.test(
  "since and until: since <= created_at <= until",
  table([
    ["since its time", { since: AT }, true],
    ["since before", { since: AT - 1 }, true],
    ["since after", { since: AT + 1 }, false],
    ["until its time", { until: AT }, true],
    ["until after", { until: AT + 1 }, true],
    ["until before", { until: AT - 1 }, false],
    ["a window around it", { since: AT - 300, until: AT + 300 }, true],
    ["the window of its own second", { since: AT, until: AT }, true],
    ["a window before it", { since: AT - 300, until: AT - 1 }, false],
    ["an empty window", { since: AT + 1, until: AT - 1 }, false],
  ]),
);

Deno.test(
  "#<name>: some tag of that name whose second element is listed",
  table([
    ["#h", { "#h": ["general"] }, true],
    ["#h among others", { "#h": ["ops", "general"] }, true],
    ["#h of another room", { "#h": ["ops"] }, false],
    ["#h with no values", { "#h": [] }, false],
    ["#e", { "#e": [ROOT] }, true],
    ["#e, another id", { "#e": [OTHER] }, false],
    ["#p", { "#p": [OTHER] }, true],
    ["#p, the author is not a p tag", { "#p": [AUTHOR] }, false],
    ["a tag without a second element never matches", { "#t": [""] }, false],
    ["a value only in a third element", { "#x": ["general"] }, false],
    ["#x on its second element", { "#x": ["a"] }, true],
    ["a name no tag has", { "#k": ["9"] }, false],
    ["names are case-sensitive", { "#H": ["general"] }, false],
    ["the marker is not the value", { "#e": ["root"] }, false],
    ["both tag conditions hold", { "#h": ["general"], "#p": [OTHER] }, true],
    ["one of two tag conditions fails", { "#h": ["general"], "#p": [AUTHOR] }, false],
  ]),
);

Deno.test(
  "a condition of the wrong JSON type never matches",
  table([
    ['kinds: "9"', { kinds: "9" }, false],
    ['kinds: ["9"]', { kinds: ["9"] }, false],
    ["kinds: 9", { kinds: 9 }, false],
    ["kinds: null", { kinds: null }, false],
    ['since: "1"', { since: "1" }, false],
    ["since: null", { since: null }, false],
    ['until: "2000000000"', { until: "2000000000" }, false],
    ["until: [2000000000]", { until: [2_000_000_000] }, false],
    ['ids: "x"', { ids: "x" }, false],
    ["ids: the id, not in a list", { ids: EVENT.id }, false],
    ["ids: [5]", { ids: [5] }, false],
    ["ids: null", { ids: null }, false],
    ["authors: {}", { authors: {} }, false],
    ['#h: "general"', { "#h": "general" }, false],
    ["#h: [5]", { "#h": [5] }, false],
    ["#h: null", { "#h": null }, false],
    ['#h: {"general":true}', { "#h": { general: true } }, false],
  ]),
);

Deno.test(
  "limit, search and other keys are not conditions",
  table([
    ["limit", { limit: 1 }, true],
    ["limit 0", { limit: 0 }, true],
    ["a limit of the wrong type", { limit: "x" }, true],
    ["search", { search: "nothing like it" }, true],
    ["an unknown key", { foo: ["bar"] }, true],
    ["an unknown key beside a condition that holds", { kinds: [9], extra: null }, true],
    ["an unknown key beside a condition that fails", { kinds: [1], extra: null }, false],
  ]),
);

Deno.test("combinations: every condition must hold", async (t) => {
  const all = {
    ids: [EVENT.id],
    authors: [AUTHOR],
    kinds: [9],
    since: AT - 1,
    until: AT + 1,
    "#h": ["general"],
    limit: 1,
  };
  await t.step("all of them", () => assert.equal(matchesFilter(EVENT, all), true));
  const breaks: [string, Record<string, unknown>][] = [
    ["ids", { ids: [OTHER] }],
    ["authors", { authors: [OTHER] }],
    ["kinds", { kinds: [12] }],
    ["since", { since: AT + 1 }],
    ["until", { until: AT - 1 }],
    ["#h", { "#h": ["ops"] }],
  ];
  for (const [name, change] of breaks) {
    await t.step(`all but ${name}`, () => assert.equal(matchesFilter(EVENT, { ...all, ...change }), false));
  }
  await t.step("the plugin's subscription filter", () => {
    const filter = { kinds: [9, 11, 12, 1111, 43001, 43005], since: AT - 300, "#h": ["general", "ops"] };
    assert.equal(matchesFilter(EVENT, filter), true);
    assert.equal(matchesFilter(eventWith([["h", "random"]]), filter), false);
    assert.equal(matchesFilter(eventWith([]), filter), false);
  });
});

Deno.test("a filter that is not an object matches nothing", () => {
  for (const filter of [null, undefined, [], [{}], "{}", 5, true]) {
    assert.equal(matchesFilter(EVENT, filter), false, JSON.stringify(filter));
  }
});

Deno.test("matchesAny: at least one filter matches", () => {
  assert.equal(matchesAny(EVENT, [{ kinds: [9] }]), true);
  assert.equal(matchesAny(EVENT, [{ kinds: [1] }, { "#h": ["general"] }]), true);
  assert.equal(matchesAny(EVENT, [{ "#h": ["general"] }, { kinds: [1] }]), true);
  assert.equal(matchesAny(EVENT, [{ kinds: [1] }, { "#h": ["ops"] }]), false);
  assert.equal(matchesAny(EVENT, [{ kinds: "9" }, null]), false);
  assert.equal(matchesAny(EVENT, []), false, "no filter, no match");
});
