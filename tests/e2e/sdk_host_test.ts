// The official MCP TypeScript SDK as a real host: it spawns tinyagent over
// stdio, validates every answer against the protocol's schemas (and each
// tool's outputSchema), and drives the main flows.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { verifyEvent } from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import {
  assertNoSecret,
  commandLine,
  narrowFlags,
  newKey,
  ROOT,
  type TestKey,
} from "../support/tinyagent.ts";
import { CONTRACT_READ, CONTRACT_WRITE } from "../support/contract.ts";
import denoConfig from "../../deno.json" with { type: "json" };

async function withClient(
  args: string[],
  fn: (client: Client, relay: StrictRelay, key: TestKey) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay();
  const key = newKey();
  // The SDK spawns the process itself; it gets the same command line a session uses.
  const { program, args: argv } = commandLine({
    flags: narrowFlags(relay.host),
    args: ["mcp", "--relay", relay.url, ...args],
  });
  const transport = new StdioClientTransport({
    command: program,
    args: argv,
    cwd: ROOT,
    env: { TINY_PRIVATE_KEY: key.hex, PATH: Deno.env.get("PATH") ?? "", HOME: Deno.env.get("HOME") ?? "" },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => stderr += new TextDecoder().decode(chunk));
  const client = new Client({ name: "sdk-host-test", version: "1.0.0" });
  try {
    await client.connect(transport);
    await fn(client, relay, key);
  } finally {
    await client.close();
    await relay.close();
  }
  assertNoSecret(key, stderr, "stderr");
}

Deno.test("the SDK client: handshake, tools/list, a read call", async (t) => {
  await withClient([], async (client, relay) => {
    await t.step("initialize: server info and the tools capability", () => {
      assert.deepEqual(client.getServerVersion(), { name: "tinyagent", version: denoConfig.version });
      assert.deepEqual(client.getServerCapabilities(), { tools: {} });
    });
    await t.step("ping", async () => {
      assert.deepEqual(await client.ping(), {});
    });
    await t.step("tools/list: the read tools, then tiny_diagnose", async () => {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [...CONTRACT_READ, "tiny_diagnose"]);
    });
    await t.step("a read tool call, validated against its outputSchema", async () => {
      const result = await client.callTool({ name: "list_rooms", arguments: { limit: 5 } });
      assert.equal(result.isError, false);
      assert.equal((result.structuredContent as { tool: string }).tool, "list_rooms");
      assert.deepEqual((result.structuredContent as { arguments: unknown }).arguments, { limit: 5 });
    });
    await t.step("an unknown tool is a JSON-RPC error the SDK raises", async () => {
      await assert.rejects(
        client.callTool({ name: "publish_event", arguments: {} }),
        /Unknown tool: publish_event/,
      );
    });
    await t.step("tiny_diagnose answers a report", async () => {
      const result = await client.callTool({
        name: "tiny_diagnose",
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
  });
});

Deno.test("the SDK client with --allow-writes: a write is signed and published", async () => {
  await withClient(["--allow-writes"], async (client, relay, key) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
      ...CONTRACT_READ,
      ...CONTRACT_WRITE,
      "tiny_diagnose",
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
