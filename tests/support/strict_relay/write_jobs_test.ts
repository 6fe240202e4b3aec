// The long-task write tools' builders and checks (mcp_tools.go's mcpBuildJob*/mcpCheckJob*): a request
// from its room, assignees and text; an answer or a cancel from the request event or from e, p and room,
// the two agreeing; a result's artifacts; and the gates' shape rules, without their `invalid: `.

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { artifactOk, JOB_WRITES } from "./write_jobs.ts";
import type { BuildContext } from "./write_kit.ts";

const NOW = 1_800_000_000;
const REQUESTER = "a1".repeat(32);
const WORKER = "b2".repeat(32);
const REQUEST_ID = "c3".repeat(32);
const ROOT = "d4".repeat(32);

const ctx: BuildContext = { actor: WORKER, now: NOW, event: () => undefined, activeGrant: () => undefined };
const request = {
  id: REQUEST_ID,
  pubkey: REQUESTER,
  kind: 43001,
  created_at: NOW - 5,
  tags: [["h", "general"], ["p", WORKER]],
  content: "do it",
  sig: "0".repeat(128),
};

function built(tool: string, args: Record<string, unknown>) {
  const out = JOB_WRITES[tool].build!(args, ctx);
  return "error" in out ? out.error : out.unsigned;
}
const tagsOf = (tool: string, args: Record<string, unknown>) =>
  (built(tool, args) as { tags: string[][] }).tags;

const ev = (kind: number, tags: string[][], content = "x"): NostrEvent => ({
  id: "0".repeat(64),
  pubkey: WORKER,
  created_at: NOW,
  kind,
  tags,
  content,
  sig: "",
});

Deno.test("request_job: a room, the keys asked, content or a subject; a root and an expiration when given", () => {
  const ask = { room: "general", assignees: [WORKER], content: "do it" };
  assert.equal(built("request_job", { ...ask, room: "Gen" }), "room is required and must be a room id");
  assert.equal(
    built("request_job", { ...ask, assignees: [WORKER, "nope"] }),
    "assignees must be hex public keys",
  );
  assert.equal(
    built("request_job", { ...ask, assignees: [] }),
    "assignees must name at least one key to ask",
  );
  assert.equal(built("request_job", { ...ask, content: " " }), "content or subject is required");
  assert.equal(built("request_job", { ...ask, root: "nope" }), "root must be an event id");
  assert.equal(built("request_job", { ...ask, expiration: NOW }), "expiration must be in the future");
  assert.deepEqual(
    built("request_job", { ...ask, room: " general ", subject: " Audit ", root: ROOT, expiration: NOW + 9 }),
    {
      kind: 43001,
      created_at: NOW,
      tags: [["h", "general"], ["p", WORKER], ["subject", "Audit"], ["e", ROOT, "", "root"], [
        "expiration",
        String(NOW + 9),
      ]],
      content: "do it",
    },
  );
  assert.deepEqual(tagsOf("request_job", { ...ask, content: "", subject: "only a subject" }).at(-1), [
    "subject",
    "only a subject",
  ]);
});

Deno.test("job answers: from the request event, or from e, p and room, which must agree with it", () => {
  const fields = { e: REQUEST_ID, p: REQUESTER, room: "general" };
  const expected = [["h", "general"], ["e", REQUEST_ID], ["p", REQUESTER]];
  assert.deepEqual(built("accept_job", { request }), {
    kind: 43002,
    created_at: NOW,
    tags: expected,
    content: "",
  });
  assert.deepEqual(tagsOf("job_progress", { ...fields, content: "half" }), expected);
  assert.deepEqual(tagsOf("job_error", { request, ...fields, content: "failed" }), expected);
  const agree = "e, p and room must match the request: its id, its author and its h tag";
  assert.equal(built("accept_job", { request, e: ROOT }), agree);
  assert.equal(built("accept_job", { request, p: WORKER }), agree);
  assert.equal(built("accept_job", { request, room: "ops" }), agree);
  const required = "request, or e (the request id), p (the requester) and room, are required";
  assert.equal(built("accept_job", { e: REQUEST_ID, p: REQUESTER }), required);
  assert.equal(built("accept_job", { e: "nope", p: REQUESTER, room: "general" }), required);
  const bad = "request must be a kind 43001 job request event with id and pubkey";
  assert.equal(built("accept_job", { request: { ...request, kind: 43002 } }), bad);
  assert.equal(built("accept_job", { request: { ...request, id: "x" } }), bad);
  assert.equal(built("accept_job", { request: { ...request, pubkey: undefined } }), bad);
  // An acceptance may be empty; progress, results and errors say something.
  for (const tool of ["job_progress", "job_result", "job_error"]) {
    assert.equal(built(tool, { request, content: " " }), "content is required", tool);
  }
});

