// The approval cards (lib/listen/cards.ts): the template tag by tag in the plugin's order
// (rpc-facts 7.7), what a card shows of a hostile permission request (controls and direction marks
// escaped, every part cut with the cut said), each rule of the answer check (7.8) failing on its own,
// and the expiry reply's NIP-22 tags.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import type { SignedEvent } from "../../lib/key/signer.ts";
import {
  answerVerdict,
  type Asked,
  cardContent,
  cardSubject,
  cardTemplate,
  confirmAnswerOf,
  DESCRIPTION_CHARS,
  expirationOf,
  expiryReply,
  namedCards,
  permissionOutcomeText,
  permissionRequestOf,
  PREVIEW_CHARS,
  QUESTION_CHARS,
  unpostedWhy,
} from "../../lib/listen/cards.ts";

const agentKey = generateSecretKey();
const agent = getPublicKey(agentKey);
const approverKey = generateSecretKey();
const approver = getPublicKey(approverKey);
const other = getPublicKey(generateSecretKey());
const NOW = 1_800_000_000;
const EXPIRATION = NOW + 300;

const permission: Asked = {
  permission: {
    requestId: "abcde",
    toolName: "Bash",
    description: "List files",
    inputPreview: '{"command":"ls"}',
  },
};
const place = {
  room: "general",
  approvers: [approver, other],
  createdAt: NOW,
  expiration: EXPIRATION,
  serial: 7,
};

function signed(template: Parameters<typeof finalizeEvent>[0], key: Uint8Array): SignedEvent {
  return JSON.parse(JSON.stringify(finalizeEvent(template, key)));
}

const card = signed(cardTemplate(permission, place), agentKey);

/** The valid answer to `card`, then whatever `change` does to it, signed by `key`. */
function answer(
  change: (event: { kind: number; created_at: number; tags: string[][]; content: string }) => void = () => {},
  key = approverKey,
): SignedEvent {
  const event = {
    kind: 1111,
    created_at: NOW + 10,
    content: "allow",
    tags: [
      ["h", "general"],
      ["E", card.id, "", agent],
      ["K", "9"],
      ["P", agent],
      ["e", card.id, "", agent],
      ["k", "9"],
      ["p", agent],
    ],
  };
  change(event);
  return signed(event, key);
}

const context = { approvers: [approver, other], agent, now: NOW + 20 };

Deno.test("the card: kind 9 in the home room, every tag in the plugin's order", () => {
  const template = cardTemplate(permission, place);
  assert.equal(template.kind, 9);
  assert.equal(template.created_at, NOW);
  assert.deepEqual(template.tags, [
    ["h", "general"],
    ["tinyagent", "1"],
    ["request", "question"],
    ["interaction", "approval"],
    ["p", approver],
    ["p", other],
    ["selection", "single"],
    ["expiration", String(EXPIRATION)],
    ["subject", "Permission: Bash: List files"],
    ["option", "allow", "Allow"],
    ["option", "deny", "Deny"],
  ]);
  assert.equal(expirationOf(template), EXPIRATION);
  assert.match(template.content, /^Claude Code asks permission to use a tool \(request abcde\)\.\n/);
  assert.match(template.content, /\nTool: Bash\n/);
  assert.match(template.content, /\n> List files\n/);
  assert.match(template.content, /\n> \{"command":"ls"\}\n/);
  assert.match(template.content, /allow \(it runs, this once\) or deny/);
  assert.match(
    template.content,
    new RegExp(`\nCard 7; expires at ${new Date(EXPIRATION * 1000).toISOString()};`),
  );
  // The same request in the same second, as another card: another event.
  assert.notEqual(cardTemplate(permission, { ...place, serial: 8 }).content, template.content);
});

Deno.test("a write's confirmation: the question quoted, the subject its opening", () => {
  const asked: Asked = { question: "Sign and publish this event?\n\npost_message: a message (kind 9)" };
  const template = cardTemplate(asked, place);
  assert.equal(template.tags[8][0], "subject");
  assert.equal(template.tags[8][1], "Sign and publish this event? post_message: a message (kind 9)");
  assert.match(
    template.content,
    /^tinyagent asks before a write \(--confirm-writes\):\n\n> Sign and publish/,
  );
  assert.match(template.content, /\n> \n> post_message: a message \(kind 9\)\n/);
  assert.match(template.content, /allow \(sign and publish it\) or deny \(nothing is signed\)/);
  const long = cardContent({ question: "q".repeat(QUESTION_CHARS + 5) }, EXPIRATION, 1);
  assert.match(long, /\[cut: 5 more characters not shown\]/);
});

