// `tinyagent mcp --listen ROOMS --allow-from KEYS` end to end, a real process on pipes against the
// strict relay: the events addressed to the agent by an allowed author (a mention, a reply to an
// event the agent published, a job naming it) each arrive once as a `notifications/claude/channel`
// notification and through tiny_inbox; nothing else does (another author's, of any kind and however
// addressed, a job cancel included; a message not addressed to it, its own event, a job naming
// someone else, another room, the history the relay sends again after a reconnect). Every
// notification is checked against Claude Code's channel contract. The handshake with and without
// the flags, tiny_inbox's wait, and the usage errors.

import assert from "node:assert/strict";
import {
  finalizeEvent,
  generateSecretKey,
  getPublicKey,
  type NostrEvent,
  verifyEvent,
} from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { JSONRPCNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import {
  assertKeyNeverLeaks,
  narrowFlags,
  newKey,
  parseStdoutLine,
  runOnce,
  type TestKey,
  Tinyagent,
} from "../support/tinyagent.ts";
import { within } from "../support/waits.ts";
import { TINY_DIAGNOSE } from "../support/contract.ts";

const CHANNEL = "notifications/claude/channel";
const META_KEY = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const INITIALIZE = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "listen-test", version: "1" },
};

type Listened = { content: string; meta: Record<string, string> };

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

/** Claude Code's channel contract (channels-facts 2a) and what the model needs to answer. */
function assertChannelNotification(line: string, context: string): Listened {
  const message = JSON.parse(line);
  assert.ok(JSONRPCNotificationSchema.safeParse(message).success, `${context}: ${line.slice(0, 300)}`);
  assert.deepEqual(Object.keys(message).sort(), ["jsonrpc", "method", "params"], context);
  assert.equal(message.method, CHANNEL, context);
  const { params } = message;
  assert.equal(typeof params.content, "string", `${context}: content`);
  assert.ok(params.meta !== null && typeof params.meta === "object" && !Array.isArray(params.meta), context);
  for (const [key, value] of Object.entries(params.meta)) {
    assert.match(key, META_KEY, `${context}: meta key ${key}`);
    assert.equal(typeof value, "string", `${context}: meta ${key} is ${typeof value}`);
  }
  for (const key of ["room", "thread", "event_id", "kind", "author"]) {
    assert.ok(typeof params.meta[key] === "string" && params.meta[key] !== "", `${context}: meta.${key}`);
  }
  const decoded = nip19.decode(params.meta.author);
  assert.equal(decoded.type, "npub", `${context}: author is an npub`);
  assert.equal(decoded.data, params.meta.author_pubkey, context);
  return params;
}

const isChannel = (line: string) => line.includes(`"method":"${CHANNEL}"`);

interface Session {
  facade: Tinyagent;
  relay: StrictRelay;
  key: TestKey;
  /** Every channel notification so far, checked against the contract. */
  notified(): Listened[];
  /** The event ids notified so far, in order. */
  ids(): string[];
  inbox(args?: Record<string, unknown>): Promise<{ events: Listened[]; dropped: number; remaining: number }>;
}

/**
 * tinyagent with `flags` after `mcp --relay <url>`, through the handshake (and live in its rooms
 * when it listens); at the end, exit 0, every stdout line valid (an answer, or a notification that
 * keeps the channel contract) and the key nowhere.
 */
