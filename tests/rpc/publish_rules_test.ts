// What `publish` will sign (lib/rpc/publish_rules.ts), rpc-facts.md 3.2 narrowed: never an
// authorization (22242, 24242, 27235) nor an agent grant (30392), whatever --kinds says; only the
// --kinds list when one is given; the event otherwise as given, created_at filled only when absent.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, verifyEvent } from "nostr-tools/pure";
import { AGENT_GRANT_KIND, eventToPublish, publishRefusal } from "../../lib/rpc/publish_rules.ts";

const AUTHORIZATIONS = [22242, 24242, 27235];
const NEVER = [...AUTHORIZATIONS, 30392];
/** Kinds a publish may carry, neighbours of the refused ones included. */
const ORDINARY = [
  0,
  1,
  7,
  9,
  11,
  12,
  1111,
  20002,
  22241,
  22243,
  24241,
  24243,
  27234,
  27236,
  30391,
  30393,
  40003,
  43004,
  65535,
];

Deno.test("authorizations and agent grants are never signed, whatever --kinds says", async (t) => {
  assert.equal(AGENT_GRANT_KIND, 30392);
  for (const kind of NEVER) {
    await t.step(`kind ${kind}`, () => {
      for (const kinds of [undefined, [kind], [9, kind, 12], [...NEVER, ...ORDINARY]]) {
        const refusal = publishRefusal(kind, kinds);
        assert.ok(refusal !== undefined, `kind ${kind} with --kinds ${kinds}`);
        assert.match(refusal, new RegExp(`^publish: refused to sign a kind ${kind} event: `));
        assert.match(refusal, /nothing was signed$/);
        assert.match(refusal, kind === 30392 ? /agent grant/ : /authorization/);
        assert.doesNotMatch(refusal, /--kinds/, "not said as a --kinds matter: no --kinds allows it");
      }
    });
  }
});

Deno.test("without --kinds, every other kind may be signed", () => {
  for (const kind of ORDINARY) assert.equal(publishRefusal(kind), undefined, `kind ${kind}`);
});

Deno.test("--kinds narrows to its list", async (t) => {
  const kinds = [9, 12];
  await t.step("the kinds listed", () => {
    for (const kind of kinds) assert.equal(publishRefusal(kind, kinds), undefined);
  });
  await t.step("any other", () => {
    for (const kind of ORDINARY.filter((kind) => !kinds.includes(kind))) {
      assert.equal(
        publishRefusal(kind, kinds),
        `publish: kind ${kind} is not one this helper may sign (--kinds 9,12); nothing was signed`,
      );
    }
  });
  await t.step("a list of one", () => {
    assert.equal(publishRefusal(9, [9]), undefined);
    assert.equal(
      publishRefusal(1, [9]),
      "publish: kind 1 is not one this helper may sign (--kinds 9); nothing was signed",
    );
  });
});

Deno.test("eventToPublish", async (t) => {
  const tags = [["h", "general"], ["e", "ab".repeat(32), "", "root"]];
  await t.step("kind, tags, content and created_at as given", () => {
    const template = eventToPublish(
      { kind: 12, tags, content: "hi ✓", created_at: 1_600_000_000 },
      1_700_000_000,
    );
    assert.deepEqual(template, { kind: 12, created_at: 1_600_000_000, tags, content: "hi ✓" });
  });
  await t.step("created_at absent: now", () => {
    const template = eventToPublish({ kind: 9, tags: [], content: "" }, 1_700_000_123);
    assert.deepEqual(template, { kind: 9, created_at: 1_700_000_123, tags: [], content: "" });
  });
  await t.step("a stale created_at is the caller's: kept", () => {
    assert.equal(
      eventToPublish({ kind: 9, tags: [], content: "", created_at: 1 }, 1_700_000_000).created_at,
      1,
    );
  });
  await t.step("nothing else is in the template", () => {
    const template = eventToPublish({ kind: 9, tags, content: "x" }, 5);
    assert.deepEqual(Object.keys(template).sort(), ["content", "created_at", "kind", "tags"]);
  });
  await t.step("the template signs (nostr-tools) into an event carrying exactly what was given", () => {
    const template = eventToPublish({ kind: 9, tags, content: "hello" }, 1_700_000_000);
    const event = finalizeEvent({ ...template }, generateSecretKey());
    assert.ok(verifyEvent(event));
    assert.deepEqual([event.kind, event.created_at, event.tags, event.content], [
      9,
      1_700_000_000,
      tags,
      "hello",
    ]);
  });
});
