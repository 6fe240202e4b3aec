// The tool table heals, and the host hears of it (facade.md, `tools/list`: "fetched again"; beyond
// it, notifications/tools/list_changed): real hosts start tinyagent while the relay is down, list
// once, and never ask again unless told. The official TypeScript SDK client is the host, and the
// official Python SDK too when a Python with `mcp` is at hand (TINYAGENT_PYTHON, or python3).

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { startStrictRelay, type StrictRelay } from "../support/strict_relay/mod.ts";
import {
  assertNoSecret,
  commandLine,
  freePort,
  hostEnv,
  narrowFlags,
  newKey,
  ROOT,
  sdkStdio,
  Tinyagent,
} from "../support/tinyagent.ts";
import { until, within } from "../support/waits.ts";
import { pythonWithMcp } from "../support/python.ts";
import { CONTRACT_READ, SESSION_CAPABILITIES } from "../support/contract.ts";

const names = (tools: { name: string }[]) => tools.map((tool) => tool.name);

Deno.test("the SDK host: the relay is down at start, comes back, and the host is told without asking", async (t) => {
  const port = freePort();
  const key = newKey();
  const { transport, stderr } = sdkStdio({
    netHost: `127.0.0.1:${port}`,
    relayUrl: `http://127.0.0.1:${port}`,
    key,
  });
  const client = new Client({ name: "recovery-test", version: "1.0.0" });
  let changed = Promise.withResolvers<void>();
  let notifications = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    notifications++;
    changed.resolve();
  });
  let relay: StrictRelay | undefined;
  try {
    await client.connect(transport);
    await t.step("initialize announces listChanged", () => {
      assert.deepEqual(client.getServerCapabilities(), SESSION_CAPABILITIES);
    });
    await t.step("the relay is down: the host sees tiny_diagnose alone", async () => {
      assert.deepEqual(names((await client.listTools()).tools), ["tiny_diagnose"]);
      // stderr is a pipe of its own: its line may be read after the answer that followed it.
      const offering = /offering tiny_diagnose only; fetching the table again in the background/;
      await until(5_000, "the offering line on stderr", () => offering.test(stderr()));
    });
    await t.step(
      "the relay comes up: within seconds the host is told, lists again, and has every tool",
      async () => {
        relay = await startStrictRelay({ port });
        await within(15_000, "notifications/tools/list_changed", changed.promise);
        assert.deepEqual(names((await client.listTools()).tools), [...CONTRACT_READ, "tiny_diagnose"]);
        const back = new RegExp(
          `the relay's tools are back: ${CONTRACT_READ.length} tools; the host was told`,
        );
        await until(5_000, "the tools-are-back line on stderr", () => back.test(stderr()));
        assert.equal(notifications, 1);
      },
    );
    await t.step("nothing more is fetched, and the host is not told again", async () => {
      const before = relay!.requests.length;
      changed = Promise.withResolvers<void>();
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      assert.equal(relay!.requests.length, before);
      assert.equal(notifications, 1);
    });
  } finally {
    await client.close();
    await relay?.close();
  }
  assertNoSecret(key, stderr(), "stderr");
});

Deno.test("no relay request before the host lists or calls, and none after the host is gone", async (t) => {
  await t.step("a host that only does the handshake: the relay hears nothing", async () => {
    const relay = await startStrictRelay();
    const key = newKey();
    const facade = new Tinyagent({
      flags: narrowFlags(relay.host),
      args: ["mcp", "--relay", relay.url],
      env: { TINY_PRIVATE_KEY: key.hex },
    });
    try {
      await facade.request("initialize", { protocolVersion: "2025-06-18", capabilities: {} });
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      assert.equal(relay.requests.length, 0);
      const output = await facade.finish();
      assert.equal(output.code, 0);
    } finally {
      await facade.kill();
      await relay.close();
    }
  });
  await t.step(
    "the relay down and background fetches pending: the host leaving ends the process at once",
    async () => {
      const port = freePort();
      const key = newKey();
      const facade = new Tinyagent({
        flags: narrowFlags(`127.0.0.1:${port}`),
        args: ["mcp", "--relay", `http://127.0.0.1:${port}`],
        env: { TINY_PRIVATE_KEY: key.hex },
      });
      try {
        await facade.request("initialize", { protocolVersion: "2025-06-18", capabilities: {} });
        const listed = await facade.request("tools/list", {});
        assert.deepEqual(names((listed.result as { tools: { name: string }[] }).tools), ["tiny_diagnose"]);
        const started = Date.now();
        const output = await facade.finish();
        assert.equal(output.code, 0);
        assert.ok(Date.now() - started < 3_000, `exited after ${Date.now() - started} ms`);
        // Only answers came out: no notification for a table that never loaded.
        assert.equal(output.lines.length, 2);
      } finally {
        await facade.kill();
      }
    },
  );
});

const PYTHON = pythonWithMcp();

Deno.test({
  name: "the Python SDK host: told of the recovered table, it lists again and has every tool",
  // Skipped where no Python has the `mcp` package (.ci/run installs it when its index is at hand).
  ignore: PYTHON === undefined,
  fn: async () => {
    const port = freePort();
    const key = newKey();
    const { program, args } = commandLine({
      flags: narrowFlags(`127.0.0.1:${port}`),
      args: ["mcp", "--relay", `http://127.0.0.1:${port}`],
    });
    const child = new Deno.Command(PYTHON!, {
      args: [`${ROOT}tests/support/python_host.py`, "--wait", "20", "--", program, ...args],
      env: hostEnv({ TINY_PRIVATE_KEY: key.hex }),
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const events: { event: string; names?: string[]; capabilities?: unknown }[] = [];
    let relay: StrictRelay | undefined;
    const stderr = new Response(child.stderr).text();
    try {
      const decoder = new TextDecoder();
      let buffer = "";
      for await (const chunk of child.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let at; (at = buffer.indexOf("\n")) !== -1;) {
          const event = JSON.parse(buffer.slice(0, at));
          buffer = buffer.slice(at + 1);
          events.push(event);
          // The host has listed once and waits: now the relay comes up.
          if (event.event === "tools" && event.phase === "initial") relay = await startStrictRelay({ port });
        }
      }
      const status = await child.status;
      assert.equal(status.code, 0, `${JSON.stringify(events)}\n${await stderr}`);
      const capabilities = events.find((event) => event.event === "capabilities")!.capabilities;
      assert.deepEqual(capabilities, SESSION_CAPABILITIES);
      assert.deepEqual(events.filter((event) => event.event === "tools").map((event) => event.names), [
        ["tiny_diagnose"],
        [...CONTRACT_READ, "tiny_diagnose"],
      ]);
      assert.ok(events.some((event) => event.event === "list_changed"));
      assertNoSecret(key, await stderr, "stderr");
    } finally {
      try {
        child.kill();
      } catch {
        // already gone
      }
      await relay?.close();
    }
  },
});
