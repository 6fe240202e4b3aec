// `tinyagent tools` and `tinyagent call` through the real entry point, sandboxed like `mcp`,
// against the strict relay: what `tools` lists is what tools/list offers (facade.md, "Exposed
// tools"), and what `call` prints is what tools/call answers a host (facade.md, "Sign and
// resubmit", "Errors"), call for call.

import assert from "node:assert/strict";
import { verifyEvent } from "nostr-tools/pure";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { startStrictRelay, type StrictRelay, toolError } from "../support/strict_relay/mod.ts";
import {
  assertNoSecret,
  narrowFlags,
  newKey,
  runOnce,
  type TestKey,
  withFacade,
} from "../support/tinyagent.ts";
import { CONTRACT_KINDS, CONTRACT_READ, CONTRACT_WRITE } from "../support/contract.ts";

const USAGE_STATUS = 1;
const TOOL_ERROR_STATUS = 2;
const REFUSED_STATUS = 3;

async function tinyagent(relay: StrictRelay, key: TestKey, args: string[]) {
  const run = await runOnce({
    flags: shippedFlags(),
    args: [args[0], "--relay", relay.url, ...args.slice(1)],
    env: { TINY_PRIVATE_KEY: key.hex },
  });
  assertNoSecret(key, run.stdout + run.stderr, `tinyagent ${args[0]}`);
  return run;
}

/** The same call through `mcp`, as a host makes it: its tools/call result. */
async function throughMcp(
  relay: StrictRelay,
  key: TestKey,
  name: string,
  args: Record<string, unknown>,
  flags: string[] = [],
): Promise<unknown> {
  let result: unknown;
  await withFacade({ relay, key, args: flags }, async (facade) => {
    const answer = await facade.request("tools/call", { name, arguments: args });
    result = answer.result ?? { error: answer.error };
  });
  return result;
}

/** A result with what differs between two runs of one call made equal: times, ids and signatures. */
function comparable(result: unknown): unknown {
  return JSON.parse(
    JSON.stringify(result)
      .replace(/"(created_at|receivedAt|published_at|at)":\d+/g, '"$1":0')
      .replace(/[0-9a-f]{64,128}/g, "<hex>"),
  );
}

/** A write tool whose relay offers an agent grant (kind 30392) to sign: refused, never signed. */
function offerGrant(relay: StrictRelay, key: TestKey): void {
  relay.setTool("request_grant", ({ args }) =>
    args.event ? toolError("unexpected resubmission") : {
      content: [{ type: "text", text: "sign this grant" }],
      structuredContent: { unsigned: { kind: 30392, created_at: 1, tags: [["d", key.pubkey]], content: "" } },
      isError: false,
    });
}

