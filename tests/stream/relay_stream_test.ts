// The relay's websocket as the helper holds it (lib/stream/relay_stream.ts), against a relay in
// process scripted connection by connection: one connection shared by queries and subscriptions, a
// query sent again once when its connection drops, subscriptions waiting (1 s, growing) and told
// why before they are sent again, a silent connection given up with the query that waited on it,
// close() ending everything, and the connection closed once nothing is wanted for a while.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey } from "nostr-tools/pure";
import { bytesToHex } from "@noble/hashes/utils.js";
import { type SignedEvent, Signer } from "../../lib/key/signer.ts";
import { Backoff } from "../../lib/stream/backoff.ts";
import { IDLE_CLOSE_MS, RelayStream, type RelayStreamOptions } from "../../lib/stream/relay_stream.ts";
import type { SubscriptionSink } from "../../lib/stream/stream_subscription.ts";
import { type ScriptedRelay, type ScriptedSocket, startScriptedRelay } from "../support/scripted_relay.ts";
import { within } from "../support/waits.ts";
import { rawServer, switching } from "./ws_peers.ts";

async function signerFor(key: Uint8Array): Promise<Signer> {
  const result = await Signer.fromValue(bytesToHex(key), "TINY_PRIVATE_KEY");
  assert.ok(result.ok);
  return result.signer;
}
const signer = await signerFor(generateSecretKey());
const author = generateSecretKey();

function signed(content: string, kind = 9, tags = [["h", "general"]]): SignedEvent {
  const event = finalizeEvent({ kind, created_at: 1_700_000_000, tags, content }, author);
  return JSON.parse(JSON.stringify(event));
}

