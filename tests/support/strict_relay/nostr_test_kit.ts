// Independent clients for the strict relay's Nostr side tests: Deno's own WebSocket and fetch, events
// and NIP-98 tokens signed with nostr-tools, a raw upgrade over TCP or TLS for what a WebSocket cannot
// show. Nothing here shares code with the relay.

import assert from "node:assert/strict";
import { finalizeEvent, generateSecretKey, getPublicKey, type NostrEvent } from "nostr-tools/pure";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes } from "@noble/hashes/utils.js";
import { PROTOCOL_VERSION, startStrictRelay, type StrictRelay, type StrictRelayOptions } from "./mod.ts";
import { within } from "../waits.ts";

export const enc = new TextEncoder();
export const now = () => Math.floor(Date.now() / 1000);

export interface Key {
  sk: Uint8Array;
  pk: string;
}

export function newKey(): Key {
  const sk = generateSecretKey();
  return { sk, pk: getPublicKey(sk) };
}

/** The event as plain JSON (nostr-tools marks what it signed with a symbol that deepEqual sees). */
export function plain(ev: NostrEvent): NostrEvent {
  return JSON.parse(JSON.stringify(ev));
}

/** A signed event (kind 9 in room general unless told). */
export function signed(
  key: Key,
  o: Partial<Pick<NostrEvent, "kind" | "tags" | "content" | "created_at">> = {},
): NostrEvent {
  return plain(finalizeEvent({
    kind: o.kind ?? 9,
    created_at: o.created_at ?? now(),
    tags: o.tags ?? [["h", "general"]],
    content: o.content ?? "hello",
  }, key.sk));
}

export interface TokenOptions {
  method?: string;
  /** A hex digest; null leaves the tag out; default: the body's SHA-256 when there is a body. */
  payload?: string | null;
  kind?: number;
  createdAt?: number;
  u?: string;
  key?: Key;
}

/** An `Authorization: Nostr …` value for `url`, signed by hand (a nonce, so no two are alike). */
export function nip98(url: string, body: Uint8Array | string | undefined, key: Key, o: TokenOptions = {}) {
  const bytes = typeof body === "string" ? enc.encode(body) : body;
  const tags = [["u", o.u ?? url], ["method", o.method ?? "POST"], ["nonce", bytesToHex(randomBytes(12))]];
  const payload = o.payload === undefined ? (bytes?.length ? bytesToHex(sha256(bytes)) : null) : o.payload;
  if (payload !== null) tags.push(["payload", payload]);
  const ev = finalizeEvent(
    { kind: o.kind ?? 27235, created_at: o.createdAt ?? now(), tags, content: "" },
    (o.key ?? key).sk,
  );
  return `Nostr ${btoa(JSON.stringify(ev))}`;
}

/** A websocket client with a queue of parsed messages. */
export class WsClient {
  readonly messages: unknown[][] = [];
  /** The length of every text message received, in order. */
  readonly sizes: number[] = [];
  readonly closed: Promise<CloseEvent>;
  #socket: WebSocket;
  #waiters: (() => void)[] = [];

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.onmessage = (e) => {
      this.sizes.push(typeof e.data === "string" ? e.data.length : -1);
      this.messages.push(typeof e.data === "string" ? JSON.parse(e.data) : ["<binary>"]);
      for (const wake of this.#waiters.splice(0)) wake();
    };
    this.closed = new Promise((resolve) => socket.addEventListener("close", (e) => resolve(e)));
  }

  static async open(url: string, client?: Deno.HttpClient): Promise<WsClient> {
    const socket = client ? new WebSocket(url, { client }) : new WebSocket(url);
    const ws = new WsClient(socket);
    const opened = new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve();
      socket.onerror = (e) => reject(new Error(`websocket ${url}: ${(e as ErrorEvent).message}`));
    });
    await within(5000, `websocket ${url} opens`, opened);
    return ws;
  }

  send(message: unknown): void {
    this.#socket.send(typeof message === "string" ? message : JSON.stringify(message));
  }

  sendBinary(bytes: Uint8Array): void {
    this.#socket.send(bytes);
  }

  /** The next message, taken off the queue. */
  async next(what = "a message", ms = 3000): Promise<unknown[]> {
    const arrived = async () => {
      while (this.messages.length === 0) await new Promise<void>((wake) => this.#waiters.push(wake));
      return this.messages.shift()!;
    };
    return await within(ms, what, arrived());
  }

  /** Asserts nothing arrives for `ms`. */
  async quiet(ms = 200): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    assert.deepEqual(this.messages, [], "no message expected");
  }

  /** Reads the challenge and answers it as `key`, expecting `OK` true. */
  async auth(key: Key, relayUrl: string): Promise<void> {
    const [type, challenge] = await this.next("the AUTH challenge");
    assert.equal(type, "AUTH");
    const ev = authEvent(key, relayUrl, challenge as string);
    this.send(["AUTH", ev]);
    assert.deepEqual(await this.next("OK for AUTH"), ["OK", ev.id, true, ""]);
  }

  /** Sends a REQ and collects what comes up to its EOSE (or its CLOSED). */
  async req(id: string, ...filters: unknown[]): Promise<{ events: NostrEvent[]; end: unknown[] }> {
    this.send(["REQ", id, ...filters]);
    const events: NostrEvent[] = [];
    for (;;) {
      const message = await this.next(`EOSE for ${id}`);
      if (message[0] === "EVENT" && message[1] === id) events.push(message[2] as NostrEvent);
      else return { events, end: message };
    }
  }

  async close(): Promise<void> {
    if (this.#socket.readyState < WebSocket.CLOSING) this.#socket.close();
    await within(5000, "websocket closes", this.closed);
  }
}

