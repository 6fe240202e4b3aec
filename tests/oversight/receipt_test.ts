// Receipts (lib/oversight/receipt.ts): what the relay's answer to a write means, the stderr line,
// and the words that keep an agent from publishing twice when the answer was lost.

import assert from "node:assert/strict";
import {
  howToCheck,
  notSentText,
  outcomeOf,
  outcomeText,
  receiptLine,
  unknownOutcomeText,
  uploadReceiptLine,
} from "../../lib/oversight/receipt.ts";
import { RECEIPT_CONTENT_CHARS } from "../support/oversight.ts";

const ID = "ef".repeat(32);
const ROOT = "12".repeat(32);

Deno.test("the outcome of a write, from the relay's answer", () => {
  const published = { content: [], structuredContent: { event_id: ID, accepted: true, message: "" } };
  assert.deepEqual(outcomeOf({ ok: true, result: published }), { status: "accepted" });
  assert.deepEqual(outcomeOf({ ok: true, result: { content: [{ type: "text", text: "done" }] } }), {
    status: "accepted",
  });
  assert.deepEqual(
    outcomeOf({
      ok: true,
      result: { content: [], structuredContent: { accepted: false, message: "blocked: spam" } },
    }),
    { status: "refused", message: "blocked: spam" },
  );
  assert.deepEqual(
    outcomeOf({
      ok: true,
      result: { content: [{ type: "text", text: "restricted: no grant" }], isError: true },
    }),
    { status: "refused", message: "restricted: no grant" },
  );
  assert.deepEqual(outcomeOf({ ok: true, result: { content: [], isError: true } }), {
    status: "refused",
    message: "the relay did not accept it",
  });
  assert.deepEqual(
    outcomeOf({ ok: false, failure: { class: "permission", detail: "auth-required: expired" } }),
    {
      status: "refused",
      message: "permission: auth-required: expired",
    },
  );
  assert.deepEqual(outcomeOf({ ok: false, failure: { class: "relay", detail: "invalid: tags" } }), {
    status: "refused",
    message: "relay: invalid: tags",
  });
  assert.deepEqual(
    outcomeOf({
      ok: false,
      failure: { class: "transport", detail: "cannot reach x: refused", unsent: true },
    }),
    { status: "not sent", detail: "transport: cannot reach x: refused" },
  );
  assert.deepEqual(outcomeOf({ ok: false, failure: { class: "transport", detail: "no answer from x" } }), {
    status: "unknown",
    detail: "transport: no answer from x",
  });
});

Deno.test("the receipt line: tool, kind, id, place, the first characters, the outcome", () => {
  const event = {
    id: ID,
    kind: 12,
    tags: [["h", "general"], ["e", ROOT, "", "root"]],
    content: "x".repeat(200),
  };
  assert.equal(
    receiptLine("reply_in_thread", event, { status: "accepted" }),
    `receipt: reply_in_thread signed kind 12 event ${ID} in thread ${ROOT} of room "general": "${
      "x".repeat(RECEIPT_CONTENT_CHARS)
    }…": accepted`,
  );
  const odd = { id: ID, kind: 9, tags: [], content: "two\nlines \u001b[31m" };
  assert.equal(
    receiptLine("post_message", odd, { status: "refused", message: "blocked:\nno" }),
    `receipt: post_message signed kind 9 event ${ID}: "two\\nlines \\u001b[31m": refused: blocked:\\u000ano`,
  );
  assert.equal(
    outcomeText({ status: "unknown", detail: "transport: lost" }),
    "outcome unknown: transport: lost",
  );
  assert.equal(outcomeText({ status: "not sent", detail: "transport: down" }), "not sent: transport: down");
  assert.equal(
    uploadReceiptLine("upload_attachment", { room: "general", data: "AAAA" }, { status: "accepted" }),
    'receipt: upload_attachment: a file stored in room "general", about 3 bytes: accepted',
  );
});

Deno.test("how to check whether a write is there: the read call that would list it", () => {
  const check = (kind: number, tags: string[][]) => howToCheck({ kind, tags, content: "" });
  assert.equal(check(9, [["h", "general"]]), 'read_room {"id":"general"}');
  assert.equal(
    check(12, [["h", "general"], ["e", ROOT, "", "root"]]),
    `read_thread {"id":"general","event":"${ROOT}"}`,
  );
  // The relay's read_issue and read_pull_request take the repository and the event.
  assert.equal(
    check(1111, [["E", ROOT], ["K", "1621"]]),
    `read_issue with the repository's owner and repo and {"event":"${ROOT}"}`,
  );
  assert.equal(
    check(1111, [["E", ROOT], ["K", "1618"], ["A", "30617:abc:seedmark"]]),
    `read_pull_request {"owner":"abc","repo":"seedmark","event":"${ROOT}"}`,
  );
  assert.equal(
    check(1111, [["E", ROOT], ["K", "1621"], ["a", "30617:abc:seedmark"]]),
    `read_issue {"owner":"abc","repo":"seedmark","event":"${ROOT}"}`,
  );
  assert.equal(
    check(1111, [["E", ROOT], ["K", "1621"], ["a", "30818:abc:howto"]]),
    `read_issue with the repository's owner and repo and {"event":"${ROOT}"}`,
    "an address that is not a repository's names none",
  );
  assert.equal(check(1111, [["E", ROOT], ["K", "1617"]]), `the read tool for ${ROOT}`);
  assert.equal(check(1621, [["a", "30617:abc:seedmark"]]), 'list_issues {"owner":"abc","repo":"seedmark"}');
  assert.equal(
    check(1618, [["a", "30617:abc:seedmark"]]),
    'list_pull_requests {"owner":"abc","repo":"seedmark"}',
  );
  assert.equal(check(30818, [["d", "howto"]]), 'read_wiki_page {"d":"howto"}');
  assert.equal(check(43003, [["e", ROOT]]), `read_job {"id":"${ROOT}"}`);
  assert.equal(check(7, [["e", ROOT]]), "the relay's read tools");
});

Deno.test("an unknown outcome: the transport's words, the event id, not sent again, where to look", () => {
  const text = unknownOutcomeText("transport: no answer from https://r/mcp: reset", "post_message", {
    id: ID,
    kind: 9,
    tags: [["h", "general"]],
    content: "hi",
  });
  assert.equal(
    text,
    `transport: no answer from https://r/mcp: reset. The signed event ${ID} (kind 9) was sent, but the relay's ` +
      `answer was lost, so whether it was published is unknown; tinyagent did not send it again. Before trying ` +
      `again, check with read_room {"id":"general"} whether it is there: calling post_message again would ` +
      `publish a second event.`,
  );
  assert.equal(
    notSentText("transport: cannot reach https://r/mcp: refused", "post_message", { id: ID }),
    `transport: cannot reach https://r/mcp: refused. The signed event ${ID} did not reach the relay, so nothing ` +
      `was published; calling post_message again is safe.`,
  );
});
