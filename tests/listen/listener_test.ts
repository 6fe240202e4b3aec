// The session's ear on the relay (lib/listen/listener.ts), in process against the strict relay with a
// real RelayStream and Signer: one subscription to the rooms; each admitted event given once to
// the inbox and the channel; the agent's own events remembered so replies to them need no lookup;
// unknown parents looked up in batches of 100; a lookup that fails counts its parents as not the
// agent's; the pending bound; a channel that is behind pausing the subscription, and every event
// still given once when it catches up; the drops counted on the log.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type SignedEvent, Signer } from "../../lib/key/signer.ts";
import { JOB_CANCEL, JOB_REQUEST, LISTEN_KINDS, MESSAGE_KINDS } from "../../lib/listen/addressing.ts";
import type { ListenedEvent } from "../../lib/listen/channel_message.ts";
import { Inbox } from "../../lib/listen/inbox.ts";
import { type ChannelOut, Listener } from "../../lib/listen/listener.ts";
import { RelayStream } from "../../lib/stream/relay_stream.ts";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import { within } from "../support/waits.ts";

const agentKey = generateSecretKey();
const AGENT = getPublicKey(agentKey);
const signerResult = await Signer.fromValue(bytesToHex(agentKey), "TINY_PRIVATE_KEY");
assert.ok(signerResult.ok);
const signer = signerResult.signer;
const aliceKey = generateSecretKey();
const ALICE = getPublicKey(aliceKey);
const strangerKey = generateSecretKey();

const now = () => Math.floor(Date.now() / 1000);
let serial = 0;
function signed(
  key: Uint8Array,
  tags: string[][],
  options: { kind?: number; at?: number; content?: string } = {},
): SignedEvent {
  const event = finalizeEvent({
    kind: options.kind ?? 9,
    created_at: options.at ?? now(),
    tags,
    content: options.content ?? `message ${serial++}`,
  }, key);
  return JSON.parse(JSON.stringify(event));
}
const mention = (content?: string) => signed(aliceKey, [["h", "general"], ["p", AGENT]], { content });
const replyTo = (parent: string, content?: string) =>
  signed(aliceKey, [["h", "general"], ["e", parent, "", "root"]], { kind: 12, content });
/** An event of the agent's the subscription never sees (too old for its `since`): only a lookup finds it. */
const oldOwn = () => signed(agentKey, [["h", "general"]], { at: now() - 3600 });

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));
function until(ms: number, what: string, check: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!check()) await tick();
    })(),
  );
}

/** A channel whose stdout may be behind: while it is, sends are refused; `catchUp` drains it. */
class Channel implements ChannelOut {
  sent: ListenedEvent[] = [];
  behind = false;
  #drained = Promise.withResolvers<void>();
  send(event: ListenedEvent): boolean {
    if (this.behind) return false;
    this.sent.push(event);
    return true;
  }
  drained(): Promise<void> {
    return this.behind ? this.#drained.promise : Promise.resolve();
  }
  catchUp(): void {
    this.behind = false;
    this.#drained.resolve();
    this.#drained = Promise.withResolvers<void>();
  }
}

/** A real stream whose queries (the parents' lookups) can be held back, and counted. */
class HeldLookups extends RelayStream {
  hold: Promise<void> = Promise.resolve();
  asked: string[][] = [];
  override async query(filters: readonly unknown[], signal: AbortSignal): Promise<SignedEvent[]> {
    this.asked.push((filters[0] as { ids: string[] }).ids);
    await this.hold;
    return super.query(filters, signal);
  }
}

interface Ctx {
  relay: StrictRelay;
  stream: HeldLookups;
  listener: Listener;
  inbox: Inbox;
  channel: Channel;
  logs: string[];
  /** The contents that reached the channel, in order. */
  seen(): string[];
}