const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check()` holds, at most `ms`. */
function until(ms: number, what: string, check: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!check()) await tick();
    })(),
  );
}

class Sink implements SubscriptionSink {
  said: string[] = [];
  taking = true;
  connected(): void {
    this.said.push("connected");
  }
  event(event: SignedEvent): boolean {
    this.said.push(`${this.taking ? "event" : "refused"} ${event.content}`);
    return this.taking;
  }
  trouble(message: string): void {
    this.said.push(`trouble: ${message}`);
  }
  count(line: string): number {
    return this.said.filter((said) => said === line).length;
  }
  troubles(): string[] {
    return this.said.filter((line) => line.startsWith("trouble: "));
  }
}

/** Answers every REQ on `socket` with `events(filters)` then EOSE, until it closes. */
function answerReqs(socket: ScriptedSocket, events: (id: string) => SignedEvent[] = () => []): void {
  void (async () => {
    for (;;) {
      const [, id] = await socket.next("REQ") as [string, string];
      for (const event of events(id)) socket.send(["EVENT", id, event]);
      socket.send(["EOSE", id]);
    }
  })().catch(() => {});
}

/** A relay, a stream on it and its log; all closed when `fn` ends. */
async function withStream(
  fn: (ctx: { relay: ScriptedRelay; stream: RelayStream; logs: string[] }) => Promise<void>,
  options: Partial<RelayStreamOptions> = {},
): Promise<void> {
  const relay = startScriptedRelay();
  const logs: string[] = [];
  const stream = new RelayStream({
    url: relay.url,
    signer,
    log: (line) => logs.push(line),
    socket: { stepMs: 3000, closeMs: 500 },
    ...options,
  });
  try {
    await fn({ relay, stream, logs });
  } finally {
    stream.close();
    await relay.close();
  }
}

/**
 * A query the test awaits later: a failure of the test before then must not leave its rejection
 * unhandled (the relay stream's own promises are its business).
 */
function held<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => {});
  return promise;
}

function never(): AbortSignal {
  return new AbortController().signal;
}

Deno.test("a query opens the connection at once, answers what matched, then ends its REQ", async () => {
  await withStream(async ({ relay, stream }) => {
    const filters = [{ kinds: [9] }, { "#h": ["general"] }];
    const query = held(stream.query(filters, never()));
    const socket = await within(5000, "the connection", relay.connection(1));
    const [, id, ...sent] = await within(5000, "the REQ", socket.next("REQ")) as [
      string,
      string,
      ...unknown[],
    ];
    assert.deepEqual(sent, filters);
    const one = signed("one"), two = signed("two", 1, [["h", "other"]]);
    socket.send(["EVENT", id, one]);
    socket.send(["EVENT", id, two]); // kind 1, no h tag: neither filter names it
    socket.send(["EVENT", id, one]);
    socket.send(["EOSE", id]);
    assert.deepEqual(await within(5000, "the answer", query), [one]);
    assert.deepEqual(await within(5000, "the CLOSE", socket.next("CLOSE")), ["CLOSE", id]);
  });
});

Deno.test("after the relay's challenge is answered, the query is answered on the same connection", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => socket.send(["AUTH", `challenge-${socket.number}`]);
    const query = held(stream.query([{ kinds: [9] }], never()));
    const socket = await relay.connection(1);
    const [, auth] = await within(5000, "the AUTH", socket.next("AUTH")) as [string, SignedEvent];
    assert.deepEqual(auth.tags, [["relay", relay.url], ["challenge", "challenge-1"]]);
    const [, id] = await within(5000, "the REQ", socket.next("REQ")) as [string, string];
    socket.send(["CLOSED", id, "auth-required: this relay requires AUTH"]);
    socket.send(["OK", auth.id, true, ""]);
    await within(5000, "the REQ again", socket.next("REQ"));
    socket.send(["EVENT", id, signed("after auth")]);
    socket.send(["EOSE", id]);
    assert.deepEqual((await within(5000, "the answer", query)).map((e) => e.content), ["after auth"]);
    assert.equal(relay.upgrades, 1);
  });
});

Deno.test("one connection shared by every query and subscription, each a REQ of its own", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    const sink = new Sink();
    const subscription = stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    const answers = await within(
      5000,
      "three queries",
      Promise.all([1, 2, 3].map((kind) => stream.query([{ kinds: [kind] }], never()))),
    );
    assert.deepEqual(answers, [[], [], []]);
    const socket = await relay.connection(1);
    const ids = socket.all("REQ").map((req) => req[1]);
    assert.equal(new Set(ids).size, 4, `four REQ ids: ${ids}`);
    assert.equal(relay.upgrades, 1);
    subscription.stop();
    assert.deepEqual((await within(5000, "the subscription's CLOSE", socket.next("CLOSE")))[0], "CLOSE");
  });
});

Deno.test("a query whose connection drops before EOSE is sent again on a new one, once", async () => {
  await withStream(async ({ relay, stream }) => {
    const first = signed("first"), second = signed("second");
    relay.onOpen = (socket) => {
      void (async () => {
        const [, id] = await socket.next("REQ") as [string, string];
        if (socket.number === 1) {
          socket.send(["EVENT", id, first]);
          await tick(20);
          socket.close(1011, "restarting");
        } else {
          socket.send(["EVENT", id, first]);
          socket.send(["EVENT", id, second]);
          socket.send(["EOSE", id]);
        }
      })().catch(() => {});
    };
    const answer = await within(10_000, "the answer", stream.query([{ kinds: [9] }], never()));
    assert.deepEqual(answer.map((event) => event.content), ["first", "second"]);
    assert.equal(relay.upgrades, 2);
    const [one, two] = [await relay.connection(1), await relay.connection(2)];
    assert.deepEqual(two.all("REQ"), one.all("REQ"), "the same REQ, the same filters");
  });
});

Deno.test("a query whose second connection drops too fails with the why", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => {
      void socket.next("REQ").then(() => socket.close(1011, `restart ${socket.number}`), () => {});
    };
    await assert.rejects(
      within(10_000, "the failure", stream.query([{ kinds: [9] }], never())),
      (error: Error) => {
        assert.ok(error.message.startsWith(`the connection to ${relay.url} ended: `), error.message);
        assert.match(error.message, /restart 2/);
        return true;
      },
    );
    await tick(100);
    assert.equal(relay.upgrades, 2, "never a third");
  });
});

Deno.test("a refused dial, or a refused upgrade, fails the query: cannot reach …", async (t) => {
  await t.step("nobody listens", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    const url = `ws://127.0.0.1:${port}`;
    const stream = new RelayStream({ url, signer, log: () => {}, socket: { stepMs: 3000 } });
    try {
      await assert.rejects(within(5000, "the failure", stream.query([{}], never())), (error: Error) => {
        assert.ok(error.message.startsWith(`cannot reach ${url}: `), error.message);
        return true;
      });
    } finally {
      stream.close();
    }
  });
  await t.step("the upgrade answered 503", async () => {
    await withStream(async ({ relay, stream }) => {
      relay.refuse = 503;
      await assert.rejects(within(5000, "the failure", stream.query([{}], never())), (error: Error) => {
        assert.ok(error.message.startsWith(`cannot reach ${relay.url}: `), error.message);
        assert.match(error.message, /503/);
        return true;
      });
    });
  });
});

