// A collection's page (lib/resources/collections.ts): the call that lists each collection (the
// relay's cursor carried whole, every task's state, a room's messages for its threads), its
// children read off the relay's answers (only those that name a valid resource), the root's kinds
// for the exposed tools, and the page as markdown (relay text that cannot forge its structure) and
// as JSON.

import assert from "node:assert/strict";
import {
  collectionCall,
  collectionJson,
  collectionMarkdown,
  collectionPage,
  PAGE_SIZE,
  rootChildren,
} from "../../lib/resources/collections.ts";
import type { ResourceAddress } from "../../lib/resources/kinds.ts";
import { CONTRACT_READ } from "../support/contract.ts";
import { id, LIST_ISSUES, LIST_JOBS, LIST_ROOMS, LIST_WIKI, OWNER, READ_ROOM, T0 } from "./fixtures.ts";

const BASE = { host: "relay.example" };
const R = "tiny://relay.example";
const repo = { owner: OWNER, name: "tinyagent" };
const at = (kind: ResourceAddress["kind"], values: Record<string, string> = {}) => ({ kind, values });

Deno.test("each collection's call: its list tool, 50 a page, its variables, the relay's cursor whole", () => {
  const cases: [ResourceAddress, string | undefined, unknown][] = [
    [at("root"), undefined, undefined],
    [at("rooms"), undefined, { tool: "list_rooms", arguments: { limit: PAGE_SIZE } }],
    [at("rooms"), "room-050", { tool: "list_rooms", arguments: { limit: 50, cursor: "room-050" } }],
    [at("threads", { id: "general" }), `${T0}:${id("11")}`, {
      tool: "read_room",
      arguments: { limit: 50, id: "general", cursor: `${T0}:${id("11")}` },
    }],
    [at("repos"), `${OWNER}/x`, {
      tool: "list_repositories",
      arguments: { limit: 50, cursor: `${OWNER}/x` },
    }],
    [at("issues", repo), undefined, {
      tool: "list_issues",
      arguments: { limit: 50, owner: OWNER, repo: "tinyagent" },
    }],
    [at("pulls", repo), undefined, {
      tool: "list_pull_requests",
      arguments: { limit: 50, owner: OWNER, repo: "tinyagent" },
    }],
    [at("pages"), undefined, { tool: "list_wiki", arguments: { limit: 50 } }],
    [at("jobs"), undefined, { tool: "list_jobs", arguments: { limit: 50, state: "all" } }],
    [at("files"), undefined, { tool: "list_files", arguments: { limit: 50 } }],
  ];
  for (const [address, cursor, want] of cases) {
    assert.deepEqual(collectionCall(address, cursor), want, address.kind);
  }
});

Deno.test("the root lists the kinds whose tools are exposed", () => {
  assert.deepEqual(rootChildren(BASE, new Set(CONTRACT_READ)).map((c) => [c.uri, c.title]), [
    [`${R}/room/`, "Rooms"],
    [`${R}/repo/`, "Repositories"],
    [`${R}/wiki/`, "Wiki pages"],
    [`${R}/job/`, "Long tasks"],
    [`${R}/file/`, "Files"],
  ]);
  assert.deepEqual(
    rootChildren(BASE, new Set(["list_rooms", "read_room", "list_files"])).map((c) => c.title),
    [
      "Rooms",
    ],
  );
});

Deno.test("children from each answer: complete URIs, titles, what they are, when they changed; the next cursor", () => {
  const rooms = collectionPage(BASE, at("rooms"), LIST_ROOMS);
  assert.deepEqual(rooms.children.map((c) => [c.uri, c.title]), [
    [`${R}/room/general`, "General (#general)"],
    [`${R}/room/dev`, "#dev"],
  ]);
  assert.equal(rooms.next, "dev");
  const threads = collectionPage(BASE, at("threads", { id: "general" }), READ_ROOM);
  assert.equal(threads.children.length, 1, "the one thread opened on the page");
  assert.equal(threads.children[0].uri, `${R}/room/general/thread/${id("11")}`);
  assert.equal(threads.children[0].title, "Plans for March");
  assert.equal(threads.children[0].lastModified, "2026-01-01T00:01:00Z");
  assert.match(threads.children[0].description!, /^Thread opened by npub1/);
  assert.equal(threads.next, READ_ROOM.next_cursor);
  const issues = collectionPage(BASE, at("issues", repo), LIST_ISSUES);
  assert.deepEqual(issues.children.map((c) => c.uri), [
    `${R}/repo/${OWNER}/tinyagent/issue/${id("31")}`,
    `${R}/repo/${OWNER}/tinyagent/issue/${id("35")}`,
  ]);
  assert.equal(issues.children[1].title, "Wiki pages render twice");
  assert.equal(issues.next, undefined, "the last page");
  const jobs = collectionPage(BASE, at("jobs"), LIST_JOBS);
  assert.equal(jobs.children.length, LIST_JOBS.items.length, "every task, whatever its state");
  assert.ok(
    collectionPage(BASE, at("pages"), LIST_WIKI).children.every((c) => c.uri.startsWith(`${R}/wiki/`)),
  );
  const files = collectionPage(BASE, at("files"), {
    items: [
      { sha256: "ab".repeat(32), size: 1234, type: "text/plain", uploaded: T0, name: "notes.txt" },
      { sha256: "not a hash", size: 1, type: "text/plain" },
    ],
    next_cursor: "x".repeat(1025),
  });
  assert.deepEqual(files.children, [{
    uri: `${R}/file/${"ab".repeat(32)}`,
    title: "notes.txt",
    description: "File · text/plain · 1,234 bytes",
    lastModified: "2026-01-01T00:00:00Z",
  }]);
  assert.equal(files.next, undefined, "a cursor no host should carry ends the list");
});

Deno.test("the page as markdown (relay text cannot forge a line) and as JSON", () => {
  const page = {
    children: [{ uri: `${R}/room/a`, title: "**bold** [x](y)\n# Heading", description: "Room #a <b>" }],
    next: "a",
  };
  const markdown = collectionMarkdown(at("rooms"), `${R}/room/`, page, `${R}/room/?cursor=a`);
  assert.equal(
    markdown,
    [
      "# Rooms",
      "",
      `Collection \`${R}/room/\``,
      "",
      "1 on this page:",
      "",
      `- **\\*\\*bold\\*\\* \\[x\\](y) # Heading** · \`${R}/room/a\` — Room #a \\<b\\>`,
      "",
      `Next page: \`${R}/room/?cursor=a\``,
      "",
    ].join("\n"),
  );
  assert.match(
    collectionMarkdown(at("rooms"), `${R}/room/`, { children: [] }),
    /Nothing here yet\.\n\nThis is the last page\./,
  );
  assert.deepEqual(collectionJson(page, `${R}/room/?as=json&cursor=a`), {
    children: page.children,
    next: `${R}/room/?as=json&cursor=a`,
  });
});
