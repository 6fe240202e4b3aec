// Which of the relay's events reach the model (lib/listen/addressing.ts): every rule of `admission`
// failing on its own, on an event that each other rule admits; a stranger kept out in every kind and
// every way an event is addressed; the parents an event answers; and a parent whose author is not
// known asked about rather than guessed.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import type { SignedEvent } from "../../lib/key/signer.ts";
import {
  admission,
  type Audience,
  JOB_CANCEL,
  JOB_REQUEST,
  LISTEN_KINDS,
  MESSAGE_KINDS,
  parentsOf,
} from "../../lib/listen/addressing.ts";

const agentKey = generateSecretKey();
const AGENT = getPublicKey(agentKey);
const allowedKey = generateSecretKey();
const ALLOWED = getPublicKey(allowedKey);
const strangerKey = generateSecretKey();
const AGENTS_EVENT = "a1".repeat(32);
const OTHERS_EVENT = "b2".repeat(32);
const UNKNOWN_EVENT = "c3".repeat(32);

const audience = (changes: Partial<Audience> = {}): Audience => ({
  agent: AGENT,
  allowFrom: new Set([ALLOWED]),
  rooms: new Set(["general", "ops"]),
  requireMention: true,
  ...changes,
});

/** What the test knows of a parent's author. */
const known = (id: string): boolean | undefined =>
  id === AGENTS_EVENT ? true : id === OTHERS_EVENT ? false : undefined;

function signed(tags: string[][], kind = 9, key = allowedKey): SignedEvent {
  return JSON.parse(JSON.stringify(
    finalizeEvent({ kind, created_at: 1_700_000_000, tags, content: "hi" }, key),
  ));
}

const MENTION = [["h", "general"], ["p", AGENT]];

Deno.test("the kinds listened to: the messages, the job request and its cancel", () => {
  assert.deepEqual(MESSAGE_KINDS, [9, 11, 12, 1111]);
  assert.deepEqual(LISTEN_KINDS, [9, 11, 12, 1111, JOB_REQUEST, JOB_CANCEL]);
  assert.deepEqual([JOB_REQUEST, JOB_CANCEL], [43001, 43005]);
});

Deno.test("admitted: a mention, in every kind listened to and every room", () => {
  for (const kind of LISTEN_KINDS) {
    for (const room of ["general", "ops"]) {
      assert.deepEqual(admission(signed([["h", room], ["p", AGENT]], kind), audience(), known), {
        admit: true,
      }, `kind ${kind} in ${room}`);
    }
  }
});

Deno.test("each rule, failing on its own, drops the event with its reason", async (t) => {
  await t.step("the agent's own event, even mentioning itself, from a key allowed", () => {
    const own = signed(MENTION, 9, agentKey);
    assert.deepEqual(admission(own, audience({ allowFrom: new Set([ALLOWED, AGENT]) }), known), {
      drop: "the agent's own",
    });
  });
  await t.step("a kind not listened to", () => {
    for (const kind of [1, 7, 10, 13, 1621, 43002, 43004]) {
      assert.deepEqual(
        admission(signed(MENTION, kind), audience(), known),
        { drop: "another kind" },
        `${kind}`,
      );
    }
  });
  await t.step("an author not in --allow-from", () => {
    assert.deepEqual(admission(signed(MENTION, 9, strangerKey), audience(), known), {
      drop: "author not allowed",
    });
  });
  await t.step("another room, or none", () => {
    assert.deepEqual(admission(signed([["h", "random"], ["p", AGENT]]), audience(), known), {
      drop: "another room",
    });
    assert.deepEqual(admission(signed([["p", AGENT]]), audience(), known), { drop: "another room" });
    // A room only in another tag's value is no room.
    assert.deepEqual(admission(signed([["t", "general"], ["p", AGENT]]), audience(), known), {
      drop: "another room",
    });
  });
  await t.step("a message not addressed to the agent", () => {
    for (
      const tags of [
        [["h", "general"]],
        [["h", "general"], ["p", getPublicKey(strangerKey)]],
        [["h", "general"], ["e", OTHERS_EVENT]],
        [["h", "general"], ["E", OTHERS_EVENT], ["e", OTHERS_EVENT, "", "reply"]],
        // The agent's key in another tag, or a p tag with no value, is no mention.
        [["h", "general"], ["t", AGENT]],
        [["h", "general"], ["p"]],
      ]
    ) {
      assert.deepEqual(
        admission(signed(tags), audience(), known),
        { drop: "not addressed" },
        JSON.stringify(tags),
      );
    }
  });
  await t.step("a job request or cancel not naming the agent, even replying to it", () => {
    for (const kind of [JOB_REQUEST, JOB_CANCEL]) {
      assert.deepEqual(admission(signed([["h", "general"], ["e", AGENTS_EVENT]], kind), audience(), known), {
        drop: "not addressed",
      });
      // --require-mention=false admits every message, never a job naming someone else.
      const other = signed([["h", "general"], ["p", getPublicKey(strangerKey)]], kind);
      assert.deepEqual(admission(other, audience({ requireMention: false }), known), {
        drop: "not addressed",
      });
    }
  });
});

/**
 * Every way an event may be addressed to the agent, with the kinds it addresses in, and what the
 * same event gets from an allowed author (with --require-mention): each row is addressed, so only
 * the author can keep it out.
 */
