// resources/read (lib/resources/reader.ts): the URI parsed strictly, the kind offered only when its
// read tool is exposed, the read tool called with the URI's variables, the answer checked and
// rendered under the URI asked; an unknown id refused naming the nearest that resolve; the
// relay's failures as clear errors.

import assert from "node:assert/strict";
import { CallCache } from "../../lib/resources/call_cache.ts";
import { RELAY_FAILED } from "../../lib/resources/outcome.ts";
import { Reader } from "../../lib/resources/reader.ts";
import { INVALID_PARAMS } from "../../lib/wire/mcp.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { Failed, fakeRelay, type Handler } from "./fake_relay.ts";
import { AGENT, id, LIST_ISSUES, LIST_ROOMS, OWNER, READ_ISSUE, READ_ROOM } from "./fixtures.ts";

const BASE = { host: "relay.example" };
const R = "tiny://relay.example";

function reader(handlers: Record<string, Handler>, exposed: readonly string[] = CONTRACT_READ) {
  const relay = fakeRelay(handlers);
  const read = new Reader({
    base: BASE,
    exposed: new Set(exposed),
    call: relay.call,
    cache: new CallCache(relay.call),
    self: () => Promise.resolve(AGENT),
  });
  return { read, relay };
}

Deno.test("a room is read with read_room, as markdown under the URI asked", async () => {
  const { read, relay } = reader({ read_room: () => READ_ROOM });
  const answer = await read.read({ uri: `${R}/room/general` });
  assert.ok("result" in answer, JSON.stringify(answer));
  const [item] = answer.result.contents;
  assert.equal(item.uri, `${R}/room/general`);
  assert.equal(item.mimeType, "text/markdown");
  assert.ok("text" in item && item.text.includes("The resources layer."));
  assert.ok("text" in item && item.text.includes("(you)"), "the agent's own key is marked");
  assert.deepEqual(relay.calls, [["read_room", { id: "general" }]]);
});

Deno.test("?as=json gives the relay's answer as JSON", async () => {
  const { read } = reader({ read_room: () => READ_ROOM });
  const answer = await read.read({ uri: `${R}/room/general?as=json` });
  assert.ok("result" in answer);
  const [item] = answer.result.contents;
  assert.equal(item.mimeType, "application/json");
  assert.ok("text" in item);
  assert.deepEqual(JSON.parse(item.text), READ_ROOM);
  assert.equal(item.uri, `${R}/room/general?as=json`);
});

Deno.test("an issue is read with its repository and event, as the relay's schema asks", async () => {
  const { read, relay } = reader({ read_issue: () => READ_ISSUE });
  const uri = `${R}/repo/${OWNER}/tinyagent/issue/${id("31")}`;
  const answer = await read.read({ uri });
  assert.ok("result" in answer, JSON.stringify(answer));
  assert.deepEqual(relay.calls, [["read_issue", { owner: OWNER, repo: "tinyagent", event: id("31") }]]);
});

Deno.test("a kind whose read tool is not exposed is not read, and the relay is not asked", async () => {
  const { read, relay } = reader({ read_room: () => READ_ROOM }, ["list_rooms", "read_thread"]);
  const answer = await read.read({ uri: `${R}/room/general` });
  assert.ok("error" in answer);
  assert.equal(answer.error.code, INVALID_PARAMS);
  assert.match(answer.error.message, /room resources are not offered here: .*read_room.*--tools/);
  assert.deepEqual(answer.error.data, { uri: `${R}/room/general`, nearest: [], reason: "not-offered" });
  assert.equal(relay.calls.length, 0);
});

Deno.test("a URI that does not parse is refused with its reason, before any call", async () => {
  const { read, relay } = reader({ read_room: () => READ_ROOM });
  const table: [unknown, string][] = [
    [{ uri: `${R}/room/../room/general` }, "bad-segment"],
    [{ uri: `${R}/room/%2e%2e` }, "bad-segment"],
    [{ uri: `${R}/room/a%2Fb` }, "bad-segment"],
    [{ uri: "tiny://other.example/room/general" }, "other-relay"],
    [{ uri: `${R}/${"a".repeat(100_000)}` }, "too-long"],
    [{ uri: `${R}/rooms/general` }, "unknown-kind"],
  ];
  for (const [params, reason] of table) {
    const answer = await read.read(params);
    assert.ok("error" in answer, JSON.stringify(params).slice(0, 80));
    assert.equal(answer.error.code, INVALID_PARAMS);
    assert.equal((answer.error.data as { reason: string }).reason, reason);
  }
  for (const params of [{}, { uri: 7 }, null, "tiny://x"]) {
    const answer = await read.read(params);
    assert.ok("error" in answer);
    assert.match(answer.error.message, /params\.uri must be a string/);
  }
  assert.equal(relay.calls.length, 0);
});