Deno.test("a dropped connection: subscriptions wait 1 s, are told why and for how long, then sent again", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket, () => [signed("history")]);
    const sink = new Sink();
    stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    const first = await relay.connection(1);
    const dropped = Date.now();
    first.close(1012, "service restart");
    await until(5000, "told", () => sink.troubles().length === 1);
    const [trouble] = sink.troubles();
    assert.ok(trouble.startsWith(`trouble: the connection to ${relay.url} ended: `), trouble);
    assert.ok(trouble.endsWith("; subscribing again in 1 s"), trouble);
    assert.match(trouble, /service restart/);
    const second = await within(10_000, "the second connection", relay.connection(2));
    assert.ok(Date.now() - dropped >= 900, "it waited");
    await until(5000, "the REQ on it", () => second.all("REQ").length === 1);
    assert.deepEqual(second.all("REQ"), first.all("REQ"), "the same REQ, the same filter");
    await until(5000, "connected again", () => sink.count("connected") === 2);
    assert.deepEqual(sink.said, [
      "connected",
      "event history",
      trouble,
      "connected",
    ], "the history replayed is not passed again");
  });
});

Deno.test("a query while subscriptions wait opens the connection at once, and they ride along", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    const sink = new Sink();
    stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    (await relay.connection(1)).close();
    await until(5000, "told", () => sink.troubles().length === 1);
    const asked = Date.now();
    assert.deepEqual(await within(5000, "the query", stream.query([{ kinds: [1] }], never())), []);
    assert.ok(Date.now() - asked < 900, "no wait for the subscriptions' second");
    await until(5000, "the subscription on it", () => sink.count("connected") === 2);
    assert.equal(relay.upgrades, 2);
  });
});

Deno.test("a query that cannot reach the relay while subscriptions wait leaves their wait in place", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    const sink = new Sink();
    stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    relay.refuse = 503;
    (await relay.connection(1)).close();
    await until(5000, "told", () => sink.troubles().length === 1);
    await assert.rejects(within(5000, "the query", stream.query([{ kinds: [1] }], never())), /cannot reach/);
    // The subscriptions' own attempt still comes after their wait, and the next after a longer one.
    await until(10_000, "two more waits said", () => sink.troubles().length === 3);
    const waits = sink.troubles().map((line) => /subscribing again in (\d+) s$/.exec(line)?.[1]);
    assert.deepEqual(waits, ["1", "2", "4"]);
    relay.refuse = undefined;
    await until(10_000, "connected again", () => sink.count("connected") === 2);
  });
});

Deno.test("the wait grows across failed reconnects: 1, 2, 4 s, each said", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    const sink = new Sink();
    stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    relay.refuse = 503;
    (await relay.connection(1)).close();
    await until(15_000, "three waits said", () => sink.troubles().length === 3);
    const waits = sink.troubles().map((line) => /subscribing again in (\d+) s$/.exec(line)?.[1]);
    assert.deepEqual(waits, ["1", "2", "4"]);
    assert.ok(sink.troubles()[1].startsWith(`trouble: cannot reach ${relay.url}: `), sink.troubles()[1]);
    assert.equal(relay.asked, 3, "the first connection, then two refused");
  });
});

