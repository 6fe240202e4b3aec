// The strict relay's public vocabulary: what tests configure, script and read back.

import type { NostrEvent } from "nostr-tools/pure";
import type { Seed } from "./content_types.ts";

export type { NostrEvent };

/** The only MCP revision the relay serves. */
export const PROTOCOL_VERSION = "2026-07-28";
/** The serverInfo carried in every result's `_meta`. */
export const SERVER_INFO = { name: "tinyrelay", version: "0.1.0-dev" } as const;
/** The NIP-98 challenge sent with every 401. */
export const WWW_AUTHENTICATE = 'Nostr realm="tiny"';

export interface ToolDef {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

/** An MCP CallToolResult object. */
export type ToolResult = Record<string, unknown>;

/** What a tool handler sees: the NIP-98 signer, the call's arguments and the recorded request. */
export interface CallContext {
  pubkey: string;
  args: Record<string, unknown>;
  tool: string;
  request: RecordedRequest;
}

/**
 * A scripted raw HTTP answer, or a fault. Tool handlers may return one instead of a ToolResult,
 * setBrowsegrant functions instead of a result, and relay.script() queues them.
 */
export type Fault =
  /** An arbitrary answer; contentType defaults to application/json when a body is given. */
  | { status: number; body?: string | Uint8Array; headers?: Record<string, string>; contentType?: string }
  /** Close the socket without writing anything (a "close" cut: see CutHow). */
  | { drop: true }
  /** Announce a Content-Length larger than what is sent, send part of the body, then close. */
  | { resetMidBody: true; status?: number }
  /** Never answer: the socket stays open until the client gives up or relay.close(). */
  | { hang: true }
  /** A JSON-RPC error body carrying the request's id (null when it has none); status defaults to 400. */
  | { jsonrpcError: { code: number; message: string; data?: unknown }; status?: number }
  /**
   * 200 application/json whose body is a JSON string of exactly this many bytes (at least 2),
   * streamed; with `chunked` it is sent without a Content-Length so only a streaming bound can stop it.
   */
  | { hugeBodyBytes: number; chunked?: boolean }
  /**
   * The request has run (returned by a handler: its effects happened; queued by script(): the request
   * is answered as usual, token admitted and tool run, first), then its connection dies before any
   * byte of the answer, as `how` says (default "fin"; see CutHow). RecordedRequest.cut says what was done.
   */
  | { cutAfterRun: true; how?: CutHow };

/**
 * How the relay kills a connection. Never a GOAWAY on HTTP/2: the socket just goes.
 * - "close": as a server closing its socket: over TLS close_notify then FIN; plain HTTP a FIN.
 * - "fin": as a process that died: a FIN, over TLS without close_notify.
 * - "rst": a TCP RST (TLS only: Deno.Conn cannot reset, so plain HTTP sends a FIN and records "fin").
 * Deno 2.9.6's fetch, on a reused connection with a Uint8Array body, resends the request after "close"
 * on HTTP/1.1 (TLS or not), after "fin" on plain HTTP/1.1 only, and after "rst" on HTTP/1.1 and HTTP/2.
 */
export type CutHow = "close" | "fin" | "rst";

export type ToolHandler = (ctx: CallContext) => ToolResult | Fault | Promise<ToolResult | Fault>;

/** A browsegrant answer: the `result` object, or a Fault. */
export type BrowsegrantFn = (pubkey: string, params: unknown[]) => unknown | Fault;

export interface RecordedRequest {
  method: string;
  /** The request target's path, without the query. */
  path: string;
  /** The full request URL as the relay sees it: http://<Host header><target>. */
  url: string;
  headers: Headers;
  /** The body bytes as received (only the first maxBodyBytes when the body was larger). */
  body: Uint8Array;
  /** How many body bytes the client sent, including any beyond maxBodyBytes. */
  bodySize: number;
  bodyText: string;
  /** The body parsed as JSON, when it parses. */
  json?: unknown;
  /** The decoded NIP-98 event when one was present and parsed (whether or not it was valid). */
  auth?: NostrEvent;
  /** What the relay answered; undefined for drop and hang. */
  status?: number;
  /** Date.now() when the request was fully read. */
  receivedAt: number;
  /** Which client connection it came on: 1 for the first the relay accepted, and so on. */
  connection: number;
  /** "1.1" or "1.0" (HTTP/1.x), or "2". */
  httpVersion: string;
  /** Set when the relay cut the connection instead of answering (drop, cutAfterRun): how. */
  cut?: CutHow;
}

export interface StrictRelayOptions {
  /** Tenant path prefix such as "/r/acme"; endpoints are then <prefix>/mcp and <prefix>/manage/rpc. */
  prefix?: string;
  /** Replaces the default tool table. */
  tools?: ToolDef[];
  /** Appended to the table. */
  extraTools?: ToolDef[];
  /**
   * Members-only (reads `members`, writes `allowlist`): a key that is neither a member, nor an agent,
   * nor the owner reads nothing (its read tools answer `auth-required: this relay is members-only`)
   * and writes nothing; /mcp still answers it (tools/list included). Default false.
   */
  membersOnly?: boolean;
  /** Hex pubkeys of the relay's members; with membersOnly, only they may hold the default grant. */
  members?: string[];
  /** Unix seconds, for the ±60 s token window and templates (default Date.now()/1000). */
  now?: () => number;
  /**
   * Reuse connections (default false: every answer carries `Connection: close`). With reuse,
   * Deno's fetch silently retries a request whose reused connection is dropped before any byte of
   * the answer, so a `drop` fault is only observable without it. HTTP/1.1 only: HTTP/2 always keeps
   * its connection.
   */
  keepAlive?: boolean;
  /** The port to listen on, on 127.0.0.1 (default 0: one the OS picks). */
  port?: number;
  /**
   * The grant every key but the owner holds (one a test gives it with setGrant aside), as a relay
   * whose operator granted it: default room general, the kinds tinyagent's write tools publish, no
   * repositories, 60 events a minute. null: no default grant, keys are members or nobody.
   */
  grantScope?: GrantScope | null;
  /**
   * Serve HTTPS with the test certificate (tests/support/tls.ts: a test CA, SANs 127.0.0.1,
   * 127.0.0.2 and localhost). Default false: plain HTTP/1.1.
   */
  tls?: boolean;
  /**
   * With tls: offer `h2` and `http/1.1` by ALPN and serve HTTP/2 to clients that pick h2 (HTTP/1.1 to
   * the others). Default false: only `http/1.1` is offered. Needs tls.
   */
  http2?: boolean;
  /**
   * Close a connection once it has been idle this long, in ms (the real relay: 60 s). HTTP/1.1:
   * no request begun since the last answer; the socket is closed (over TLS, close_notify then FIN).
   * HTTP/2: no stream in flight; GOAWAY(NO_ERROR, last stream) then close. Default: never.
   */
  idleTimeoutMs?: number;
  /** The relay's rooms: `h` tags and attachment routes naming another are refused (default ["general"]). */
  rooms?: string[];
  /** Websocket reads need AUTH: `CLOSED auth-required: this relay requires AUTH` until then. */
  readsNeedAuth?: boolean;
  /**
   * The operator's --max-message-bytes: a larger /mcp or /manage/rpc body is 413, a larger websocket
   * message a NOTICE `error: message too large`, a larger /events body a 400 `http: request body too
   * large`. Default 0, as the relay's: /mcp then takes 1 MiB, the websocket and /events any size.
   */
  maxMessageBytes?: number;
}

/**
 * How websocket connections opened from now on behave (StrictRelay.wsBehaviour):
 * - "normal": the challenge first, then NIP-01 and NIP-42 as the real relay (rpc-facts 6.2).
 * - "stall": the upgrade completes (101), then nothing is sent or answered, not even a ping's pong.
 * - "trickle": the upgrade completes, then one text frame a byte every 50 ms, never whole in a test's
 *   time; nothing else is sent or answered (a pong cannot come inside a frame).
 * - "oversized": after the challenge, one 2 MiB text message (a NOTICE), then as normal.
 * - "auth-false": every AUTH is answered `OK` false `restricted: not allowed`.
 * - "no-challenge": an open relay: no AUTH is sent, reads (and writes) are served without it.
 * - "refuse": the upgrade is answered 503 `relay is starting`.
 */
export type WsMode = "normal" | "stall" | "trickle" | "oversized" | "auth-false" | "no-challenge" | "refuse";

/** A message a websocket client sent. */
export interface ClientMessage {
  /** The client connection it came on, as in RecordedRequest.connection. */
  connection: number;
  /** Date.now() when it arrived. */
  at: number;
  /** As sent: text, or the bytes of a binary message. */
  data: string | Uint8Array;
  /** The text parsed as JSON, when it parses. */
  message?: unknown;
}

/** An uploaded room attachment (StrictRelay.attachments, by SHA-256). */
export interface Attachment {
  bytes: Uint8Array;
  /** The stored media type. */
  type: string;
  /** Every room it was uploaded to. */
  rooms: Set<string>;
  /** The file name of the latest upload. */
  filename: string;
  /** Unix seconds of the first upload. */
  uploaded: number;
}

/** A grant's state besides its scope (StrictRelay.setGrant). */
export interface GrantState {
  paused?: boolean;
  revoked?: boolean;
  /** Unix seconds. */
  expires?: number;
}

/** What an agent grant covers (kind 30392's room, k, repo, jobs and rate tags). */
export interface GrantScope {
  rooms: string[];
  kinds: number[];
  /** `<owner hex>:<identifier>` to its level; none: no repository events. */
  repos?: Record<string, "propose" | "read" | "maintain">;
  jobs?: "request" | "serve" | "both";
  /** Events per minute, 1 to 600 (default 60). */
  rate?: number;
}

export interface StrictRelay {
  /** Base URL to hand to `tinyagent --relay`: "http://127.0.0.1:<port>" + prefix ("https://" with tls). */
  url: string;
  /** "http://127.0.0.1:<port>" ("https://" with tls) */
  origin: string;
  /** "127.0.0.1:<port>" */
  host: string;
  port: number;
  /** <url>/mcp */
  mcpUrl: string;
  /** <url>/manage/rpc */
  manageUrl: string;
  /** Every request received, in order: /mcp, /manage/rpc and anything else. */
  requests: RecordedRequest[];
  /** The highest number of requests being handled at once (to prove a client serializes). */
  readonly maxConcurrent: number;
  /** Requests being handled right now (hung ones count until their socket closes). */
  readonly inFlight: number;
  /** Every event accepted by a publishing write tool, in order (duplicates once). */
  published: NostrEvent[];
  /** Membership for membersOnly; mutable. */
  members: Set<string>;
  /** Toggle the members-only refusal at run time. */
  membersOnly: boolean;
  /** The current tool table. */
  readonly tools: ToolDef[];
  /** Override one tool's behaviour (the tool must be in the table to be callable). */
  setTool(name: string, handler: ToolHandler): void;
  /** Replace the table at run time. */
  setTable(tools: ToolDef[]): void;
  /** One-shot answers for the next N requests to /mcp or /manage/rpc, consumed before any check. */
  script(...faults: Fault[]): void;
  /** Every subsequent request waits this long before being answered (0 to clear). */
  delay(ms: number): void;
  /** The browsegrant result (or a Fault) for a signer and its params, in place of the grants'. */
  setBrowsegrant(fn: BrowsegrantFn): void;
  /**
   * Gives `pubkey` a grant of its own over `scope` (active for 30 days unless `state` says otherwise),
   * or none at all (null), or the default grant again (undefined). The gates and browsegrant follow it.
   */
  setGrant(pubkey: string, scope: GrantScope | null | undefined, state?: GrantState): void;
  /** "http" or "https". */
  readonly scheme: "http" | "https";
  /** Whether h2 is offered (tls with http2). */
  readonly http2: boolean;
  /** With tls: the test CA's PEM, to trust in-process (`Deno.createHttpClient({ caCerts: [caPem] })`). */
  readonly caPem?: string;
  /** With tls: the test CA's file, for `DENO_CERT=<caFile>` in a child process's environment. */
  readonly caFile?: string;
  /** How many client (TCP) connections the relay has accepted so far. */
  readonly connections: number;
  /** Client connections open now. */
  readonly openConnections: number;
  /**
   * Destroys every open client connection at once, whatever it is doing, as `how` says (default
   * "fin": over TLS without close_notify; never a GOAWAY), websockets included. Returns how many were cut.
   */
  cutConnections(how?: CutHow): number;
  /**
   * Stops listening and cuts every connection ("fin"), websockets too: the relay goes away. Over TLS
   * the gate stops listening. All state is kept.
   */
  suspend(): Promise<void>;
  /** Listens again on the same port (plain and TLS), with all state kept. */
  resume(): Promise<void>;
  /** Stops listening and closes every open socket (including hung ones and websockets). */
  close(): Promise<void>;

