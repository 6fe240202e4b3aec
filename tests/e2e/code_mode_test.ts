// Code mode end to end (docs/code-mode.md): a real tinyagent on pipes, started by the official TypeScript
// SDK client as the host, against the strict relay with seeded content. The tools offered, the search,
// one program reading a list and twenty items (each call its own fresh token), writes signed and
// published from a program, declined, over budget, outside the exposed set, a refused template kind, and
// the audit log naming the program.

import assert from "node:assert/strict";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { verifyEvent } from "nostr-tools/pure";
import { parseCommand } from "../../lib/cli/args.ts";
import { mcpArgs } from "../../lib/cli/host_config.ts";
import type { ConfigCommand } from "../../lib/cli/session_args.ts";
import { issuesContent } from "../support/strict_relay/content_gen_repo.ts";
import { toolOk } from "../support/strict_relay/mod.ts";
import { callsOf, withHost } from "../support/sdk_host.ts";
import { LAUNCH } from "../support/tinyagent.ts";
import { receiptPattern } from "../support/oversight.ts";
import { until } from "../support/waits.ts";
import { TINY_DIAGNOSE } from "../support/contract.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";

type Result = { isError?: boolean; content: { type: string; text?: string }[]; structuredContent?: unknown };
type Report = {
  ok: boolean;
  end: string;
  value?: unknown;
  writesSent: number;
  calls: { tool: string; state: string; error?: string; write?: { outcome: string; event?: string } }[];
  logs: { level: string; text: string }[];
};

async function execute(
  client: Client,
  code: string,
  intent?: string,
): Promise<{ result: Result; report: Report }> {
  const result = await client.callTool({
    name: "tiny_execute",
    arguments: { code, ...(intent ? { intent } : {}) },
  }) as Result;
  return { result, report: result.structuredContent as Report };
}

const text = (result: Result) => String(result.content[0]?.text);

