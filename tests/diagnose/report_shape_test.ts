// The wording every part of diagnose's report shares (lib/diagnose/report_shape.ts): lists of rooms
// and kinds, times, and a report's checks defaulting to "not checked".

import assert from "node:assert/strict";
import { covering, formatTime, isEmpty, listText, NONE, report } from "../../lib/diagnose/report_shape.ts";
import { KEY, RELAY } from "../support/browsegrant.ts";
import * as nip19 from "nostr-tools/nip19";

Deno.test("listText, covering and isEmpty", () => {
  assert.equal(
    listText({ rooms: ["general", "ops"], kinds: [9, 1111] }),
    "rooms general, ops and kinds 9, 1111",
  );
  assert.equal(listText({ rooms: ["general"], kinds: [] }), "rooms general");
  assert.equal(listText({ rooms: [], kinds: [0] }), "kinds 0");
  assert.equal(listText(NONE), "");
  assert.equal(covering({ rooms: [], kinds: [43001] }), " covering kinds 43001");
  assert.equal(covering(NONE), "");
  assert.equal(isEmpty(NONE), true);
  assert.equal(isEmpty({ rooms: [], kinds: [0] }), false);
});

Deno.test("formatTime: ISO 8601 to the second, or an unknown time", () => {
  assert.equal(formatTime(1_900_000_000), "2030-03-17T17:46:40Z");
  assert.equal(formatTime(0), "an unknown time");
  assert.equal(formatTime(undefined), "an unknown time");
});

Deno.test("report: the key and relay, and checks not given are not checked", () => {
  const asked = { rooms: ["general"], kinds: [9] };
  const ctx = { relay: RELAY, identity: KEY, asked, npubOf: nip19.npubEncode };
  const built = report(ctx, "error", "advice", { authentication: { status: "fail", detail: "x" } });
  assert.equal(built.relay, RELAY);
  assert.equal(built.pubkey, KEY.pubkey);
  assert.equal(built.npub, KEY.npub);
  assert.equal(built.verdict, "error");
  assert.equal(built.advice, "advice");
  assert.deepEqual(built.checks, {
    reachability: { status: "pass", detail: "the relay answered" },
    authentication: { status: "fail", detail: "x" },
    membership: { status: "skip", detail: "not checked" },
    grant: { status: "skip", detail: "not checked" },
    coverage: { status: "skip", detail: "not checked", asked, missing: NONE },
  });
  built.checks.membership.detail = "changed";
  assert.equal(
    report(ctx, "ok", "", {}).checks.membership.detail,
    "not checked",
    "defaults are fresh objects",
  );
});