async function withListener(
  fn: (ctx: Ctx) => Promise<void>,
  settings: { requireMention?: boolean; inbox?: Inbox } = {},
): Promise<void> {
  const relay = await startStrictRelay();
  const logs: string[] = [];
  const stream = new HeldLookups({ url: relay.wsUrl, signer, log: (line) => logs.push(line) });
  const inbox = settings.inbox ?? new Inbox();
  const channel = new Channel();
  const listener = new Listener({
    stream,
    settings: {
      rooms: ["general", "ops"],
      allowFrom: [ALICE],
      requireMention: settings.requireMention ?? true,
    },
    agent: AGENT,
    npubOf: (hex) => nip19.npubEncode(hex),
    inbox,
    channel,
    log: (line) => logs.push(line),
  });
  const ctx: Ctx = {
    relay,
    stream,
    listener,
    inbox,
    channel,
    logs,
    seen: () => channel.sent.map((e) => e.content),
  };
  try {
    listener.start();
    await until(10_000, "the listener live", () => logs.includes('listen: live in "general", "ops"'));
    await fn(ctx);
  } finally {
    listener.close();
    stream.close();
    await relay.close();
  }
}

/** The lookups' REQs the relay received: their id lists. */
function lookups(relay: StrictRelay): string[][] {
  return relay.clientMessages
    .map((m) => m.message)
    .filter((m): m is [string, string, { ids: string[] }] =>
      Array.isArray(m) && m[0] === "REQ" && typeof m[2] === "object" && "ids" in (m[2] as object)
    )
    .map((m) => m[2].ids);
}

Deno.test("one subscription to the rooms' kinds since a minute ago; said live once", async () => {
  await withListener(({ relay, logs }) => {
    const reqs = relay.clientMessages.map((m) => m.message).filter((m) => Array.isArray(m) && m[0] === "REQ");
    const filter = (reqs.at(-1) as unknown[])[2] as Record<string, unknown>;
    assert.deepEqual(filter.kinds, [9, 11, 12, 1111, 43001, 43005]);
    assert.deepEqual(filter["#h"], ["general", "ops"]);
    assert.ok(Math.abs((filter.since as number) - (now() - 60)) <= 5);
    assert.equal(logs.filter((line) => line.startsWith("listen: live")).length, 1);
    return Promise.resolve();
  });
});

Deno.test("an admitted event reaches the channel and the inbox once, as the model meets it", async () => {
  await withListener(async ({ relay, inbox, channel, seen }) => {
    const event = mention("hello agent");
    relay.inject(event);
    await until(5000, "the mention", () => seen().length === 1);
    assert.deepEqual(channel.sent[0].meta, {
      room: "general",
      thread: event.id,
      event_id: event.id,
      kind: "9",
      author: nip19.npubEncode(ALICE),
      author_pubkey: ALICE,
      created_at: String(event.created_at),
    });
    assert.deepEqual(inbox.take(10).events, channel.sent);
    // The relay sends it again (a REQ sent anew): still once.
    relay.closeSubscriptions();
    relay.inject(mention("after"));
    await until(5000, "the next", () => seen().length === 2);
    assert.deepEqual(seen(), ["hello agent", "after"]);
  });
});

Deno.test("the agent's own events, seen live or named by ownEvent, make replies addressed: no lookup", async () => {
  await withListener(async ({ relay, stream, listener, seen }) => {
    // Any lookup would now hang: none may be made.
    stream.hold = new Promise(() => {});
    const own = signed(agentKey, [["h", "general"]], { content: "mine" });
    relay.inject(own);
    relay.inject(replyTo(own.id, "reply to a live one"));
    await until(5000, "the reply", () => seen().length === 1);
    // An event the agent signed elsewhere in this session (a write the facade made).
    const elsewhere = "d4".repeat(32);
    listener.ownEvent(elsewhere);
    relay.inject(replyTo(elsewhere, "reply to a write"));
    await until(5000, "the second reply", () => seen().length === 2);
    assert.deepEqual(seen(), ["reply to a live one", "reply to a write"]);
    assert.deepEqual(stream.asked, [], "no lookup");
    assert.deepEqual(lookups(relay), []);
  });
});

