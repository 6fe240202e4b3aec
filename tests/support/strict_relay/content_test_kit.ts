// A signed MCP client for the content mode tests: one tools/call, its HTTP status, headers and
// parsed answer; and the assertions every read shares (the text block mirrors structuredContent,
// a failed read carries the relay's words and no structured content, arguments the input schema
// refuses come back with that schema).

import assert from "node:assert/strict";
import type { NostrEvent } from "nostr-tools/pure";
import { type Key, newKey, nip98, plain } from "./nostr_test_kit.ts";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { PROTOCOL_VERSION, type StrictRelay } from "./mod.ts";
import type { Seed } from "./content_types.ts";
import type { ContentView } from "./content_view.ts";
import { answerContent } from "./content_tools.ts";

export const AGENT = newKey();

export interface Called {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  // deno-lint-ignore no-explicit-any
  result: any;
}

let nextId = 1;

/** One signed tools/call, as tinyagent's facade sends it. */
export async function call(
  relay: StrictRelay,
  name: string,
  args: Record<string, unknown> = {},
  key: Key = AGENT,
): Promise<Called> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: nextId++,
    method: "tools/call",
    params: {
      name,
      arguments: args,
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  const res = await fetch(relay.mcpUrl, {
    method: "POST",
    headers: {
      Authorization: nip98(relay.mcpUrl, body, key),
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": PROTOCOL_VERSION,
      "Mcp-Method": "tools/call",
      "Mcp-Name": name,
    },
    body,
  });
  const parsed = JSON.parse(await res.text());
  return { status: res.status, headers: res.headers, body: parsed, result: parsed.result };
}

/** A successful read's structuredContent, after checking its text block says the same. */
export async function read(
  relay: StrictRelay,
  name: string,
  args: Record<string, unknown> = {},
  // deno-lint-ignore no-explicit-any
): Promise<any> {
  const { status, result } = await call(relay, name, args);
  assert.equal(status, 200);
  assert.equal(result.isError, false, `${name} failed: ${result.content?.[0]?.text}`);
  assert.equal(result.content.length, 1);
  assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent, "the text block mirrors it");
  return result.structuredContent;
}

/** Expects the read to fail with exactly these words, as the relay reports a failed browse. */
export async function refused(
  relay: StrictRelay,
  name: string,
  args: Record<string, unknown>,
  words: string,
) {
  const { status, result } = await call(relay, name, args);
  assert.equal(status, 200);
  assert.deepEqual(result, {
    content: [{ type: "text", text: words }],
    structuredContent: null,
    isError: true,
    resultType: "complete",
    _meta: result._meta,
  });
}

/** Expects the relay's input schema to refuse the arguments in these words, before the tool runs. */
export async function refusedArguments(
  relay: StrictRelay,
  name: string,
  args: Record<string, unknown>,
  words: string,
) {
  const { status, result } = await call(relay, name, args);
  assert.equal(status, 200);
  const { inputSchema } = relay.tools.find((t) => t.name === name)!;
  assert.deepEqual(result, {
    content: [{ type: "text", text: words }],
    structuredContent: { inputSchema },
    isError: true,
    resultType: "complete",
    _meta: result._meta,
  });
}

/**
 * One call's view of a seed, for a reader called directly: the relay's input schema refuses some
 * arguments (a limit over 100, max_bytes over 4 MiB) before its reader runs, and the reader's own
 * rule for them is checked this way.
 */
export function viewOf(seed: Seed, url = "https://relay.example"): ContentView {
  return {
    caller: AGENT.pk,
    now: Math.floor(Date.now() / 1000),
    url,
    events: seed.events ?? [],
    rooms: new Map((seed.rooms ?? []).map((r) => [r.id, r])),
    repositories: new Map((seed.repositories ?? []).map((r) => [`${r.owner}/${r.identifier}`, r])),
    files: new Map((seed.files ?? []).map((f) => [bytesToHex(sha256(f.bytes)), f])),
    uploads: new Map(),
    attachments: new Map(),
  };
}

/**
 * Expects a content reader, called directly on a view of `seed`, to refuse in these words: its own
 * check of what the relay's schema already refuses over /mcp.
 */
export function readerRefuses(seed: Seed, name: string, args: Record<string, unknown>, words: string) {
  assert.deepEqual(answerContent(name, args, viewOf(seed)), {
    content: [{ type: "text", text: words }],
    structuredContent: null,
    isError: true,
  });
}

/** Publishes an event the two-step way (template, then the signed event) through a write tool. */
export async function publishWith(
  relay: StrictRelay,
  tool: string,
  args: Record<string, unknown>,
  sign: (unsigned: Omit<NostrEvent, "id" | "pubkey" | "sig">) => NostrEvent,
): Promise<NostrEvent> {
  const first = await call(relay, tool, args);
  assert.equal(first.result.isError, false, first.result.content?.[0]?.text);
  const event = plain(sign(first.result.structuredContent.unsigned));
  const second = await call(relay, tool, { ...args, event });
  assert.equal(second.result.structuredContent.accepted, true, second.result.content?.[0]?.text);
  return event;
}

/** Every item a list tool gives, following next_cursor to the end (bounded). */
export async function everyPage(relay: StrictRelay, tool: string, args: Record<string, unknown> = {}) {
  const items: Record<string, unknown>[] = [];
  const pages: number[] = [];
  let cursor: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = await read(relay, tool, cursor === undefined ? args : { ...args, cursor });
    items.push(...page.items);
    pages.push(page.items.length);
    if (page.next_cursor === "") return { items, pages };
    cursor = page.next_cursor;
  }
  throw new Error(`${tool}: more than 1000 pages`);
}
