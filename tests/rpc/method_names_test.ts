// The helper's method names (lib/rpc/method_names.ts), which `call METHOD` is told apart from `call
// TOOL` by: the nine of rpc-facts.md section 3, exactly, and nothing an object inherits.

import assert from "node:assert/strict";
import { isRpcMethod, RPC_METHODS } from "../../lib/rpc/method_names.ts";

const NINE = [
  "identity",
  "publish",
  "query",
  "subscribe",
  "unsubscribe",
  "request",
  "upload",
  "download",
  "diagnose",
];

Deno.test("the nine methods, in the contract's order", () => {
  assert.deepEqual([...RPC_METHODS], NINE);
});

Deno.test("each of the nine is a method", () => {
  for (const name of NINE) assert.equal(isRpcMethod(name), true, name);
});

Deno.test("nothing else is: other cases, spaces, tool names, inherited names, the empty name", () => {
  for (
    const name of [
      "",
      "Identity",
      "PUBLISH",
      " query",
      "query ",
      "subscribe\n",
      "read_room",
      "tools/call",
      "keygen",
      "call",
      "mcp",
      "__proto__",
      "constructor",
      "toString",
      "hasOwnProperty",
      "length",
      "0",
      "includes",
    ]
  ) {
    assert.equal(isRpcMethod(name), false, JSON.stringify(name));
  }
});
