// What one request to the relay carries (facade.md, "Relay protocol"): the body, the headers and
// `_meta` of a forwarded MCP request, the NIP-86 management request, and `Mcp-Name`'s encoding.

import assert from "node:assert/strict";
import denoConfig from "../../deno.json" with { type: "json" };
import { encodeHeaderValue, manageRequest, mcpRequest } from "../../lib/relay/request.ts";
import { RELAY_PROTOCOL_VERSION } from "../support/contract.ts";

const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));

const META = {
  "io.modelcontextprotocol/protocolVersion": RELAY_PROTOCOL_VERSION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "tinyagent", version: denoConfig.version },
};

Deno.test("Mcp-Name: plain ASCII as is, anything else as =?base64?…?=", () => {
  assert.equal(encodeHeaderValue("read_room"), "read_room");
  assert.equal(encodeHeaderValue("outil_é"), `=?base64?${btoa("outil_\xc3\xa9")}?=`);
  assert.equal(encodeHeaderValue("tab\there"), `=?base64?${btoa("tab\there")}?=`);
  const decoded = new TextDecoder().decode(
    Uint8Array.from(atob(encodeHeaderValue("名前").slice(9, -2)), (c) => c.charCodeAt(0)),
  );
  assert.equal(decoded, "名前");
});

Deno.test("Mcp-Name: a name that could split the header is never sent raw", () => {
  for (const name of ["a\r\nX-Injected: 1", "a\nb", "\x00", "\x7f", ""]) {
    const value = encodeHeaderValue(name);
    // deno-lint-ignore no-control-regex -- finding control characters is the point
    assert.doesNotMatch(value, /[\x00-\x1f\x7f]/, JSON.stringify(name));
    if (name !== "") assert.match(value, /^=\?base64\?[A-Za-z0-9+/]*=*\?=$/, JSON.stringify(name));
  }
  assert.equal(encodeHeaderValue(""), "", "an empty name is plain ASCII");
});

Deno.test("mcpRequest: tools/list", async (t) => {
  const request = mcpRequest(1, "tools/list", {});
  await t.step("the body is a JSON-RPC request with the revision's _meta", () => {
    assert.deepEqual(decode(request.body), {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: { _meta: META },
    });
  });
  await t.step("the headers: revision, method, Accept and Content-Type, no Mcp-Name", () => {
    assert.deepEqual(request.headers, {
      "Accept": "application/json, text/event-stream",
      "Content-Type": "application/json",
      "MCP-Protocol-Version": RELAY_PROTOCOL_VERSION,
      "Mcp-Method": "tools/list",
    });
  });
  await t.step("no Authorization: the client adds a fresh one per attempt", () => {
    assert.ok(!Object.keys(request.headers).some((name) => name.toLowerCase() === "authorization"));
  });
});

Deno.test("mcpRequest: tools/call", async (t) => {
  const args = { id: "général", nested: { list: [1, "two", null] } };
  const request = mcpRequest(42, "tools/call", { name: "read_room", arguments: args });
  await t.step("the body carries the name, the arguments as given and _meta", () => {
    assert.deepEqual(decode(request.body), {
      jsonrpc: "2.0",
      id: 42,
      method: "tools/call",
      params: { name: "read_room", arguments: args, _meta: META },
    });
  });
  await t.step("Mcp-Name names the tool", () => {
    assert.equal(request.headers["Mcp-Name"], "read_room");
    assert.equal(request.headers["Mcp-Method"], "tools/call");
    assert.equal(request.headers["MCP-Protocol-Version"], RELAY_PROTOCOL_VERSION);
  });
  await t.step("a non-ASCII name is encoded in Mcp-Name and kept as is in the body", () => {
    const other = mcpRequest(43, "tools/call", { name: "outil_é", arguments: {} });
    assert.equal(other.headers["Mcp-Name"], encodeHeaderValue("outil_é"));
    assert.equal(decode(other.body).params.name, "outil_é");
  });
  await t.step("the host's _meta never replaces the revision's", () => {
    const other = mcpRequest(44, "tools/call", {
      name: "read_room",
      arguments: {},
      _meta: { "io.modelcontextprotocol/protocolVersion": "1999-01-01", progressToken: 7 },
    });
    const meta = decode(other.body).params._meta;
    for (const [key, value] of Object.entries(META)) assert.deepEqual(meta[key], value, key);
  });
  await t.step("the body is UTF-8 JSON, one line", () => {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(request.body);
    assert.ok(!text.includes("\n"));
    assert.ok(text.includes("général"));
  });
});

Deno.test("manageRequest: a NIP-86 request", () => {
  const request = manageRequest("browsegrant", [{ rooms: ["general"], kinds: [9] }]);
  assert.deepEqual(decode(request.body), {
    method: "browsegrant",
    params: [{ rooms: ["general"], kinds: [9] }],
  });
  assert.deepEqual(request.headers, {
    "Accept": "application/nostr+json+rpc, application/json",
    "Content-Type": "application/nostr+json+rpc",
  });
  assert.deepEqual(decode(manageRequest("browsegrant", []).body), { method: "browsegrant", params: [] });
});
