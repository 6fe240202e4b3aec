// Concrete resources for resources/list (lib/resources/listing.ts): rooms, repositories, wiki
// pages and open tasks from the real relay's list answers, with titles people recognise, short
// descriptions, last-modified times, and each list's paging fields.

import assert from "node:assert/strict";
import { CONTRACT_READ } from "../support/contract.ts";
import { exposedListSources, LIST_SOURCES, listCall, listedResources } from "../../lib/resources/listing.ts";
import { parseUri } from "../../lib/resources/uri.ts";
import { ALICE, id, LIST_JOBS, LIST_REPOSITORIES, LIST_ROOMS, LIST_WIKI, OWNER, T0 } from "./fixtures.ts";

const BASE = { host: "relay.example" };
const R = "tiny://relay.example";

Deno.test("the lists and their paging: cursor in, next_cursor out", () => {
  assert.deepEqual(LIST_SOURCES.map((s) => [s.tool, s.kind, s.readTool]), [
    ["list_rooms", "room", "read_room"],
    ["list_repositories", "repo", "read_repository"],
    ["list_wiki", "wiki", "read_wiki_page"],
    ["list_jobs", "job", "read_job"],
  ]);
  assert.deepEqual(listCall(LIST_SOURCES[3]), {
    tool: "list_jobs",
    arguments: { state: "open", limit: 100 },
  });
  assert.deepEqual(listCall(LIST_SOURCES[0], "dev"), {
    tool: "list_rooms",
    arguments: { limit: 100, cursor: "dev" },
  });
  assert.deepEqual(listCall(LIST_SOURCES[0], ""), { tool: "list_rooms", arguments: { limit: 100 } });
  assert.equal(exposedListSources(new Set(CONTRACT_READ)).length, 4);
  assert.deepEqual(
    exposedListSources(new Set(["list_rooms", "read_wiki_page", "list_wiki"])).map((s) => s.tool),
    ["list_wiki"],
  );
});

Deno.test("rooms: the name people know, members and access, the last message's time", () => {
  const { resources, nextCursor } = listedResources(BASE, "list_rooms", LIST_ROOMS);
  assert.deepEqual(resources, [
    {
      uri: `${R}/room/general`,
      name: "room/general",
      title: "General (#general)",
      description: "Room #general · 3 members · Everything that has no room of its own",
      mimeType: "text/markdown",
      annotations: { lastModified: "2026-01-01T00:10:00Z" },
    },
    {
      uri: `${R}/room/dev`,
      name: "room/dev",
      title: "#dev",
      description: "Room #dev · 1 member · members only",
      mimeType: "text/markdown",
    },
  ]);
  assert.equal(nextCursor, "dev");
});

Deno.test("repositories, wiki pages and open tasks", () => {
  const repos = listedResources(BASE, "list_repositories", LIST_REPOSITORIES);
  assert.deepEqual(repos.resources.map((r) => [r.uri, r.title, r.description]), [
    [
      `${R}/repo/${OWNER}/tinyagent`,
      "tinyagent by npub16n2df4x5…wsfn",
      "Repository · public · 2 branches and tags · clone https://relay.example/d4d4.git",
    ],
    [`${R}/repo/${ALICE}/notes`, "notes by npub15xs6rgdp…7wk8", "Repository · private · 0 branches and tags"],
  ]);
  assert.equal(repos.nextCursor, undefined);
  const wiki = listedResources(BASE, "list_wiki", LIST_WIKI).resources;
  assert.deepEqual(wiki, [{
    uri: `${R}/wiki/getting-started`,
    name: "wiki/getting-started",
    title: "Getting started",
    description: "Wiki page · First steps · 2 versions · 1 open merge request",
    mimeType: "text/markdown",
    annotations: { lastModified: "2026-01-01T00:00:00Z" },
  }]);
  // Only open tasks, last changed at their newest progress.
  const jobs = listedResources(BASE, "list_jobs", LIST_JOBS);
  assert.deepEqual(jobs.resources.map((r) => [r.uri, r.title, r.description, r.annotations?.lastModified]), [[
    `${R}/job/${id("65")}`,
    "Task: Summarise the week",
    "Long task in #general · status running · asked by npub15xs6rgdp…7wk8 of 1 key",
    new Date((T0 + 1_000) * 1000).toISOString().replace(".000Z", "Z"),
  ]]);
  assert.equal(jobs.nextCursor, `${T0}:${id("61")}`);
});

Deno.test("every listed URI parses back to itself; items naming nothing valid are left out", () => {
  const hostile = {
    items: [
      { id: "Bad Room" },
      { id: "../etc" },
      { id: 3 },
      { id: "ok", name: "x\u202e\n# y", about: "a\u0000b".repeat(200) },
      null,
    ],
    next_cursor: 5,
  };
  const { resources, nextCursor } = listedResources(BASE, "list_rooms", hostile);
  assert.deepEqual(resources.map((r) => r.uri), [`${R}/room/ok`]);
  assert.equal(resources[0].title, "x\\u202e # y (#ok)");
  // deno-lint-ignore no-control-regex -- no control character may reach the output
  assert.ok(!/[\u0000\u202e]/.test(resources[0].description ?? ""));
  assert.ok((resources[0].description ?? "").length <= 301);
  assert.equal(nextCursor, undefined);
  for (const tool of ["list_rooms", "list_repositories", "list_wiki", "list_jobs"]) {
    for (const answer of [undefined, null, {}, { items: {} }]) {
      assert.deepEqual(listedResources(BASE, tool, answer), { resources: [] });
    }
    for (const listed of listedResources(BASE, tool, { items: [] }).resources) {
      assert.ok(parseUri(BASE, listed.uri).ok);
    }
  }
  assert.deepEqual(listedResources(BASE, "list_files", { items: [{ sha256: id("71") }] }), { resources: [] });
  const tenant =
    listedResources({ host: "relay.example", tenant: "acme" }, "list_rooms", LIST_ROOMS).resources[0];
  assert.equal(tenant.uri, "tiny://relay.example/r/acme/room/general");
});