Deno.test("the waits are told how long each connection was up, before the next wait is chosen", async () => {
  const calls: string[] = [];
  const { ended, next } = Backoff.prototype;
  Backoff.prototype.ended = function (upMs: number) {
    calls.push(`ended ${upMs}`);
    return ended.call(this, upMs);
  };
  Backoff.prototype.next = function () {
    const wait = next.call(this);
    calls.push(`next ${wait}`);
    return wait;
  };
  try {
    await withStream(async ({ relay, stream }) => {
      relay.onOpen = (socket) => answerReqs(socket);
      const sink = new Sink();
      stream.subscribe({ kinds: [9] }, sink);
      await until(5000, "connected", () => sink.count("connected") === 1);
      const opened = Date.now();
      await tick(300);
      (await relay.connection(1)).close();
      const closedBy = Date.now();
      await until(5000, "told", () => sink.troubles().length === 1);
      assert.equal(calls.length, 2, calls.join(", "));
      const upMs = Number(calls[0].split(" ")[1]);
      assert.ok(calls[0].startsWith("ended "));
      assert.ok(upMs >= 300 && upMs <= closedBy - opened + 1000, `up ${upMs} ms`);
      assert.equal(calls[1], "next 1000");
      // A connection whose AUTH was refused was never healthy: 0.
      relay.onOpen = (socket) => {
        socket.send(["AUTH", "c"]);
        void socket.next("AUTH").then(
          ([, event]) => socket.send(["OK", (event as SignedEvent).id, false, "restricted: no"]),
          () => {},
        );
      };
      await until(
        5000,
        "the refusal",
        () => sink.said.includes("trouble: relay rejected AUTH: restricted: no"),
      );
      await until(5000, "the next wait", () => calls.length === 4);
      assert.deepEqual(calls.slice(2), ["ended 0", "next 2000"]);
    });
  } finally {
    Backoff.prototype.ended = ended;
    Backoff.prototype.next = next;
  }
});

Deno.test("a relay that closes a subscription is sent its REQ again after the wait, on the same connection", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    const sink = new Sink();
    stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    const socket = await relay.connection(1);
    const [req] = socket.all("REQ");
    socket.send(["CLOSED", req[1], "error: query failed: slow consumer"]);
    await until(5000, "told", () => sink.troubles().length === 1);
    assert.equal(
      sink.troubles()[0],
      "trouble: the relay closed the subscription: error: query failed: slow consumer; subscribing again in 1 s",
    );
    await until(5000, "the REQ again", () => socket.all("REQ").length === 2);
    assert.deepEqual(socket.all("REQ")[1], req);
    socket.send(["CLOSED", req[1], "blocked: relay access policy changed; subscribe again"]);
    await until(1000, "at once", () => socket.all("REQ").length === 3);
    assert.equal(relay.upgrades, 1);
  });
});

Deno.test("a sink that refuses pauses the subscription at the relay; resume asks again", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket, () => [signed("a"), signed("b")]);
    const sink = new Sink();
    sink.taking = false;
    const subscription = stream.subscribe({ kinds: [9] }, sink);
    const socket = await relay.connection(1);
    const [, id] = await within(5000, "the CLOSE", socket.next("CLOSE")) as [string, string];
    assert.equal(id, socket.all("REQ")[0][1]);
    await until(5000, "the EOSE read", () => sink.said.includes("refused a"));
    await tick(50);
    sink.taking = true;
    assert.equal(subscription.resume(), 2, "the refused one and the one after it");
    await until(5000, "both, after the REQ again", () => sink.said.includes("event b"));
    assert.deepEqual(sink.said, ["connected", "refused a", "event a", "event b"]);
    assert.equal(socket.all("REQ").length, 2);
  });
});