Deno.test("a misspelt room is refused naming the right one, from the listing", async () => {
  const { read } = reader({ read_room: () => new Failed("not found: room"), list_rooms: () => LIST_ROOMS });
  const answer = await read.read({ uri: `${R}/room/generl` });
  assert.ok("error" in answer);
  assert.equal(answer.error.code, INVALID_PARAMS);
  assert.match(answer.error.message, /"room\/generl" is not on this relay \(read_room: not found: room\)/);
  assert.match(answer.error.message, /Nearest that resolves: tiny:\/\/relay\.example\/room\/general\.$/);
  assert.deepEqual(answer.error.data, {
    uri: `${R}/room/generl`,
    nearest: [`${R}/room/general`],
    reason: "unknown-id",
  });
});

Deno.test("a thread in a misspelt room: its room's threads match nothing, so the rooms are the nearest", async () => {
  const event = id("51");
  const { read, relay } = reader({
    read_thread: () => new Failed("not found: room"),
    read_room: () => new Failed("not found: room"),
    list_rooms: () => LIST_ROOMS,
  });
  const answer = await read.read({ uri: `${R}/room/generl/thread/${event}` });
  assert.ok("error" in answer);
  assert.equal((answer.error.data as { reason: string }).reason, "unknown-id");
  // The last variable's listing (the threads of room "generl") gives nothing: the one before it does.
  const { nearest } = answer.error.data as { nearest: string[] };
  assert.equal(nearest[0], `${R}/room/general/thread/${event}`);
  assert.deepEqual(relay.calls.slice(0, 3).map(([tool]) => tool), ["read_thread", "read_room", "list_rooms"]);
});

Deno.test("an unknown issue names the repository's issues nearest to it", async () => {
  const { read, relay } = reader({
    read_issue: () => new Failed("not found: collaboration event"),
    list_issues: () => LIST_ISSUES,
  });
  const wrong = `${R}/repo/${OWNER}/tinyagent/issue/${id("31").slice(0, 63)}0`;
  const answer = await read.read({ uri: wrong });
  assert.ok("error" in answer);
  const { nearest } = answer.error.data as { nearest: string[] };
  assert.equal(nearest[0], `${R}/repo/${OWNER}/tinyagent/issue/${id("31")}`, "the nearest first");
  assert.deepEqual(relay.calls[1], ["list_issues", { limit: 100, owner: OWNER, repo: "tinyagent" }]);
});

Deno.test("with no listing to go by, an unknown id is refused naming none", async () => {
  const { read } = reader({ read_room: () => new Failed("not found: room") }, ["read_room"]);
  const answer = await read.read({ uri: `${R}/room/nothing` });
  assert.ok("error" in answer);
  assert.deepEqual((answer.error.data as { nearest: string[] }).nearest, []);
});

Deno.test("the relay's failures are clear errors: rate-limited with retryAfter, refused, garbage", async () => {
  const cases: [Handler, string, RegExp][] = [
    [
      () => new Failed("relay: rate-limited: slow down; retry after 12 s", 12),
      "rate-limited",
      /retry after 12 s/,
    ],
    [
      () => new Failed("permission: restricted: members only"),
      "refused",
      /permission: restricted: members only/,
    ],
    [() => new Failed("transport: no answer within 30 s"), "transport", /transport: no answer/],
    [() => "garbage", "unreadable", /no structured answer tinyagent can read/],
  ];
  for (const [handler, reason, words] of cases) {
    const { read } = reader({ read_room: handler });
    const answer = await read.read({ uri: `${R}/room/general` });
    assert.ok("error" in answer, reason);
    assert.equal(answer.error.code, RELAY_FAILED);
    assert.match(answer.error.message, words);
    assert.equal((answer.error.data as { reason: string }).reason, reason);
  }
});

Deno.test("an answer about another resource is never shown under this one", async () => {
  const { read } = reader({ read_room: () => ({ ...READ_ROOM, room: { ...READ_ROOM.room, id: "dev" } }) });
  const answer = await read.read({ uri: `${R}/room/general` });
  assert.ok("error" in answer);
  assert.equal(answer.error.code, RELAY_FAILED);
  assert.match(answer.error.message, /answered for \{id\} = "dev", not the one asked/);
});

Deno.test("an unchanged answer's rendering is the one made before; a changed one is rendered anew", async () => {
  let answer: unknown = READ_ROOM;
  const { read, relay } = reader({ read_room: () => answer });
  const uri = `${R}/room/general`;
  const first = await read.read({ uri });
  const again = await read.read({ uri });
  assert.ok("result" in first && "result" in again);
  assert.equal(again.result, first.result, "the same rendering, not a new one");
  assert.equal(relay.count("read_room"), 2, "the relay is asked every time: a read is never kept");
  const newest = {
    ...READ_ROOM.messages[3],
    id: id("99"),
    created_at: READ_ROOM.messages[0].created_at + 60,
    content: "news",
  };
  answer = { ...READ_ROOM, messages: [newest, ...READ_ROOM.messages] };
  const changed = await read.read({ uri });
  assert.ok("result" in changed);
  assert.notEqual(changed.result, first.result);
  assert.ok("text" in changed.result.contents[0] && changed.result.contents[0].text.includes("news"));
  // The same answer under another URI (as JSON) is another rendering.
  const json = await read.read({ uri: `${uri}?as=json` });
  assert.ok("result" in json && json.result.contents[0].mimeType === "application/json");
});