Deno.test("code mode offers tiny_search and tiny_execute in place of the relay's tools; the search finds them", async () => {
  await withHost({ args: ["--code-mode"] }, async ({ client, relay }) => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool: { name: string }) => tool.name), [
      "tiny_search",
      "tiny_execute",
      TINY_DIAGNOSE,
    ]);
    assert.match(client.getInstructions() ?? "", /tiny_execute runs `async function run\(relay\)/);
    const found = await client.callTool({ name: "tiny_search", arguments: { query: "issues" } }) as Result;
    assert.equal(found.isError, false);
    const matches = (found.structuredContent as { matches: { name: string }[] }).matches;
    assert.equal(matches[0].name, "list_issues");
    assert.match(text(found), /relay\.list_issues\(args: \{/);
    const direct = client.callTool({ name: "list_rooms", arguments: {} });
    await assert.rejects(direct, /Unknown tool: list_rooms \(code mode: a tiny_execute program calls it/);
    assert.equal(callsOf(relay, "list_rooms").length, 0, "refused before the relay");
  });
});

Deno.test("as run from a checkout (launch.ts): the worker, given code mode but not its packages, loads them by name", async () => {
  // The sandbox's worker reads no file; QuickJS and the type stripper (swc) load there as npm packages, by name.
  await withHost(
    { args: ["--code-mode"], flags: shippedFlags(), script: LAUNCH },
    async ({ client, relay }) => {
      relay.setTool("list_rooms", () => toolOk({ rooms: [{ id: "general" }, { id: "ops" }] }));
      const javascript = await execute(
        client,
        "async function run(relay) { return (await relay.list_rooms({})).rooms.map((room) => room.id); }",
      );
      assert.deepEqual([javascript.report.end, javascript.report.value], ["returned", ["general", "ops"]]);
      const typescript = await execute(
        client,
        "async function run(relay: { list_rooms(args: object): Promise<{ rooms: { id: string }[] }> }) {\n" +
          "  const { rooms } = await relay.list_rooms({});\n  return rooms.length as number;\n}",
      );
      assert.deepEqual([typescript.report.end, typescript.report.value], ["returned", 2]);
      assert.equal(callsOf(relay, "list_rooms").length, 2);
      // What only swc's strip-only mode refuses, named by its line: the stripper ran in the worker.
      const refused = await execute(
        client,
        "const x: number = 1;\nenum Color { Red }\nasync function run() {}",
      );
      assert.equal(refused.report.end, "syntax");
      assert.match(
        text(refused.result),
        /TypeScript enum is not supported in strip-only mode \(line 2, column 1\): .*write the enum as an object/,
      );
    },
  );
});

Deno.test("one tiny_execute reads a list and its 20 items: 21 relay calls, each its own fresh token", async () => {
  let owner = "";
  await withHost({
    args: ["--code-mode"],
    prepare: (relay, key) => {
      owner = key.pubkey;
      relay.seed(issuesContent(owner, "widgets", 20).seed);
    },
  }, async ({ client, relay }) => {
    const before = relay.requests.length;
    const { result, report } = await execute(
      client,
      `async function run(relay: any): Promise<{ count: number; open: number; titles: string[] }> {
        const owner = ${JSON.stringify(owner)};
        const list = await relay.list_issues({ owner, repo: "widgets", limit: 50 });
        const read = [];
        for (const item of list.items) {
          read.push(await relay.read_issue({ owner, repo: "widgets", event: item.id }));
        }
        const open = list.items.filter((item: { status: string }) => item.status === "open");
        return { count: read.length, open: open.length, titles: open.map((item: { title: string }) => item.title) };
      }`,
    );
    assert.equal(result.isError, false, text(result));
    const value = report.value as { count: number; open: number; titles: string[] };
    assert.deepEqual(Object.keys(value), ["count", "open", "titles"]);
    assert.equal(value.count, 20);
    assert.equal(report.calls.length, 21);
    assert.ok(report.calls.every((call) => call.state === "ok"));
    const calls = relay.requests.slice(before).filter((request) =>
      (request.json as { method?: string })?.method === "tools/call"
    );
    assert.equal(calls.length, 21, "the relay saw 21 calls");
    const tokens = new Set(calls.map((request) => request.headers.get("authorization")));
    assert.equal(tokens.size, 21, "each with a token of its own (the relay refuses a replayed one)");
    assert.match(
      text(result),
      /^The program returned\.\nNo write was sent\.\nRelay calls: 21 \(21 answered\)\./,
    );
  });
});

Deno.test("a write inside a program: signed, published, its receipt; the answer names the event", async () => {
  await withHost({ args: ["--code-mode", "--allow-writes"] }, async ({ client, relay, stderr }) => {
    const { result, report } = await execute(
      client,
      `async function run(relay) { return await relay.post_message({ room: "general", content: "from code" }); }`,
    );
    assert.equal(result.isError, false, text(result));
    assert.equal(relay.published.length, 1);
    const event = relay.published[0];
    assert.ok(verifyEvent(event));
    assert.equal(event.content, "from code");
    assert.equal((report.value as { event_id: string }).event_id, event.id);
    assert.equal(report.writesSent, 1);
    assert.deepEqual(report.calls[0].write, { outcome: "accepted", event: event.id });
    assert.match(text(result), new RegExp(`1 write was sent:\\n- post_message event ${event.id}: accepted`));
    await until(
      5_000,
      "the receipt",
      () => receiptPattern("post_message", 9, event.id, "accepted").test(stderr()),
    );
  });
});

Deno.test("--confirm-writes: the person sees the program's intent; a decline rejects inside it, nothing signed", async () => {
  await withHost({ args: ["--code-mode", "--allow-writes", "--confirm-writes"] }, async (host) => {
    host.answer = () => Promise.resolve({ action: "decline" });
    const { result, report } = await execute(
      host.client,
      `async function run(relay) {
        try { await relay.post_message({ room: "general", content: "may I?" }); return "sent"; }
        catch (error) { return error.message; }
      }`,
      "say hello to the room",
    );
    assert.equal(result.isError, false);
    assert.match(String(report.value), /^permission: declined at the host: nothing was signed/);
    assert.equal(host.asked.length, 1);
    assert.match(
      host.asked[0].params.message,
      /A program the agent wrote asks for this write \(tiny_execute\)/,
    );
    assert.match(host.asked[0].params.message, /Its stated intent: say hello to the room/);
    assert.equal(host.relay.published.length, 0);
    assert.equal(
      callsOf(host.relay, "post_message").length,
      1,
      "the template's call only, never a signed one",
    );
    assert.equal(report.writesSent, 0);
    assert.match(text(result), /No write was sent \(1 held back: post_message/);
  });
});

Deno.test("--max-writes 1: of two writes in one program one is sent, and the answer says which", async () => {
  await withHost(
    { args: ["--code-mode", "--allow-writes", "--max-writes", "1"] },
    async ({ client, relay }) => {
      const { report, result } = await execute(
        client,
        `async function run(relay) {
        const first = await relay.post_message({ room: "general", content: "one" });
        try { await relay.post_message({ room: "general", content: "two" }); } catch (error) { return error.message; }
        return first;
      }`,
      );
      assert.equal(relay.published.length, 1);
      assert.equal(relay.published[0].content, "one");
      assert.match(String(report.value), /write budget|--max-writes/);
      assert.equal(report.writesSent, 1);
      assert.deepEqual(report.calls.map((call) => call.write?.outcome), ["accepted", "held"]);
      assert.match(
        text(result),
        new RegExp(`1 write was sent:\\n- post_message event ${relay.published[0].id}`),
      );
    },
  );
});

Deno.test("refused inside the program, never at the relay: a tool outside --tools, a write without --allow-writes", async () => {
  await withHost({ args: ["--code-mode", "--tools", "list_rooms"] }, async ({ client, relay }) => {
    const { report } = await execute(
      client,
      `async function run(relay) {
        const out = [];
        for (const [name, args] of [["read_room", { id: "general" }], ["post_message", { room: "general", content: "x" }]]) {
          try { await relay[name](args); out.push(name + ": sent"); } catch (error) { out.push(error.message); }
        }
        return out;
      }`,
    );
    const [read, write] = report.value as string[];
    assert.match(read, /^Unknown tool: read_room \(a read tool left out by --tools\)/);
    assert.match(write, /^Unknown tool: post_message \(a write tool: --allow-writes exposes it\)/);
    assert.equal(callsOf(relay, "read_room").length + callsOf(relay, "post_message").length, 0);
  });
});

Deno.test("an authorization or grant template returned to a write inside code: refused there, nothing signed", async () => {
  for (const kind of [22242, 30392]) {
    await withHost({
      args: ["--code-mode", "--allow-writes"],
      prepare: (relay) =>
        relay.setTool(
          "post_message",
          () => toolOk({ unsigned: { kind, created_at: 1, tags: [], content: "" }, next: "sign it" }),
        ),
    }, async ({ client, relay }) => {
      const { report } = await execute(
        client,
        `async function run(relay) {
          try { await relay.post_message({ room: "general", content: "x" }); return "signed"; }
          catch (error) { return error.message; }
        }`,
      );
      assert.match(String(report.value), kind === 22242 ? /refused to sign a kind 22242/ : /kind 30392/);
      assert.equal(relay.published.length, 0, `kind ${kind}`);
      assert.equal(callsOf(relay, "post_message").length, 1, "never resubmitted");
      assert.equal(report.writesSent, 0);
    });
  }
});

Deno.test("--audit-log: one entry per write, marked as the program's with its intent", async () => {
  const dir = await Deno.makeTempDir({ prefix: "tinyagent-code-audit-" });
  const log = `${dir}/audit.jsonl`;
  try {
    const args = ["--code-mode", "--allow-writes", "--audit-log", log];
    const reaction = {
      target: "ab".repeat(32),
      target_pubkey: "cd".repeat(32),
      room: "general",
      content: "+",
    };
    await withHost({ args, flags: shippedFlags() }, async ({ client }) => {
      await execute(
        client,
        `async function run(relay) {
          await relay.post_message({ room: "general", content: "a" });
          await relay.react(${JSON.stringify(reaction)});
          return "done";
        }`,
        "two writes",
      );
    });
    const entries = (await Deno.readTextFile(log)).trim().split("\n").map((line) => JSON.parse(line));
    assert.equal(entries.length, 2, "one entry per write");
    for (const entry of entries) assert.deepEqual(entry.via, { tool: "tiny_execute", intent: "two writes" });
    assert.deepEqual(entries.map((entry) => entry.tool), ["post_message", "react"]);
    assert.deepEqual(
      entries.map((entry) => entry.outcome),
      ["accepted", "accepted"],
      "both signed and published",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("config passes --code-mode to the host's line (docs/code-mode.md)", () => {
  const command = parseCommand([
    "config",
    "claude-code",
    "--relay",
    "https://relay.example.test",
    "--code-mode",
  ]) as ConfigCommand;
  assert.deepEqual(mcpArgs(command), ["mcp", "--relay", "https://relay.example.test", "--code-mode"]);
});
