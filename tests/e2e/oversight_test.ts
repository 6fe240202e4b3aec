// The person's hold on an agent's writes, end to end (issue 21): the official MCP TypeScript SDK
// client as the host, answering tinyagent's elicitation as a person would (accept, decline,
// cancel, never); the write budget; the audit log under the sandbox; a lost answer; and
// `tinyagent call` asking at a terminal. Every signature is checked with nostr-tools.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { verifyEvent } from "nostr-tools/pure";
import { startStrictRelay, type StrictRelay, toolOk } from "../support/strict_relay/mod.ts";
import {
  assertNoSecret,
  commandLine,
  hostEnv,
  loaderEnv,
  narrowFlags,
  newKey,
  ROOT,
  runOnce,
  type TestKey,
  withFacade,
} from "../support/tinyagent.ts";
import { pythonWithMcp } from "../support/python.ts";
import { threadIn } from "../support/relay_holds.ts";
import { callsOf, withHost } from "../support/sdk_host.ts";
import { shippedFlags } from "../../scripts/shipped_flags.ts";
import { until, withBrokenFile, within } from "../support/waits.ts";
import {
  budgetSpentText,
  DECLINED_AT_HOST,
  HOST_REQUEST_ID,
  NO_ELICITATION_PATTERN,
  receiptPattern,
  timedOutAtHost,
} from "../support/oversight.ts";

type Event = Parameters<typeof verifyEvent>[0];
type ToolResult = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: unknown;
};

async function post(client: Client, content: string): Promise<ToolResult> {
  return await client.callTool({
    name: "post_message",
    arguments: { room: "general", content },
  }) as ToolResult;
}

const CONFIRM = ["--allow-writes", "--confirm-writes"];

Deno.test("--confirm-writes through the SDK host: accept signs and publishes", async () => {
  await withHost({ args: CONFIRM }, async ({ client, relay, key, asked, stderr }) => {
    const result = await post(client, "hello, approved");
    assert.equal(result.isError, false, JSON.stringify(result));
    assert.equal(asked.length, 1);
    assert.match(String(asked[0].id), HOST_REQUEST_ID);
    const { message, requestedSchema } = asked[0].params;
    assert.deepEqual(requestedSchema, { type: "object", properties: {} });
    assert.match(message, new RegExp(`^Sign and publish this event as ${key.npub} on ${relay.url}\\?`));
    assert.match(message, /post_message: a message in room "general" \(kind 9\)/);
    assert.match(message, /\nhello, approved\n/);
    const published = relay.published.at(-1)!;
    assert.ok(verifyEvent(published));
    assert.equal(published.pubkey, key.pubkey);
    assert.equal(published.content, "hello, approved");
    assert.deepEqual(result.structuredContent, { event_id: published.id, accepted: true, message: "" });
    assert.equal(callsOf(relay, "post_message").length, 2);
    const receipt = receiptPattern("post_message", 9, published.id, "accepted");
    await until(5_000, "the receipt on stderr", () => receipt.test(stderr()));
  });
});

for (const action of ["decline", "cancel"] as const) {
  Deno.test(`--confirm-writes through the SDK host: ${action} signs nothing and calls the relay once`, async () => {
    await withHost({ args: CONFIRM }, async (host) => {
      host.answer = () => Promise.resolve({ action });
      const result = await post(host.client, `not this one (${action})`);
      assert.equal(result.isError, true);
      assert.deepEqual(result.content, [{ type: "text", text: DECLINED_AT_HOST }]);
      const calls = callsOf(host.relay, "post_message");
      assert.equal(calls.length, 1, "the template call only");
      assert.equal(calls[0].event, undefined);
      assert.equal(host.relay.published.length, 0);
      assert.equal(host.asked.length, 1);
      // stderr and stdout are two pipes: the answer can be read before the line that preceded it.
      const held = new RegExp(
        `held: post_message: a message in room "general" \\(kind 9\\): ${DECLINED_AT_HOST}`,
      );
      await until(5_000, "the held line on stderr", () => held.test(host.stderr()));
    });
  });
}

