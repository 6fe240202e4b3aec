// The flags of the commands that offer or call the relay's MCP tools (lib/cli/session_args.ts):
// the flag sets `mcp`, `tools`, `call TOOL` and `rpc` share or do not, oversightFlags with each
// command's own advice for allowing no write, and the entries agreeing with parseCommand.
// (args_test and host_config_test cover each flag's values through parseCommand.)

import assert from "node:assert/strict";
import { parseCommand, UsageError } from "../../lib/cli/args.ts";
import {
  CODE_FLAGS,
  codeModeFlags,
  mcpCommand,
  OVERSIGHT_FLAGS,
  oversightFlags,
  SESSION_FLAGS,
  toolsCommand,
  toolSession,
} from "../../lib/cli/session_args.ts";
import { CONTRACT_READ, CONTRACT_WRITE } from "../support/contract.ts";

const RELAY = "https://relay.example.test/r/acme";

Deno.test("the flag sets", () => {
  assert.deepEqual(OVERSIGHT_FLAGS, {
    "audit-log": { type: "string" },
    "max-writes": { type: "string" },
    "confirm-writes": { type: "boolean" },
    "confirm-timeout": { type: "string" },
  });
  assert.deepEqual(Object.keys(SESSION_FLAGS).sort(), [
    "allow-writes",
    "audit-log",
    "confirm-timeout",
    "confirm-writes",
    "key-env",
    "max-writes",
    "relay",
    "timeout",
    "tools",
  ]);
});

Deno.test("rpc's own flag is not a session flag", () => {
  for (const command of ["mcp", "tools", "config"]) {
    const argv = command === "config" ? [command, "hermes"] : [command];
    assert.throws(
      () => parseCommand([...argv, "--relay", RELAY, "--kinds", "9"]),
      (error: unknown) => error instanceof UsageError && error.message === "unknown flag '--kinds'",
      command,
    );
  }
});

Deno.test("oversightFlags", async (t) => {
  await t.step("none given", () => {
    assert.deepEqual(oversightFlags({}, "mcp"), { confirmWrites: false, confirmTimeoutMs: 300_000 });
  });
  await t.step("each given", () => {
    const values = {
      "audit-log": "/a.jsonl",
      "max-writes": "2",
      "confirm-writes": true,
      "confirm-timeout": "9",
    };
    assert.deepEqual(oversightFlags(values, "mcp"), {
      auditLog: "/a.jsonl",
      maxWrites: 2,
      confirmWrites: true,
      confirmTimeoutMs: 9_000,
    });
  });
  await t.step("--confirm-writes=false is no confirmation", () => {
    assert.equal(oversightFlags({ "confirm-writes": false }, "mcp").confirmWrites, false);
  });
  await t.step("the advice for allowing no write: mcp's default, or the caller's", () => {
    assert.throws(
      () => oversightFlags({ "max-writes": "0" }, "mcp"),
      (error: unknown) =>
        error instanceof UsageError && /\(to allow none, leave out --allow-writes\)$/.test(error.message),
    );
    assert.throws(
      () => oversightFlags({ "max-writes": "0" }, "rpc", "ask the relay"),
      (error: unknown) =>
        error instanceof UsageError && error.topic === "rpc" &&
        /\(to allow none, ask the relay\)$/.test(error.message),
    );
  });
});

Deno.test("toolSession", async (t) => {
  await t.step("the defaults", () => {
    const session = toolSession({ relay: RELAY }, "mcp");
    assert.equal(session.relay.base, RELAY);
    assert.equal(session.keyEnv, "TINY_PRIVATE_KEY");
    assert.deepEqual(session.exposed, [...CONTRACT_READ]);
    assert.equal(session.allowWrites, false);
    assert.equal(session.timeoutMs, 120_000);
  });
  await t.step("--tools=default with writes", () => {
    assert.deepEqual(toolSession({ relay: RELAY, tools: "default", "allow-writes": true }, "tools").exposed, [
      ...CONTRACT_READ,
      ...CONTRACT_WRITE,
    ]);
  });
  await t.step("an exposure error carries the command's topic", () => {
    assert.throws(
      () => toolSession({ relay: RELAY, tools: "no_such_tool" }, "call"),
      (error: unknown) =>
        error instanceof UsageError && error.topic === "call" && /no_such_tool/.test(error.message),
    );
  });
});

