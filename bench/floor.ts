// The per-call floor: what one forwarded call costs without the facade. Started like tinyagent
// (`deno run --allow-net=<relay host:port> --allow-env=TINY_PRIVATE_KEY bench/floor.ts <relay URL>`),
// it reads JSON-RPC request lines from stdin and for each one builds the same relay request body,
// hashes it, signs a NIP-98 token, POSTs it to `<relay>/mcp`, reads the answer and writes one
// JSON-RPC answer line to stdout. No bounds, no table, no queue, no timeout: the bare work.
//
// Like any ordinary client it keeps its connection: fetch's default client pools it (HTTP/1.1
// keep-alive, or HTTP/2 by ALPN on https; idle ones are closed after 30 s). A private CA is
// trusted through DENO_CERT. `initialize` is answered locally and notifications are dropped, as a
// host's handshake never needs the relay.

import { finalizeEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, hexToBytes, randomBytes } from "@noble/hashes/utils.js";

const PROTOCOL = "2026-07-28";
const url = `${Deno.args[0].replace(/\/+$/, "")}/mcp`;
const secretKey = hexToBytes(Deno.env.get("TINY_PRIVATE_KEY") ?? "");
const encoder = new TextEncoder();
const out = Deno.stdout.writable.getWriter();
let nextId = 1;

async function answer(line: string): Promise<void> {
  const request = JSON.parse(line);
  const method = request.method as string;
  const params = request.params ?? {};
  if (request.id === undefined) return;
  if (method === "initialize") {
    const result = {
      protocolVersion: params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "floor", version: "0" },
    };
    await out.write(encoder.encode(`${JSON.stringify({ jsonrpc: "2.0", id: request.id, result })}\n`));
    return;
  }
  const id = nextId++;
  const body = encoder.encode(JSON.stringify({
    jsonrpc: "2.0",
    id,
    method,
    params: {
      ...params,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { name: "floor", version: "0" },
      },
    },
  }));
  const token = finalizeEvent({
    kind: 27235,
    created_at: Math.floor(Date.now() / 1000),
    tags: [
      ["u", url],
      ["method", "POST"],
      ["payload", bytesToHex(sha256(body))],
      ["nonce", bytesToHex(randomBytes(12))],
    ],
    content: "",
  }, secretKey);
  const headers: Record<string, string> = {
    "Accept": "application/json, text/event-stream",
    "Content-Type": "application/json",
    "MCP-Protocol-Version": PROTOCOL,
    "Mcp-Method": method,
    // The token is ASCII JSON, so btoa takes it as it is.
    "Authorization": `Nostr ${btoa(JSON.stringify(token))}`,
  };
  if (method === "tools/call") headers["Mcp-Name"] = String(params.name);
  const response = await fetch(url, { method: "POST", headers, body });
  const relayAnswer = JSON.parse(await response.text());
  const reply = "result" in relayAnswer
    ? { jsonrpc: "2.0", id: request.id, result: relayAnswer.result }
    : { jsonrpc: "2.0", id: request.id, error: relayAnswer.error };
  await out.write(encoder.encode(`${JSON.stringify(reply)}\n`));
}

// Lines are decoded as they arrive, so a long line is held once, as text.
const decoder = new TextDecoder();
let pending: string[] = [];
for await (const chunk of Deno.stdin.readable) {
  let text = decoder.decode(chunk, { stream: true });
  let newline;
  while ((newline = text.indexOf("\n")) !== -1) {
    pending.push(text.slice(0, newline));
    text = text.slice(newline + 1);
    const line = pending.join("");
    pending = [];
    if (line.trim() !== "") await answer(line);
  }
  if (text) pending.push(text);
}