Deno.test("unknown parents: looked up, then admitted when the agent's, dropped when not", async () => {
  await withListener(async ({ relay, seen, stream }) => {
    const mine = oldOwn();
    const theirs = signed(aliceKey, [["h", "general"]], { at: now() - 3600 });
    relay.inject(mine);
    relay.inject(theirs);
    relay.inject(replyTo(theirs.id, "to alice"));
    relay.inject(replyTo(mine.id, "to the agent"));
    await until(5000, "the reply to the agent", () => seen().length === 1);
    assert.deepEqual(seen(), ["to the agent"]);
    // Both asked about in one lookup.
    assert.deepEqual(stream.asked.map((ids) => [...ids].sort()), [[mine.id, theirs.id].sort()]);
    // Now known: replies to either are decided without asking again.
    relay.inject(replyTo(mine.id, "again"));
    relay.inject(replyTo(theirs.id, "again to alice"));
    relay.inject(mention("sentinel"));
    await until(5000, "the sentinel", () => seen().includes("sentinel"));
    assert.deepEqual(seen(), ["to the agent", "again", "sentinel"]);
    assert.equal(stream.asked.length, 1);
  });
});

Deno.test("parents looked up in batches of 100; past 500 waiting, events are dropped and counted", async () => {
  await withListener(async ({ relay, stream, seen, listener, logs }) => {
    // The agent's events, too old for the subscription: a fifth of the replies answer one.
    const own = Array.from({ length: 120 }, oldOwn);
    for (const event of own) relay.inject(event);
    const others = Array.from({ length: 600 }, (_, i) =>
      i % 5 === 0 ? own[i / 5].id : bytesToHex(
        crypto.getRandomValues(new Uint8Array(32)),
      ));
    const replies = others.map((parent, i) => replyTo(parent, `reply ${i}`));
    const first = replyTo(own[119].id, "first");
    // The first lookup is held: everything after it waits.
    let release!: () => void;
    stream.hold = new Promise((resolve) => release = resolve);
    relay.inject(first);
    await until(5000, "the first lookup", () => stream.asked.length === 1);
    for (const reply of replies) relay.inject(reply);
    relay.inject(mention("sentinel"));
    await until(20_000, "the sentinel (every reply taken)", () => seen().includes("sentinel"));
    release();
    const expected = ["first", ...replies.slice(0, 500).filter((_, i) => i % 5 === 0).map((e) => e.content)];
    await until(20_000, "the admitted replies", () => seen().length === expected.length + 1);
    assert.deepEqual(seen().filter((s) => s !== "sentinel").sort(), expected.sort());
    // One lookup for the first; then the 500 that waited, in five batches of 100.
    assert.deepEqual(lookups(relay).map((ids) => ids.length), [1, 100, 100, 100, 100, 100]);
    assert.deepEqual(new Set(lookups(relay).slice(1).flat()), new Set(others.slice(0, 500)));
    listener.close();
    assert.deepEqual(logs.filter((line) => line.includes("kept from the model")), [
      "listen: 500 event(s) kept from the model: 100 parent not looked up, 400 not addressed",
    ]);
  });
});

Deno.test("a lookup that fails: said on the log, its events dropped as not addressed, asked again later", async () => {
  await withListener(async ({ relay, seen, logs, listener }) => {
    const mine = oldOwn();
    relay.inject(mine);
    relay.membersOnly = true; // new REQs refused; the live subscription goes on
    relay.inject(replyTo(mine.id, "lost"));
    await until(5000, "the failure", () => logs.some((line) => line.includes("could not be looked up")));
    assert.match(
      logs.find((line) => line.includes("could not be looked up"))!,
      /^listen: the events replied to could not be looked up: query closed by the relay: auth-required: this relay is members-only$/,
    );
    relay.membersOnly = false;
    relay.inject(replyTo(mine.id, "found"));
    await until(5000, "the next reply", () => seen().length === 1);
    assert.deepEqual(seen(), ["found"]);
    listener.close();
    assert.ok(logs.includes("listen: 1 event(s) kept from the model: 1 not addressed"), logs.join("\n"));
  });
});

