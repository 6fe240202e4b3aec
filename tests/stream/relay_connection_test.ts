// One websocket session with the relay (lib/stream/relay_connection.ts) against a relay in process
// whose every frame the test writes: the NIP-42 answer (checked with nostr-tools) and every REQ sent
// again after it, what is held back while AUTH is pending, a refused AUTH or a bad challenge, events
// with a bad shape or signature never passed on (and counted), NOTICE floods, and when the relay
// was last heard.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from "nostr-tools/pure";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type SignedEvent, Signer } from "../../lib/key/signer.ts";
import { type ConnectionHost, RelayConnection, type Req } from "../../lib/stream/relay_connection.ts";
import { type ScriptedRelay, type ScriptedSocket, startScriptedRelay } from "../support/scripted_relay.ts";
import { within } from "../support/waits.ts";

const secretKey = generateSecretKey();
/** A Signer built the way tinyagent builds one: from the variable's value. */
async function signerFor(key: Uint8Array): Promise<Signer> {
  const result = await Signer.fromValue(bytesToHex(key), "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}
const signer = await signerFor(secretKey);
const author = generateSecretKey();

/** An event signed by nostr-tools, as plain JSON (without the mark nostr-tools leaves on it). */
function signed(content: string, kind = 9): SignedEvent {
  const event = finalizeEvent({ kind, created_at: 1_700_000_000, tags: [["h", "general"]], content }, author);
  return JSON.parse(JSON.stringify(event));
}

/** A REQ that records what its connection tells it. */
class FakeReq implements Req {
  said: string[] = [];
  events: SignedEvent[] = [];
  sizes: number[] = [];
  sentOn: RelayConnection[] = [];
  #wake: (() => void)[] = [];
  constructor(readonly id: string, readonly filters: readonly unknown[] = [{ kinds: [9] }]) {}
  sent(connection: RelayConnection): void {
    this.sentOn.push(connection);
    this.#say("sent");
  }
  event(event: SignedEvent, size: number): void {
    this.events.push(event);
    this.sizes.push(size);
    this.#say(`event ${event.content}`);
  }
  eose(): void {
    this.#say("eose");
  }
  closed(reason: string): void {
    this.#say(`closed ${reason}`);
  }
  refused(reason: string): void {
    this.#say(`refused ${reason}`);
  }
  lost(why: string): void {
    this.#say(`lost ${why}`);
  }
  #say(line: string): void {
    this.said.push(line);
    for (const wake of this.#wake.splice(0)) wake();
  }
  /** Waits until it has been told `line`. */
  async told(line: string): Promise<void> {
    while (!this.said.includes(line)) await new Promise<void>((resolve) => this.#wake.push(resolve));
  }
}

class Host implements ConnectionHost {
  logs: string[] = [];
  map = new Map<string, FakeReq>();
  /** The connection's end, as it told the host. */
  end: Promise<{ why: string; upMs: number; connection: RelayConnection }>;
  #end!: (value: { why: string; upMs: number; connection: RelayConnection }) => void;
  constructor(reqs: FakeReq[]) {
    for (const req of reqs) this.map.set(req.id, req);
    this.end = new Promise((resolve) => this.#end = resolve);
  }
  req(id: string): Req | undefined {
    return this.map.get(id);
  }
  reqs(): Iterable<Req> {
    return [...this.map.values()];
  }
  log(line: string): void {
    this.logs.push(line);
  }
  ended(connection: RelayConnection, why: string, upMs: number): void {
    this.#end({ why, upMs, connection });
  }
}

/** A relay, a host with `reqs`, and a connection to `path` on it; everything ends with the test. */
async function session(
  reqs: FakeReq[],
  fn: (ctx: {
    relay: ScriptedRelay;
    host: Host;
    connection: RelayConnection;
    socket: ScriptedSocket;
    url: string;
  }) => Promise<void>,
  path = "",
): Promise<void> {
  const relay = startScriptedRelay();
  const host = new Host(reqs);
  const url = `${relay.url}${path}`;
  let connection: RelayConnection | undefined;
  try {
    connection = await within(
      5000,
      "the connection",
      RelayConnection.open(url, { stepMs: 3000 }, signer, host),
    );
    const socket = await within(5000, "the relay's socket", relay.connection(1));
    await fn({ relay, host, connection, socket, url });
  } finally {
    connection?.abort("test over");
    if (connection) await within(5000, "the connection's end", host.end);
    await relay.close();
  }
}

/** Answers the client's AUTH message: OK with its event's id. */
async function answerAuth(socket: ScriptedSocket, accepted: boolean, reason = ""): Promise<SignedEvent> {
  const [, event] = await within(5000, "the AUTH event", socket.next("AUTH")) as [string, SignedEvent];
  socket.send(["OK", event.id, accepted, reason]);
  return event;
}

Deno.test("every REQ wanted is sent as the connection opens, each filter its own element", async () => {
  const q = new FakeReq("q1", [{ kinds: [1] }, { "#h": ["general"] }]);
  const s = new FakeReq("s1", [{ since: 5 }]);
  await session([q, s], async ({ socket, connection }) => {
    assert.deepEqual(await within(5000, "REQ q1", socket.next("REQ")), ["REQ", "q1", { kinds: [1] }, {
      "#h": ["general"],
    }]);
    assert.deepEqual(await within(5000, "REQ s1", socket.next("REQ")), ["REQ", "s1", { since: 5 }]);
    assert.deepEqual(q.sentOn, [connection]);
    assert.deepEqual(s.sentOn, [connection]);
    // Without a challenge, events and EOSE pass at once.
    socket.send(["EVENT", "q1", signed("one")]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "q1's EOSE", q.told("eose"));
    assert.deepEqual(q.said, ["sent", "event one", "eose"]);
    // A REQ asked later is sent now; cancel ends one.
    const later = new FakeReq("q2");
    connection.request(later);
    assert.deepEqual(await within(5000, "REQ q2", socket.next("REQ")), ["REQ", "q2", { kinds: [9] }]);
    connection.cancel("q1");
    assert.deepEqual(await within(5000, "CLOSE q1", socket.next("CLOSE")), ["CLOSE", "q1"]);
  });
});

Deno.test("the AUTH event: kind 22242, the URL exactly as given and the challenge, signed by the key", async () => {
  await session([new FakeReq("q1")], async ({ socket, url }) => {
    await socket.next("REQ");
    socket.send(["AUTH", "challenge-ü-1"]);
    const [, event] = await within(5000, "the AUTH event", socket.next("AUTH")) as [string, SignedEvent];
    assert.equal(event.kind, 22242);
    assert.deepEqual(event.tags, [["relay", url], ["challenge", "challenge-ü-1"]]);
    assert.equal(event.content, "");
    assert.equal(event.pubkey, getPublicKey(secretKey));
    assert.ok(Math.abs(event.created_at - Date.now() / 1000) < 60, "created now");
    assert.equal(verifyEvent({ ...event }), true, "nostr-tools verifies it");
  }, "/r/Acme/?tenant=x");
});

Deno.test("after the relay accepts the AUTH, every REQ is sent again on the same connection", async () => {
  const q = new FakeReq("q1", [{ kinds: [1] }]);
  const s = new FakeReq("s1", [{ kinds: [9] }]);
  await session([q, s], async ({ socket, connection }) => {
    await socket.next("REQ");
    await socket.next("REQ");
    socket.send(["AUTH", "c1"]);
    const auth = await answerAuth(socket, true);
    assert.deepEqual(await within(5000, "q1 again", socket.next("REQ")), ["REQ", "q1", { kinds: [1] }]);
    assert.deepEqual(await within(5000, "s1 again", socket.next("REQ")), ["REQ", "s1", { kinds: [9] }]);
    assert.deepEqual(q.sentOn, [connection, connection]);
    assert.equal(connection.authenticated, true);
    // An OK for another id changes nothing.
    socket.send(["OK", "f".repeat(64), false, "unrelated"]);
    socket.send(["OK", auth.id, false, "late and repeated"]); // no AUTH pending: not a refusal
    socket.send(["EOSE", "q1"]);
    await within(5000, "q1's EOSE", q.told("eose"));
    assert.equal(q.said.some((line) => line.startsWith("refused")), false);
  });
});

Deno.test("while AUTH is pending: no events passed, no EOSE taken, an auth-required CLOSED skipped", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket }) => {
    await socket.next("REQ");
    socket.send(["AUTH", "c1"]);
    const [, auth] = await within(5000, "the AUTH event", socket.next("AUTH")) as [string, SignedEvent];
    // Before the answer: the relay's answer to the first REQ.
    socket.send(["EVENT", "q1", signed("before")]);
    socket.send(["CLOSED", "q1", "auth-required: this relay requires AUTH"]);
    socket.send(["EOSE", "q1"]);
    socket.send(["OK", auth.id, true, ""]);
    await within(5000, "REQ again", socket.next("REQ"));
    socket.send(["EVENT", "q1", signed("after")]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.deepEqual(q.said, ["sent", "sent", "event after", "eose"]);
    // Authenticated now: an auth-required CLOSED is the relay's refusal.
    socket.send(["CLOSED", "q1", "auth-required: this relay is members-only"]);
    await within(5000, "the CLOSED", q.told("closed auth-required: this relay is members-only"));
  });
});

Deno.test("a CLOSED that is not auth-required passes while AUTH is pending", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket }) => {
    await socket.next("REQ");
    socket.send(["AUTH", "c1"]);
    await within(5000, "the AUTH event", socket.next("AUTH"));
    socket.send(["CLOSED", "q1", "invalid: bad filter: kinds"]);
    await within(5000, "the CLOSED", q.told("closed invalid: bad filter: kinds"));
  });
});