Deno.test("a paused subscription is not sent on a new connection until it resumes", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket, () => [signed("a")]);
    const sink = new Sink();
    sink.taking = false;
    const subscription = stream.subscribe({ kinds: [9] }, sink);
    const first = await relay.connection(1);
    await within(5000, "the CLOSE", first.next("CLOSE"));
    stream.query([{ kinds: [1] }], AbortSignal.timeout(5000)).catch(() => {}); // keeps a connection wanted
    first.close(1012, "service restart");
    const second = await within(10_000, "the second connection", relay.connection(2));
    await tick(200);
    assert.equal(second.all("REQ").filter(([, id]) => id === first.all("REQ")[0][1]).length, 0);
    sink.taking = true;
    subscription.resume();
    await until(5000, "the REQ, on resuming", () => sink.said.includes("event a"));
  });
});

Deno.test("an aborted query on a connection silent since its REQ gives that connection up", async () => {
  await withStream(async ({ relay, stream }) => {
    const controller = new AbortController();
    const query = held(stream.query([{ kinds: [9] }], controller.signal));
    const first = await relay.connection(1);
    await within(5000, "the REQ", first.next("REQ"));
    controller.abort(new Error("query: no answer within 30 s (--timeout)"));
    await assert.rejects(query, { message: "query: no answer within 30 s (--timeout)" });
    await within(5000, "the relay sees it go", first.closed);
    // The next query opens afresh.
    relay.onOpen = (socket) => answerReqs(socket);
    assert.deepEqual(await within(5000, "the next query", stream.query([{}], never())), []);
    assert.equal(relay.upgrades, 2);
  });
});

Deno.test("an aborted query on a connection that spoke since keeps it; a reason that is no Error is said plainly", async () => {
  await withStream(async ({ relay, stream }) => {
    const controller = new AbortController();
    const query = held(stream.query([{ kinds: [9] }], controller.signal));
    const socket = await relay.connection(1);
    await within(5000, "the REQ", socket.next("REQ"));
    await tick(5);
    socket.send(["NOTICE", "busy"]);
    await tick(50);
    controller.abort("timeout");
    await assert.rejects(query, { message: "the query was given up" });
    answerReqs(socket);
    assert.deepEqual(await within(5000, "the next query", stream.query([{}], never())), []);
    assert.equal(relay.upgrades, 1, "the same connection");
    assert.equal(socket.open, true);
  });
});

Deno.test("a relay gone silent is found within the socket's bounds; the query is sent once more, then fails", async () => {
  const server = rawServer(async (peer) => {
    await peer.write(await switching(peer.key));
    await Promise.race([peer.clientGone, peer.held]); // no frame, no pong
  });
  const url = server.url().href.replace(/\/$/, "");
  const stream = new RelayStream({
    url,
    signer,
    log: () => {},
    socket: { stepMs: 3000, idleMs: 150, pongMs: 150, closeMs: 200 },
  });
  try {
    await assert.rejects(within(10_000, "the failure", stream.query([{}], never())), (error: Error) => {
      assert.ok(error.message.startsWith(`the connection to ${url} ended: `), error.message);
      return true;
    });
    assert.equal(server.peers.length, 2, "sent on two connections");
  } finally {
    stream.close();
    await server.close();
  }
});

/**
 * The timers started while `fn` runs that neither fired nor were cleared by its end (Deno's
 * sanitizers do not count timers): setTimeout and clearTimeout watched for the while.
 */
async function timersLeft(fn: () => Promise<void>): Promise<number> {
  const { setTimeout: realSet, clearTimeout: realClear } = globalThis;
  const live = new Set<ReturnType<typeof setTimeout>>();
  globalThis.setTimeout = ((task: () => void, ms?: number) => {
    const id = realSet(() => {
      live.delete(id);
      task();
    }, ms);
    live.add(id);
    return id;
  }) as typeof setTimeout;
  globalThis.clearTimeout = ((id?: ReturnType<typeof setTimeout>) => {
    if (id !== undefined) live.delete(id);
    realClear(id);
  }) as typeof clearTimeout;
  try {
    await fn();
  } finally {
    globalThis.setTimeout = realSet;
    globalThis.clearTimeout = realClear;
  }
  return live.size;
}

