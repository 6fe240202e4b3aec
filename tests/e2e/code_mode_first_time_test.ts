// Code mode a model gets right the first time (issue 38), end to end: the official MCP TypeScript SDK
// client as the host of a real tinyagent on pipes, against the strict relay. Result types shown from
// the first call, pages a program walks, tiny_search's languages and the table's hash, writes a re-run
// never repeats, and a person's answer that outlasts the program's time limit.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { CallToolRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { roomsContent } from "../support/strict_relay/content_gen.ts";
import type { StrictRelay } from "../support/strict_relay/mod.ts";
import { callsOf, withHost } from "../support/sdk_host.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };
type Report = {
  end: string;
  error?: string;
  value?: unknown;
  writesSent: number;
  writesReplayed?: number;
  tableHash?: string;
  calls: {
    tool: string;
    state: string;
    key?: string;
    replayed?: true;
    write?: { outcome: string; event?: string };
  }[];
};
type Found = {
  matches: { name: string; signature: string; result: string; request?: Record<string, unknown> }[];
  tableHash: string;
};

const text = (result: Result) => String(result.content[0]?.text);

async function execute(client: Client, code: string): Promise<{ result: Result; report: Report }> {
  const result = await client.callTool({ name: "tiny_execute", arguments: { code } }) as Result;
  return { result, report: result.structuredContent as Report };
}

async function search(
  client: Client,
  args: Record<string, unknown>,
): Promise<{ result: Result; found: Found }> {
  const result = await client.callTool({ name: "tiny_search", arguments: args }) as Result;
  assert.equal(result.isError, false, text(result));
  return { result, found: result.structuredContent as Found };
}

/** 250 rooms: the relay's own "general" and 249 seeded; list_rooms declares no outputSchema. */
const seeded = {
  args: ["--code-mode"],
  prepare: (relay: StrictRelay) => relay.seed(roomsContent(249).seed),
};

Deno.test("tiny_search shows list_rooms' items and next_cursor from the first call; answers that fit keep it so", async () => {
  await withHost(seeded, async ({ client, relay }) => {
    assert.equal(relay.tools.find((tool) => tool.name === "list_rooms")!.outputSchema, undefined);
    const shipped =
      /\): Promise<\{ items: \{ id: string; name: string; [^}]*members: number; [^}]*\}\[\]; next_cursor: string \}> \/\* what tinyrelay answers, as read from its source: not promised \*\/$/;
    const before = await search(client, { query: "rooms" });
    const listRooms = (found: Found) => found.matches.find((match) => match.name === "list_rooms")!;
    assert.equal(listRooms(before.found).result, "shipped");
    assert.match(listRooms(before.found).signature, shipped);
    assert.match(text(before.result), /A type marked as tinyrelay's is what this relay's version answers/);
    assert.doesNotMatch(text(before.result), /A result typed `unknown`/);
    const { report } = await execute(
      client,
      "async function run(relay) { return (await relay.list_rooms({})).items.length; }",
    );
    assert.equal(report.value, 100, report.error);
    const after = await search(client, { query: "rooms" });
    assert.equal(listRooms(after.found).result, "shipped", "the relay's answer fits the shipped type");
    assert.match(listRooms(after.found).signature, shipped);
    assert.equal(after.found.tableHash, before.found.tableHash, "nothing shown changed, nor did the hash");
    assert.match(
      text(after.result),
      /Pages: an answer with a next_cursor also has hasNextPage\(\), getNextPage\(\)/,
    );
    assert.ok(!text(after.result).includes("room-001"), "never a value");
  });
});

Deno.test("a program walks 250 rooms with for await in 3 calls; getNextPage on the last page resolves to null", async () => {
  await withHost(seeded, async ({ client, relay }) => {
    const walked = await execute(
      client,
      `async function run(relay) {
        const ids = [];
        for await (const room of await relay.list_rooms({})) ids.push(room.id);
        return [ids.length, new Set(ids).size, ids[0], ids.at(-1)];
      }`,
    );
    assert.deepEqual(walked.report.value, [250, 250, "general", "room-249"], walked.report.error);
    assert.equal(walked.report.calls.length, 3);
    assert.deepEqual(callsOf(relay, "list_rooms").map((args) => args.cursor), [
      undefined,
      "room-099",
      "room-199",
    ]);
    const last = await execute(
      client,
      `async function run(relay) {
        let page = await relay.list_rooms({});
        let pages = 1;
        while (page.hasNextPage()) { page = await page.getNextPage(); pages++; }
        return [pages, page.items.length, page.hasNextPage(), await page.getNextPage(), JSON.stringify(page).includes("getNextPage")];
      }`,
    );
    assert.deepEqual(last.report.value, [3, 50, false, null, false], last.report.error);
    assert.equal(last.report.calls.length, 3, "the null page costs no call");
  });
});