Deno.test("job_result: artifacts become e, a and r tags after the request's", () => {
  const artifacts = [
    { type: "e", value: ROOT },
    { type: "a", value: ` 30023:${REQUESTER}:report ` },
    { type: "r", value: "https://example.test/out" },
  ];
  assert.deepEqual(tagsOf("job_result", { request, content: "done", artifacts }), [
    ["h", "general"],
    ["e", REQUEST_ID],
    ["p", REQUESTER],
    ["e", ROOT],
    ["a", `30023:${REQUESTER}:report`],
    ["r", "https://example.test/out"],
  ]);
  const wrong =
    "each artifact needs a type of e (an event id), a (a kind:pubkey:identifier coordinate) or r (an http or https URL) and a matching value";
  for (
    const artifact of [{ type: "e", value: "x" }, { type: "r", value: "ftp://x" }, {
      type: "a",
      value: `x:${REQUESTER}:d`,
    }, { type: "t", value: "v" }]
  ) {
    assert.equal(
      built("job_result", { request, content: "done", artifacts: [artifact] }),
      wrong,
      JSON.stringify(artifact),
    );
  }
  // Only a result takes artifacts.
  assert.deepEqual(tagsOf("job_progress", { request, content: "half", artifacts }).length, 3);
  assert.deepEqual(
    [["e", ROOT], ["a", `1:${REQUESTER}:x:y`], ["r", "http://x"], ["a", `+5:${REQUESTER}:`]].map(([t, v]) =>
      artifactOk(t, v)
    ),
    [true, true, true, true],
  );
});

Deno.test("cancel_job: from the request or from e and room; a p only when given, and hex", () => {
  assert.deepEqual(built("cancel_job", { request, content: "never mind" }), {
    kind: 43005,
    created_at: NOW,
    tags: [["h", "general"], ["e", REQUEST_ID]],
    content: "never mind",
  });
  assert.deepEqual(tagsOf("cancel_job", { e: REQUEST_ID, room: "general", p: WORKER }), [["h", "general"], [
    "e",
    REQUEST_ID,
  ], ["p", WORKER]]);
  assert.equal(
    built("cancel_job", { e: REQUEST_ID, room: "general", p: "nope" }),
    "p must be a hex public key",
  );
  assert.equal(
    built("cancel_job", { request, room: "ops" }),
    "e and room must match the request: its id and its h tag",
  );
  assert.equal(
    built("cancel_job", { e: REQUEST_ID }),
    "request, or e (the request id) and room, are required",
  );
});

Deno.test("long-task writes: each check of a signed event, the gates' shape last", () => {
  const answer = [["h", "general"], ["e", REQUEST_ID], ["p", REQUESTER]];
  const cases: [string, NostrEvent, string | undefined][] = [
    ["request_job", ev(43001, [["h", "general"], ["p", WORKER]]), undefined],
    ["request_job", ev(43002, []), "kind 43002 is not a job request"],
    [
      "request_job",
      ev(43001, [["expiration", String(NOW)]]),
      "the expiration tag must be a Unix time in the future",
    ],
    [
      "request_job",
      ev(43001, [["h", "general"], ["p", WORKER]], " "),
      "content or a subject tag is required",
    ],
    ["request_job", ev(43001, [["h", "general"], ["p", WORKER], ["subject", "s"]], ""), undefined],
    ["request_job", ev(43001, [["h", "general"]]), "job request must name at least one asked key in a p tag"],
    ["accept_job", ev(43002, answer, ""), undefined],
    ["accept_job", ev(43004, answer), "kind 43004 is not a job accepted"],
    ["job_progress", ev(43003, answer, " "), "content must not be empty"],
    [
      "job_progress",
      ev(43003, [["h", "general"], ["e", REQUEST_ID]]),
      "job progress must name the requester in a p tag",
    ],
    ["job_result", ev(43004, [...answer, ["e", ROOT], ["r", "https://x.test"]]), undefined],
    [
      "job_result",
      ev(43004, [...answer, ["r", "mailto:x"]]),
      'the r artifact tag "mailto:x" is not an event id, a coordinate or an http or https URL',
    ],
    [
      "job_result",
      ev(43004, [...answer, ["e", "x"]]),
      'the e artifact tag "x" is not an event id, a coordinate or an http or https URL',
    ],
    [
      "job_error",
      ev(43006, [["e", REQUEST_ID], ["p", REQUESTER]]),
      "job error must keep the request's room in an h tag",
    ],
    ["cancel_job", ev(43005, [["h", "general"], ["e", REQUEST_ID]], ""), undefined],
    ["cancel_job", ev(43001, []), "kind 43001 is not a job cancel"],
    ["cancel_job", ev(43005, [["h", "general"]]), "job cancel must name the job request in an e tag"],
  ];
  for (const [tool, event, want] of cases) {
    assert.equal(JOB_WRITES[tool].check!(event, NOW), want, `${tool}: ${want}`);
  }
});
