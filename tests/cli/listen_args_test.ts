// The flags that let the relay reach the agent (lib/cli/listen_args.ts): --listen, --allow-from,
// --require-mention and the approvals' --approvers, --home-room, --confirm-via. Every rule and its
// exact message, directly and through parseCommand; keys as npub or hex, once each; a bad key named
// by its place, never echoed.

import assert from "node:assert/strict";
import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type Command, parseCommand, UsageError } from "../../lib/cli/args.ts";
import { approvalFlags, LISTEN_FLAGS, listenFlags } from "../../lib/cli/listen_args.ts";
import { sharedRun } from "../support/tinyagent.ts";

const RELAY = "https://relay.example.test";
const A = getPublicKey(generateSecretKey());
const B = getPublicKey(generateSecretKey());
const SECRET = generateSecretKey();
const NSEC = nip19.nsecEncode(SECRET);

/** The UsageError `fn` throws, its topic checked. */
function usage(fn: () => unknown, topic = "mcp"): string {
  let caught: unknown;
  try {
    fn();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof UsageError, `expected a UsageError, got ${caught}`);
  assert.equal(caught.topic, topic);
  return caught.message;
}

function mcp(...flags: string[]): Extract<Command, { command: "mcp" }> {
  const command = parseCommand(["mcp", "--relay", RELAY, ...flags]);
  assert.equal(command.command, "mcp");
  return command as Extract<Command, { command: "mcp" }>;
}

Deno.test("the flags", () => {
  assert.deepEqual(LISTEN_FLAGS, {
    listen: { type: "string" },
    "allow-from": { type: "string" },
    "require-mention": { type: "boolean" },
    approvers: { type: "string" },
    "home-room": { type: "string" },
    "confirm-via": { type: "string" },
  });
});

Deno.test("--listen with --allow-from: the rooms and keys once each, mentions required by default", () => {
  assert.deepEqual(
    listenFlags({ listen: "general, ops,general,", "allow-from": `${A},${nip19.npubEncode(A)}` }, "mcp"),
    {
      rooms: ["general", "ops"],
      allowFrom: [A],
      requireMention: true,
    },
  );
  assert.deepEqual(
    listenFlags({ listen: "a_b-9", "allow-from": `${A.toUpperCase()} , ${nip19.npubEncode(B)}` }, "mcp"),
    {
      rooms: ["a_b-9"],
      allowFrom: [A, B],
      requireMention: true,
    },
  );
  assert.equal(
    listenFlags({ listen: "g", "allow-from": A, "require-mention": false }, "mcp")?.requireMention,
    false,
  );
  assert.equal(
    listenFlags({ listen: "g", "allow-from": A, "require-mention": true }, "mcp")?.requireMention,
    true,
  );
  assert.equal(listenFlags({}, "mcp"), undefined);
});

Deno.test("through parseCommand: mcp carries listen; --require-mention=false; without --listen, none", () => {
  assert.deepEqual(mcp("--listen", "general", "--allow-from", A).listen, {
    rooms: ["general"],
    allowFrom: [A],
    requireMention: true,
  });
  assert.equal(
    mcp("--listen=general", `--allow-from=${A}`, "--require-mention=false").listen?.requireMention,
    false,
  );
  const plain = mcp();
  assert.ok(!("listen" in plain) && !("approvals" in plain));
});

Deno.test("--listen without --allow-from: nobody is admitted by default, said", () => {
  const expected =
    "--listen needs --allow-from: name the keys (npub or hex) whose events may reach the model; " +
    "nobody is admitted by default, since an ungated listener lets anyone in the room put text before the model";
  assert.equal(usage(() => listenFlags({ listen: "general" }, "mcp")), expected);
  assert.equal(usage(() => mcp("--listen", "general")), expected);
  assert.equal(usage(() => mcp("--listen", "general", "--require-mention=false")), expected);
});

Deno.test("--allow-from or --require-mention without --listen", () => {
  assert.equal(
    usage(() => mcp("--allow-from", A)),
    "--allow-from needs --listen: it says whose events the listener admits",
  );
  assert.equal(
    usage(() => mcp("--require-mention=false")),
    "--require-mention needs --listen: it says which events the listener admits",
  );
});

Deno.test("a bad room: none named, or not a room id", () => {
  for (const value of ["", ",", " , "]) {
    assert.equal(
      usage(() => listenFlags({ listen: value, "allow-from": A }, "mcp")),
      "--listen: name at least one room, such as --listen general",
      JSON.stringify(value),
    );
  }
  for (const bad of ["General", "room one", "r/oom", "é", "x".repeat(65)]) {
    assert.equal(
      usage(() => listenFlags({ listen: `general,${bad}`, "allow-from": A }, "mcp")),
      `--listen: ${JSON.stringify(bad)} is not a room id (1-64 of a-z, 0-9, _ and -)`,
      bad,
    );
  }
  assert.deepEqual(listenFlags({ listen: "x".repeat(64), "allow-from": A }, "mcp")?.rooms, ["x".repeat(64)]);
  assert.match(
    usage(() => mcp("--listen", "General", "--allow-from", A)),
    /^--listen: "General" is not a room id/,
  );
});