Deno.test("a relay that never challenged: an auth-required CLOSED is its answer", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket }) => {
    await socket.next("REQ");
    socket.send(["CLOSED", "q1", "auth-required: this relay requires AUTH"]);
    await within(5000, "the CLOSED", q.told("closed auth-required: this relay requires AUTH"));
  });
});

Deno.test("a refused AUTH reaches every REQ, and the connection closes", async () => {
  const q = new FakeReq("q1");
  const s = new FakeReq("s1");
  await session([q, s], async ({ socket, host }) => {
    await socket.next("REQ");
    socket.send(["AUTH", "c1"]);
    await answerAuth(socket, false, "blocked: this pubkey is banned");
    const closed = await within(5000, "the close", socket.closed);
    assert.equal(closed.code, 1000);
    assert.equal(closed.reason, "AUTH refused");
    const ended = await within(5000, "ended", host.end);
    assert.equal(ended.upMs, 0, "never authenticated: not a healthy connection");
    assert.deepEqual(q.said, ["sent", "refused blocked: this pubkey is banned"]);
    assert.deepEqual(s.said, ["sent", "refused blocked: this pubkey is banned"]);
  });
});

Deno.test("a challenge that is not a string is refused for every REQ, and the connection closes", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, host }) => {
    await socket.next("REQ");
    socket.send(["AUTH", { challenge: "c1" }]);
    const closed = await within(5000, "the close", socket.closed);
    assert.equal(closed.code, 1002);
    await within(5000, "ended", host.end);
    assert.deepEqual(q.said, ["sent", "refused invalid AUTH challenge"]);
    assert.equal(socket.all("AUTH").length, 0, "nothing was signed for it");
  });
});