Deno.test("close(): queries fail, the socket closes, every timer is cleared", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => {
      // Subscriptions' REQs are answered, queries' never.
      void (async () => {
        for (;;) {
          const [, id] = await socket.next("REQ") as [string, string];
          if (id.startsWith("s")) socket.send(["EOSE", id]);
        }
      })().catch(() => {});
    };
    const left = await timersLeft(async () => {
      const sink = new Sink();
      stream.subscribe({ kinds: [9] }, sink);
      await until(5000, "connected", () => sink.count("connected") === 1);
      const socket = await relay.connection(1);
      const [req] = socket.all("REQ");
      socket.send(["CLOSED", req[1], "error: x"]); // a wait of 1 s begins
      await until(5000, "told", () => sink.troubles().length === 1);
      const query = held(stream.query([{ kinds: [1] }], never()));
      await until(5000, "the query's REQ", () => socket.all("REQ").length === 2);
      stream.close();
      await assert.rejects(query, { message: "the helper is stopping" });
      await within(5000, "the relay sees the close", socket.closed);
      await tick(50); // the client's side of the close handshake ends too
    });
    assert.equal(left, 0, "timers left running after close()");
  });
});

Deno.test("close() while subscriptions wait to reconnect: the wait ends with it", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    const sink = new Sink();
    stream.subscribe({ kinds: [9] }, sink);
    await until(5000, "connected", () => sink.count("connected") === 1);
    (await relay.connection(1)).close();
    await until(5000, "told", () => sink.troubles().length === 1);
    stream.close();
    await tick(1500);
    assert.equal(relay.asked, 1);
  });
});

Deno.test({
  name: `with nothing wanted, the connection closes after ${IDLE_CLOSE_MS / 1000} s, not before`,
  // One slow test: the idle bound is a constant of the module.
  async fn() {
    await withStream(async ({ relay, stream }) => {
      relay.onOpen = (socket) => answerReqs(socket);
      assert.deepEqual(await within(5000, "the query", stream.query([{}], never())), []);
      const socket = await relay.connection(1);
      const idleFrom = Date.now();
      await tick(IDLE_CLOSE_MS / 2);
      assert.equal(socket.open, true, "still open halfway");
      await within(IDLE_CLOSE_MS, "the idle close", socket.closed);
      assert.ok(Date.now() - idleFrom >= IDLE_CLOSE_MS - 100);
    });
  },
});

// The two tests below fail with an uncaught rejection while the bug they show is there; they come
// last so that it cancels no other test of this file.

Deno.test("a query given up while its connection is still opening fails alone, with no uncaught rejection", async () => {
  // A relay that takes the TCP connection and never answers the upgrade.
  const server = rawServer((peer) => Promise.race([peer.clientGone, peer.held]));
  const url = server.url().href.replace(/\/$/, "");
  const stream = new RelayStream({ url, signer, log: () => {}, socket: { stepMs: 1000 } });
  try {
    const controller = new AbortController();
    const query = held(stream.query([{}], controller.signal));
    await until(5000, "the upgrade asked for", () => server.peers.length === 1);
    controller.abort(new Error("query: no answer within 0.1 s (--timeout)"));
    await assert.rejects(within(5000, "the failure", query), {
      message: "query: no answer within 0.1 s (--timeout)",
    });
  } finally {
    stream.close();
    await server.close();
  }
});

Deno.test("after close(): a query fails at once, and nothing dials the relay", async () => {
  await withStream(async ({ relay, stream }) => {
    relay.onOpen = (socket) => answerReqs(socket);
    assert.deepEqual(await within(5000, "a query", stream.query([{}], never())), []);
    const socket = await relay.connection(1);
    stream.close();
    await within(5000, "the relay sees the close", socket.closed);
    await tick(300); // the client's side of the close is done too
    await assert.rejects(within(500, "a late query's failure", stream.query([{}], never())), {
      message: "the helper is stopping",
    });
    stream.subscribe({}, new Sink());
    await tick(300);
    assert.equal(relay.asked, 1, "no connection opened after close()");
  });
});