Deno.test("the drops, counted by reason on the log, never shown to the model", async () => {
  await withListener(async ({ relay, seen, listener, logs, inbox }) => {
    for (let i = 0; i < 3; i++) relay.inject(signed(strangerKey, [["h", "general"], ["p", AGENT]]));
    for (let i = 0; i < 2; i++) relay.inject(signed(agentKey, [["h", "general"], ["p", AGENT]]));
    for (let i = 0; i < 4; i++) relay.inject(signed(aliceKey, [["h", "ops"]]));
    relay.inject(signed(aliceKey, [["h", "ops"], ["p", "e5".repeat(32)]], { kind: 43001 }));
    relay.inject(mention("sentinel"));
    await until(5000, "the sentinel", () => seen().includes("sentinel"));
    assert.deepEqual(seen(), ["sentinel"]);
    assert.equal(inbox.size, 1);
    assert.ok(!logs.some((line) => line.includes("kept from the model")), "said every 10 s, not at once");
    listener.close();
    assert.deepEqual(logs.filter((line) => line.includes("kept from the model")), [
      "listen: 10 event(s) kept from the model: 3 author not allowed, 2 the agent's own, 5 not addressed",
    ]);
  });
});

Deno.test("a stranger's event of every kind listened to, addressed to the agent: kept from the model, nothing asked", async () => {
  await withListener(async ({ relay, seen, listener, logs, inbox, stream }) => {
    const live = signed(agentKey, [["h", "general"]], { content: "the agent's" });
    const old = oldOwn(); // a reply to it would need a lookup
    relay.inject(old);
    relay.inject(live);
    const job = signed(aliceKey, [["h", "general"], ["p", AGENT]], { kind: JOB_REQUEST, content: "job" });
    relay.inject(job);
    await until(5000, "alice's job", () => seen().includes("job"));
    for (const kind of LISTEN_KINDS) {
      const tags = [["h", kind === 9 ? "ops" : "general"], ["p", AGENT]];
      relay.inject(signed(strangerKey, kind === JOB_CANCEL ? [...tags, ["e", job.id]] : tags, { kind }));
    }
    for (const kind of MESSAGE_KINDS) {
      relay.inject(signed(strangerKey, [["h", "general"], ["e", live.id, "", "root"]], { kind }));
      relay.inject(signed(strangerKey, [["h", "general"], ["E", old.id]], { kind }));
    }
    relay.inject(mention("sentinel"));
    await until(5000, "the sentinel", () => seen().includes("sentinel"));
    assert.deepEqual(seen(), ["job", "sentinel"]);
    assert.deepEqual(inbox.take(10).events.map((event) => event.content), ["job", "sentinel"]);
    assert.deepEqual(stream.asked, [], "no lookup on a stranger's account");
    listener.close();
    assert.deepEqual(logs.filter((line) => line.includes("kept from the model")), [
      "listen: 15 event(s) kept from the model: 1 the agent's own, 14 author not allowed",
    ]);
  });
});

Deno.test("--require-mention=false: every message of the rooms from allowed authors, but no job naming another", async () => {
  await withListener(async ({ relay, seen }) => {
    relay.inject(signed(aliceKey, [["h", "ops"]], { content: "plain" }));
    relay.inject(signed(aliceKey, [["h", "ops"], ["p", "e5".repeat(32)]], { kind: 43001, content: "job" }));
    relay.inject(signed(strangerKey, [["h", "ops"]], { content: "stranger" }));
    relay.inject(mention("sentinel"));
    await until(5000, "the sentinel", () => seen().includes("sentinel"));
    assert.deepEqual(seen(), ["plain", "sentinel"]);
  }, { requireMention: false });
});

Deno.test("a channel that is behind pauses the subscription; caught up, every event given once", async () => {
  await withListener(async ({ relay, channel, logs, inbox, seen }) => {
    relay.inject(mention("before"));
    await until(5000, "the first", () => seen().length === 1);
    channel.behind = true;
    const during = Array.from({ length: 20 }, (_, i) => mention(`during ${i}`));
    for (const event of during) relay.inject(event);
    // The subscription is ended at the relay while it waits.
    await until(
      5000,
      "the CLOSE",
      () => relay.clientMessages.some((m) => Array.isArray(m.message) && m.message[0] === "CLOSE"),
    );
    await tick(100);
    assert.deepEqual(seen(), ["before"]);
    assert.equal(inbox.size, 1, "a refused event is not in the inbox either: it comes again");
    channel.catchUp();
    await until(5000, "the rest", () => seen().length === 21);
    assert.deepEqual(seen().slice(1).sort(), during.map((e) => e.content).sort());
    assert.equal(new Set(seen()).size, 21, "each once");
    assert.equal(inbox.take(100).events.length, 21);
    const said = logs.find((line) => line.includes("stdout was behind"));
    assert.match(
      said!,
      /^listen: the host's stdout was behind; \d+ event\(s\) are fetched again from the relay$/,
    );
    relay.inject(mention("after"));
    await until(5000, "live again", () => seen().includes("after"));
    assert.equal(seen().length, 22);
  });
});