Deno.test("forged and malformed events never reach a REQ, and are counted when the connection ends", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, host, connection }) => {
    await socket.next("REQ");
    const good = signed("good");
    const badSig = { ...signed("bad sig"), sig: signed("other").sig };
    const badId = { ...signed("original"), content: "altered" };
    const { sig: _sig, ...unsigned } = signed("no sig");
    const upper = { ...signed("upper"), id: signed("upper").id.toUpperCase() };
    const numberKind = { ...signed("kind as string"), kind: "9" };
    socket.send(["EVENT", "q1", badSig]); // 1
    socket.send(["EVENT", "q1", badId]); // 2
    socket.send(["EVENT", "q1", unsigned]); // 3
    socket.send(["EVENT", "q1", upper]); // 4
    socket.send(["EVENT", "q1", numberKind]); // 5
    socket.send(["EVENT", "q1", "not an object"]); // 6
    socket.send(["EVENT", "q1", null]); // 7
    socket.send(["EVENT", "nobody", good]); // a REQ nobody has: dropped, not counted
    socket.send(["EVENT", good]); // two elements
    socket.send(["EVENT", "q1", good, "extra"]); // four elements
    socket.send(`["EVENT","q1",${JSON.stringify(good)}`); // malformed JSON
    socket.send(["EVENT", 7, good]);
    socket.send("");
    socket.send("[]");
    socket.send(["EVENT"]);
    socket.send(["EVENT", "q1", good]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.deepEqual(q.said, ["sent", "event good", "eose"]);
    assert.equal(verifyEvent({ ...q.events[0] }), true);
    assert.deepEqual(host.logs, []);
    socket.close();
    await within(5000, "ended", host.end);
    assert.deepEqual(host.logs, ["dropped 7 events with a bad shape or signature"]);
    assert.equal(connection.authenticated, false);
  });
});

