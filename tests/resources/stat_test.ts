// `?as=stat` (lib/resources/stat.ts), as tables: the cheapest call for each kind (a room's summary
// with one message, a wiki page and a file from their listing), and what each answer says: title,
// state, size, last change, counts.

import assert from "node:assert/strict";
import { listedItem, statCall, statOf } from "../../lib/resources/stat.ts";
import type { ItemKind, ResourceAddress } from "../../lib/resources/kinds.ts";
import {
  id,
  LIST_WIKI,
  OWNER,
  READ_ISSUE,
  READ_JOB,
  READ_REPOSITORY,
  READ_ROOM,
  READ_THREAD,
  READ_WIKI,
} from "./fixtures.ts";

const at = (kind: ItemKind, values: Record<string, string>) =>
  ({ kind, values }) as ResourceAddress & { kind: ItemKind };
const SHA = "ab".repeat(32);

Deno.test("each kind's stat call: never a body the relay can describe without", () => {
  const cases: [ResourceAddress, unknown][] = [
    [at("room", { id: "general" }), {
      tool: "read_room",
      arguments: { id: "general", limit: 1 },
      listed: false,
    }],
    [at("wiki", { d: "faq" }), { tool: "list_wiki", arguments: { q: "faq", limit: 100 }, listed: true }],
    [at("file", { sha256: SHA }), { tool: "list_files", arguments: { q: SHA, limit: 100 }, listed: true }],
    [at("job", { id: id("61") }), { tool: "read_job", arguments: { id: id("61") }, listed: false }],
    [at("issue", { owner: OWNER, name: "x", id: id("31") }), {
      tool: "read_issue",
      arguments: { owner: OWNER, repo: "x", event: id("31") },
      listed: false,
    }],
  ];
  for (const [address, want] of cases) assert.deepEqual(statCall(address), want, address.kind);
});

Deno.test("what each answer says: title, state, counts, last change", () => {
  const cases: [ResourceAddress & { kind: ItemKind }, unknown, Record<string, unknown>][] = [
    [at("room", { id: "general" }), READ_ROOM, {
      kind: "room",
      title: "General",
      lastChange: "2026-01-01T00:10:00Z",
      counts: { members: 3 },
    }],
    [at("thread", { id: "general", event: id("11") }), READ_THREAD, {
      kind: "thread",
      title: "Plans for March",
      lastChange: "2026-01-01T00:15:00Z",
      counts: { replies: 2 },
    }],
    [at("repo", { owner: OWNER, name: "tinyagent" }), READ_REPOSITORY, { kind: "repo", title: "tinyagent" }],
    [at("issue", { owner: OWNER, name: "tinyagent", id: id("31") }), READ_ISSUE, {
      kind: "issue",
      state: "resolved",
    }],
    [at("wiki", { d: "getting-started" }), READ_WIKI, {
      kind: "wiki",
      title: "Getting started",
      lastChange: "2026-01-01T00:00:00Z",
      counts: { versions: 2, openMerges: 1 },
    }],
    [at("job", { id: id("61") }), READ_JOB, {
      kind: "job",
      title: "Summarise the week",
      state: "done",
      lastChange: "2026-01-01T00:15:00Z",
      counts: { answers: 3, assignees: 1 },
    }],
    [at("file", { sha256: SHA }), {
      sha256: SHA,
      size: 12,
      type: "text/plain",
      uploaded: 1767225600,
      name: "a.txt",
    }, {
      kind: "file",
      title: "a.txt",
      size: 12,
      type: "text/plain",
      lastChange: "2026-01-01T00:00:00Z",
    }],
  ];
  for (const [address, answer, want] of cases) {
    const stat = statOf(address, "tiny://r/x?as=stat", answer) as unknown as Record<string, unknown>;
    for (const [key, value] of Object.entries(want)) {
      assert.deepEqual(stat[key], value, `${address.kind}.${key}`);
    }
    assert.equal(stat.uri, "tiny://r/x?as=stat");
  }
  assert.deepEqual(
    statOf(at("room", { id: "x" }), "u", {}),
    { uri: "u", kind: "room", title: "#x" },
    "unknowns left out",
  );
});

Deno.test("a listing's item is found by its name or hash, exactly", () => {
  const page = LIST_WIKI.items[0] as { d: string };
  assert.equal(listedItem(at("wiki", { d: page.d }), LIST_WIKI)?.d, page.d);
  assert.equal(listedItem(at("wiki", { d: `${page.d}-not` }), LIST_WIKI), undefined);
  assert.equal(
    listedItem(at("file", { sha256: SHA }), { items: [{ sha256: SHA.toUpperCase() }] }),
    undefined,
  );
});