Deno.test("--confirm-writes with a host that declared no elicitation: every write refused, said at startup once", async () => {
  await withHost({ args: CONFIRM, elicitation: false }, async ({ client, relay, stderr }) => {
    for (let i = 0; i < 2; i++) {
      const result = await post(client, "cannot be asked");
      assert.equal(result.isError, true);
      assert.match(result.content[0].text!, NO_ELICITATION_PATTERN);
    }
    assert.equal(relay.published.length, 0);
    assert.ok(callsOf(relay, "post_message").every((args) => args.event === undefined), "nothing signed");
    // Reads are untouched.
    assert.equal((await client.callTool({ name: "list_rooms", arguments: {} }) as ToolResult).isError, false);
    const startup = stderr().split("\n").filter((line) => line.startsWith("tinyagent: mcp: configured"));
    assert.equal(startup.length, 1);
    assert.match(
      startup[0],
      /which cannot ask its person \(its initialize declared no elicitation capability\): every write will be refused/,
    );
  });
});

Deno.test("--confirm-writes: no answer in time refuses, and the host is told to close its question", async () => {
  await withHost({ args: [...CONFIRM, "--confirm-timeout", "1"] }, async (host) => {
    let closed = false;
    host.answer = (_params, signal) =>
      new Promise((resolve) => {
        // A person who never answers: the question stays until the host is told it is cancelled.
        signal.addEventListener("abort", () => {
          closed = true;
          resolve({ action: "cancel" });
        });
      });
    const result = await within(
      10_000,
      "the refusal after --confirm-timeout 1",
      post(host.client, "nobody answers"),
    );
    assert.deepEqual(result.content, [{ type: "text", text: timedOutAtHost(1) }]);
    assert.equal(host.relay.published.length, 0);
    assert.equal(callsOf(host.relay, "post_message").length, 1);
    for (let i = 0; i < 50 && !closed; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(closed, "the SDK host received notifications/cancelled for the question and closed it");
  });
});

Deno.test("--confirm-writes: a ping is answered at once while a question waits; a response to an unknown id is ignored", async () => {
  await withHost({ args: CONFIRM }, async (host) => {
    const person = Promise.withResolvers<ElicitResult>();
    const asking = Promise.withResolvers<void>();
    host.answer = () => {
      asking.resolve();
      return person.promise;
    };
    const call = post(host.client, "wait for me");
    await within(10_000, "the question", asking.promise);
    assert.deepEqual(await within(2_000, "a ping while the question waits", host.client.ping()), {});
    // Approvals that answer no question of tinyagent's: another id of its shape, the host's own kind.
    await host.send({ jsonrpc: "2.0", id: "tinyagent-99", result: { action: "accept", content: {} } });
    await host.send({ jsonrpc: "2.0", id: 12345, result: { action: "accept", content: {} } });
    assert.deepEqual(await within(2_000, "a ping after the stray responses", host.client.ping()), {});
    assert.equal(host.relay.published.length, 0, "no stray approval signed anything");
    person.resolve({ action: "decline" });
    const result = await call;
    assert.deepEqual(result.content, [{ type: "text", text: DECLINED_AT_HOST }]);
    assert.equal(host.relay.published.length, 0);
    // Said before the answer; read apart from stdout, it may arrive after it.
    const ignored = /ignored a response from the host to "tinyagent-99": no request of ours waits for it/;
    await until(5_000, "the stray response said on stderr", () => ignored.test(host.stderr()));
    await until(5_000, "the decline said on stderr", () => host.stderr().includes("held: post_message"));
    assert.ok(!host.stderr().includes("12345"), "a stray response of the host's own kind is ignored quietly");
  });
});

Deno.test("--max-writes 2: the third write is refused without contacting the relay", async () => {
  await withFacade({ args: ["--allow-writes", "--max-writes", "2"] }, async (facade, relay) => {
    for (const content of ["one", "two"]) {
      const answer = await facade.request("tools/call", {
        name: "post_message",
        arguments: { room: "general", content },
      });
      assert.equal((answer.result as ToolResult).isError, false);
    }
    const before = relay.requests.length;
    const third = await facade.request("tools/call", {
      name: "react",
      arguments: { target: "ab".repeat(32), target_pubkey: "cd".repeat(32), content: "+" },
    });
    assert.deepEqual(third.result, {
      content: [{ type: "text", text: budgetSpentText(2, 2) }],
      isError: true,
    });
    assert.equal(relay.requests.length, before, "the relay was not contacted");
    assert.equal(relay.published.length, 2);
    assert.match(
      facade.stderr,
      new RegExp(`held: react: a write: ${budgetSpentText(2, 2).replace(/[()]/g, "\\$&")}`),
    );
    // Reads go on.
    const read = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
    assert.equal((read.result as ToolResult).isError, false);
  });
});

Deno.test("receipts without any flag: one stderr line per signed event, answers as before", async () => {
  let root = "";
  const output = await withFacade({ args: ["--allow-writes"] }, async (facade, relay) => {
    root = threadIn(relay).id;
    const answer = await facade.request("tools/call", {
      name: "reply_in_thread",
      arguments: { room: "general", root, content: `a reply ${"x".repeat(100)}` },
    });
    const published = relay.published.at(-1)!;
    assert.deepEqual((answer.result as ToolResult).structuredContent, {
      event_id: published.id,
      accepted: true,
      message: "",
    });
  });
  const receipts = output.stderr.split("\n").filter((line) => line.includes("receipt:"));
  assert.equal(receipts.length, 1);
  assert.match(
    receipts[0],
    new RegExp(
      `^tinyagent: receipt: reply_in_thread signed kind 12 event [0-9a-f]{64} in thread ${root} of room "general": "a reply x{52}…": accepted$`,
    ),
  );
});

/** A relay whose post_message publishes the signed event and then loses the answer. */
function losingRelay(relay: StrictRelay): Event[] {
  const received: Event[] = [];
  relay.setTool("post_message", ({ args }) => {
    if (args.event === undefined) {
      return toolOk({
        unsigned: {
          kind: 9,
          created_at: Math.floor(Date.now() / 1000),
          tags: [["h", "general"]],
          content: "once",
        },
        next: "sign it and call again with event",
      });
    }
    received.push(args.event as Event);
    return { cutAfterRun: true };
  });
  return received;
}

Deno.test("a resubmission whose answer is lost: a tool error naming the event id; nothing sent twice", async () => {
  const output = await withFacade(
    { args: ["--allow-writes"], relay: { keepAlive: true } },
    async (facade, relay) => {
      const received = losingRelay(relay);
      const answer = await facade.request("tools/call", {
        name: "post_message",
        arguments: { room: "general" },
      });
      const result = answer.result as ToolResult;
      assert.equal(result.isError, true);
      assert.equal(received.length, 1, "the event reached the relay once");
      const event = received[0];
      assert.ok(verifyEvent(event));
      assert.match(
        result.content[0].text!,
        new RegExp(
          `^transport: no answer from ${relay.url}/mcp: .+\\. The signed event ${event.id} \\(kind 9\\) was sent, but the ` +
            `relay's answer was lost, so whether it was published is unknown; tinyagent did not send it again\\. Before ` +
            `trying again, check with read_room \\{"id":"general"\\} whether it is there: calling post_message again ` +
            `would publish a second event\\.$`,
        ),
      );
      assert.equal(callsOf(relay, "post_message").filter((args) => args.event !== undefined).length, 1);
      // The session goes on.
      const read = await facade.request("tools/call", { name: "list_rooms", arguments: {} });
      assert.equal((read.result as ToolResult).isError, false);
    },
  );
  assert.match(
    output.stderr,
    /receipt: post_message signed kind 9 event [0-9a-f]{64} in room "general": "once": outcome unknown: transport: no answer from /,
  );
});

/** Every line of the audit log, parsed. */
async function auditLines(path: string): Promise<Record<string, unknown>[]> {
  const text = await Deno.readTextFile(path);
  assert.ok(text.endsWith("\n"));
  return text.trimEnd().split("\n").map((line) => JSON.parse(line));
}

Deno.test("--audit-log under the shipped sandbox: entries parse, events verify as they stand, no key, mode 0600", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  try {
    let key: TestKey | undefined;
    await withFacade({
      flags: shippedFlags(),
      args: ["--allow-writes", "--max-writes", "2", "--audit-log", path],
    }, async (facade, relay, used) => {
      key = used;
      // A template of a kind the tool does not publish: refused, and recorded with why.
      relay.setTool(
        "react",
        () => toolOk({ unsigned: { kind: 30392, created_at: 1, tags: [], content: "" }, next: "sign" }),
      );
      await facade.request("tools/call", {
        name: "post_message",
        arguments: { room: "general", content: "first" },
      });
      await facade.request("tools/call", {
        name: "react",
        arguments: { target: "ab".repeat(32), target_pubkey: "cd".repeat(32), content: "+" },
      });
      await facade.request("tools/call", {
        name: "upload_attachment",
        arguments: { room: "general", data: btoa("a file"), type: "text/plain", filename: "a.txt" },
      });
      await facade.request("tools/call", {
        name: "post_message",
        arguments: { room: "general", content: "over" },
      });
    });
    if (Deno.build.os !== "windows") assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assertNoSecret(key!, await Deno.readTextFile(path), "the audit log");
    const lines = await auditLines(path);
    assert.deepEqual(lines.map((line) => [line.tool, line.outcome]), [
      ["post_message", "accepted"],
      ["react", "held"],
      ["upload_attachment", "accepted"],
      ["post_message", "held"],
    ]);
    const [first, refused, , spent] = lines;
    const event = first.event as Event;
    assert.ok(verifyEvent(structuredClone(event)), "the logged event verifies as it stands");
    assert.equal(event.pubkey, key!.pubkey);
    assert.deepEqual(first.arguments, { room: "general", content: "first" });
    assert.equal(
      (first.answer as { structuredContent: { event_id: string } }).structuredContent.event_id,
      event.id,
    );
    assert.match(String(first.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.match(String(first.session), /^\d+@/);
    assert.match(
      String(refused.why),
      /^the relay returned an unsigned event this tool is not expected to publish: kind 30392 from react$/,
    );
    assert.deepEqual(refused.template, { kind: 30392, created_at: 1, tags: [], content: "" });
    assert.equal(spent.why, "write budget spent");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--audit-log: the sandbox may write that file and nothing else (sandbox-check proves it)", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/audit.jsonl`;
  try {
    const { code, stdout } = await runOnce({
      flags: shippedFlags(),
      args: ["sandbox-check", "--relay", "http://127.0.0.1:9", "--audit-log", path, "--json"],
    });
    assert.equal(code, 0, stdout);
    const report = JSON.parse(stdout) as {
      checks: { name: string; outcome: string; pass: boolean }[];
      main_thread_holds: string[];
    };
    const outcome = (name: string) => report.checks.find((check) => check.name.startsWith(name))?.outcome;
    assert.equal(outcome(`append to the audit log ${path}`), "ok");
    assert.equal(outcome("write another file beside the audit log"), "NotCapable");
    assert.equal(outcome("write a file"), "NotCapable");
    assert.deepEqual(report.main_thread_holds, []);
    assert.ok(report.checks.every((check) => check.pass));
    // Without the flag, no write at all.
    const plain = await runOnce({
      flags: shippedFlags(),
      args: ["sandbox-check", "--relay", "http://127.0.0.1:9", "--json"],
    });
    const checks = (JSON.parse(plain.stdout) as typeof report).checks;
    assert.ok(!checks.some((check) => check.name.includes("audit log")));
    assert.equal(checks.find((check) => check.name === "write a file")?.outcome, "NotCapable");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--audit-log: a path that cannot be written stops startup, naming it", async (t) => {
  const relay = await startStrictRelay();
  const key = newKey();
  const dir = await Deno.makeTempDir();
  try {
    const start = (flags: string[], path: string) =>
      runOnce({
        flags,
        args: ["mcp", "--relay", relay.url, "--audit-log", path],
        env: { TINY_PRIVATE_KEY: key.hex },
      });
    await t.step("a folder that does not exist", async () => {
      const path = `${dir}/missing/audit.jsonl`;
      const { code, stdout, stderr } = await start(shippedFlags(), path);
      assert.equal(code, 1);
      assert.equal(stdout, "");
      assert.equal(stderr, `tinyagent: --audit-log: cannot create "${path}": its folder does not exist\n`);
    });
    await t.step("a folder, not a file", async () => {
      const { code, stderr } = await start(shippedFlags(), dir);
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`^tinyagent: --audit-log: .*"${dir}"`));
    });
    await t.step("started confined without write permission for it: the flag to add", async () => {
      const path = `${dir}/audit.jsonl`;
      const { code, stderr } = await start(narrowFlags(relay.host), path);
      assert.equal(code, 1);
      assert.equal(
        stderr,
        `tinyagent: --audit-log: no permission to write "${path}"; run with --allow-write=${path}\n`,
      );
    });
    assert.equal(relay.requests.length, 0);
  } finally {
    await Deno.remove(dir, { recursive: true });
    await relay.close();
  }
});

Deno.test({
  name: "--audit-log: a write to the log that fails later is said on stderr and does not fail the call",
  ignore: Deno.build.os === "windows",
  fn: () =>
    withBrokenFile(async (path, readerLeaves) => {
      const output = await withFacade({
        flags: [...narrowFlags("127.0.0.1"), `--allow-write=${path}`],
        args: ["--allow-writes", "--audit-log", path],
      }, async (facade, relay) => {
        await readerLeaves();
        const answer = await facade.request("tools/call", {
          name: "post_message",
          arguments: { room: "general", content: "hello" },
        });
        assert.equal((answer.result as ToolResult).isError, false);
        assert.equal(relay.published.length, 1);
      });
      assert.match(
        output.stderr,
        /audit log: could not write the entry for post_message event [0-9a-f]{64} \(accepted\) to ".+audit\.fifo": .+; the call goes on/,
      );
    }),
});

Deno.test("the startup line and tinyagent tools name the oversight settings", async () => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    const args = ["--allow-writes", "--confirm-writes", "--confirm-timeout", "60", "--max-writes", "5"];
    const listed = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["tools", "--relay", relay.url, ...args, "--json"],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).oversight, {
      allow_writes: true,
      confirm_writes: true,
      confirm_timeout_seconds: 60,
      max_writes: 5,
      audit_log: null,
    });
    const text = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["tools", "--relay", relay.url, ...args],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    assert.match(
      text.stdout,
      /\n\nwrites: writes allowed, each with a receipt on stderr; each approved by the person through the host first \(60 s to answer\); at most 5 writes in this session\n$/,
    );
    const session = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["mcp", "--relay", relay.url, ...args],
      env: { TINY_PRIVATE_KEY: key.hex },
      stdin: `${
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: { elicitation: {} } },
        })
      }\n`,
    });
    assert.match(
      session.stderr,
      /^tinyagent: mcp: configured for relay .*; writes allowed, each with a receipt on stderr; each approved by the person through the host first \(60 s to answer\); at most 5 writes in this session$/m,
    );
  } finally {
    await relay.close();
  }
});

