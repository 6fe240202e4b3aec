// The official MCP TypeScript SDK as a real host: it spawns tinyagent over
// stdio, validates every answer against the protocol's schemas (and each
// tool's outputSchema), and drives the main flows.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { verifyEvent } from "nostr-tools/pure";
import {
  DEFAULT_TOOLS,
  startStrictRelay,
  type StrictRelay,
  type StrictRelayOptions,
  type ToolDef,
  toolOk,
} from "../support/strict_relay/mod.ts";
import { assertNoSecret, newKey, sdkStdio, type TestKey } from "../support/tinyagent.ts";
import {
  CONTRACT_READ,
  CONTRACT_WRITE,
  RELAY_PREFIX,
  SESSION_CAPABILITIES,
  structuredTruncationNotePattern,
  TEXT_LIMIT_BYTES,
  TINY_DIAGNOSE,
  truncationMarkerPattern,
  UNKNOWN_TOOL,
} from "../support/contract.ts";
import denoConfig from "../../deno.json" with { type: "json" };

async function withClient(
  args: string[],
  fn: (client: Client, relay: StrictRelay, key: TestKey) => Promise<void>,
  options: StrictRelayOptions = {},
): Promise<void> {
  const relay = await startStrictRelay(options);
  const key = newKey();
  // The SDK spawns the process itself, as a host does, with the command line a session uses.
  const { transport, stderr } = sdkStdio({ netHost: relay.host, relayUrl: relay.url, key, args });
  const client = new Client({ name: "sdk-host-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    await fn(client, relay, key);
  } finally {
    await client.close();
    await relay.close();
  }
  assertNoSecret(key, stderr(), "stderr");
}

/**
 * The real relay's table declares no outputSchema; this one's list_rooms declares the shape of its
 * answer, as a relay that did would, so a host that checked results against it would see it.
 */
const DECLARING: ToolDef[] = DEFAULT_TOOLS.map((tool) =>
  tool.name === "list_rooms"
    ? {
      ...tool,
      outputSchema: {
        type: "object",
        properties: { items: { type: "array" }, next_cursor: { type: "string" } },
        required: ["items", "next_cursor"],
      },
    }
    : tool
);

Deno.test("the SDK client: handshake, tools/list, a read call", async (t) => {
  await withClient([], async (client, relay) => {
    await t.step("initialize: server info and the tools capability", () => {
      assert.deepEqual(client.getServerVersion(), { name: "tinyagent", version: denoConfig.version });
      assert.deepEqual(client.getServerCapabilities(), SESSION_CAPABILITIES);
    });
    await t.step("ping", async () => {
      assert.deepEqual(await client.ping(), {});
    });
    await t.step("tools/list: the read tools, then tiny_diagnose", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [...CONTRACT_READ, TINY_DIAGNOSE]);
    });
    await t.step(
      "a read tool call whose relay entry declares an outputSchema: the relay's answer",
      async () => {
        relay.seed({ rooms: [{ id: "general", name: "General" }, { id: "ops", name: "Ops" }] });
        const result = await client.callTool({ name: "list_rooms", arguments: { limit: 5 } });
        assert.equal(result.isError, false);
        const rooms = (result.structuredContent as { items: { id: string }[] }).items;
        assert.deepEqual(rooms.map((room) => room.id), ["general", "ops"]);
        const call = relay.requests.findLast((r) => (r.json as { method: string }).method === "tools/call")!;
        assert.deepEqual((call.json as { params: { arguments: unknown } }).params.arguments, { limit: 5 });
      },
    );
    await t.step("an unknown tool is a JSON-RPC error the SDK raises", async () => {
      await assert.rejects(
        client.callTool({ name: "publish_event", arguments: {} }),
        new RegExp(`${UNKNOWN_TOOL}: publish_event`),
      );
    });
    await t.step("tiny_diagnose answers a report", async () => {
      const result = await client.callTool({
        name: TINY_DIAGNOSE,
        arguments: { rooms: ["general"], kinds: [9] },
      });
      assert.equal(result.isError, false);
      assert.equal((result.content as { text: string }[])[0].text.split(":")[0], "ok");
      assert.equal((result.structuredContent as { verdict: string }).verdict, "ok");
    });
    await t.step("the relay saw only signed tools/list, tools/call and browsegrant requests", () => {
      const methods = relay.requests.map((r) => (r.json as { method: string }).method);
      assert.deepEqual(methods, ["tools/list", "tools/call", "browsegrant"]);
    });
  }, { tools: DECLARING });
});

Deno.test("the SDK client with --allow-writes: a write is signed and published", async () => {
  await withClient(["--allow-writes"], async (client, relay, key) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
      ...CONTRACT_READ,
      ...CONTRACT_WRITE,
      TINY_DIAGNOSE,
    ]);
    const result = await client.callTool({
      name: "post_message",
      arguments: { room: "general", content: "hello" },
    });
    assert.equal(result.isError, false);
    const published = relay.published.at(-1)!;
    assert.ok(verifyEvent(published));
    assert.equal(published.pubkey, key.pubkey);
    assert.equal(published.kind, 9);
    assert.equal(published.content, "hello");
    assert.deepEqual(result.structuredContent, { event_id: published.id, accepted: true, message: "" });
  });
});