Deno.test("caught up after a pause, the events held back come oldest first, as tiny_inbox promises", async () => {
  // The REQ sent on resuming brings the relay's history newest first (NIP-01): the listener holds it
  // until the EOSE and gives it on oldest first.
  await withListener(async ({ relay, channel, inbox, seen }) => {
    channel.behind = true;
    const at = now() - 30;
    const during = Array.from(
      { length: 10 },
      (_, i) => signed(aliceKey, [["h", "general"], ["p", AGENT]], { at: at + i, content: `during ${i}` }),
    );
    for (const event of during) relay.inject(event);
    await until(
      5000,
      "the CLOSE",
      () => relay.clientMessages.some((m) => Array.isArray(m.message) && m.message[0] === "CLOSE"),
    );
    channel.catchUp();
    await until(5000, "the ten", () => seen().length === 10);
    assert.deepEqual(seen(), during.map((e) => e.content));
    assert.deepEqual(inbox.take(100).events.map((e) => e.content), during.map((e) => e.content));
  });
});

Deno.test("looked-up events meeting a channel that is behind: each given once, the pause said once", async () => {
  // A looked-up event waits for the host's stdout itself: the subscription was never paused on its
  // account, so no "fetched again" line is said for it (there could be 500 of them).
  await withListener(async ({ relay, channel, logs, seen }) => {
    const mine = oldOwn();
    relay.inject(mine);
    channel.behind = true;
    for (let i = 0; i < 3; i++) relay.inject(replyTo(mine.id, `r${i}`));
    await tick(1000); // looked up, and refused by the channel
    channel.catchUp();
    await until(5000, "the three", () => seen().length === 3);
    await tick(300);
    assert.deepEqual(seen(), ["r0", "r1", "r2"]);
    const said = logs.filter((line) => line.includes("stdout was behind"));
    assert.ok(said.length <= 1, said.join("\n"));
    assert.ok(!said.some((line) => line.includes(" 0 event(s)")), said.join("\n"));
  });
});

Deno.test("the inbox's bound holds while nobody takes: the oldest dropped, counted", async () => {
  await withListener(async ({ relay, inbox, seen }) => {
    for (let i = 0; i < 12; i++) relay.inject(mention(`m ${i}`));
    await until(5000, "all twelve", () => seen().length === 12);
    const taken = inbox.take(100);
    assert.equal(taken.dropped, 7);
    assert.deepEqual(taken.events.map((e) => e.content), ["m 7", "m 8", "m 9", "m 10", "m 11"]);
  }, { inbox: new Inbox(5) });
});

Deno.test("an event from before the listener's minute is not replayed", async () => {
  const relay = await startStrictRelay();
  const logs: string[] = [];
  const stream = new RelayStream({ url: relay.wsUrl, signer, log: (line) => logs.push(line) });
  const inbox = new Inbox();
  relay.inject(signed(aliceKey, [["h", "general"], ["p", AGENT]], { at: now() - 3600, content: "old" }));
  relay.inject(signed(aliceKey, [["h", "general"], ["p", AGENT]], { at: now() - 30, content: "recent" }));
  const listener = new Listener({
    stream,
    settings: { rooms: ["general"], allowFrom: [ALICE], requireMention: true },
    agent: AGENT,
    npubOf: (hex) => nip19.npubEncode(hex),
    inbox,
    log: (line) => logs.push(line),
  });
  try {
    listener.start();
    await until(5000, "the recent one", () => inbox.size === 1);
    await tick(100);
    assert.deepEqual(inbox.take(10).events.map((e) => e.content), ["recent"]);
  } finally {
    listener.close();
    stream.close();
    await relay.close();
  }
});
