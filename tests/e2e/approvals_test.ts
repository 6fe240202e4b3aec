// Approvals signed in the room, end to end: a real process on pipes against the strict relay.
// `mcp --approvers <npub> --home-room general`: Claude Code's permission_request becomes one card
// (verified with nostr-tools, in the plugin's format); the approver's signed allow or deny becomes
// one `notifications/claude/channel/permission`; another key, a wrong card id, a late or second
// answer change nothing; an expired card is said in its thread. `--confirm-writes --confirm-via
// relay`: a write waits for its card; allow signs and publishes, the audit line naming the approving
// event; deny and expiry sign nothing and say why. Every stdout line is checked.

import assert from "node:assert/strict";
import {
  finalizeEvent,
  generateSecretKey,
  getPublicKey,
  type NostrEvent,
  verifyEvent,
} from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import {
  assertKeyNeverLeaks,
  assertNoSecret,
  narrowFlags,
  newKey,
  parseStdoutLine,
  type TestKey,
  Tinyagent,
} from "../support/tinyagent.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { within } from "../support/waits.ts";

const VERDICT = "notifications/claude/channel/permission";
const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "approvals-test", version: "1" },
};
const approverKey = generateSecretKey();
const APPROVER = getPublicKey(approverKey);
const strangerKey = generateSecretKey();
const REQUEST = {
  request_id: "abcde",
  tool_name: "Bash",
  description: "List files",
  input_preview: '{"command":"ls"}',
};

const tick = (ms = 10) => new Promise((resolve) => setTimeout(resolve, ms));
function until(ms: number, what: string, check: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!check()) await tick();
    })(),
  );
}

/** Claude Code's verdict notification exactly (channels-facts 5c). */
function assertVerdict(line: string, context: string): { request_id: string; behavior: string } {
  const message = JSON.parse(line);
  assert.deepEqual(Object.keys(message).sort(), ["jsonrpc", "method", "params"], context);
  assert.equal(message.jsonrpc, "2.0", context);
  assert.equal(message.method, VERDICT, context);
  assert.deepEqual(Object.keys(message.params).sort(), ["behavior", "request_id"], context);
  assert.match(message.params.request_id, /^[a-z]+$/, context);
  assert.ok(["allow", "deny"].includes(message.params.behavior), context);
  return message.params;
}

const isVerdict = (line: string) => line.includes(`"method":"${VERDICT}"`);

interface Session {
  facade: Tinyagent;
  relay: StrictRelay;
  key: TestKey;
  verdicts(): { request_id: string; behavior: string }[];
  /** The cards the agent posted, in order. */
  cards(): NostrEvent[];
  /** Waits for the n-th card, posted and its receipt said (so it is open). */
  card(n?: number): Promise<NostrEvent>;
}

/**
 * tinyagent with `flags` after `mcp --relay <url> --approvers <approver> --home-room general`, through
 * the handshake; at the end, exit 0, every stdout line valid and the key nowhere.
 */