Deno.test('language "json" gives a valid tools/call for every function; javascript its JSDoc', async () => {
  await withHost({ args: ["--code-mode", "--allow-writes"] }, async ({ client, relay }) => {
    const { result, found } = await search(client, { query: "", language: "json" });
    assert.equal(found.matches.length, 35);
    const ajv = new Ajv({ strict: false });
    const lines = text(result).split("\n");
    for (const [i, match] of found.matches.entries()) {
      assert.ok(CallToolRequestSchema.safeParse(match.request).success, match.name);
      assert.deepEqual(JSON.parse(lines[i + 1]), match.request, "the text's line is the request");
      const params = match.request!.params as { name: string; arguments: Record<string, unknown> };
      const schema = { ...relay.tools.find((tool) => tool.name === params.name)!.inputSchema };
      // A write's `event` is tinyagent's own: the host never sends it (facade.md, "Sign and resubmit").
      if (Array.isArray(schema.required)) {
        schema.required = schema.required.filter((name) => name !== "event");
      }
      assert.ok(ajv.validate(schema, params.arguments), `${params.name}: ${ajv.errorsText()}`);
    }
    const javascript = await search(client, { query: "post message", language: "javascript" });
    assert.match(
      text(javascript.result),
      /\n \* @param \{\{ idempotencyKey\?: string \}\} \[options\][^\n]*\n \* @returns \{Promise</,
    );
  });
});

Deno.test("the table's hash: the same in tiny_search and tiny_execute; another once the relay's table changes", async () => {
  await withHost({ args: ["--code-mode"] }, async ({ client, relay }) => {
    // A program making no call before the table was ever read: no hash, and no relay request for one.
    const idle = await execute(client, "async function run() { return 1; }");
    assert.equal(idle.report.tableHash, undefined);
    assert.equal(relay.requests.length, 0);
    const first = await search(client, { query: "status" });
    assert.match(text(first.result), new RegExp(`\\nTable hash: ${first.found.tableHash} \\(`));
    const same = await execute(
      client,
      "async function run(relay) { return (await relay.read_status()).tool; }",
    );
    assert.equal(same.report.tableHash, first.found.tableHash);
    assert.match(text(same.result), new RegExp(`\\nTable hash: ${first.found.tableHash}\\.`));
    // The relay drops a tool; tinyagent learns it when a call meets it, and reads the table again.
    relay.setTable(relay.tools.filter((tool) => tool.name !== "read_status"));
    const changed = await execute(
      client,
      "async function run(relay) { try { await relay.read_status(); } catch (error) { return error.message; } }",
    );
    assert.match(String(changed.report.value), /Unknown tool: read_status/);
    assert.notEqual(changed.report.tableHash, first.found.tableHash);
    const again = await search(client, { query: "status" });
    assert.equal(again.found.tableHash, changed.report.tableHash);
    assert.ok(!again.found.matches.some((match) => match.name === "read_status"));
  });
});

const keyedWrite = (content: string, key = "nightly-green") =>
  `async function run(relay) {
    try {
      return await relay.post_message({ room: "general", content: ${JSON.stringify(content)} },
        { idempotencyKey: ${JSON.stringify(key)} });
    } catch (error) { return { error: error.message }; }
  }`;

Deno.test("a program run twice with the same key publishes once; the second answer names the first event; other arguments refused", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tinyagent-keys-" });
  const log = `${dir}/audit.jsonl`;
  try {
    const args = ["--code-mode", "--allow-writes", "--audit-log", log];
    await withHost({ args, flags: shippedFlags() }, async ({ client, relay }) => {
      const first = await execute(client, keyedWrite("The nightly build is green."));
      assert.equal(first.report.writesSent, 1, text(first.result));
      assert.equal(relay.published.length, 1);
      const event = relay.published[0].id;
      const second = await execute(client, keyedWrite("The nightly build is green."));
      assert.equal(relay.published.length, 1, "published once");
      assert.equal(callsOf(relay, "post_message").length, 2, "the first run's two calls only");
      assert.deepEqual(second.report.value, first.report.value, "answered as the first time");
      assert.equal(second.report.writesSent, 0);
      assert.equal(second.report.writesReplayed, 1);
      assert.match(
        text(second.result),
        new RegExp(
          `Not sent again, answered by an idempotency key from earlier in this session:\\n- post_message event ${event} \\(key "nightly-green"\\): accepted by the relay`,
        ),
      );
      const other = await execute(client, keyedWrite("Something else."));
      assert.match(
        String((other.report.value as { error: string }).error),
        new RegExp(
          `^idempotency key "nightly-green" was used for post_message event ${event} \\(accepted by the relay\\) with other arguments; nothing was sent`,
        ),
      );
      assert.equal(relay.published.length, 1);
      assert.equal(callsOf(relay, "post_message").length, 2, "refused before the relay");
    });
    const entries = (await Deno.readTextFile(log)).trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(entries.length, 1, "one write, one entry");
    assert.deepEqual(entries[0].via, { tool: "tiny_execute", idempotency_key: "nightly-green" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a held write's key works again: declined, then run again and accepted, published once", async () => {
  await withHost({ args: ["--code-mode", "--allow-writes", "--confirm-writes"] }, async (host) => {
    host.answer = () => Promise.resolve({ action: "decline" });
    const held = await execute(host.client, keyedWrite("hello"));
    assert.match(String((held.report.value as { error: string }).error), /^permission: declined at the host/);
    assert.equal(held.report.writesSent, 0);
    host.answer = () => Promise.resolve({ action: "accept", content: {} });
    const sent = await execute(host.client, keyedWrite("hello"));
    assert.equal(sent.report.writesSent, 1, text(sent.result));
    assert.equal(host.relay.published.length, 1);
    assert.equal(host.asked.length, 2, "asked each time: a held write leaves no trace");
  });
});

Deno.test("a confirmation that outlasts the program's time limit: the write is still sent and the program finishes", async () => {
  await withHost(
    { args: ["--code-mode", "--allow-writes", "--confirm-writes", "--code-timeout", "1"] },
    async (host) => {
      // The person takes twice the program's whole time limit to answer.
      host.answer = () =>
        new Promise((resolve) => setTimeout(() => resolve({ action: "accept", content: {} }), 2_000));
      const { result, report } = await execute(
        host.client,
        `async function run(relay) {
          const sent = await relay.post_message({ room: "general", content: "after a long think" });
          return { published: sent.event_id };
        }`,
      );
      assert.equal(report.end, "returned", text(result));
      assert.equal(report.writesSent, 1);
      assert.equal(host.relay.published.length, 1);
      assert.deepEqual(report.value, { published: host.relay.published[0].id });
    },
  );
});