Deno.test("an event passed on has the seven members alone, and its message's size", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket }) => {
    await socket.next("REQ");
    const event = signed("size of this");
    const frame = JSON.stringify(["EVENT", "q1", { ...event, seen_on: ["ws://elsewhere"] }]);
    socket.send(frame);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.deepEqual(Object.keys(q.events[0]), [
      "id",
      "pubkey",
      "created_at",
      "kind",
      "tags",
      "content",
      "sig",
    ]);
    assert.deepEqual(q.events[0], event);
    assert.equal(q.sizes[0], frame.length);
  });
});

Deno.test("an event's size is its message's size in bytes, whatever its characters", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket }) => {
    await socket.next("REQ");
    const frame = JSON.stringify(["EVENT", "q1", signed("日本語のメッセージ 🎉")]);
    socket.send(frame);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    // The query's bound (48 MiB, under the plugin's 64 MiB line) is in bytes.
    assert.equal(q.sizes[0], new TextEncoder().encode(frame).length);
  });
});

Deno.test("EOSE and CLOSED for another REQ, OK, COUNT and unknown types are ignored", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, host }) => {
    await socket.next("REQ");
    socket.send(["EOSE", "q2"]);
    socket.send(["CLOSED", "q2", "error: other"]);
    socket.send(["COUNT", "q1", { count: 3 }]);
    socket.send(["NEG-MSG", "q1", "00"]);
    socket.send(["EOSE"]);
    socket.send(["CLOSED", 5, "x"]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.deepEqual(q.said, ["sent", "eose"]);
    assert.deepEqual(host.logs, []);
  });
});

Deno.test("NOTICE: said at most 5 times per connection, made safe for a terminal", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, host }) => {
    await socket.next("REQ");
    socket.send(["NOTICE", "\u001b[31mred\u001b[0m and\u202eevil\nline"]);
    socket.send(["NOTICE", "n".repeat(300)]);
    socket.send(["NOTICE", { not: "text" }]);
    for (let i = 0; i < 50; i++) socket.send(["NOTICE", `flood ${i}`]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.deepEqual(host.logs, [
      "the relay says: ?[31mred?[0m and?evil?line",
      `the relay says: ${"n".repeat(200)}…`,
      'the relay says: {"not":"text"}',
      "the relay says: flood 0",
      "the relay says: flood 1",
    ]);
  });
  // A new connection says its own.
  const second = new FakeReq("q1");
  await session([second], async ({ socket, host }) => {
    await socket.next("REQ");
    for (let i = 0; i < 9; i++) socket.send(["NOTICE", `again ${i}`]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", second.told("eose"));
    assert.equal(host.logs.length, 5);
  });
});

Deno.test("heardAt: never before the relay says anything, then when it last did", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, connection }) => {
    await socket.next("REQ");
    assert.equal(connection.heardAt, 0);
    const before = Date.now();
    socket.send(["NOTICE", "hello"]);
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.ok(connection.heardAt >= before && connection.heardAt <= Date.now());
    // Ignored frames are still the relay talking.
    const first = connection.heardAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    socket.send("not json");
    socket.send(["EOSE", "q1"]);
    await within(
      5000,
      "second EOSE",
      (async () => {
        while (q.said.filter((line) => line === "eose").length < 2) {
          await new Promise((resolve) => setTimeout(resolve, 1));
        }
      })(),
    );
    assert.ok(connection.heardAt > first);
  });
});