Deno.test("a room shaped like a private key is refused and never echoed (it would go to stderr and the relay)", () => {
  // An nsec is 63 of a-z and 0-9, a room id's letters: accepted, it would be said on stderr
  // ("listen: live in …") and sent to the relay in the REQ's #h filter.
  for (
    const argv of [["--listen", `general,${NSEC}`, "--allow-from", A], [
      "--approvers",
      A,
      "--home-room",
      NSEC,
    ]]
  ) {
    let message = "";
    try {
      mcp(...argv);
    } catch (error) {
      message = (error as Error).message;
    }
    assert.notEqual(message, "", `refused: ${argv.join(" ").replace(NSEC, "<nsec>")}`);
    assert.ok(!message.includes(NSEC));
  }
});

Deno.test("a bad key: named by its place, never echoed, whatever it is", () => {
  assert.equal(
    usage(() => listenFlags({ listen: "g", "allow-from": " , " }, "mcp")),
    "--allow-from: name at least one public key (npub1… or 64 hex)",
  );
  const bads = [
    NSEC,
    NSEC.toUpperCase(),
    bytesToHex(SECRET).slice(0, 63),
    `${bytesToHex(SECRET)}00`,
    `npub1${NSEC.slice(5)}`,
    // The checksum's last character changed (to another one: a random key may end in either).
    nip19.npubEncode(A).slice(0, -1) + (nip19.npubEncode(A).endsWith("q") ? "p" : "q"),
    "alice",
  ];
  for (const bad of bads) {
    for (
      const argv of [["--listen", "g", "--allow-from", `${A},${bad}`], [
        "--listen=g",
        `--allow-from=${A},${bad}`,
      ]]
    ) {
      const message = usage(() => mcp(...argv));
      assert.equal(
        message,
        "--allow-from: item 2 is not a public key (an npub1… or 64 hex characters); it is not shown",
        bad,
      );
      assert.equal(sharedRun(bad, message), undefined, `nothing of ${bad} in ${message}`);
      assert.ok(!message.includes(bad));
    }
  }
});

Deno.test("approvals: the settings, and none without --approvers", () => {
  assert.deepEqual(approvalFlags({ approvers: `${A},${A}`, "home-room": "ops" }, false, "mcp"), {
    approvers: [A],
    homeRoom: "ops",
    confirmViaRelay: false,
  });
  assert.deepEqual(
    approvalFlags(
      { approvers: nip19.npubEncode(B), "home-room": "ops", "confirm-via": "relay" },
      true,
      "mcp",
    ),
    { approvers: [B], homeRoom: "ops", confirmViaRelay: true },
  );
  assert.equal(approvalFlags({}, false, "mcp"), undefined);
  assert.equal(approvalFlags({ "confirm-via": "host" }, false, "mcp"), undefined);
  assert.deepEqual(mcp("--approvers", A, "--home-room", "ops").approvals, {
    approvers: [A],
    homeRoom: "ops",
    confirmViaRelay: false,
  });
  assert.equal(
    mcp("--approvers", A, "--home-room", "ops", "--confirm-writes", "--confirm-via", "relay").approvals
      ?.confirmViaRelay,
    true,
  );
});

Deno.test("approvals: every rule and its words", () => {
  assert.equal(
    usage(() => approvalFlags({ "confirm-via": "email" }, true, "mcp")),
    "--confirm-via: host (the host asks its person) or relay (a card in --home-room)",
  );
  assert.equal(
    usage(() => approvalFlags({ approvers: A }, false, "mcp")),
    "--approvers needs --home-room: the room where the approval cards are posted",
  );
  assert.equal(
    usage(() => approvalFlags({ "home-room": "ops" }, false, "mcp")),
    "--home-room needs --approvers: the keys (npub or hex) whose signed answers approve",
  );
  assert.equal(
    usage(() => approvalFlags({ "confirm-via": "relay" }, true, "mcp")),
    "--confirm-via relay needs --approvers and --home-room: who answers, and where",
  );
  assert.equal(
    usage(() => approvalFlags({ approvers: A, "home-room": "ops", "confirm-via": "relay" }, false, "mcp")),
    "--confirm-via relay says how --confirm-writes asks: add --confirm-writes",
  );
  assert.equal(
    usage(() => approvalFlags({ approvers: A, "home-room": "ops,ops2" }, false, "mcp")),
    "--home-room: one room, where the approval cards go",
  );
  assert.equal(
    usage(() => approvalFlags({ approvers: A, "home-room": "Ops" }, false, "mcp")),
    '--home-room: "Ops" is not a room id (1-64 of a-z, 0-9, _ and -)',
  );
  assert.equal(
    usage(() => approvalFlags({ approvers: NSEC, "home-room": "ops" }, false, "mcp")),
    "--approvers: item 1 is not a public key (an npub1… or 64 hex characters); it is not shown",
  );
  assert.equal(
    usage(() => mcp("--approvers", A, "--home-room", "ops", "--confirm-via", "relay")),
    "--confirm-via relay says how --confirm-writes asks: add --confirm-writes",
  );
});

Deno.test("the topic is the caller's", () => {
  assert.equal(
    usage(() => listenFlags({ listen: "g" }, "config"), "config").split(":")[0],
    "--listen needs --allow-from",
  );
});