async function withSession(
  flags: string[],
  fn: (session: Session) => Promise<void>,
  options: { listens?: boolean; relay?: StrictRelay } = {},
): Promise<void> {
  const relay = options.relay ?? await startStrictRelay();
  const key = newKey();
  const facade = new Tinyagent({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, ...flags],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  const notified = () =>
    facade.lines.filter(isChannel).map((line, i) => assertChannelNotification(line, `notification ${i}`));
  const session: Session = {
    facade,
    relay,
    key,
    notified,
    ids: () => notified().map((n) => n.meta.event_id),
    inbox: async (args = {}) => {
      const answer = await facade.request("tools/call", { name: "tiny_inbox", arguments: args });
      const result = answer.result as { structuredContent: never; isError: boolean };
      assert.equal(result.isError, false, JSON.stringify(answer));
      return result.structuredContent;
    },
  };
  try {
    await within(30_000, "initialize", facade.request("initialize", INITIALIZE));
    await facade.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    await within(30_000, "tools/list", facade.request("tools/list", {}));
    if (options.listens ?? true) {
      await until(30_000, "the listener live", () => facade.stderr.includes("listen: live in"));
    }
    await fn(session);
    const output = await facade.finish();
    assert.equal(output.code, 0, output.stderr.slice(-2000));
    for (const [i, line] of output.lines.entries()) {
      if (isChannel(line)) assertChannelNotification(line, `stdout line ${i}`);
      else parseStdoutLine(line, `stdout line ${i}: `, facade);
    }
    assertKeyNeverLeaks(key, output, [relay]);
  } finally {
    await facade.kill();
    if (!options.relay) await relay.close();
  }
}

const aliceKey = generateSecretKey();
const ALICE = getPublicKey(aliceKey);
const bobKey = generateSecretKey();
const now = () => Math.floor(Date.now() / 1000);
let serial = 0;
function signed(
  key: Uint8Array,
  kind: number,
  tags: string[][],
  content = `message ${serial++}`,
): NostrEvent {
  return finalizeEvent({ kind, created_at: now(), tags, content }, key);
}
const mentionOf = (agent: string, content?: string) =>
  signed(aliceKey, 9, [["h", "general"], ["p", agent]], content);

/** The subscription's REQs (not the lookups') the relay received, with the connection of each. */
function subscriptionReqs(relay: StrictRelay): number[] {
  return relay.clientMessages
    .filter((m) => Array.isArray(m.message) && m.message[0] === "REQ" && "#h" in (m.message[2] as object))
    .map((m) => m.connection);
}

Deno.test("addressed events arrive once, as a channel notification and in tiny_inbox; nothing else does", async () => {
  await withSession(["--listen", "general", "--allow-from", ALICE, "--allow-writes"], async (s) => {
    const { facade, relay, key } = s;
    // An event the agent published, through the relay's tool, for alice to reply to.
    const posted = await facade.request("tools/call", {
      name: "post_message",
      arguments: { room: "general", content: "hello from the agent" },
    });
    assert.equal((posted.result as { isError: boolean }).isError, false, JSON.stringify(posted));
    const own = relay.published.at(-1)!;
    assert.ok(verifyEvent(own));
    assert.equal(own.pubkey, key.pubkey);

    const mention = mentionOf(key.pubkey, "a mention");
    const reply = signed(aliceKey, 12, [["h", "general"], ["e", own.id, "", "root"]], "a reply to the agent");
    const job = signed(aliceKey, 43001, [["h", "general"], ["p", key.pubkey], ["subject", "Sum"]], "the job");
    const kept = [
      signed(bobKey, 9, [["h", "general"], ["p", key.pubkey]], "bob is not allowed"),
      signed(aliceKey, 9, [["h", "general"]], "not addressed"),
      signed(aliceKey, 12, [["h", "general"], ["e", "ab".repeat(32), "", "root"]], "a reply to someone else"),
      signed(key.secretKey, 9, [["h", "general"], ["p", key.pubkey]], "the agent's own"),
      signed(aliceKey, 43001, [["h", "general"], ["p", getPublicKey(bobKey)]], "a job for bob"),
      signed(aliceKey, 9, [["h", "ops"], ["p", key.pubkey]], "another room"),
    ];
    for (const event of [mention, ...kept.slice(0, 3), reply, ...kept.slice(3), job]) relay.inject(event);
    const sentinel = mentionOf(key.pubkey, "sentinel");
    relay.inject(sentinel);
    await until(20_000, "the sentinel", () => s.ids().includes(sentinel.id));
    await tick(300); // anything late would show now
    assert.deepEqual(s.ids(), [mention.id, reply.id, job.id, sentinel.id]);
    const [m, r, j] = s.notified();
    assert.equal(m.content, "a mention");
    assert.deepEqual([m.meta.room, m.meta.thread, m.meta.kind, m.meta.author_pubkey], [
      "general",
      mention.id,
      "9",
      ALICE,
    ]);
    assert.deepEqual([r.meta.thread, r.meta.reply_to, r.meta.kind], [own.id, own.id, "12"]);
    assert.deepEqual([j.content, j.meta.job, j.meta.kind], ["Sum\n\nthe job", job.id, "43001"]);
    // The same events, in the same order and shape, through tiny_inbox; then it is empty.
    const inbox = await s.inbox({ limit: 100 });
    assert.deepEqual(inbox, { events: s.notified(), dropped: 0, remaining: 0 });
    assert.deepEqual((await s.inbox()).events, []);

    // The relay drops the websocket; on the next one it sends its history again: none of it twice.
    const before = subscriptionReqs(relay).length;
    assert.ok(relay.cutConnections() > 0);
    await until(20_000, "the subscription sent again", () => {
      const reqs = subscriptionReqs(relay);
      return reqs.length > before && reqs.at(-1) !== reqs[0];
    });
    await until(10_000, "said on stderr", () => facade.stderr.includes("subscribing again"));
    const after = mentionOf(key.pubkey, "after the reconnect");
    relay.inject(after);
    await until(20_000, "the mention after", () => s.ids().includes(after.id));
    await tick(300);
    assert.deepEqual(s.ids(), [mention.id, reply.id, job.id, sentinel.id, after.id]);
    assert.deepEqual((await s.inbox()).events.map((e) => e.meta.event_id), [after.id]);
  });
});

Deno.test("a stranger's event of every kind, addressed to the agent, reaches neither the channel nor tiny_inbox; its cancel cancels nothing", async () => {
  await withSession(["--listen", "general", "--allow-from", ALICE, "--allow-writes"], async (s) => {
    const { facade, relay, key } = s;
    const posted = await facade.request("tools/call", {
      name: "post_message",
      arguments: { room: "general", content: "the agent's, for replies" },
    });
    assert.equal((posted.result as { isError: boolean }).isError, false, JSON.stringify(posted));
    const own = relay.published.at(-1)!;
    const job = signed(aliceKey, 43001, [["h", "general"], ["p", key.pubkey]], "alice's job");
    relay.inject(job);
    await until(20_000, "alice's job", () => s.ids().includes(job.id));

    // Bob, not in --allow-from: each kind naming the agent (the cancel naming alice's job too), and
    // each message kind replying to the agent's event.
    for (const kind of [9, 11, 12, 1111, 43001, 43005]) {
      const tags = [["h", "general"], ["p", key.pubkey]];
      relay.inject(signed(bobKey, kind, kind === 43005 ? [...tags, ["e", job.id]] : tags, `bob's ${kind}`));
    }
    for (const kind of [9, 11, 12, 1111]) {
      relay.inject(
        signed(bobKey, kind, [["h", "general"], ["e", own.id, "", "root"]], `bob's reply ${kind}`),
      );
    }
    // One subscription, its events decided in order: once alice's next shows, bob's are decided.
    const sentinel = mentionOf(key.pubkey, "sentinel");
    relay.inject(sentinel);
    await until(20_000, "the sentinel", () => s.ids().includes(sentinel.id));
    assert.deepEqual(s.ids(), [job.id, sentinel.id]);
    assert.deepEqual(await s.inbox({ limit: 100 }), { events: s.notified(), dropped: 0, remaining: 0 });

    // The job is still on: only alice's cancel reaches the model.
    const cancel = signed(
      aliceKey,
      43005,
      [["h", "general"], ["p", key.pubkey], ["e", job.id]],
      "never mind",
    );
    relay.inject(cancel);
    await until(20_000, "alice's cancel", () => s.ids().includes(cancel.id));
    assert.deepEqual(s.ids(), [job.id, sentinel.id, cancel.id]);
    assert.equal(s.notified()[2].meta.job, job.id);
    assert.deepEqual((await s.inbox()).events.map((event) => event.meta.event_id), [cancel.id]);
  });
});

Deno.test("--require-mention=false: every message of the rooms from allowed authors, no job naming another", async () => {
  await withSession(
    ["--listen", "general,ops", "--allow-from", ALICE, "--require-mention=false"],
    async (s) => {
      const plain = signed(aliceKey, 9, [["h", "ops"]], "plain");
      const thread = signed(aliceKey, 11, [["h", "general"]], "a thread");
      const events = [
        plain,
        signed(aliceKey, 43001, [["h", "ops"], ["p", getPublicKey(bobKey)]], "a job for bob"),
        signed(bobKey, 9, [["h", "ops"]], "bob"),
        thread,
        signed(s.key.secretKey, 9, [["h", "ops"]], "own"),
      ];
      for (const event of events) s.relay.inject(event);
      const job = signed(aliceKey, 43001, [["h", "ops"], ["p", s.key.pubkey]], "a job for the agent");
      s.relay.inject(job);
      await until(20_000, "the job", () => s.ids().includes(job.id));
      await tick(300);
      assert.deepEqual(s.ids(), [plain.id, thread.id, job.id]);
      assert.deepEqual((await s.inbox()).events.map((e) => e.meta.event_id), [plain.id, thread.id, job.id]);
    },
  );
});

Deno.test("tiny_inbox over pipes: at most `limit`, oldest first; wait holds the call until an event comes, or its bound", async () => {
  await withSession(["--listen", "general", "--allow-from", ALICE], async (s) => {
    const events = Array.from({ length: 5 }, (_, i) => mentionOf(s.key.pubkey, `m${i}`));
    for (const event of events) s.relay.inject(event);
    await until(20_000, "the five", () => s.ids().length === 5);
    const first = await s.inbox({ limit: 2 });
    assert.deepEqual(first.events.map((e) => e.content), ["m0", "m1"]);
    assert.equal(first.remaining, 3);
    assert.deepEqual((await s.inbox({ limit: 100 })).events.map((e) => e.content), ["m2", "m3", "m4"]);
    // A held call, answered by the event that arrives while it waits.
    const held = s.inbox({ wait: 30 });
    let answered = false;
    void held.then(() => answered = true);
    await tick(500);
    assert.equal(answered, false, "held while nothing is waiting");
    const late = mentionOf(s.key.pubkey, "late");
    s.relay.inject(late);
    const got = await within(20_000, "the held call", held);
    assert.deepEqual(got.events.map((e) => e.meta.event_id), [late.id]);
    // Nothing comes: answered empty at the bound. The ping meanwhile is answered at once.
    const started = performance.now();
    const bounded = s.inbox({ wait: 1 });
    assert.deepEqual((await within(5000, "ping while a call waits", s.facade.request("ping"))).result, {});
    assert.deepEqual(await within(10_000, "the bound", bounded), { events: [], dropped: 0, remaining: 0 });
    assert.ok(performance.now() - started >= 900);
    const bad = await s.facade.request("tools/call", { name: "tiny_inbox", arguments: { limit: 0 } });
    assert.equal((bad.result as { isError: boolean }).isError, true);
  });
});

/** The initialize answer and tool names for `flags`. */
async function handshake(relay: StrictRelay, flags: string[], listens: boolean) {
  let result: Record<string, unknown> = {};
  let names: string[] = [];
  await withSession(flags, async ({ facade }) => {
    const answer = await facade.request("initialize", INITIALIZE);
    result = answer.result as Record<string, unknown>;
    const list = await facade.request("tools/list", {});
    names = (list.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  }, { listens, relay });
  return { result, names };
}

Deno.test("the handshake: the channel declared only when it listens (the permission key only with approvers); instructions always, at most 1,200 characters; tiny_inbox only with --listen", async () => {
  const relay = await startStrictRelay();
  try {
    const approve = ["--approvers", ALICE, "--home-room", "general"];
    const listen = ["--listen", "general", "--allow-from", ALICE];
    const cases: [string, string[], boolean, Record<string, unknown> | undefined][] = [
      ["neither flag", [], false, undefined],
      ["--listen", listen, true, { "claude/channel": {} }],
      ["--listen and --approvers", [...listen, ...approve], true, {
        "claude/channel": {},
        "claude/channel/permission": {},
      }],
      // Claude Code relays a permission prompt only to a server that declares both keys (channels-facts 5a).
      ["--approvers alone", approve, false, { "claude/channel": {}, "claude/channel/permission": {} }],
    ];
    for (const [what, flags, listens, experimental] of cases) {
      const { result, names } = await handshake(relay, flags, listens);
      const capabilities = result.capabilities as Record<string, unknown>;
      assert.deepEqual(capabilities.experimental, experimental, what);
      assert.deepEqual(capabilities.tools, { listChanged: true }, what);
      const instructions = result.instructions as string;
      assert.equal(typeof instructions, "string", what);
      assert.ok(instructions.length > 0 && instructions.length <= 1200, `${what}: ${instructions.length}`);
      assert.equal(instructions.includes("tiny_inbox"), listen.every((flag) => flags.includes(flag)), what);
      assert.equal(names.includes("tiny_inbox"), flags.includes("--listen"), what);
      assert.equal(names.at(flags.includes("--listen") ? -2 : -1), TINY_DIAGNOSE, what);
    }
  } finally {
    await relay.close();
  }
});

Deno.test("usage errors: --listen without --allow-from, a bad key (never echoed), a bad room", async () => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    const secret = newKey();
    const cases: [string[], string][] = [
      [["--listen", "general"], "--listen needs --allow-from: name the keys (npub or hex)"],
      [["--listen", "general", "--allow-from", secret.nsec], "--allow-from: item 1 is not a public key"],
      [
        ["--listen", "general", "--allow-from", `${ALICE},${secret.hex.slice(1)}`],
        "--allow-from: item 2 is not",
      ],
      [["--listen", "General", "--allow-from", ALICE], '--listen: "General" is not a room id'],
      [["--allow-from", ALICE], "--allow-from needs --listen"],
    ];
    for (const [flags, message] of cases) {
      const output = await runOnce({
        flags: narrowFlags(relay.host),
        args: ["mcp", "--relay", relay.url, ...flags],
        env: { TINY_PRIVATE_KEY: key.hex },
      });
      assert.equal(output.code, 1, flags.join(" "));
      assert.equal(output.stdout, "", "stdout stays protocol-only");
      assert.ok(output.stderr.startsWith(`tinyagent: ${message}`), output.stderr.slice(0, 300));
      assertKeyNeverLeaks(
        secret,
        { lines: [output.stdout], stderr: output.stderr },
        [],
        ` (${flags.join(" ")})`,
      );
      assertKeyNeverLeaks(
        key,
        { lines: [output.stdout], stderr: output.stderr },
        [],
        ` (${flags.join(" ")})`,
      );
    }
    assert.equal(relay.requests.length + relay.wsConnections, 0, "a usage error reaches nothing");
  } finally {
    await relay.close();
  }
});