Deno.test("the end: the relay's close said as why, the time up; abort and close end it locally", async (t) => {
  await t.step("the relay closes", async () => {
    await session([new FakeReq("q1")], async ({ socket, host, connection }) => {
      await socket.next("REQ");
      socket.close(1001, "going away");
      const ended = await within(5000, "ended", host.end);
      assert.equal(ended.connection, connection);
      assert.match(ended.why, /1001/);
      assert.match(ended.why, /going away/);
      assert.ok(ended.upMs >= 0);
      // Once ended, nothing more is sent.
      connection.request(new FakeReq("late"));
      connection.cancel("q1");
    });
  });
  await t.step("abort: at once, with the why given", async () => {
    await session([new FakeReq("q1")], async ({ socket, host, connection }) => {
      await socket.next("REQ");
      connection.abort("the relay sent nothing for 30 s after a REQ");
      const ended = await within(5000, "ended", host.end);
      assert.equal(ended.why, "the relay sent nothing for 30 s after a REQ");
      await within(5000, "the relay sees it go", socket.closed);
    });
  });
  await t.step("close: a close handshake", async () => {
    await session([new FakeReq("q1")], async ({ socket, host, connection }) => {
      await socket.next("REQ");
      connection.close();
      const closed = await within(5000, "the relay sees the close", socket.closed);
      assert.equal(closed.code, 1000);
      const ended = await within(5000, "ended", host.end);
      assert.match(ended.why, /^tinyagent closed the connection with code 1000/);
    });
  });
  await t.step("a challenge never answered: not a healthy connection", async () => {
    await session([new FakeReq("q1")], async ({ socket, host }) => {
      await socket.next("REQ");
      socket.send(["AUTH", "c1"]);
      await socket.next("AUTH");
      await new Promise((resolve) => setTimeout(resolve, 20));
      socket.close();
      assert.equal((await within(5000, "ended", host.end)).upMs, 0);
    });
  });
  await t.step("authenticated: the time since the AUTH was accepted", async () => {
    await session([new FakeReq("q1")], async ({ socket, host }) => {
      await socket.next("REQ");
      socket.send(["AUTH", "c1"]);
      await answerAuth(socket, true);
      await socket.next("REQ");
      await new Promise((resolve) => setTimeout(resolve, 30));
      socket.close();
      assert.ok((await within(5000, "ended", host.end)).upMs >= 25);
    });
  });
});

Deno.test("a second challenge on the same connection is answered, and the REQs sent again after it", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, connection }) => {
    await socket.next("REQ");
    socket.send(["AUTH", "c1"]);
    await answerAuth(socket, true);
    await socket.next("REQ");
    socket.send(["AUTH", "c2"]);
    const [, second] = await within(5000, "the second AUTH", socket.next("AUTH")) as [string, SignedEvent];
    assert.deepEqual(second.tags[1], ["challenge", "c2"]);
    socket.send(["EVENT", "q1", signed("pending again")]);
    socket.send(["OK", second.id, true, ""]);
    await within(5000, "REQ a third time", socket.next("REQ"));
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.deepEqual(q.said, ["sent", "sent", "sent", "eose"]);
    assert.equal(connection.authenticated, true);
  });
});

Deno.test("challenges while an AUTH is pending are not answered, and a connection answers at most 5", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket }) => {
    await socket.next("REQ");
    for (let i = 0; i < 50; i++) socket.send(["AUTH", `flood ${i}`]);
    const first = await answerAuth(socket, true);
    assert.deepEqual(first.tags[1], ["challenge", "flood 0"], "the first challenge, and only it, answered");
    await within(5000, "REQ again", socket.next("REQ"));
    for (let round = 1; round < 8; round++) {
      socket.send(["AUTH", `again ${round}`]);
      if (round < 5) await answerAuth(socket, true);
    }
    socket.send(["EOSE", "q1"]);
    await within(5000, "EOSE", q.told("eose"));
    assert.equal(socket.all("AUTH").length, 5, "five AUTH events signed on this connection, no more");
  });
});

Deno.test("an AUTH the relay never answers gives the connection up within 10 s, saying so", async () => {
  const q = new FakeReq("q1");
  await session([q], async ({ socket, host }) => {
    await socket.next("REQ");
    socket.send(["AUTH", "c1"]);
    await within(5000, "the AUTH event", socket.next("AUTH"));
    const { why } = await within(15_000, "the end", host.end);
    assert.match(why, /did not answer our AUTH within 10 s/);
    assert.deepEqual(q.said, ["sent"], "nothing passed while the AUTH waited");
  });
});