Deno.test("the module's entries agree with parseCommand", () => {
  const flags = ["--relay", RELAY, "--allow-writes", "--max-writes", "5", "--timeout", "10"];
  assert.deepEqual(mcpCommand(flags), parseCommand(["mcp", ...flags]));
  assert.deepEqual(toolsCommand([...flags, "--json"]), parseCommand(["tools", ...flags, "--json"]));
  assert.deepEqual(mcpCommand(["--help"]), { command: "help", topic: "mcp" });
  assert.deepEqual(toolsCommand(["-h"]), { command: "help", topic: "tools" });
});

Deno.test("--read-tool: mcp and config take it, off unless asked; config cursor always has it; tools and call do not", () => {
  const read = (...argv: string[]) => (parseCommand(argv) as { readTool?: boolean }).readTool;
  assert.equal(read("mcp", "--relay", RELAY), undefined);
  assert.equal(read("mcp", "--relay", RELAY, "--read-tool=false"), undefined);
  assert.equal(read("mcp", "--relay", RELAY, "--read-tool"), true);
  assert.equal(read("mcp", "--relay", RELAY, "--read-tool=true", "--code-mode"), true);
  assert.equal(read("config", "claude-code", "--relay", RELAY), undefined);
  assert.equal(read("config", "claude-code", "--relay", RELAY, "--read-tool"), true);
  assert.equal(read("config", "cursor", "--relay", RELAY), true, "Cursor shows no resources");
  assert.equal(read("config", "cursor", "--relay", RELAY, "--read-tool=false"), true);
  assert.throws(() => parseCommand(["tools", "--relay", RELAY, "--read-tool"]), UsageError);
  assert.throws(() => parseCommand(["call", "--relay", RELAY, "list_rooms", "--read-tool"]), UsageError);
});

Deno.test("code mode's flags: --code-mode, and --code-timeout that only lowers its 30 s", async (t) => {
  assert.deepEqual(CODE_FLAGS, {
    "code-mode": { type: "boolean" },
    "code-timeout": { type: "string" },
    "read-tool": { type: "boolean" },
  });
  const mcp = (...flags: string[]) => parseCommand(["mcp", "--relay", RELAY, ...flags]);
  await t.step("off unless asked, or asked off as a bundle does", () => {
    assert.equal((mcp() as { codeMode?: unknown }).codeMode, undefined);
    assert.equal((mcp("--code-mode=false") as { codeMode?: unknown }).codeMode, undefined);
  });
  await t.step("on: 30 s, or what --code-timeout says, up to 30", () => {
    assert.deepEqual((mcp("--code-mode") as { codeMode?: unknown }).codeMode, { wallMs: 30_000 });
    assert.deepEqual((mcp("--code-mode=true", "--code-timeout", "2.5") as { codeMode?: unknown }).codeMode, {
      wallMs: 2_500,
    });
    assert.deepEqual(codeModeFlags({ "code-mode": true, "code-timeout": "30" }, "mcp"), { wallMs: 30_000 });
  });
  await t.step("refused: past 30 s, not a number, or without --code-mode", () => {
    assert.throws(() => mcp("--code-mode", "--code-timeout", "31"), /--code-timeout: at most 30 seconds/);
    assert.throws(
      () => mcp("--code-mode", "--code-timeout", "0"),
      /--code-timeout: give a number of seconds/,
    );
    assert.throws(() => mcp("--code-mode", "--code-timeout", "soon"), UsageError);
    assert.throws(
      () => mcp("--code-timeout", "10"),
      /--code-timeout bounds tiny_execute's programs: add --code-mode/,
    );
  });
  await t.step("mcp and config take it; tools and call do not", () => {
    assert.equal(
      (parseCommand(["config", "cursor", "--relay", RELAY, "--code-mode"]) as { codeMode?: unknown })
        .codeMode !== undefined,
      true,
    );
    assert.throws(() => parseCommand(["tools", "--relay", RELAY, "--code-mode"]), UsageError);
    assert.throws(() => parseCommand(["call", "--relay", RELAY, "list_rooms", "--code-mode"]), UsageError);
  });
});