/** The read tools' default entries with `changes` applied, as a relay with broken entries would list them. */
function brokenTable(changes: Record<string, Record<string, unknown>>): ToolDef[] {
  return DEFAULT_TOOLS.map((tool) =>
    (changes[tool.name] ? { ...tool, ...changes[tool.name] } : tool) as ToolDef
  );
}

Deno.test("an SDK host keeps every tool when some relay entries are malformed", async () => {
  await withClient([], async (client, relay) => {
    relay.setTable(brokenTable({
      read_room: { description: 42 },
      list_rooms: { title: { text: "Rooms" } },
      read_thread: { inputSchema: "object" },
      list_wiki: { inputSchema: { type: "array", items: {} } },
      read_job: { annotations: "read-only" },
      list_jobs: { annotations: { readOnlyHint: "yes", title: "Jobs" } },
    }));
    const { tools } = await client.listTools(); // the SDK validates the whole answer
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [...CONTRACT_READ, TINY_DIAGNOSE]);
    const byName = new Map<string, Record<string, unknown>>(
      tools.map((tool: { name: string }) => [tool.name, tool as Record<string, unknown>]),
    );
    assert.equal(byName.get("read_room")!.description, undefined);
    assert.equal(byName.get("list_rooms")!.title, undefined);
    assert.deepEqual(byName.get("read_thread")!.inputSchema, { type: "object" });
    assert.deepEqual(byName.get("list_wiki")!.inputSchema, { type: "object" });
    assert.equal(byName.get("read_job")!.annotations, undefined);
    assert.deepEqual(byName.get("list_jobs")!.annotations, { title: "Jobs" });
    for (const tool of tools) assert.equal((tool as { outputSchema?: unknown }).outputSchema, undefined);
  });
});

Deno.test("an SDK host receives a bounded result whatever the relay returned", async (t) => {
  await withClient([], async (client, relay) => {
    await t.step("structuredContent over 256 KiB from a tool that declared an outputSchema", async () => {
      await client.listTools(); // the SDK checks results against the output schemas it was listed
      relay.setTool(
        "list_rooms",
        () => toolOk({ items: [{ id: "general", about: "r".repeat(300_000) }], next_cursor: "" }),
      );
      const result = await client.callTool({ name: "list_rooms", arguments: {} });
      assert.equal(result.isError, false);
      assert.equal((result.structuredContent as { truncated: boolean }).truncated, true);
      const texts = (result.content as { text: string }[]).map((block) => block.text).join("\n");
      assert.match(texts, structuredTruncationNotePattern());
    });
    await t.step(
      'text in an embedded resource, a block typed "Text", a text that is not a string',
      async () => {
        const long = "t".repeat(200_000);
        relay.setTool("read_file", () => ({
          content: [
            { type: "resource", resource: { uri: "file:///notes.txt", mimeType: "text/plain", text: long } },
            { type: "Text", text: long },
            { type: "text", text: { nested: long } },
            { type: "video", url: "https://example.test/v.mp4" },
          ],
          isError: false,
        }));
        const result = await client.callTool({ name: "read_file", arguments: { hash: "00".repeat(32) } });
        const content = result.content as { type: string; text?: string; resource?: { text: string } }[];
        assert.deepEqual(content.map((block) => block.type), ["resource", "text", "text"]);
        const texts = [content[0].resource!.text, content[1].text!, content[2].text!];
        for (const text of texts) {
          assert.ok(new TextEncoder().encode(text).length < TEXT_LIMIT_BYTES + 64, `bounded: ${text.length}`);
          assert.match(text, truncationMarkerPattern(TEXT_LIMIT_BYTES));
        }
      },
    );
    await t.step("a 1 MiB relay error while the table is down", async () => {
      const huge = "e".repeat(1 << 20);
      relay.setTool("read_room", () => ({ jsonrpcError: { code: -32000, message: huge } }));
      relay.setTable([...DEFAULT_TOOLS.filter((tool) => tool.name !== "read_status")]);
      // The relay reports read_status unknown: the facade drops its table and fetches it on the next call.
      assert.equal((await client.callTool({ name: "read_status", arguments: {} })).isError, true);
      relay.script({ jsonrpcError: { code: -32000, message: huge } });
      const result = await client.callTool({ name: "read_room", arguments: { id: "general" } });
      assert.equal(result.isError, true);
      const text = (result.content as { text: string }[])[0].text;
      assert.ok(text.length < 70_000, `bounded: ${text.length}`);
      assert.match(
        text,
        new RegExp(`^${RELAY_PREFIX}e+\\n${truncationMarkerPattern(TEXT_LIMIT_BYTES).source}`),
      );
    });
  }, { tools: DECLARING });
});