export function authEvent(
  key: Key,
  relayUrl: string,
  challenge: string,
  o: { kind?: number; at?: number } = {},
): NostrEvent {
  return plain(finalizeEvent({
    kind: o.kind ?? 22242,
    created_at: o.at ?? now(),
    tags: [["relay", relayUrl], ["challenge", challenge]],
    content: "",
  }, key.sk));
}

/** Runs fn against a fresh relay (prefix /r/acme unless told) and always closes it. */
export async function withRelay(
  options: StrictRelayOptions,
  fn: (relay: StrictRelay) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay({ prefix: "/r/acme", ...options });
  try {
    await fn(relay);
  } finally {
    await relay.close();
  }
}

/** Runs fn with a websocket open on `url` (the relay's own by default) and always closes it. */
export async function withSocket(
  url: string,
  fn: (ws: WsClient) => Promise<void>,
  client?: Deno.HttpClient,
): Promise<void> {
  const ws = await WsClient.open(url, client);
  try {
    await fn(ws);
  } finally {
    await ws.close();
  }
}

/** Sends `message` and expects `["OK", <its event's id or "">, accepted, reason]`. */
export async function expectOk(ws: WsClient, message: unknown[], accepted: boolean, reason: string) {
  ws.send(message);
  const raw = message[1] as { id?: unknown } | undefined;
  const id = typeof raw?.id === "string" ? raw.id : "";
  assert.deepEqual(await ws.next(`OK for ${reason || "success"}`), ["OK", id, accepted, reason]);
}

/** A raw connection that sent an upgrade request: its answer's head, and the connection. */
export async function rawUpgrade(
  relay: StrictRelay,
  o: { method?: string; path?: string; headers?: Record<string, string> } = {},
): Promise<{ head: string; conn: Deno.Conn; rest: Uint8Array }> {
  const conn = relay.caPem
    ? await Deno.connectTls({ hostname: "127.0.0.1", port: relay.port, caCerts: [relay.caPem] })
    : await Deno.connect({ hostname: "127.0.0.1", port: relay.port });
  const path = o.path ?? new URL(relay.url).pathname;
  const headers = {
    Host: relay.host,
    Upgrade: "websocket",
    Connection: "Upgrade",
    "Sec-WebSocket-Key": btoa(String.fromCharCode(...randomBytes(16))),
    "Sec-WebSocket-Version": "13",
    ...o.headers,
  };
  let text = `${o.method ?? "GET"} ${path} HTTP/1.1\r\n`;
  for (const [k, v] of Object.entries(headers)) text += `${k}: ${v}\r\n`;
  await conn.write(enc.encode(`${text}\r\n`));
  let got = new Uint8Array(0);
  const buf = new Uint8Array(64 * 1024);
  const read = async () => {
    while (!new TextDecoder().decode(got).includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) break;
      got = new Uint8Array([...got, ...buf.subarray(0, n)]);
    }
  };
  await within(5000, "the upgrade's answer", read());
  const text2 = new TextDecoder().decode(got);
  const end = text2.indexOf("\r\n\r\n");
  return { head: text2.slice(0, end), conn, rest: got.subarray(end + 4) };
}

/**
 * Reads what arrives on `conn` for `ms`, then closes it; `ended` when the relay ended the connection
 * first (an EOF, or over TLS a close without close_notify).
 */
export async function readFor(conn: Deno.Conn, ms: number): Promise<{ bytes: Uint8Array; ended: boolean }> {
  const parts: number[] = [];
  const buf = new Uint8Array(64 * 1024);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.close();
  }, ms);
  try {
    for (;;) {
      const n = await conn.read(buf);
      if (n === null) break;
      parts.push(...buf.subarray(0, n));
    }
  } catch {
    // closed by the timer, or cut by the relay
  } finally {
    clearTimeout(timer);
    if (!timedOut) conn.close();
  }
  return { bytes: Uint8Array.from(parts), ended: !timedOut };
}

/** A masked client frame (opcode 0x9 ping, 0x1 text …) with a short payload, as a client must send. */
export function clientFrame(opcode: number, payload: Uint8Array = new Uint8Array()): Uint8Array {
  assert.ok(payload.length < 126);
  const mask = randomBytes(4);
  const frame = new Uint8Array(6 + payload.length);
  frame.set([0x80 | opcode, 0x80 | payload.length, ...mask]);
  payload.forEach((b, i) => (frame[6 + i] = b ^ mask[i % 4]));
  return frame;
}

/** An MCP tools/call of publish_event with a signed event, as tinyagent's facade sends it. */
export async function mcpPublish(relay: StrictRelay, key: Key, event: NostrEvent): Promise<Response> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: {
      name: "publish_event",
      arguments: { event },
      _meta: {
        "io.modelcontextprotocol/protocolVersion": PROTOCOL_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  return await fetch(relay.mcpUrl, {
    method: "POST",
    headers: {
      Authorization: nip98(relay.mcpUrl, body, key),
      "Content-Type": "application/json",
      "MCP-Protocol-Version": PROTOCOL_VERSION,
      "Mcp-Method": "tools/call",
      "Mcp-Name": "publish_event",
    },
    body,
  });
}
