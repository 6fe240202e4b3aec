// completion/complete (lib/resources/completer.ts): a template variable's values from the tool
// that lists them, with the values already chosen, ranked for what was typed; a few pages at most;
// kept briefly; a request naming no template here, or a variable it lacks, refused.

import assert from "node:assert/strict";
import { CallCache } from "../../lib/resources/call_cache.ts";
import { Completer } from "../../lib/resources/completer.ts";
import { RELAY_FAILED } from "../../lib/resources/outcome.ts";
import { exposedTemplates } from "../../lib/resources/templates.ts";
import { INVALID_PARAMS } from "../../lib/wire/mcp.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { Failed, fakeRelay, type Handler, roomPages } from "./fake_relay.ts";
import { id, LIST_ISSUES, OWNER } from "./fixtures.ts";

const BASE = { host: "relay.example" };
const R = "tiny://relay.example";
const ROOM = `${R}/room/{id}`;
const ISSUE = `${R}/repo/{owner}/{name}/issue/{id}`;

function completer(handlers: Record<string, Handler>, exposed: readonly string[] = CONTRACT_READ) {
  const relay = fakeRelay(handlers);
  const set = new Set(exposed);
  const complete = new Completer({
    templates: exposedTemplates(BASE, set),
    exposed: set,
    cache: new CallCache(relay.call),
  });
  return { complete, relay };
}

const ask = (uri: string, name: string, value: string, context?: Record<string, string>) => ({
  ref: { type: "ref/resource", uri },
  argument: { name, value },
  ...(context ? { context: { arguments: context } } : {}),
});

Deno.test("a room id from two typed letters, across the listing's pages", async () => {
  const rooms = roomPages(250);
  const { complete, relay } = completer({ list_rooms: rooms });
  const answer = await complete.complete(ask(ROOM, "id", "24"));
  assert.ok("result" in answer, JSON.stringify(answer));
  const { values, hasMore } = answer.result.completion;
  // A word of the name starting so first (Room room-240…249), then the ids holding the letters in order.
  assert.deepEqual(values.slice(0, 10), Array.from({ length: 10 }, (_, i) => `room-24${i}`));
  assert.ok(values.indexOf("room-024") > 9 && values.includes("room-124"));
  assert.ok(values.includes("room-240") && values.includes("room-249"), "the third page is read too");
  assert.equal(hasMore, false);
  assert.equal(relay.count("list_rooms"), 3);
  // Typing on: the pages are kept.
  await complete.complete(ask(ROOM, "id", "249"));
  assert.equal(relay.count("list_rooms"), 3);
});

Deno.test("prefix matches come first", async () => {
  const { complete } = completer({
    list_rooms: () => ({
      items: [{ id: "dev", name: "Development" }, { id: "general", name: "General" }, { id: "gen-z" }],
      next_cursor: "",
    }),
  });
  const answer = await complete.complete(ask(ROOM, "id", "ge"));
  assert.ok("result" in answer);
  // The two that start so, then the one a letter away.
  assert.deepEqual(answer.result.completion, {
    values: ["general", "gen-z", "dev"],
    total: 3,
    hasMore: false,
  });
});

Deno.test("an issue id, given the owner and repository already chosen", async () => {
  const { complete, relay } = completer({ list_issues: () => LIST_ISSUES });
  const answer = await complete.complete(ask(ISSUE, "id", "", { owner: OWNER, name: "tinyagent" }));
  assert.ok("result" in answer);
  assert.deepEqual(answer.result.completion.values, [id("31"), id("35")]);
  assert.deepEqual(relay.calls, [["list_issues", { limit: 100, owner: OWNER, repo: "tinyagent" }]]);
  // By the title's words as well.
  const byTitle = await complete.complete(ask(ISSUE, "id", "wiki", { owner: OWNER, name: "tinyagent" }));
  assert.ok("result" in byTitle);
  assert.deepEqual(byTitle.result.completion.values, [id("35")]);
});