Deno.test("tinyagent call --confirm-writes: refused when stdin is not a terminal", async () => {
  const relay = await startStrictRelay();
  const key = newKey();
  try {
    const { code, stdout, stderr } = await runOnce({
      flags: narrowFlags(relay.host),
      args: ["call", "--relay", relay.url, ...CONFIRM, "post_message", '{"room":"general","content":"hi"}'],
      env: { TINY_PRIVATE_KEY: key.hex },
      stdin: "y\n",
    });
    assert.equal(code, 2, stderr);
    assert.match(
      stdout,
      /^permission: --confirm-writes asks at the terminal, and stdin is not a terminal: nobody can answer; run tinyagent call in a terminal, or without --confirm-writes; nothing was signed\n$/,
    );
    assert.equal(relay.published.length, 0);
    assert.equal(callsOf(relay, "post_message").length, 1);
  } finally {
    await relay.close();
  }
});

/** `script`, which runs a command on a pseudo-terminal (util-linux), when this machine has it. */
async function hasScript(): Promise<boolean> {
  try {
    return (await new Deno.Command("script", { args: ["--version"], stdout: "null", stderr: "null" })
      .output()).success;
  } catch {
    return false;
  }
}

Deno.test({
  name: "tinyagent call --confirm-writes at a terminal: y signs and publishes, anything else declines",
  ignore: Deno.build.os !== "linux" || !await hasScript(),
  fn: async () => {
    const relay = await startStrictRelay();
    const key = newKey();
    try {
      for (const [typed, published] of [["y", 1], ["n", 1]] as const) {
        const { program, args } = commandLine({
          flags: narrowFlags(relay.host),
          args: [
            "call",
            "--relay",
            relay.url,
            ...CONFIRM,
            "post_message",
            `{"room":"general","content":"typed ${typed}"}`,
          ],
        });
        const line = [program, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
        // script gives the command a terminal; the answer is typed once the question is on screen.
        const child = new Deno.Command("script", {
          args: ["-qfec", line, "/dev/null"],
          cwd: new URL("../../", import.meta.url).pathname,
          env: { ...loaderEnv(), TINY_PRIVATE_KEY: key.hex },
          stdin: "piped",
          stdout: "piped",
          stderr: "piped",
        }).spawn();
        const writer = child.stdin.getWriter();
        const reader = child.stdout.getReader();
        let screen = "";
        while (!screen.includes("[y/N]")) {
          const { value, done } = await reader.read();
          if (done) break;
          screen += new TextDecoder().decode(value);
        }
        assert.match(screen, /Sign and publish this event as npub1[0-9a-z]+ on http:\/\/127\.0\.0\.1:\d+\?/);
        assert.match(screen, new RegExp(`typed ${typed}`));
        await writer.write(new TextEncoder().encode(`${typed}\n`));
        await writer.close();
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          screen += new TextDecoder().decode(value);
        }
        await child.status;
        assert.equal(relay.published.length, published, screen);
        if (typed === "n") assert.match(screen, /permission: declined at the terminal: nothing was signed/);
        assertNoSecret(key, screen, "the terminal");
      }
    } finally {
      await relay.close();
    }
  },
});

