// Code mode typed from the first call (issue 43), end to end: the official MCP TypeScript SDK client as
// the host of a fresh `tinyagent mcp --code-mode` against the seeded twin. tiny_search shows each read
// tool's real answer before anything was called; a program written from that alone runs right the first
// time; a relay that answers otherwise has its answers' shape shown instead, and tiny_search says so.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { demoContent, roomsContent } from "../support/strict_relay/content_gen.ts";
import type { StrictRelay } from "../support/strict_relay/mod.ts";
import { withHost } from "../support/sdk_host.ts";
import { CONTRACT_READ } from "../support/contract.ts";

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };
type Match = { name: string; signature: string; result: string };

const text = (result: Result) => String(result.content[0]?.text);

async function search(
  client: Client,
  query: string,
): Promise<{ text: string; matches: Match[]; tableHash: string }> {
  const result = await client.callTool({
    name: "tiny_search",
    arguments: { query, detail: "full" },
  }) as Result;
  assert.equal(result.isError, false, text(result));
  const { matches, tableHash } = result.structuredContent as { matches: Match[]; tableHash: string };
  return { text: text(result), matches, tableHash };
}

/** The fields each read tool's result type must name, from a fresh session, as the relay answers them. */
const FIELDS: Record<string, string[]> = {
  list_rooms: [
    "items: { id: string; name: string;",
    "members: number; last_message_at: number;",
    "next_cursor: string",
  ],
  read_room: ["members: { pubkey: string; role: string;", "messages: { id: string;", "room: {"],
  read_thread: ["replies: {", "root: {"],
  list_repositories: ["items: { clone: string[] | null; head: string; identifier: string;"],
  read_repository: ["entries:", "commits:", "next_offset: number"],
  list_issues: ["items: { id: string; kind: number; author: string;", "repository: {"],
  read_issue: ["replies: {", "item: {", "can_status: boolean"],
  list_pull_requests: ["items: {"],
  read_pull_request: ["diff?: string"],
  list_files: ["items: { blossom_uri: string; download_url: string;"],
  read_file: ["download_url: string", "truncated: boolean"],
  read_attachment: ["data: string", "nip94: string[][]"],
  list_wiki: ["items: { d: string; title: string;"],
  read_wiki_page: ["versions: {", "history: {"],
  list_jobs: ["items: { id: string; room: string; requester: string; assignees: string[];"],
  read_job: ["answers: {", "item: {"],
  read_status: ["errors: Record<string, string>"],
};

Deno.test("a fresh session: tiny_search shows each read tool's real answer, marked as tinyrelay's", async () => {
  await withHost({ args: ["--code-mode"] }, async ({ client, relay }) => {
    for (const tool of CONTRACT_READ) {
      const found = await search(client, tool);
      const match = found.matches.find((m) => m.name === tool)!;
      assert.equal(match.result, "shipped", tool);
      assert.match(
        match.signature,
        /\/\* what tinyrelay answers, as read from its source: not promised \*\/$/,
        tool,
      );
      for (const field of FIELDS[tool]) assert.ok(match.signature.includes(field), `${tool}: ${field}`);
      assert.doesNotMatch(match.signature, /Promise<unknown>/, tool);
    }
    assert.equal(
      relay.requests.filter((r) => (r.json as { method?: string })?.method === "tools/call").length,
      0,
    );
  });
});

/** A program written from the search answer alone: the rooms' ids and member counts, the busiest's newest message. */
const PROGRAM = `async function run(relay) {
  const rooms = await relay.list_rooms({});
  const counts = rooms.items.map((room) => ({ id: room.id, members: room.members }));
  const busiest = counts.reduce((a, b) => (b.members > a.members ? b : a));
  const read = await relay.read_room({ id: busiest.id });
  const newest = read.messages[0];
  return { counts, busiest: busiest.id, newest: newest ? { id: newest.id, content: newest.content } : null };
}`;

Deno.test("a program written from the search answer alone runs right the first time", async () => {
  const seed = (relay: StrictRelay) => relay.seed(roomsContent(12).seed);
  await withHost({ args: ["--code-mode"], prepare: seed }, async ({ client }) => {
    const found = await search(client, "list rooms");
    assert.match(found.text, /members: number/);
    const result = await client.callTool({ name: "tiny_execute", arguments: { code: PROGRAM } }) as Result;
    const report = result.structuredContent as {
      end: string;
      error?: string;
      value: Record<string, unknown>;
    };
    assert.equal(report.end, "returned", report.error);
    const { counts, busiest, newest } = report.value as {
      counts: { id: string; members: number }[];
      busiest: string;
      newest: { id: string; content: string } | null;
    };
    assert.equal(counts.length, 13, "the twelve seeded rooms and general, on the first page");
    assert.ok(counts.every((room) => typeof room.members === "number"));
    const max = Math.max(...counts.map((room) => room.members));
    assert.equal(counts.find((room) => room.id === busiest)!.members, max);
    assert.ok(newest && newest.id.length === 64, "the busiest room's newest message");
  });
});

Deno.test("a relay answering another shape: its answers' shape replaces the shipped one, and tiny_search says so", async () => {
  const otherShape = (relay: StrictRelay) => {
    relay.seed(demoContent("a".repeat(64)));
    relay.setTool("list_rooms", () => ({
      content: [{ type: "text", text: "{}" }],
      structuredContent: { rooms: [{ id: "general", member_count: 3 }], cursor: "" },
      isError: false,
    }));
  };
  await withHost({ args: ["--code-mode"], prepare: otherShape }, async ({ client }) => {
    const before = await search(client, "list rooms");
    assert.equal(before.matches.find((m) => m.name === "list_rooms")!.result, "shipped");
    const program = "async function run(relay) { return (await relay.list_rooms({})).rooms.length; }";
    const result = await client.callTool({ name: "tiny_execute", arguments: { code: program } }) as Result;
    assert.equal((result.structuredContent as { value: number }).value, 1);
    const after = await search(client, "list rooms");
    const match = after.matches.find((m) => m.name === "list_rooms")!;
    assert.equal(match.result, "seen");
    assert.match(
      match.signature,
      /Promise<\{ rooms: \{ id: string; member_count: number \}\[\]; cursor: string \}>/,
    );
    assert.match(
      after.text,
      /The relay answered list_rooms otherwise than the type shipped for it \(answer\.\S+ /,
    );
    assert.notEqual(after.tableHash, before.tableHash, "the types shown changed: so did the table's hash");
    const report = result.structuredContent as { tableHash: string };
    assert.equal(
      report.tableHash,
      after.tableHash,
      "tiny_execute's answer gives the hash of the types now shown",
    );
  });
});
