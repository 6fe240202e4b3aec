// Long tasks' rules as tinyrelay's gates judge them (internal/gates/jobs.go, Buzz kinds 43001 to 43006;
// facts §1.5): the shape of each kind, checked in the source's order, and what an answer or a cancel
// must name of the request it belongs to.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { jobName, jobReplyProblem, jobShapeProblem } from "./job_rules.ts";

const REQUESTER = "a1".repeat(32);
const WORKER = "b2".repeat(32);
const OTHER = "c3".repeat(32);
const REQUEST_ID = "d4".repeat(32);

function ev(kind: number, tags: string[][], pubkey = WORKER): NostrEvent {
  return { id: "e5".repeat(32), pubkey, created_at: 1, kind, tags, content: "x", sig: "f6".repeat(64) };
}

const request = ev(43001, [["h", "general"], ["p", WORKER], ["p", OTHER]], REQUESTER);
request.id = REQUEST_ID;

Deno.test("jobs: each kind's name", () => {
  const names = [43001, 43002, 43003, 43004, 43005, 43006, 43007, 1].map(jobName);
  assert.deepEqual(names, [
    "job request",
    "job accepted",
    "job progress",
    "job result",
    "job cancel",
    "job error",
    "job event",
    "job event",
  ]);
});

Deno.test("jobs: a request's shape: its room first, then each tag in order, then the count", () => {
  const cases: [string[][], string | undefined][] = [
    [[["h", "general"], ["p", WORKER]], undefined],
    [[["h", "general"], ["p", WORKER], ["e", REQUEST_ID, "", "root"], ["subject", "s"]], undefined],
    [[["p", "nope"]], "invalid: job request must name its room in an h tag"],
    [[["h", "General"], ["p", WORKER]], "invalid: job request must name its room in an h tag"],
    [[["h", "general"], ["p", "nope"], ["e", "nope"]], "invalid: job request p tags must be hex public keys"],
    [
      [["h", "general"], ["e", "nope"], ["p", "nope"]],
      "invalid: job request e tag must name the thread root event id",
    ],
    [
      [["h", "general"], ["p", WORKER], ["p", WORKER.toUpperCase()]],
      "invalid: job request p tags must be hex public keys",
    ],
    [[["h", "general"]], "invalid: job request must name at least one asked key in a p tag"],
    // A p tag without a value is no asked key, and no bad one either.
    [[["h", "general"], ["p"]], "invalid: job request must name at least one asked key in a p tag"],
  ];
  for (const [tags, want] of cases) {
    assert.equal(jobShapeProblem(ev(43001, tags)), want, JSON.stringify(tags));
  }
});

Deno.test("jobs: an answer's shape: the request's e, the requester's p, the request's room", () => {
  for (
    const [kind, what] of [[43002, "job accepted"], [43003, "job progress"], [43004, "job result"], [
      43006,
      "job error",
    ]] as const
  ) {
    const cases: [string[][], string | undefined][] = [
      [[["h", "general"], ["e", REQUEST_ID], ["p", REQUESTER]], undefined],
      [[["p", "x"], ["h", "x"]], `invalid: ${what} must name the job request in an e tag`],
      [[["e", REQUEST_ID], ["h", "x"]], `invalid: ${what} must name the requester in a p tag`],
      [[["e", REQUEST_ID], ["p", REQUESTER]], `invalid: ${what} must keep the request's room in an h tag`],
      // Only the first e tag names the request: a result's further e tags are artifacts.
      [
        [["h", "general"], ["e", "nope"], ["e", REQUEST_ID], ["p", REQUESTER]],
        `invalid: ${what} must name the job request in an e tag`,
      ],
    ];
    for (const [tags, want] of cases) {
      assert.equal(jobShapeProblem(ev(kind, tags)), want, `${kind} ${JSON.stringify(tags)}`);
    }
  }
});

Deno.test("jobs: a cancel's shape: e, then h, then a p only when present", () => {
  const cases: [string[][], string | undefined][] = [
    [[["h", "general"], ["e", REQUEST_ID]], undefined],
    [[["h", "general"], ["e", REQUEST_ID], ["p", WORKER]], undefined],
    [[["h", "x y"]], "invalid: job cancel must name the job request in an e tag"],
    [[["e", REQUEST_ID], ["p", "nope"]], "invalid: job cancel must keep the request's room in an h tag"],
    [
      [["h", "general"], ["e", REQUEST_ID], ["p", "nope"]],
      "invalid: job cancel p tag must be a hex public key",
    ],
  ];
  for (const [tags, want] of cases) {
    assert.equal(jobShapeProblem(ev(43005, tags)), want, JSON.stringify(tags));
  }
  assert.equal(jobShapeProblem(ev(9, [["p", "nope"]])), undefined, "other kinds have no job shape");
});

Deno.test("jobs: an answer must name a request the relay holds, in its room, from a key it asked", () => {
  const answer = (tags: string[][], pubkey = WORKER, kind = 43004) => ev(kind, tags, pubkey);
  const good = [["h", "general"], ["e", REQUEST_ID], ["p", REQUESTER]];
  const cases: [NostrEvent, NostrEvent | undefined, string | undefined][] = [
    [answer(good), request, undefined],
    [answer(good, OTHER, 43002), request, undefined],
    [answer(good), undefined, "restricted: job result must name a request this relay holds"],
    [answer(good), { ...request, kind: 9 }, "restricted: job result must name a request this relay holds"],
    [
      answer([["h", "lab"], ["e", REQUEST_ID], ["p", OTHER]]),
      request,
      "invalid: job result must keep the request's room h tag",
    ],
    [
      answer([["h", "general"], ["e", REQUEST_ID], ["p", OTHER]]),
      request,
      "invalid: job result p tag must name the requester",
    ],
    [
      answer(good, REQUESTER, 43003),
      request,
      "restricted: job progress must come from a key the request asked",
    ],
  ];
  for (const [event, held, want] of cases) {
    assert.equal(jobReplyProblem(event, held), want, `${event.kind} by ${event.pubkey.slice(0, 2)}: ${want}`);
  }
});

Deno.test("jobs: only the requester cancels; a cancel's p is not compared", () => {
  const cancel = (pubkey: string, p = WORKER) =>
    ev(43005, [["h", "general"], ["e", REQUEST_ID], ["p", p]], pubkey);
  assert.equal(jobReplyProblem(cancel(REQUESTER, OTHER), request), undefined);
  assert.equal(jobReplyProblem(cancel(REQUESTER, "99".repeat(32)), request), undefined);
  assert.equal(
    jobReplyProblem(cancel(WORKER), request),
    "restricted: only the requester may cancel a long task",
  );
  assert.equal(
    jobReplyProblem(cancel(REQUESTER), undefined),
    "restricted: job cancel must name a request this relay holds",
  );
  assert.equal(
    jobReplyProblem(ev(43005, [["h", "lab"], ["e", REQUEST_ID]], REQUESTER), request),
    "invalid: job cancel must keep the request's room h tag",
  );
});

Deno.test("jobs: a request, and any other kind, names no request", () => {
  assert.equal(jobReplyProblem(request, undefined), undefined);
  assert.equal(jobReplyProblem(ev(9, [["e", REQUEST_ID]]), undefined), undefined);
});
