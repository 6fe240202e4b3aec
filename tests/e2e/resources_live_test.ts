// Subscribed resources, end to end: the SDK client subscribes to rooms, a thread and a long task;
// each new event is told once as notifications/resources/updated (never what came before the
// subscription); after the relay drops the socket the replay is not told again, and a new message
// is; after unsubscribing, nothing. Order is checked against a second room used as a marker: what
// was told for the first before the marker's notification arrived is all it was told.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { postTo, until, withResourceHost } from "../support/resources_host.ts";
import type { StrictRelay } from "../support/strict_relay/mod.ts";

/** The REQs the relay received on each websocket connection, by connection. */
function reqsByConnection(relay: StrictRelay): Map<number, number> {
  const counts = new Map<number, number>();
  for (const m of relay.clientMessages) {
    if (Array.isArray(m.message) && m.message[0] === "REQ") {
      counts.set(m.connection, (counts.get(m.connection) ?? 0) + 1);
    }
  }
  return counts;
}

Deno.test("a subscribed room is told once per new message, again after a dropped socket, never after unsubscribing", async () => {
  await withResourceHost({}, async ({ client, relay, base, updated }) => {
    const A = `${base}/room/room-001`;
    const B = `${base}/room/room-002`;
    const C = `${base}/room/room-003`;
    // Said before the subscription, by a clock a little ahead, in a room no one posts to after: the
    // relay replays it to the subscription as history, and again after the drop; never told.
    postTo(relay, "room-003", "before anyone watched", 30);
    for (const uri of [A, B, C]) assert.deepEqual(await client.subscribeResource({ uri }), {});
    const told = (uri: string) => updated.filter((u) => u === uri).length;
    const tell = async (room: string, uri: string, times: number) => {
      postTo(relay, room, `news for ${room}`);
      await until(10_000, `${uri} told ${times} time(s)`, () => told(uri) >= times);
    };
    await tell("room-001", A, 1);
    await tell("room-002", B, 1);
    assert.deepEqual(updated, [A, B], "each room told once, the history never");

    // The relay drops every connection; the stream subscribes again, and the relay replays what it
    // stored since the subscriptions: nothing new, so nothing told.
    const first = [...reqsByConnection(relay).keys()];
    relay.cutConnections();
    await until(
      15_000,
      "the three subscriptions sent again on a new connection",
      () =>
        [...reqsByConnection(relay)].some(([connection, reqs]) => !first.includes(connection) && reqs >= 3),
    );
    await tell("room-001", A, 2);
    await tell("room-002", B, 2);
    assert.deepEqual([told(A), told(B), told(C)], [2, 2, 0], "the replay was not told; the new message was");

    assert.deepEqual(await client.unsubscribeResource({ uri: A }), {});
    postTo(relay, "room-001", "after unsubscribing");
    await tell("room-002", B, 3);
    assert.deepEqual([told(A), told(B), told(C)], [2, 3, 0], "nothing after unsubscribing");
    assert.deepEqual(await client.ping(), {});
  });
});

Deno.test("a thread and a long task are told of their new replies and answers", async () => {
  await withResourceHost({}, async ({ client, relay, base, content, updated }) => {
    const root = content.rooms.thread!.root;
    const job = content.jobs.jobs[0].request;
    const thread = `${base}/room/room-001/thread/${root.id}`;
    const task = `${base}/job/${job.id}`;
    await client.subscribeResource({ uri: thread });
    await client.subscribeResource({ uri: task });
    const someone = generateSecretKey();
    const now = Math.floor(Date.now() / 1000);
    relay.inject(finalizeEvent({
      kind: 12,
      created_at: now,
      tags: [["h", "room-001"], ["e", root.id, "", "root"], ["p", root.pubkey]],
      content: "a new reply",
    }, someone));
    relay.inject(finalizeEvent({
      kind: 43003,
      created_at: now,
      tags: [["h", "general"], ["e", job.id], ["p", job.pubkey]],
      content: "a quarter done",
    }, someone));
    await until(10_000, "the thread and the task told", () => updated.length >= 2);
    assert.deepEqual([...updated].sort(), [task, thread].sort());
    // A message in the thread's room that is not in the thread changes the room, not the thread.
    postTo(relay, "room-001", "not in the thread");
    await client.subscribeResource({ uri: `${base}/room/room-003` });
    postTo(relay, "room-003", "marker");
    await until(10_000, "the marker told", () => updated.includes(`${base}/room/room-003`));
    assert.equal(updated.filter((u) => u === thread).length, 1);
  });
});

Deno.test("with --listen, the listener and the subscriptions share the session's one websocket", async () => {
  const someone = nip19.npubEncode(getPublicKey(generateSecretKey()));
  await withResourceHost(
    { args: ["--listen", "room-002", "--allow-from", someone] },
    async ({ client, relay, base }) => {
      await client.subscribeResource({ uri: `${base}/room/room-001` });
      await client.subscribeResource({ uri: `${base}/job/${"0".repeat(64)}` });
      await until(
        10_000,
        "the listener's REQ and the two subscriptions'",
        () => [...reqsByConnection(relay).values()].reduce((a, b) => a + b, 0) >= 3,
      );
      assert.equal(relay.wsConnections, 1, "one websocket");
      assert.equal(reqsByConnection(relay).size, 1, "every REQ on it");
    },
  );
});