const PYTHON = pythonWithMcp();

Deno.test({
  name:
    "--confirm-writes through the official Python SDK (Hermes' own): its accept signs, its decline does not",
  // Skipped where no Python has the `mcp` package (.ci/run installs it when its index is at hand).
  ignore: PYTHON === undefined,
  fn: async (t) => {
    for (const [answer, publishes] of [["accept", true], ["decline", false]] as const) {
      await t.step(answer, async () => {
        const relay = await startStrictRelay();
        const key = newKey();
        try {
          const { program, args } = commandLine({
            flags: narrowFlags(relay.host),
            args: ["mcp", "--relay", relay.url, ...CONFIRM],
          });
          const output = await new Deno.Command(PYTHON!, {
            args: [
              `${ROOT}tests/support/python_elicitation_host.py`,
              "--answer",
              answer,
              "--",
              program,
              ...args,
            ],
            env: hostEnv({ TINY_PRIVATE_KEY: key.hex }),
            clearEnv: true,
            stdout: "piped",
            stderr: "piped",
            signal: AbortSignal.timeout(60_000),
          }).output();
          const decoder = new TextDecoder();
          const stderr = decoder.decode(output.stderr);
          const events = decoder.decode(output.stdout).trim().split("\n").map((line) => JSON.parse(line));
          assert.equal(output.code, 0, `${JSON.stringify(events)}\n${stderr}`);
          const asked = events.find((event) => event.event === "asked");
          assert.match(asked.message, new RegExp(`^Sign and publish this event as ${key.npub} on `));
          assert.match(asked.message, /post_message: a message in room "general" \(kind 9\)/);
          const result = events.find((event) => event.event === "result");
          if (publishes) {
            assert.equal(result.isError, false, result.text);
            const event = relay.published.at(-1)!;
            assert.ok(verifyEvent(event));
            assert.equal(event.content, "from the Python SDK");
            assert.equal(result.structured.event_id, event.id);
          } else {
            assert.deepEqual([result.isError, result.text], [true, DECLINED_AT_HOST]);
            assert.equal(relay.published.length, 0);
          }
          assertNoSecret(key, stderr, "stderr");
        } finally {
          await relay.close();
        }
      });
    }
  },
});
