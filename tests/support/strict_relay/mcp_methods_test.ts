// The three methods /mcp serves, as tinyrelay answers them (internal/mcp/server.go, facts §4.3, §7;
// read_shapes_facts §0): server/discover, tools/list with the real table, and tools/call's result
// envelope (content, structuredContent and isError always present, a schema violation a tool error
// carrying the schema); and what a key that is not a member of a members-only relay is answered.

import assert from "node:assert/strict";
import { DEFAULT_TOOLS, PROTOCOL_VERSION, type ToolDef } from "./mod.ts";
import {
  assertFailure,
  assertToolResult,
  assertValue,
  call,
  ME,
  newKey,
  plain,
  rpc,
  signed,
  withRelay,
} from "./mcp_test_kit.ts";

const SERVER_META = { "io.modelcontextprotocol/serverInfo": { name: "tinyrelay", version: "0.1.0-dev" } };

/** The newest instructions the relay's source holds (facts §7), word for word. */
const INSTRUCTIONS =
  "This relay hosts Social notes and articles, Chat, files, Git repositories, sites and a wiki. Read tools return only data your key may see; management tools follow the relay's roles. Signed write tools accept an event, or return an unsigned event for you to sign and resubmit as event. An unsigned result is not a publication. upload_attachment stores room media; pass its descriptor in attachments to post_message, start_thread or reply_in_thread. request_decision asks a person for a kind 7 approval or denial, or a kind 1111 reply. request_grant lets an active agent request scope changes with a reason of 1 to 500 Unicode characters; sign and submit the returned kind 1111 request. Only the current operator's signed kind 30392 replacement grants access; a + reaction does not. request_job, job_feedback and job_result publish NIP-90 tasks, progress and results; list_jobs and read_job follow them. add_callback registers an HTTPS endpoint for signed event notifications. Read /llms.txt and the linked guides for authentication, grants, file access, event formats and optional runner setup. Tool availability does not override tenant policy or your grant.";

const factNames: string[] = JSON.parse(
  await Deno.readTextFile(new URL("./tinyrelay_tools.json", import.meta.url)),
).tools.map((tool: { name: string }) => tool.name);

/** The reads the relay serves through mcpBrowse, behind browseRead (not the management-backed ones). */
const BROWSE_READS = DEFAULT_TOOLS.filter((tool) =>
  tool.annotations?.readOnlyHint === true &&
  ![
    "read_attachment",
    "read_management",
    "list_agents",
    "list_callbacks",
    "list_custom_views",
    "list_join_requests",
  ]
    .includes(tool.name)
);

/** Arguments that pass a tool's schema: each required one at its smallest valid value. */
function minimalArgs(tool: ToolDef): Record<string, unknown> {
  const schema = tool.inputSchema as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const args: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    const p = schema.properties![name];
    if (Array.isArray(p.enum)) args[name] = p.enum[0];
    else if (p.pattern === "^[0-9a-f]{64}$") args[name] = "00".repeat(32);
    else if (p.pattern === "^[a-z0-9_-]{1,64}$") args[name] = "general";
    else if (p.type === "integer") args[name] = p.minimum ?? 1;
    else if (p.type === "object") args[name] = {};
    else args[name] = "x";
  }
  return args;
}

Deno.test("mcp: server/discover answers the relay's versions, capabilities, instructions and ttl", async () => {
  await withRelay({}, async (relay) => {
    const a = await rpc(relay, "server/discover", {}, { id: "d1" });
    assert.equal(a.status, 200);
    assert.equal(a.headers.get("content-type"), "application/json");
    assert.equal(a.headers.get("cache-control"), "no-store");
    assert.deepEqual(a.json, {
      jsonrpc: "2.0",
      id: "d1",
      result: {
        supportedVersions: [PROTOCOL_VERSION],
        capabilities: { tools: {} },
        instructions: INSTRUCTIONS,
        ttlMs: 3_600_000,
        cacheScope: "private",
        resultType: "complete",
        _meta: SERVER_META,
      },
    });
  });
});

Deno.test("mcp: tools/list is the real table, for five minutes, private", async () => {
  await withRelay({}, async (relay) => {
    const a = await rpc(relay, "tools/list", {}, { id: 9 });
    assert.equal(a.status, 200);
    assert.equal(a.json.id, 9);
    const { tools, ...rest } = a.json.result;
    assert.deepEqual(rest, {
      ttlMs: 300_000,
      cacheScope: "private",
      resultType: "complete",
      _meta: SERVER_META,
    });
    assert.deepEqual(tools.map((tool: ToolDef) => tool.name), factNames);
    assert.deepEqual(tools, plain(DEFAULT_TOOLS));
    assert.ok(!factNames.includes("tiny_diagnose"));
  });
});