async function withSession(
  flags: string[],
  fn: (session: Session) => Promise<void>,
  options: { shipped?: boolean } = {},
): Promise<string> {
  const relay = await startStrictRelay();
  const key = newKey();
  const facade = new Tinyagent({
    flags: options.shipped ? shippedFlags() : narrowFlags(relay.host),
    args: [
      "mcp",
      "--relay",
      relay.url,
      "--approvers",
      nip19.npubEncode(APPROVER),
      "--home-room",
      "general",
      ...flags,
    ],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  const cards = () =>
    relay.events.filter((e) =>
      e.pubkey === key.pubkey && e.kind === 9 && e.tags.some((t) => t[0] === "interaction")
    );
  const session: Session = {
    facade,
    relay,
    key,
    verdicts: () => facade.lines.filter(isVerdict).map((line, i) => assertVerdict(line, `verdict ${i}`)),
    cards,
    card: async (n = 1) => {
      await until(20_000, `card ${n}`, () => cards().length >= n);
      const card = cards()[n - 1];
      await until(
        10_000,
        `card ${n}'s receipt`,
        () => facade.stderr.includes(`receipt: approval_card signed kind 9 event ${card.id}`),
      );
      await until(10_000, "answers awaited", () => facade.stderr.includes("approvals: awaiting answers"));
      return card;
    },
  };
  try {
    await within(30_000, "initialize", facade.request("initialize", INITIALIZE));
    await facade.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await within(30_000, "tools/list", facade.request("tools/list", {}));
    await fn(session);
    const output = await facade.finish();
    assert.equal(output.code, 0, output.stderr.slice(-2000));
    for (const [i, line] of output.lines.entries()) {
      if (isVerdict(line)) assertVerdict(line, `stdout line ${i}`);
      else parseStdoutLine(line, `stdout line ${i}: `, facade);
    }
    assertKeyNeverLeaks(key, output, [relay]);
    return output.stderr;
  } finally {
    await facade.kill();
    await relay.close();
  }
}

/** An answer to `card` as a client writes it (rpc-facts 7.8), valid unless `change` breaks it. */
function answer(
  card: NostrEvent,
  content: string,
  key = approverKey,
  change: (tags: string[][]) => string[][] = (tags) => tags,
): NostrEvent {
  const tags = [
    ["h", "general"],
    ["E", card.id, "", card.pubkey],
    ["K", "9"],
    ["P", card.pubkey],
    ["e", card.id, "", card.pubkey],
    ["k", "9"],
    ["p", card.pubkey],
  ];
  return finalizeEvent(
    { kind: 1111, created_at: Math.floor(Date.now() / 1000), tags: change(tags), content },
    key,
  );
}

const permissionRequest = (params: Record<string, string>) => ({
  jsonrpc: "2.0",
  method: "notifications/claude/channel/permission_request",
  params,
});

Deno.test("a permission request: one card; the approver's allow, then deny, each answered once", async () => {
  const stderr = await withSession([], async (s) => {
    const { facade, relay, key } = s;
    assert.match(
      facade.stderr,
      /Claude Code's permission requests go as approval cards to room "general", answered by 1 key/,
    );
    await facade.send(permissionRequest(REQUEST));
    const card = await s.card();
    assert.ok(verifyEvent(card));
    assert.equal(card.pubkey, key.pubkey);
    const expiration = card.tags.find((t) => t[0] === "expiration")![1];
    assert.ok(Number(expiration) >= card.created_at + 300, "--confirm-timeout's default, 300 s");
    assert.deepEqual(card.tags, [
      ["h", "general"],
      ["tinyagent", "1"],
      ["request", "question"],
      ["interaction", "approval"],
      ["p", APPROVER],
      ["selection", "single"],
      ["expiration", expiration],
      ["subject", "Permission: Bash: List files"],
      ["option", "allow", "Allow"],
      ["option", "deny", "Deny"],
    ]);
    assert.match(
      card.content,
      /\(request abcde\)[\s\S]*Tool: Bash[\s\S]*> List files[\s\S]*> \{"command":"ls"\}/,
    );
    // Not answers: another key, another card's id; then the approver's allow.
    relay.inject(answer(card, "deny", strangerKey));
    relay.inject(
      answer(
        card,
        "deny",
        approverKey,
        (tags) => tags.map((t) => t[1] === card.id ? [t[0], "f".repeat(64)] : t),
      ),
    );
    relay.inject(answer(card, "allow"));
    await until(10_000, "the verdict", () => s.verdicts().length > 0);
    assert.deepEqual(s.verdicts(), [{ request_id: "abcde", behavior: "allow" }]);
    // A second answer changes nothing.
    relay.inject(answer(card, "deny"));
    await tick(500);
    // Another request, denied.
    await facade.send(permissionRequest({ ...REQUEST, request_id: "FGHIJ", tool_name: "Write" }));
    const second = await s.card(2);
    assert.match(second.content, /\(request fghij\)/);
    relay.inject(answer(second, "deny"));
    await until(10_000, "the second verdict", () => s.verdicts().length > 1);
    await tick(300);
    assert.deepEqual(s.verdicts(), [
      { request_id: "abcde", behavior: "allow" },
      { request_id: "fghij", behavior: "deny" },
    ]);
    assert.equal(s.cards().length, 2);
  });
  const ignored = stderr.split("\n").find((line) => line.includes("in answer to cards changed nothing")) ??
    "";
  // Each counted once, though the next card's subscription may bring the same second's history again.
  assert.match(
    ignored,
    /: 1 not signed by an approver, 1 for no open card(, 1 for a card answered already)?$/,
  );
  assert.match(stderr, new RegExp(`abcde \\(Bash\\): allow, answered by ${APPROVER}`));
});

Deno.test("an expired card: said in its thread, and a late answer changes nothing", async () => {
  const stderr = await withSession(["--confirm-timeout", "1"], async (s) => {
    await s.facade.send(permissionRequest(REQUEST));
    const card = await s.card();
    const replies = () => s.relay.events.filter((e) => e.kind === 1111 && e.pubkey === s.key.pubkey);
    await until(10_000, "the expiry reply", () => replies().length > 0);
    const [reply] = replies();
    assert.ok(verifyEvent(reply));
    assert.deepEqual(reply.tags, [
      ["h", "general"],
      ["E", card.id, "", s.key.pubkey],
      ["K", "9"],
      ["P", s.key.pubkey],
      ["e", card.id, "", s.key.pubkey],
      ["k", "9"],
      ["p", s.key.pubkey],
    ]);
    assert.match(reply.content, /^This approval request expired at .* nothing was done/);
    s.relay.inject(answer(card, "allow"));
    await tick(700);
    assert.deepEqual(s.verdicts(), []);
  });
  assert.match(stderr, /abcde \(Bash\): its card expired unanswered; Claude Code was told nothing/);
});

async function auditLines(path: string): Promise<Record<string, unknown>[]> {
  return (await Deno.readTextFile(path)).trimEnd().split("\n").map((line) => JSON.parse(line));
}

type CallAnswer = { result: { isError: boolean; content: { text: string }[]; structuredContent?: unknown } };

const CONFIRM = ["--allow-writes", "--confirm-writes", "--confirm-via", "relay"];

Deno.test("--confirm-via relay: a write waits for its card; allow publishes, deny signs nothing", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  try {
    let key: TestKey | undefined;
    let yes: NostrEvent | undefined;
    await withSession([...CONFIRM, "--audit-log", path], async (s) => {
      key = s.key;
      assert.match(
        s.facade.stderr,
        /each approved by an approver's signed answer to a card in room "general" first \(300 s/,
      );
      assert.match(s.facade.stderr, /permission requests and the writes' confirmations go as approval cards/);
      const call = s.facade.request("tools/call", {
        name: "post_message",
        arguments: { room: "general", content: "hello, approved" },
      }) as Promise<CallAnswer>;
      const card = await s.card();
      assert.match(card.content, /^tinyagent asks before a write \(--confirm-writes\):/);
      assert.match(card.content, /> Sign and publish this event as npub1/);
      assert.match(card.content, /> hello, approved/);
      assert.equal(s.relay.published.length, 0, "nothing signed before the answer");
      yes = answer(card, "allow");
      s.relay.inject(yes);
      const allowed = await within(20_000, "the call", call);
      assert.equal(allowed.result.isError, false, JSON.stringify(allowed));
      const published = s.relay.published.at(-1)!;
      assert.ok(verifyEvent(published));
      assert.equal(published.content, "hello, approved");
      // Deny: nothing signed, said as declined in the room.
      const denied = s.facade.request("tools/call", {
        name: "post_message",
        arguments: { room: "general", content: "not this one" },
      }) as Promise<CallAnswer>;
      s.relay.inject(answer(await s.card(2), "deny"));
      const refused = await within(20_000, "the refused call", denied);
      assert.equal(refused.result.isError, true);
      assert.equal(refused.result.content[0].text, "permission: declined in the room: nothing was signed");
      assert.equal(s.relay.published.length, 1);
      assert.ok(!s.relay.events.some((e) => e.content === "not this one"));
    }, { shipped: true });
    const text = await Deno.readTextFile(path);
    assertNoSecret(key!, text, "the audit log");
    const lines = await auditLines(path);
    assert.deepEqual(lines.map((line) => [line.tool, line.outcome]), [
      ["approval_card", "accepted"],
      ["post_message", "accepted"],
      ["approval_card", "accepted"],
      ["post_message", "held"],
    ]);
    assert.deepEqual(lines[1].approved_by, { event: yes!.id, author: APPROVER });
    assert.equal((lines[1].event as NostrEvent).content, "hello, approved");
    assert.equal(lines[3].why, "declined in the room");
    assert.equal(lines[3].approved_by, undefined);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--confirm-via relay: no answer before the card expires signs nothing, and says so", async () => {
  await withSession([...CONFIRM, "--confirm-timeout", "1"], async (s) => {
    const call = s.facade.request("tools/call", {
      name: "post_message",
      arguments: { room: "general", content: "never answered" },
    }) as Promise<CallAnswer>;
    const answered = await within(20_000, "the refused call", call);
    assert.equal(answered.result.isError, true);
    assert.equal(
      answered.result.content[0].text,
      "permission: declined in the room: no answer within 1 s (--confirm-timeout); nothing was signed",
    );
    assert.equal(s.relay.published.length, 0);
    assert.equal(s.cards().length, 1);
  });
});