Deno.test("a hostile permission request: controls and direction marks escaped, nothing unbounded", () => {
  const hostile = "run\u001b[2J\u202eevil\u2066\u0007\r\nTool: fake\u0000";
  const asked: Asked = {
    permission: {
      requestId: "abcde",
      toolName: `Ba\u001bsh\u202e`,
      description: hostile,
      inputPreview: hostile,
    },
  };
  const content = cardContent(asked, EXPIRATION, 1);
  const subject = cardSubject(asked);
  for (const text of [content, subject]) {
    // deno-lint-ignore no-control-regex -- the point: none may be left
    assert.doesNotMatch(text, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
  }
  assert.match(content, /Tool: Ba\\u001bsh\\u202e\n/);
  assert.match(
    content,
    /> run\\u001b\[2J\\u202eevil\\u2066\\u0007\n> Tool: fake\\u0000\n/,
    "every line quoted",
  );
  assert.doesNotMatch(subject, /\n/);
  assert.ok([...subject].length <= 100);
  // 100 KB of input preview, and a description and tool name past their bounds.
  const huge: Asked = {
    permission: {
      requestId: "abcde",
      toolName: "T".repeat(5_000),
      description: "d".repeat(DESCRIPTION_CHARS + 1),
      inputPreview: "x".repeat(100_000),
    },
  };
  const bounded = cardContent(huge, EXPIRATION, 1);
  assert.ok(bounded.length < 6_000, `${bounded.length} characters`);
  assert.match(bounded, new RegExp(`Input preview \\(100,000 characters\\):\n> x{${PREVIEW_CHARS}}\n`));
  assert.match(bounded, new RegExp(`> \\[cut: ${(100_000 - PREVIEW_CHARS).toLocaleString("en-US")} more`));
  assert.match(bounded, /> \[cut: 1 more characters not shown\]/);
  assert.match(bounded, /\nTool: T{199}…\n/);
  const subject100 = cardSubject(huge);
  assert.equal([...subject100].length, 100);
  assert.ok(subject100.endsWith("…"));
  assert.match(
    cardContent({ permission: { ...permission.permission, description: "" } }, EXPIRATION, 1),
    /> \(none\)/,
  );
});

Deno.test("permission_request params: four strings, the id a few letters, lowercased", () => {
  const params = { request_id: "ABCDE", tool_name: "Bash", description: "d", input_preview: "i" };
  assert.deepEqual(permissionRequestOf(params), {
    requestId: "abcde",
    toolName: "Bash",
    description: "d",
    inputPreview: "i",
  });
  assert.deepEqual(permissionRequestOf(null), { invalid: "its params are not an object" });
  for (const field of ["request_id", "tool_name", "description", "input_preview"]) {
    assert.deepEqual(permissionRequestOf({ ...params, [field]: 5 }), {
      invalid: `its ${field} is not a string`,
    });
  }
  for (const id of ["", "ab1de", "a".repeat(33), "abc de"]) {
    assert.deepEqual(permissionRequestOf({ ...params, request_id: id }), {
      invalid: "its request_id is not a few letters",
    });
  }
});

Deno.test("a valid answer names its option; trimmed; deny too", () => {
  assert.deepEqual(answerVerdict(card, answer(), context), { option: "allow" });
  assert.deepEqual(answerVerdict(card, answer((e) => e.content = " \n deny\t"), context), { option: "deny" });
  assert.deepEqual(answerVerdict(card, answer((e) => e.created_at = NOW), context), { option: "allow" });
  assert.deepEqual(
    answerVerdict(card, answer((e) => e.created_at = NOW + 80), context),
    { option: "allow" },
    "60 s ahead exactly",
  );
  assert.deepEqual(answerVerdict(card, answer(), { ...context, now: EXPIRATION - 1 }), { option: "allow" });
  assert.deepEqual(answerVerdict(card, answer(() => {}, generateSecretKey()), { ...context }), {
    refused: "not signed by an approver",
  });
});

/** Each rule of 7.8 broken alone, and what the check says. */
const BROKEN: [string, () => SignedEvent, Partial<typeof context>, string][] = [
  ["kind 1111", () => answer((e) => e.kind = 1), {}, "not a comment (kind 1111)"],
  ["an approver's key", () => answer(() => {}, generateSecretKey()), {}, "not signed by an approver"],
  ["still an approver", () => answer(), { approvers: [other] }, "not signed by an approver"],
  [
    "created_at an integer",
    () => ({ ...answer(), created_at: NOW + 10.5 }),
    {},
    "created_at is not an integer",
  ],
  ["not before the card", () => answer((e) => e.created_at = NOW - 1), {}, "dated before the card"],
  ["at most 60 s ahead", () => answer((e) => e.created_at = NOW + 81), {}, "dated over 60 s ahead"],
  ["before expiry", () => answer(), { now: EXPIRATION }, "after the card expired"],
  [
    "h = room",
    () => answer((e) => e.tags[0] = ["h", "other"]),
    {},
    "its h tag does not name the card's room",
  ],
  ["an h tag", () => answer((e) => e.tags.splice(0, 1)), {}, "its h tag does not name the card's room"],
  [
    "E = card",
    () => answer((e) => e.tags[1] = ["E", "f".repeat(64)]),
    {},
    "its E tag does not name the card",
  ],
  [
    "e = card",
    () => answer((e) => e.tags[4] = ["e", "f".repeat(64)]),
    {},
    "its e tag does not name the card",
  ],
  [
    "one e only",
    () => answer((e) => e.tags.push(["e", "f".repeat(64)])),
    {},
    "its e tag does not name the card",
  ],
  [
    "K = card kind",
    () => answer((e) => e.tags[2] = ["K", "1"]),
    {},
    "its K tag does not name the card's kind",
  ],
  [
    "k = card kind",
    () => answer((e) => e.tags[5] = ["k", "12"]),
    {},
    "its k tag does not name the card's kind",
  ],
  ["P = agent", () => answer((e) => e.tags[3] = ["P", other]), {}, "its P tag does not name the agent"],
  ["p = agent", () => answer((e) => e.tags[6] = ["p", other]), {}, "its p tag does not name the agent"],
  ["a p tag", () => answer((e) => e.tags.splice(6, 1)), {}, "its p tag does not name the agent"],
  ["an option", () => answer((e) => e.content = "yes"), {}, "names no option of the card"],
  ["exactly an option", () => answer((e) => e.content = "allow please"), {}, "names no option of the card"],
  ["a card's option", () => answer((e) => e.content = "once"), {}, "names no option of the card"],
];

for (const [rule, make, changed, why] of BROKEN) {
  Deno.test(`an answer that breaks one rule (${rule}) is refused for it`, () => {
    assert.deepEqual(answerVerdict(card, make(), { ...context, ...changed }), { refused: why });
  });
}

Deno.test("an answer that breaks one rule (a key the card asks) is refused for it", () => {
  // An approver now, but not one the card named in its `p` tags.
  const late = getPublicKey(agentKey);
  assert.deepEqual(
    answerVerdict(card, answer(() => {}, agentKey), { ...context, approvers: [approver, late] }),
    {
      refused: "not signed by a key the card asks",
    },
  );
});

Deno.test("the expiry reply: a kind 1111 on the card, NIP-22 tags, nothing was done", () => {
  const reply = expiryReply(card, EXPIRATION + 1);
  assert.equal(reply.kind, 1111);
  assert.equal(reply.created_at, EXPIRATION + 1);
  assert.deepEqual(reply.tags, [
    ["h", "general"],
    ["E", card.id, "", agent],
    ["K", "9"],
    ["P", agent],
    ["e", card.id, "", agent],
    ["k", "9"],
    ["p", agent],
  ]);
  assert.match(reply.content, new RegExp(`expired at ${new Date(EXPIRATION * 1000).toISOString()}`));
  assert.match(reply.content, /nothing was done/);
});

Deno.test("what a card's end means: the write's answer, the log's words, why none went up", () => {
  const yes = answer();
  assert.deepEqual(namedCards(answer((e) => e.tags.reverse())), [card.id, card.id]);
  assert.deepEqual(namedCards({ tags: [["e", "b"], ["E", "a"]] }), ["a", "b"], "the root first");
  assert.deepEqual(confirmAnswerOf({ choice: "allow", answer: yes }, 2_000), {
    action: "accept",
    approval: { event: yes.id, author: approver },
  });
  assert.deepEqual(confirmAnswerOf({ choice: "deny", answer: yes }, 2_000), { action: "decline" });
  assert.deepEqual(confirmAnswerOf({ expired: true }, 2_000), { action: "timeout", seconds: 2 });
  assert.equal(confirmAnswerOf({ ended: true }, 2_000).action, "unable");
  assert.deepEqual(confirmAnswerOf({ unposted: "why" }, 2_000), { action: "unable", why: "why" });
  assert.equal(
    permissionOutcomeText({ choice: "deny", answer: yes }),
    `: deny, answered by ${approver} (event ${yes.id})`,
  );
  assert.match(permissionOutcomeText({ expired: true })!, /expired unanswered; Claude Code was told nothing/);
  assert.equal(permissionOutcomeText({ ended: true }), undefined);
  assert.equal(
    unpostedWhy("general", {
      held: true,
      error: "permission: write budget spent: 1 event; nothing was signed",
    }),
    'no approval card could be posted to room "general" (a card counts as a write): write budget spent: 1 event',
  );
  assert.equal(
    unpostedWhy("general", { held: false, error: "restricted: agent grant does not cover kind 9\u001b" }),
    'the approval card (kind 9 in room "general"; the agent\'s grant must allow it) was not posted: ' +
      "restricted: agent grant does not cover kind 9\\u001b",
  );
});
