// The twin's argument check, case by case against tinyrelay's words (internal/mcp/tools.go): the
// table's own schemas, hostile values, and the order in which the relay reports the first problem.

import assert from "node:assert/strict";
import { DEFAULT_TOOLS } from "./tool_table.ts";
import { goNumber, validateArguments } from "./tool_validate.ts";

const schemaOf = (name: string) => DEFAULT_TOOLS.find((tool) => tool.name === name)!.inputSchema;
const HEX = "a".repeat(64);

Deno.test("validate: Go's %v for the bounds the tables use", () => {
  const cases: [number, string][] = [
    [0, "0"],
    [1, "1"],
    [100, "100"],
    [600, "600"],
    [65535, "65535"],
    [999999, "999999"],
    [1000000, "1e+06"],
    [4194304, "4.194304e+06"],
    [0.5, "0.5"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [-2, "-2"],
  ];
  for (const [n, text] of cases) assert.equal(goNumber(n), text, String(n));
});

Deno.test("validate: tinyrelay's words for each problem", () => {
  const cases: [string, Record<string, unknown>, string | undefined][] = [
    ["list_rooms", { limit: 5 }, undefined],
    ["list_rooms", {}, undefined],
    ["list_rooms", { limit: 500, bogus: 1 }, "bogus is not a known argument"],
    ["list_rooms", { limit: 500 }, "limit must be at most 100"],
    ["list_rooms", { limit: 0 }, "limit must be at least 1"],
    ["list_rooms", { limit: 2.5 }, "limit must be an integer"],
    ["list_rooms", { limit: "5" }, "limit must be an integer"],
    ["list_rooms", { cursor: 7 }, "cursor must be a string"],
    ["list_rooms", { limit: null, cursor: null }, undefined],
    ["read_file", {}, "hash is required"],
    ["read_file", { sha256: HEX }, "hash is required"],
    ["read_file", { hash: HEX, sha256: HEX }, "sha256 is not a known argument"],
    ["read_file", { hash: "ABC" }, "hash does not match ^[0-9a-f]{64}$"],
    ["read_attachment", { sha256: HEX, max_bytes: 5_000_000 }, "max_bytes must be at most 4.194304e+06"],
    ["read_room", { id: "General" }, "id does not match ^[a-z0-9_-]{1,64}$"],
    ["read_room", { id: "x".repeat(65) }, "id does not match ^[a-z0-9_-]{1,64}$"],
    ["read_thread", { id: "general" }, "event is required"],
    [
      "list_issues",
      { owner: HEX, repo: "r", state: "shut" },
      "state must be one of open, resolved, merged, closed, draft",
    ],
    ["list_jobs", { mine: "yes" }, "mine must be true or false"],
    ["comment", { root_kind: 1622 }, "root_kind must be one of 1617, 1618, 1621"],
    ["comment", { root_kind: 1621 }, undefined],
    ["react", { content: "" }, "content must not be empty"],
    [
      "upload_attachment",
      { room: "general", data: "", type: "x".repeat(256) },
      "type is longer than 255 characters",
    ],
    ["upload_attachment", { room: "general", data: "", type: "é".repeat(255) }, undefined],
    ["request_grant", { reason: "😀".repeat(500) }, undefined],
    ["request_grant", { reason: "😀".repeat(501) }, "reason is longer than 500 characters"],
    ["request_grant", { changes: { rate: 601 } }, "changes.rate must be at most 600"],
    ["request_grant", { changes: { repos: [{ owner: HEX }] } }, "changes.repos[0].identifier is required"],
    ["request_grant", { changes: { color: "red" } }, "changes.color is not a known argument"],
    ["request_grant", { changes: "all" }, "changes must be an object"],
    [
      "post_message",
      { attachments: [{ url: "u", sha256: HEX, size: -1, type: "t" }] },
      "attachments[0].size must be at least 0",
    ],
    ["post_message", { mentions: [HEX, "nope"] }, "mentions[1] does not match ^[0-9a-f]{64}$"],
    ["set_policy", { patch: {} }, "argument must not be empty".replace("argument", "patch")],
    ["set_policy", {}, "patch is required"],
    ["job_result", { artifacts: [{ type: "x", value: "v" }] }, "artifacts[0].type must be one of e, a, r"],
  ];
  for (const [tool, args, want] of cases) {
    assert.equal(validateArguments(schemaOf(tool), args), want, `${tool} ${JSON.stringify(args)}`);
  }
});

Deno.test("validate: required first, then the keys in code-point order; the first problem only", () => {
  assert.equal(validateArguments(schemaOf("read_room"), { zzz: 1, aaa: 2 }), "id is required");
  assert.equal(
    validateArguments(schemaOf("read_room"), { id: "ok", zzz: 1, aaa: 2 }),
    "aaa is not a known argument",
  );
  assert.equal(
    validateArguments(schemaOf("read_room"), { limit: 101, cursor: 1, id: "a" }),
    "cursor must be a string",
  );
  // Code points, not UTF-16 units: U+FF5E sorts before U+1F600 although its unit is larger.
  assert.equal(validateArguments(schemaOf("list_rooms"), { "😀": 1, "～": 2 }), "～ is not a known argument");
});

Deno.test("validate: hostile values are refused in words, never thrown", () => {
  const deep: Record<string, unknown> = {};
  let at = deep;
  for (let i = 0; i < 1000; i++) at = (at.x = {}) as Record<string, unknown>;
  const hostile: Record<string, unknown>[] = [
    { limit: Number.MAX_VALUE },
    { limit: -0 },
    { cursor: deep },
    { cursor: ["a"] },
    JSON.parse('{"__proto__": 1}'),
    { constructor: 1 },
    { limit: 1e308 },
  ];
  for (const args of hostile) {
    const problem = validateArguments(schemaOf("list_rooms"), args);
    assert.equal(typeof problem === "string" || problem === undefined, true);
  }
  assert.equal(
    validateArguments(schemaOf("list_rooms"), { constructor: 1 }),
    "constructor is not a known argument",
  );
  assert.equal(validateArguments(schemaOf("list_rooms"), { limit: 1e308 }), "limit must be at most 100");
});