  // The Nostr side (rpc-facts 6): the websocket, <prefix>/events, room attachments, <prefix>/media.

  /** "ws://127.0.0.1:<port>" + prefix ("wss://" with tls). */
  wsUrl: string;
  /**
   * Every event stored, in arrival order (duplicates once; an ephemeral kind, never held, each time
   * it comes): from /events, the websocket, the MCP publishing tools (which also keep `published`)
   * and inject().
   */
  readonly events: NostrEvent[];
  /**
   * Stores a signed event as someone else's (validity checked: throws when invalid; no gates) and
   * delivers it live; false when it was already stored.
   */
  inject(event: NostrEvent): boolean;
  /**
   * Sends an event to the live subscriptions it matches as it is: unchecked, never stored (a relay
   * passing on a forgery, or a message past a client's bound that must not come back as history).
   */
  pass(event: NostrEvent): void;
  /** Content mode (content_types.ts): from now on the read tools answer from the seeded content. */
  seed(content: Seed): void;
  /** The relay's rooms; mutable. */
  rooms: Set<string>;
  /** Toggle the websocket's AUTH-before-reads gate at run time. */
  readsNeedAuth: boolean;
  /**
   * Whether /files/raw honours Range (true): false serves every file whole, as the real relay does
   * from a store it cannot seek in.
   */
  filesSeekable: boolean;
  /**
   * A test's write gate, after the relay's own (/events and the websocket): a returned reason refuses
   * the event, e.g. "restricted: agent grant does not cover kind 1". undefined removes it.
   */
  setEventGate(fn?: (event: NostrEvent) => string | undefined): void;
  /**
   * A CLOSED with `reason` (default "blocked: relay access policy changed; subscribe again") for every
   * live subscription of every connection, as on a membership change; how many were closed.
   */
  closeSubscriptions(reason?: string): number;
  /** How websocket connections opened from now on behave (default "normal"). */
  wsBehaviour(mode: WsMode): void;
  /**
   * Every open websocket connection passes the relay's frames up to the next frame's end, then
   * trickles a frame as "trickle" does, until it is closed; how many were told to.
   */
  trickleWebSockets(): number;
  /** Every message websocket clients sent, in order. */
  readonly clientMessages: ClientMessage[];
  /** Websocket upgrades accepted so far (a "refuse" or a bad handshake is not one). */
  readonly wsConnections: number;
  /** Accepted websocket connections whose client connection is still open ("stall" ones included). */
  readonly openWebSockets: number;
  /** Uploaded room attachments, by SHA-256 (hex). */
  readonly attachments: Map<string, Attachment>;
}