Deno.test("without the repository chosen, an issue id completes to nothing, asking the relay nothing", async () => {
  const { complete, relay } = completer({ list_issues: () => LIST_ISSUES });
  const contexts: (Record<string, string> | undefined)[] = [
    undefined,
    { owner: OWNER },
    { owner: "not-a-key", name: "tinyagent" },
  ];
  for (const context of contexts) {
    const answer = await complete.complete(ask(ISSUE, "id", "", context));
    assert.deepEqual(answer, { result: { completion: { values: [], total: 0, hasMore: false } } });
  }
  assert.equal(relay.calls.length, 0);
});

Deno.test("more values than a few pages: what was read, and hasMore", async () => {
  const { complete, relay } = completer({ list_rooms: roomPages(5000) });
  const answer = await complete.complete(ask(ROOM, "id", ""));
  assert.ok("result" in answer);
  assert.equal(answer.result.completion.values.length, 100);
  assert.equal(answer.result.completion.hasMore, true);
  assert.equal("total" in answer.result.completion, false, "the total is not known");
  assert.equal(relay.count("list_rooms"), 10);
});

Deno.test("an unknown template, a variable it lacks, a bad request: refused, saying what there is", async () => {
  const { complete, relay } = completer({ list_rooms: roomPages(3) });
  const unknown = await complete.complete(ask(`${R}/rooms/{id}`, "id", "g"));
  assert.ok("error" in unknown);
  assert.equal(unknown.error.code, INVALID_PARAMS);
  assert.match(
    unknown.error.message,
    /is not a resource template here; the templates are tiny:\/\/relay\.example\/room\/\{id\}, /,
  );
  assert.deepEqual((unknown.error.data as { nearest: string[] }).nearest[0], ROOM);
  const cases: [unknown, RegExp][] = [
    [ask(ROOM, "room", "g"), /argument\.name must be one of the template's variables: id/],
    [ask(ROOM, "id", "g".repeat(3000)), /at most 2048 characters/],
    [{ ref: { type: "ref/prompt", name: "x" }, argument: { name: "a", value: "" } }, /no prompts/],
    [{ ref: { type: "ref/other" }, argument: { name: "id", value: "" } }, /ref must be/],
    [{ argument: { name: "id", value: "" } }, /needs ref and argument/],
    [null, /needs ref and argument/],
    [ask(`${R}/${"x".repeat(100_000)}`, "id", ""), /is not a resource template here/],
  ];
  for (const [params, words] of cases) {
    const answer = await complete.complete(params);
    assert.ok("error" in answer, String(words));
    assert.equal(answer.error.code, INVALID_PARAMS);
    assert.match(answer.error.message, words);
    assert.ok(answer.error.message.length < 2000, "bounded");
  }
  assert.equal(relay.calls.length, 0);
});

Deno.test("a template whose read tool is not exposed is not completed", async () => {
  const { complete } = completer({ list_rooms: roomPages(3) }, ["list_rooms", "read_wiki_page"]);
  const answer = await complete.complete(ask(ROOM, "id", ""));
  assert.ok("error" in answer);
  assert.match(
    answer.error.message,
    /not a resource template here; the templates are tiny:\/\/relay\.example\/wiki\/\{d\}, tiny:\/\/relay\.example\/\.$/,
  );
});

Deno.test("a relay that rate-limits fails the completion with retryAfter; a refusal completes to nothing", async () => {
  const limited = completer({ list_rooms: () => new Failed("relay: rate-limited: x; retry after 4 s", 4) });
  const answer = await limited.complete.complete(ask(ROOM, "id", "g"));
  assert.ok("error" in answer);
  assert.equal(answer.error.code, RELAY_FAILED);
  assert.deepEqual(answer.error.data, { uri: ROOM, reason: "rate-limited", retryAfter: 4 });
  const refused = completer({ list_issues: () => new Failed("file does not exist") });
  const none = await refused.complete.complete(ask(ISSUE, "id", "", { owner: OWNER, name: "nope" }));
  assert.deepEqual(none, { result: { completion: { values: [], total: 0, hasMore: false } } });
});
