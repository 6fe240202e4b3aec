// tiny_read (--read-tool) end to end, with the SDK client as the host of tinyagent on pipes against
// the seeded strict relay: without the flag tools/list is the relay's tools and tiny_diagnose,
// exactly; with it tiny_read comes last, and answers what resources/read answers (a room, a
// collection, a piece), its links in the content, a misspelt room refused as an isError result
// naming the nearest; beside tiny_search and tiny_execute in code mode; named in the instructions.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type ResourceHost, withResourceHost } from "../support/resources_host.ts";
import { CONTRACT_READ } from "../support/contract.ts";

type Result = { content: { type: string; text?: string }[]; structuredContent?: unknown; isError?: boolean };

const names = async (client: Client) => (await client.listTools()).tools.map((t: { name: string }) => t.name);

Deno.test("without --read-tool, tools/list is the relay's tools and tiny_diagnose, as before; nothing says tiny_read", async () => {
  await withResourceHost({}, async ({ client }: ResourceHost) => {
    assert.deepEqual(await names(client), [...CONTRACT_READ, "tiny_diagnose"]);
    assert.doesNotMatch(client.getInstructions() ?? "", /tiny_read/);
    const refused = await client.callTool({ name: "tiny_read", arguments: { uri: "tiny://x/" } }).catch((
      e: Error,
    ) => e);
    assert.match(String(refused.message), /Unknown tool: tiny_read/);
  });
});

Deno.test("tiny_read reads a room as resources/read does, its links in the content; a misspelt room is refused naming the nearest", async () => {
  await withResourceHost({ args: ["--read-tool"] }, async ({ client, base, content }: ResourceHost) => {
    assert.deepEqual(await names(client), [...CONTRACT_READ, "tiny_diagnose", "tiny_read"]);
    const tool = (await client.listTools()).tools.find((t: { name: string }) => t.name === "tiny_read")!;
    assert.ok(tool.description.includes(`${base}/room/`), "the description names this relay's URIs");
    assert.match(client.getInstructions() ?? "", /tiny_read reads any tiny:\/\/ URI/);
    const uri = `${base}/room/room-001`;
    const read = await client.readResource({ uri });
    const result = await client.callTool({ name: "tiny_read", arguments: { uri } }) as Result;
    assert.equal(result.isError, false);
    assert.equal(result.content[0].text, (read.contents[0] as { text: string }).text, "the same text");
    assert.ok(result.content[0].text!.includes(content.rooms.rooms[0].messages[0].content));
    const links = result.content.at(-1)!.text!;
    assert.match(links, /^Links:\n- up: tiny:\/\/[^ ]+\/room\//);
    assert.match(links, new RegExp(`- tiny:thread: ${uri}/thread/`));
    assert.deepEqual((result.structuredContent as { contents: unknown[] }).contents, [{
      uri,
      mimeType: "text/markdown",
    }]);
    const refused = await client.callTool({
      name: "tiny_read",
      arguments: { uri: `${base}/room/rom-007` },
    }) as Result;
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text!, new RegExp(`Nearest that resolves?: ${base}/room/room-007[.,]`));
    assert.equal((refused.structuredContent as { reason: string }).reason, "unknown-id");
    const bad = await client.callTool({
      name: "tiny_read",
      arguments: { uri: `${uri}?lines=9-1` },
    }) as Result;
    assert.equal(bad.isError, true);
    assert.match(bad.content[0].text!, /reversed.*lines=1-9/);
    const noUri = await client.callTool({ name: "tiny_read", arguments: {} }) as Result;
    assert.equal(noUri.isError, true);
    assert.deepEqual(await client.ping(), {});
  });
});

Deno.test("tiny_read reads a collection and a piece, each under its URI", async () => {
  await withResourceHost({ args: ["--read-tool"] }, async ({ client, base }: ResourceHost) => {
    const rooms = await client.callTool({ name: "tiny_read", arguments: { uri: `${base}/room/` } }) as Result;
    assert.match(rooms.content[0].text!, new RegExp(`\`${base}/room/room-001\``));
    assert.match(rooms.content.at(-1)!.text!, new RegExp(`- item: ${base}/room/room-001 \\(`));
    const uri = `${base}/room/room-001?lines=1-2`;
    const piece = await client.callTool({ name: "tiny_read", arguments: { uri } }) as Result;
    assert.equal(piece.content[0].text!.split("\n").length, 3, "two lines and their breaks");
    assert.deepEqual((piece.structuredContent as { contents: unknown[] }).contents, [{
      uri,
      mimeType: "text/markdown",
    }]);
  });
});

Deno.test("with --code-mode, tiny_read stands beside tiny_search and tiny_execute", async () => {
  await withResourceHost({ args: ["--code-mode", "--read-tool"] }, async ({ client, base }: ResourceHost) => {
    assert.deepEqual(await names(client), ["tiny_search", "tiny_execute", "tiny_diagnose", "tiny_read"]);
    const result = await client.callTool({ name: "tiny_read", arguments: { uri: `${base}/` } }) as Result;
    assert.equal(result.isError, false);
    assert.match(result.content[0].text!, /Everything on this relay/);
  });
});