const ADDRESSED: { way: string; kinds: readonly number[]; tags: string[][]; allowed: unknown }[] = [
  { way: "naming it", kinds: LISTEN_KINDS, tags: MENTION, allowed: { admit: true } },
  {
    way: "naming it, in the other room",
    kinds: LISTEN_KINDS,
    tags: [["h", "ops"], ["p", AGENT]],
    allowed: { admit: true },
  },
  {
    way: "a cancel naming it and the job",
    kinds: [JOB_CANCEL],
    tags: [["h", "general"], ["p", AGENT], ["e", AGENTS_EVENT]],
    allowed: { admit: true },
  },
  {
    way: "replying to its event",
    kinds: MESSAGE_KINDS,
    tags: [["h", "general"], ["e", AGENTS_EVENT]],
    allowed: { admit: true },
  },
  {
    way: "commenting on its event",
    kinds: MESSAGE_KINDS,
    tags: [["h", "general"], ["E", AGENTS_EVENT]],
    allowed: { admit: true },
  },
  {
    way: "replying to an event not known (never asked about)",
    kinds: MESSAGE_KINDS,
    tags: [["h", "general"], ["e", UNKNOWN_EVENT]],
    allowed: { parents: [UNKNOWN_EVENT] },
  },
];

Deno.test("a stranger's event addressed to the agent is dropped, in every kind listened to and every way", () => {
  const stranger = getPublicKey(strangerKey);
  for (const { way, kinds, tags, allowed } of ADDRESSED) {
    for (const kind of kinds) {
      for (const requireMention of [true, false]) {
        const context = `kind ${kind}, ${way}, --require-mention=${requireMention}`;
        const given = audience({ requireMention });
        // --require-mention=false admits an allowed author's every message, parents unasked.
        const expected = requireMention || !MESSAGE_KINDS.includes(kind) ? allowed : { admit: true };
        assert.deepEqual(
          admission(signed(tags, kind), given, known),
          expected,
          `${context}: from an allowed author`,
        );
        assert.deepEqual(admission(signed(tags, kind, strangerKey), given, known), {
          drop: "author not allowed",
        }, context);
        // Named in --allow-from, the same stranger is let in: the author is what kept it out.
        const allowing = audience({ requireMention, allowFrom: new Set([ALLOWED, stranger]) });
        assert.deepEqual(admission(signed(tags, kind, strangerKey), allowing, known), expected, context);
      }
    }
  }
});

Deno.test("addressed by a reply: an e or E tag naming one of the agent's events", () => {
  for (const tag of [["e", AGENTS_EVENT], ["e", AGENTS_EVENT, "", "reply"], ["E", AGENTS_EVENT]]) {
    const reply = signed([["h", "general"], ["e", OTHERS_EVENT, "", "root"], tag], 12);
    assert.deepEqual(admission(reply, audience(), known), { admit: true }, JSON.stringify(tag));
  }
});

Deno.test("a parent whose author is not known is asked about, once each, never guessed", () => {
  const reply = signed([["h", "general"], ["e", UNKNOWN_EVENT, "", "root"], ["E", UNKNOWN_EVENT], [
    "e",
    OTHERS_EVENT,
  ]]);
  assert.deepEqual(admission(reply, audience(), known), { parents: [UNKNOWN_EVENT] });
  // Once known, decided.
  assert.deepEqual(admission(reply, audience(), (id) => id === UNKNOWN_EVENT ? true : known(id)), {
    admit: true,
  });
  assert.deepEqual(admission(reply, audience(), (id) => known(id) ?? false), { drop: "not addressed" });
  // A known parent of the agent's decides at once, whatever else is unknown.
  const both = signed([["h", "general"], ["e", UNKNOWN_EVENT], ["e", AGENTS_EVENT]]);
  assert.deepEqual(admission(both, audience(), known), { admit: true });
});

Deno.test("--require-mention=false: every message of the rooms from the allowed authors", () => {
  const open = audience({ requireMention: false });
  for (const kind of MESSAGE_KINDS) {
    assert.deepEqual(admission(signed([["h", "general"]], kind), open, known), { admit: true }, `${kind}`);
  }
  // The other rules still hold.
  assert.deepEqual(admission(signed([["h", "general"]], 9, strangerKey), open, known), {
    drop: "author not allowed",
  });
  assert.deepEqual(admission(signed([["h", "random"]]), open, known), { drop: "another room" });
  assert.deepEqual(admission(signed([["h", "general"]], 9, agentKey), open, known), {
    drop: "the agent's own",
  });
  assert.deepEqual(admission(signed([["h", "general"], ["p", AGENT]], JOB_REQUEST), open, known), {
    admit: true,
  });
});

Deno.test("parentsOf: the e and E tags' values, once each, in order", () => {
  const event = signed([
    ["h", "general"],
    ["E", AGENTS_EVENT],
    ["e", OTHERS_EVENT, "", "root"],
    [
      "e",
      AGENTS_EVENT,
    ],
    ["e"],
    ["p", AGENT],
  ]);
  assert.deepEqual(parentsOf(event), [OTHERS_EVENT, AGENTS_EVENT]);
  assert.deepEqual(parentsOf(signed(MENTION)), []);
});
