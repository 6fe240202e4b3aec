// The `initialize` answer (lib/host/handshake.ts): the version negotiated, the capabilities with
// and without experimental keys (each `{}`, as Claude Code's channel contract has them), serverInfo,
// and `instructions` present only when given.

import assert from "node:assert/strict";
import { InitializeResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  FALLBACK_VERSION,
  HANDSHAKE_VERSIONS,
  initializeResult,
  negotiateVersion,
} from "../../lib/host/handshake.ts";
import denoConfig from "../../deno.json" with { type: "json" };

const SERVER_INFO = { name: "tinyagent", version: denoConfig.version };

Deno.test("negotiateVersion: each known version as asked, anything else the fallback", () => {
  assert.deepEqual(HANDSHAKE_VERSIONS, ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
  for (const version of HANDSHAKE_VERSIONS) assert.equal(negotiateVersion(version), version);
  for (const other of ["2099-01-01", "", undefined, 20250618, null, {}]) {
    assert.equal(negotiateVersion(other), FALLBACK_VERSION, JSON.stringify(other));
  }
  assert.equal(FALLBACK_VERSION, "2025-06-18");
});

Deno.test("no features: the tools capability alone, no experimental, no instructions", () => {
  for (const features of [undefined, {}, { experimental: [] }]) {
    const result = initializeResult({ protocolVersion: "2025-03-26" }, features);
    assert.deepEqual(result, {
      protocolVersion: "2025-03-26",
      capabilities: { tools: { listChanged: true } },
      serverInfo: SERVER_INFO,
    });
    assert.ok(!("instructions" in result));
    assert.ok(InitializeResultSchema.safeParse(result).success);
  }
  assert.equal(initializeResult(undefined).protocolVersion, FALLBACK_VERSION);
  assert.equal(initializeResult("not an object").protocolVersion, FALLBACK_VERSION);
});

Deno.test("experimental keys, each {}, beside the tools capability", () => {
  const one = initializeResult({}, { experimental: ["claude/channel"] });
  assert.deepEqual(one.capabilities, {
    tools: { listChanged: true },
    experimental: { "claude/channel": {} },
  });
  const two = initializeResult({}, { experimental: ["claude/channel", "claude/channel/permission"] });
  assert.deepEqual(two.capabilities, {
    tools: { listChanged: true },
    experimental: { "claude/channel": {}, "claude/channel/permission": {} },
  });
  assert.ok(InitializeResultSchema.safeParse(two).success);
});

Deno.test("instructions: present only when given, exactly as given", () => {
  const result = initializeResult({ protocolVersion: "2025-06-18" }, { instructions: "Use the tools." });
  assert.equal(result.instructions, "Use the tools.");
  assert.ok(InitializeResultSchema.safeParse(result).success);
  assert.equal(initializeResult({}, { instructions: "" }).instructions, "");
  assert.ok(!("instructions" in initializeResult({}, { experimental: ["claude/channel"] })));
});

Deno.test("capabilities a session adds (resources, completions) are declared beside the tools", () => {
  const result = initializeResult({ protocolVersion: "2025-06-18" }, {
    capabilities: { resources: { subscribe: true }, completions: {} },
  });
  assert.deepEqual(result.capabilities, {
    tools: { listChanged: true },
    resources: { subscribe: true },
    completions: {},
  });
  assert.deepEqual(
    initializeResult({}).capabilities,
    { tools: { listChanged: true } },
    "none added: tools alone",
  );
});
