// The wire vocabulary (lib/wire/mcp.ts): the JSON-RPC codes the contract names, and toolError,
// the one constructor of a tool error every layer uses.

import assert from "node:assert/strict";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  toolError,
} from "../../lib/wire/mcp.ts";
import * as contract from "../support/contract.ts";

Deno.test("the JSON-RPC codes are the contract's", () => {
  assert.equal(PARSE_ERROR, contract.PARSE_ERROR);
  assert.equal(INVALID_REQUEST, contract.INVALID_REQUEST);
  assert.equal(METHOD_NOT_FOUND, contract.METHOD_NOT_FOUND);
  assert.equal(INVALID_PARAMS, contract.INVALID_PARAMS);
  assert.equal(INTERNAL_ERROR, contract.INTERNAL_ERROR);
});

Deno.test("toolError: one text block, isError, structuredContent only when given", async (t) => {
  await t.step("text only", () => {
    const result = toolError(`${contract.TRANSPORT_PREFIX}no answer`);
    assert.deepEqual(result, {
      content: [{ type: "text", text: `${contract.TRANSPORT_PREFIX}no answer` }],
      isError: true,
    });
    assert.ok(!("structuredContent" in result), "no structuredContent key at all");
    assert.ok(CallToolResultSchema.safeParse(result).success);
  });
  await t.step("with the relay's structuredContent, carried as is", () => {
    const structured = { unsigned: { kind: 1, tags: [], content: "" }, next: "sign" };
    const result = toolError(contract.unexpectedKindText(1, "post_message"), structured);
    assert.equal(result.structuredContent, structured);
    assert.equal(result.isError, true);
    assert.ok(CallToolResultSchema.safeParse(result).success);
  });
  await t.step("falsy structuredContent is still carried; only undefined is left out", () => {
    for (const value of [null, 0, "", false]) {
      assert.ok(Object.is(toolError("x", value).structuredContent, value), JSON.stringify(value));
    }
  });
  await t.step("each call is a fresh object", () => {
    const a = toolError("x");
    a.content.push({ type: "text", text: "y" });
    assert.equal(toolError("x").content.length, 1);
  });
});