Deno.test("mcp: tools/call's envelope: content, structuredContent and isError, always", async (t) => {
  await withRelay({}, async (relay) => {
    await t.step("a value: its JSON as the one text block", async () => {
      assertValue(await call(relay, "list_files"), { items: [], next_cursor: "" });
    });

    await t.step("a tool's failure: its words, structuredContent null", async () => {
      assertFailure(await call(relay, "read_file", { hash: "00".repeat(32) }), "not found: file");
    });

    await t.step("arguments the schema refuses: the validator's words and {inputSchema}", async () => {
      const schemaOf = (name: string) => plain(DEFAULT_TOOLS.find((tool) => tool.name === name)!.inputSchema);
      const cases: [string, Record<string, unknown>, string][] = [
        ["list_rooms", { limit: 500 }, "limit must be at most 100"],
        ["list_rooms", { bogus: 1 }, "bogus is not a known argument"],
        ["read_room", {}, "id is required"],
        ["read_room", { id: "General" }, "id does not match ^[a-z0-9_-]{1,64}$"],
        ["publish_event", {}, "event is required"],
        ["post_message", { room: "general", content: 5 }, "content must be a string"],
      ];
      for (const [name, args, text] of cases) {
        assertToolResult(await call(relay, name, args), {
          isError: true,
          text,
          structured: { inputSchema: schemaOf(name) },
        });
      }
    });

    await t.step("a null event is no event: publish_event asks for one with its shape", async () => {
      assertFailure(
        await call(relay, "publish_event", { event: null }),
        "event is required. Expected a signed Nostr event.",
        { expected: "Expected a signed Nostr event." },
      );
    });

    await t.step("a test's own handler keeps its members and gets resultType and serverInfo", async () => {
      relay.setTool(
        "read_status",
        (ctx) => ({ content: [{ type: "text", text: `hi ${ctx.pubkey}` }], extra: 1 }),
      );
      const a = await call(relay, "read_status");
      assert.deepEqual(a.json.result, {
        content: [{ type: "text", text: `hi ${ME.pk}` }],
        extra: 1,
        resultType: "complete",
        _meta: SERVER_META,
      });
    });
  });
});

Deno.test("mcp: extraTools are listed last and callable; setTable replaces the table", async () => {
  const diag: ToolDef = {
    name: "tiny_diagnose",
    description: "relay-side impostor",
    inputSchema: { type: "object" },
  };
  await withRelay({ extraTools: [diag] }, async (relay) => {
    const names = (await rpc(relay, "tools/list")).json.result.tools.map((tool: ToolDef) => tool.name);
    assert.deepEqual(names, [...factNames, "tiny_diagnose"]);
    relay.setTable([DEFAULT_TOOLS[0]]);
    assert.deepEqual((await rpc(relay, "tools/list")).json.result.tools, [plain(DEFAULT_TOOLS[0])]);
    const gone = await call(relay, "list_rooms");
    assert.deepEqual(gone.json.error, { code: -32602, message: "Unknown tool: list_rooms" });
  });
});

Deno.test("mcp: a key that is not a member of a members-only relay", async (t) => {
  await withRelay({ membersOnly: true }, async (relay) => {
    await t.step("is answered tools/list and server/discover", async () => {
      const list = await rpc(relay, "tools/list");
      assert.equal(list.status, 200);
      assert.deepEqual(list.json.result.tools, plain(DEFAULT_TOOLS));
      assert.equal((await rpc(relay, "server/discover")).status, 200);
    });

    await t.step("reads nothing: every browse read says the relay is members-only", async () => {
      assert.ok(BROWSE_READS.length >= 15, `${BROWSE_READS.length} browse reads`);
      for (const tool of BROWSE_READS) {
        const a = await call(relay, tool.name, minimalArgs(tool));
        assertFailure(a, "auth-required: this relay is members-only");
      }
    });

    await t.step("read_attachment says so after its own prefix", async () => {
      assertFailure(
        await call(relay, "read_attachment", { sha256: "00".repeat(32) }),
        "attachment unavailable: auth-required: this relay is members-only",
      );
    });

    await t.step("uploads nothing: the uploader's standing is refused", async () => {
      const a = await call(relay, "upload_attachment", { room: "general", data: "aGk=", type: "text/plain" });
      assertFailure(a, "upload failed: restricted: file upload is not allowed");
      assert.equal(relay.attachments.size, 0);
    });

    await t.step("is given a template, and its post is refused by the gates", async () => {
      const template = await call(relay, "post_message", { room: "general", content: "hi" });
      assert.equal(template.json.result.isError, false);
      const post = signed(ME, { content: "hi" });
      const refused = "restricted: not a member of room general";
      assertFailure(
        await call(relay, "post_message", { event: post }),
        `The relay rejected the event: ${refused}`,
        {
          event_id: post.id,
          accepted: false,
          message: refused,
        },
      );
      const note = signed(ME, { kind: 1, tags: [] });
      const policy = "blocked: this event is not allowed by the relay write policy";
      assertFailure(
        await call(relay, "publish_event", { event: note }),
        `The relay rejected the event: ${policy}`,
        {
          event_id: note.id,
          accepted: false,
          message: policy,
        },
      );
      assert.deepEqual(relay.published, []);
    });

    await t.step("once a member, reads and posts", async () => {
      relay.members.add(ME.pk);
      assertValue(await call(relay, "list_files"), { items: [], next_cursor: "" });
      const post = signed(ME, { content: "now in" });
      assertValue(await call(relay, "post_message", { event: post }), {
        accepted: true,
        event_id: post.id,
        message: "",
      });
    });

    await t.step("another non-member is still refused", async () => {
      const a = await call(relay, "list_rooms", {}, { token: { key: newKey() } });
      assertFailure(a, "auth-required: this relay is members-only");
    });
  });
});