Deno.test("tinyagent call: each outcome is the one a host gets through mcp", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    await t.step("a read: its text, and with --json the very result tools/call answers", async () => {
      const args = { limit: 3 };
      const text = await tinyagent(relay, key, ["call", "list_rooms", JSON.stringify(args)]);
      assert.equal(text.code, 0, text.stderr);
      const json = await tinyagent(relay, key, ["call", "list_rooms", JSON.stringify(args), "--json"]);
      assert.equal(json.code, 0, json.stderr);
      const result = JSON.parse(json.stdout);
      assert.equal(text.stdout.trimEnd(), result.content[0].text);
      assert.deepEqual(comparable(result), comparable(await throughMcp(relay, key, "list_rooms", args)));
    });
    await t.step("a write: signed and resubmitted, published, as through mcp", async () => {
      const args = { room: "general", content: "hello from call" };
      const before = relay.published.length;
      const run = await tinyagent(relay, key, [
        "call",
        "post_message",
        JSON.stringify(args),
        "--allow-writes",
        "--json",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const published = relay.published.slice(before);
      assert.equal(published.length, 1);
      assert.ok(verifyEvent(published[0]), "signed with the agent key, verified by nostr-tools");
      assert.equal(published[0].pubkey, key.pubkey);
      assert.equal(published[0].kind, CONTRACT_KINDS.post_message[0]);
      // Another content: the same event in the same second would be a duplicate, answered otherwise.
      const viaMcp = await throughMcp(relay, key, "post_message", { ...args, content: "hello from mcp" }, [
        "--allow-writes",
      ]);
      assert.deepEqual(comparable(JSON.parse(run.stdout)), comparable(viaMcp));
      assert.equal(relay.published.length, before + 2);
    });
    await t.step("a write tool without --allow-writes: refused before the relay, with the hint", async () => {
      const before = relay.requests.length;
      const run = await tinyagent(relay, key, ["call", "post_message", '{"room":"general"}']);
      assert.equal(run.code, REFUSED_STATUS);
      assert.match(run.stderr, /Unknown tool: post_message \(a write tool: --allow-writes exposes it\)/);
      assert.ok(
        relay.requests.slice(before).every((r) => (r.json as { method?: string })?.method !== "tools/call"),
        "the relay never saw the call",
      );
      const viaMcp = await throughMcp(relay, key, "post_message", { room: "general" });
      const json = await tinyagent(relay, key, ["call", "post_message", '{"room":"general"}', "--json"]);
      assert.deepEqual(JSON.parse(json.stdout), viaMcp);
    });
    await t.step(
      "a template of a kind the tool does not publish: refused, unsigned, as through mcp",
      async () => {
        offerGrant(relay, key);
        const before = relay.published.length;
        const run = await tinyagent(relay, key, [
          "call",
          "request_grant",
          '{"reason":"x"}',
          "--allow-writes",
          "--json",
        ]);
        assert.equal(run.code, TOOL_ERROR_STATUS, run.stderr);
        const result = JSON.parse(run.stdout);
        assert.equal(
          result.content[0].text,
          "the relay returned an unsigned event this tool is not expected to publish: kind 30392 from request_grant",
        );
        assert.equal(relay.published.length, before);
        const viaMcp = await throughMcp(relay, key, "request_grant", { reason: "x" }, ["--allow-writes"]);
        assert.deepEqual(comparable(result), comparable(viaMcp));
      },
    );
    await t.step("a permission error: marked permission:, status 2, as through mcp", async () => {
      // A members room the key is not a member of: the relay hides it, in its own words.
      relay.seed({ rooms: [{ id: "ops", name: "Ops", access: "members" }] });
      const run = await tinyagent(relay, key, ["call", "read_room", '{"id":"ops"}']);
      assert.equal(run.code, TOOL_ERROR_STATUS);
      assert.equal(
        run.stdout.trimEnd(),
        "permission: restricted: this room is members-only\n" +
          "tinyagent: that room is for its members and this key is not one: ask one of the room's admins",
      );
      const json = await tinyagent(relay, key, ["call", "read_room", '{"id":"ops"}', "--json"]);
      assert.deepEqual(
        comparable(JSON.parse(json.stdout)),
        comparable(await throughMcp(relay, key, "read_room", { id: "ops" })),
      );
    });
    await t.step("tiny_diagnose is called like any tool", async () => {
      const run = await tinyagent(relay, key, ["call", "tiny_diagnose", "--json"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(JSON.parse(run.stdout).content[0].text, /^(ok|needs-grant|not-a-member): /);
    });
    await t.step("usage errors: status 1, usage on stderr, nothing sent", async () => {
      const before = relay.requests.length;
      const run = await tinyagent(relay, key, ["call", "list_rooms", "[1]"]);
      assert.equal(run.code, USAGE_STATUS);
      assert.match(run.stderr, /one JSON object/);
      assert.match(run.stderr, /Usage: tinyagent call/);
      assert.equal(relay.requests.length, before);
    });
  } finally {
    await relay.close();
  }
});

interface Listing {
  relay: string;
  table: { ok: boolean; error?: string };
  offered: { name: string; type: string; kinds?: number[] }[];
  not_offered: { name: string; reason: string }[];
}

async function listing(relay: StrictRelay, key: TestKey, flags: string[] = []): Promise<Listing> {
  const run = await tinyagent(relay, key, ["tools", ...flags, "--json"]);
  assert.equal(run.code, 0, run.stderr);
  return JSON.parse(run.stdout);
}

Deno.test("tinyagent tools: what a host is offered, in order, and why not the rest", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    await t.step(
      "the default: the read tools, then tiny_diagnose; each write tool needs --allow-writes",
      async () => {
        const list = await listing(relay, key);
        assert.deepEqual(list.offered.map((tool) => tool.name), [...CONTRACT_READ, "tiny_diagnose"]);
        assert.ok(list.offered.slice(0, -1).every((tool) => tool.type === "read"));
        assert.deepEqual(list.offered.at(-1), { name: "tiny_diagnose", type: "local" });
        assert.deepEqual(
          list.not_offered,
          CONTRACT_WRITE.map((name) => ({
            name,
            reason: "a write tool: --allow-writes exposes it",
          })),
        );
      },
    );
    await t.step("--allow-writes: read then write tools with the kinds each may have signed", async () => {
      const list = await listing(relay, key, ["--allow-writes"]);
      assert.deepEqual(list.offered.map((tool) => tool.name), [
        ...CONTRACT_READ,
        ...CONTRACT_WRITE,
        "tiny_diagnose",
      ]);
      for (const name of CONTRACT_WRITE) {
        assert.deepEqual(list.offered.find((tool) => tool.name === name), {
          name,
          type: "write",
          kinds: [...CONTRACT_KINDS[name]],
        });
      }
      assert.deepEqual(list.not_offered, []);
    });
    await t.step("--tools: the names in their order; the others left out by --tools", async () => {
      const list = await listing(relay, key, [
        "--tools",
        "read_room,create_issue,list_rooms",
        "--allow-writes",
      ]);
      assert.deepEqual(list.offered.map((tool) => tool.name), [
        "read_room",
        "create_issue",
        "list_rooms",
        "tiny_diagnose",
      ]);
      const reasons = new Map(list.not_offered.map((tool) => [tool.name, tool.reason]));
      assert.equal(reasons.size, CONTRACT_READ.length + CONTRACT_WRITE.length - 3);
      assert.equal(reasons.get("list_issues"), "a read tool left out by --tools");
      assert.equal(reasons.get("comment"), "a write tool left out by --tools");
    });
    await t.step("a tool the relay does not serve: said so", async () => {
      relay.setTable(relay.tools.filter((tool) => tool.name !== "read_status"));
      const list = await listing(relay, key);
      assert.ok(!list.offered.some((tool) => tool.name === "read_status"));
      assert.deepEqual(list.not_offered.find((tool) => tool.name === "read_status"), {
        name: "read_status",
        reason: "the relay does not list it",
      });
    });
    await t.step("for a person: the same listing as text", async () => {
      const run = await tinyagent(relay, key, ["tools"]);
      assert.equal(run.code, 0);
      assert.match(run.stdout, new RegExp(`^offered to a host, in order \\(${CONTRACT_READ.length}\\):`));
      assert.match(run.stdout, /\n {2}tiny_diagnose +answered by tinyagent itself\n/);
      assert.match(run.stdout, /\n {2}read_status +the relay does not list it/);
    });
  } finally {
    await relay.close();
  }
  await t.step("a relay that cannot be read: tiny_diagnose alone, the reason, status 3", async () => {
    const key = newKey();
    const down = await startStrictRelay();
    await down.close();
    const run = await runOnce({
      flags: narrowFlags(down.host),
      args: ["tools", "--relay", down.url, "--json"],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    assert.equal(run.code, 3);
    const list = JSON.parse(run.stdout) as Listing;
    assert.equal(list.table.ok, false);
    assert.match(list.table.error!, /^transport: cannot reach /);
    assert.deepEqual(list.offered.map((tool) => tool.name), ["tiny_diagnose"]);
    assert.equal(
      list.not_offered.find((tool) => tool.name === "list_rooms")?.reason,
      "the relay's table could not be read",
    );
  });
});
