// Content mode's rooms: an unseeded relay's empty answers; 250 seeded rooms through list_rooms'
// cursor, each once; read_room and read_thread from the event store, paged, with each shown
// message's newest edit; their refusals; and a message posted after seeding, which reaches
// read_room and a live websocket subscriber.

import assert from "node:assert/strict";
import { finalizeEvent, type NostrEvent } from "nostr-tools/pure";
import { roomsContent } from "./mod.ts";
import { newKey, signed, withRelay, withSocket } from "./nostr_test_kit.ts";
import {
  AGENT,
  call,
  everyPage,
  publishWith,
  read,
  readerRefuses,
  refused,
  refusedArguments,
} from "./content_test_kit.ts";

const newestFirst = (a: NostrEvent, b: NostrEvent) => b.created_at - a.created_at || (a.id < b.id ? -1 : 1);
const AT = 1_700_000_000;
const ids = (events: NostrEvent[]) => events.map((e) => e.id);

Deno.test("content rooms: an unseeded relay answers from its empty store; a seed fills it", async () => {
  await withRelay({ rooms: [] }, async (relay) => {
    assert.deepEqual(await read(relay, "list_rooms", { limit: 5 }), { items: [], next_cursor: "" });
    await refused(relay, "read_room", { id: "room-001" }, "not found: room");
    const table = structuredClone(relay.tools);
    relay.seed(roomsContent(3).seed);
    assert.deepEqual(relay.tools, table, "seeding fills the store, not the table");
    const page = await read(relay, "list_rooms", { limit: 5 });
    assert.deepEqual(page.items.map((r: { id: string }) => r.id), ["room-001", "room-002", "room-003"]);
  });
});

Deno.test("content rooms: 250 rooms through the cursor, each once, as the relay lists them", async () => {
  const content = roomsContent(250);
  await withRelay({ rooms: [] }, async (relay) => {
    relay.seed(content.seed);
    const { items, pages } = await everyPage(relay, "list_rooms");
    assert.deepEqual(pages, [100, 100, 50], "100 a page by default");
    assert.deepEqual(items.map((r) => r.id), content.rooms.map((r) => r.id));
    const small = await everyPage(relay, "list_rooms", { limit: 33 });
    assert.deepEqual(small.items.map((r) => r.id), content.rooms.map((r) => r.id));
    assert.equal(small.pages.length, 8);
    const first = content.rooms[1];
    const record = content.seed.rooms![1];
    assert.deepEqual(items[1], {
      id: first.id,
      name: first.name,
      about: record.about,
      picture: "",
      access: "open",
      created_by: first.members[0],
      created_at: record.created_at,
      event_id: "",
      members: first.members.length,
      last_message_at: Math.max(...first.messages.map((m) => m.created_at)),
      role: "",
    });
    assert.equal((await read(relay, "list_rooms", { cursor: "room-249" })).items[0].id, "room-250");
  });
});

Deno.test("content rooms: read_room gives members and messages newest first, paged", async () => {
  const content = roomsContent(4);
  await withRelay({ rooms: [] }, async (relay) => {
    relay.seed(content.seed);
    const room = content.rooms[0];
    const all = [...room.messages].sort(newestFirst);
    const whole = await read(relay, "read_room", { id: room.id });
    assert.deepEqual(whole.messages, all);
    assert.deepEqual(Object.keys(whole), ["edits", "members", "messages", "next_cursor", "room"]);
    assert.equal(whole.next_cursor, "");
    assert.equal(whole.members[0].pubkey, room.members[0], "the owner first");
    assert.equal(whole.members[0].role, "owner");
    assert.equal(whole.room.members, whole.members.length);
    const seen: NostrEvent[] = [];
    let cursor = "";
    do {
      const page = await read(relay, "read_room", { id: room.id, limit: 2, ...(cursor ? { cursor } : {}) });
      assert.ok(page.messages.length <= 2);
      seen.push(...page.messages);
      cursor = page.next_cursor;
    } while (cursor !== "");
    assert.deepEqual(seen, all, "every message once, newest first");
  });
});

Deno.test("content rooms: read_thread gives the root and its replies newest first", async () => {
  const content = roomsContent(2);
  const thread = content.thread!;
  await withRelay({ rooms: [] }, async (relay) => {
    relay.seed(content.seed);
    const page = await read(relay, "read_thread", { id: thread.room, event: thread.root.id });
    assert.deepEqual(page.root, thread.root);
    assert.deepEqual(page.replies, [...thread.replies].sort(newestFirst));
    assert.deepEqual(page.room.members, 0, "a thread names its room by its own fields alone");
    const fromReply = await read(relay, "read_thread", { id: thread.room, event: thread.replies[0].id });
    assert.deepEqual(fromReply.root, thread.root, "a reply's id opens its thread");
    const short = { id: thread.room, event: "ab" };
    await refusedArguments(relay, "read_thread", short, "event does not match ^[0-9a-f]{64}$");
    readerRefuses(content.seed, "read_thread", short, "invalid: thread root");
    await refused(relay, "read_thread", { id: thread.room, event: "0".repeat(64) }, "not found: thread");
    await refused(relay, "read_thread", { id: "room-002", event: thread.root.id }, "not found: thread");
  });
});

Deno.test("content rooms: the relay's refusals for rooms", async () => {
  const content = roomsContent(2);
  await withRelay({ rooms: [] }, async (relay) => {
    relay.seed(content.seed);
    relay.seed({
      rooms: [{
        id: "secret",
        name: "Secret",
        access: "members",
        members: [{ pubkey: content.authors[0].pk }],
      }],
    });
    await refused(relay, "read_room", { id: "nowhere" }, "not found: room");
    const badId = "id does not match ^[a-z0-9_-]{1,64}$";
    await refusedArguments(relay, "read_room", { id: "Not A Room" }, badId);
    readerRefuses(content.seed, "read_room", { id: "Not A Room" }, "not found: room");
    await refused(relay, "read_room", { id: "room-001", cursor: "yesterday" }, "invalid: room cursor");
    await refused(relay, "read_room", { id: "secret" }, "restricted: this room is members-only");
    const listed = (await read(relay, "list_rooms")).items.map((r: { id: string }) => r.id);
    assert.deepEqual(listed, ["room-001", "room-002"], "a members room is hidden from others");
    await refusedArguments(relay, "read_room", { id: "room-001", limit: "5" }, "limit must be an integer");
  });
});

Deno.test("content rooms: a message posted after seeding reaches read_room and a subscriber", async () => {
  const content = roomsContent(3, { since: 1_600_000_000 });
  await withRelay({ rooms: [] }, async (relay) => {
    relay.seed(content.seed);
    // The default grant covers only general: the operator grants this agent the room it posts in.
    relay.setGrant(AGENT.pk, { rooms: ["room-002"], kinds: [9] });
    await withSocket(relay.wsUrl, async (ws) => {
      await ws.next("challenge");
      const history = await ws.req("room", { "#h": ["room-002"] });
      assert.deepEqual(
        history.events.map((e) => e.id).sort(),
        content.rooms[1].messages.map((e) => e.id).sort(),
        "seeded messages are stored events",
      );
      const posted = await publishWith(
        relay,
        "post_message",
        { room: "room-002", content: "hello <from> later & again" },
        (unsigned) => finalizeEvent(unsigned, AGENT.sk),
      );
      assert.deepEqual(await ws.next("the live message"), ["EVENT", "room", posted]);
      const page = await read(relay, "read_room", { id: "room-002" });
      assert.deepEqual(page.messages[0], posted, "the newest message first");
      assert.ok(
        page.members.some((m: { pubkey: string }) => m.pubkey === AGENT.pk),
        "posting joins an open room",
      );
      assert.equal(page.room.role, "member");
      assert.equal(page.room.last_message_at, posted.created_at);
    });
  });
});

Deno.test("content rooms: the text block is the JSON Go writes; messages of one second page once", async () => {
  await withRelay({ rooms: [] }, async (relay) => {
    const at = 1_600_000_000;
    const same = [1, 2, 3].map((i) =>
      signed(AGENT, { created_at: at, tags: [["h", "tie"]], content: `<${i}> & co` })
    );
    relay.seed({ rooms: [{ id: "tie", name: "Ties" }], events: same });
    const whole = await call(relay, "read_room", { id: "tie" });
    assert.ok(
      whole.result.content[0].text.includes("\\u003c1\\u003e \\u0026 co"),
      "<, > and & escaped as Go does",
    );
    assert.ok(!whole.result.content[0].text.includes("<"));
    const seen: string[] = [];
    let cursor = "";
    do {
      const page = await read(relay, "read_room", { id: "tie", limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.messages.map((m: NostrEvent) => m.id));
      cursor = page.next_cursor;
    } while (cursor !== "" && seen.length < 10);
    assert.deepEqual(seen, same.map((e) => e.id).sort(), "the lower id first at the same second, each once");
  });
});

Deno.test("content shapes: read_room and read_thread give each shown message's newest own edit", async () => {
  const other = newKey();
  const h = ["h", "talk"];
  const root = signed(AGENT, { kind: 11, created_at: AT, tags: [h, ["subject", "Plans"]] });
  const reply = signed(other, { kind: 12, created_at: AT + 1, tags: [h, ["e", root.id]] });
  const edit = (key = AGENT, of = root, at = AT + 2) =>
    signed(key, { kind: 40003, created_at: at, tags: [h, ["e", of.id]], content: "edited" });
  const [older, newer, byOther, ofReply] = [
    edit(),
    edit(AGENT, root, AT + 3),
    edit(other),
    edit(other, reply),
  ];
  const rich = signed(other, { kind: 40002, created_at: AT + 9, tags: [h] });
  await withRelay({ rooms: [] }, async (relay) => {
    relay.seed({
      rooms: [{ id: "talk", name: "Talk" }],
      events: [root, reply, older, newer, byOther, ofReply, rich],
    });
    const room = await read(relay, "read_room", { id: "talk" });
    assert.deepEqual(ids(room.edits), ids([newer, ofReply]), "the newest by each message's own author");
    assert.deepEqual(
      ids(room.messages),
      ids([reply, root]),
      "edits and rich content are not room messages here",
    );
    assert.equal(room.room.last_message_at, rich.created_at, "rich content is a message");
    assert.deepEqual(ids((await read(relay, "read_room", { id: "talk", limit: 1 })).edits), ids([ofReply]));
    const thread = await read(relay, "read_thread", { id: "talk", event: root.id });
    assert.deepEqual(ids(thread.edits), ids([newer, ofReply]));
  });
});
