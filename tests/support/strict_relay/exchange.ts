// The seam between a front end and the relay core. A front end (HTTP/1.1 in http1_server.ts,
// HTTP/2 in http2_server.ts, either behind TLS in tls_gate.ts) parses a request into an
// IncomingRequest and hands it to the core, which answers with an Exchange; the front end then
// writes its Answer in its own framing. Nothing here knows how bytes were framed on the wire.

import type { CutHow, Fault, RecordedRequest } from "./types.ts";
import { isRecord } from "./values.ts";

/** A request as a front end parsed it. */
export interface IncomingRequest {
  method: string;
  /** The request target: path and query. */
  target: string;
  headers: Headers;
  /** The body bytes (empty when tooLarge: such a body is read to its end but not kept). */
  body: Uint8Array;
  /** How many body bytes the client sent. */
  bodySize: number;
  tooLarge: boolean;
  /** The client connection's number (1 for the first accepted), when the front end knows it. */
  connection?: number;
  /** "1.1", "1.0" or "2". */
  httpVersion?: string;
}

/**
 * An accepted websocket upgrade (HTTP/1.1 only): the front end splices the client's connection to an
 * internal websocket server, so Deno's own implementation does the framing (ws_splice.ts).
 */
export interface WsSplice {
  /** The internal websocket server's port on 127.0.0.1. */
  port: number;
  /** Pass back only the head of the upgrade's answer, then nothing either way (wsBehaviour "stall"). */
  stall: boolean;
  /** Pass back only the head of the upgrade's answer, then one frame trickled (wsBehaviour "trickle"). */
  trickle: boolean;
  /** Resolves when this connection, open, is to trickle a frame from its next frame boundary on. */
  trickleAsked: Promise<void>;
  /** The hop to `port` is connected from `localPort`; nothing has been written on it yet. */
  opened(localPort: number): void;
  /** The splice is over: the client connection or the hop is gone. */
  ended(): void;
}

/**
 * What the core answers with before it is written. Every answer, ordinary or not, is one of the
 * Fault shapes, so a scripted fault and a real answer take the same path; an accepted websocket
 * upgrade is the one exception.
 */
export type Reply = Fault | { websocket: WsSplice };

/** A header list in the order it is written; framing headers (length, connection) are the front end's. */
export type HeaderList = [string, string][];

/** An answer ready for any framing. */
export type Answer =
  /** A complete answer. */
  | { kind: "reply"; status: number; headers: HeaderList; body: Uint8Array }
  /** Close the connection without writing anything. */
  | { kind: "drop" }
  /** Write nothing and keep the connection until the client gives up or the relay closes. */
  | { kind: "hang" }
  /** Announce `announced` body bytes, write only `partial`, then cut the connection. */
  | { kind: "reset"; status: number; headers: HeaderList; partial: Uint8Array; announced: number }
  /** 200 application/json: a JSON string of exactly `bytes` bytes, without a length when `chunked`. */
  | { kind: "huge"; bytes: number; chunked: boolean }
  /** Kill the connection without writing anything, as `how` says. */
  | { kind: "cut"; how: CutHow }
  /** Splice the connection to the internal websocket server (HTTP/1.1 only). */
  | { kind: "websocket"; splice: WsSplice };

/** One request handled by the core. */
export interface Exchange {
  /** The request as tests read it back; `status` is already set for answers that write one. */
  record: RecordedRequest;
  answer: Answer;
  /**
   * Ends the request's time in flight. Call it just before the answer's first byte leaves (so a
   * serializing client is never seen overlapping) and again when done; later calls do nothing.
   */
  release(): void;
}

/** A front end: something that feeds the core requests, owns client connections and can be closed. */
export interface FrontEnd {
  /** Client connections accepted so far. */
  readonly connections: number;
  /** Client connections open now. */
  readonly openConnections: number;
  /** Kills every open client connection; returns how many. */
  cutAll(how: CutHow): number;
  /** Stops listening and cuts every connection; resume() listens again on the same port. */
  suspend(): void;
  resume(): void | Promise<void>;
  close(): Promise<void>;
}

/** The core as a front end sees it. */
export type RequestHandler = (request: IncomingRequest) => Promise<Exchange>;

const encoder = new TextEncoder();

export function json(status: number, value: unknown, headers: Record<string, string> = {}): Reply {
  return { status, body: JSON.stringify(value), headers, contentType: "application/json" };
}

export function rpcError(status: number, id: unknown, code: number, message: string, data?: unknown): Reply {
  const error: Record<string, unknown> = { code, message };
  if (data !== undefined) error.data = data;
  return json(status, { jsonrpc: "2.0", id: id ?? null, error });
}

/** The JSON-RPC id of a recorded request, or null when it has no usable one. */
export function rpcId(rec: RecordedRequest): string | number | null {
  const id = isRecord(rec.json) ? rec.json.id : undefined;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** Resolves a Reply into an Answer for the request it answers. */
export function toAnswer(reply: Reply, rec: RecordedRequest): Answer {
  if ("websocket" in reply) return { kind: "websocket", splice: reply.websocket };
  if ("drop" in reply) return { kind: "drop" };
  if ("hang" in reply) return { kind: "hang" };
  if ("cutAfterRun" in reply) return { kind: "cut", how: reply.how ?? "fin" };
  if ("resetMidBody" in reply) {
    const partial = encoder.encode(
      `{"jsonrpc":"2.0","id":${JSON.stringify(rpcId(rec))},"result":{"content":[{"type":"text","text":"`,
    );
    const headers: HeaderList = [["Content-Type", "application/json"]];
    return { kind: "reset", status: reply.status ?? 200, headers, partial, announced: partial.length + 4096 };
  }
  if ("hugeBodyBytes" in reply) {
    return { kind: "huge", bytes: Math.max(2, Math.floor(reply.hugeBodyBytes)), chunked: !!reply.chunked };
  }
  if ("jsonrpcError" in reply) {
    const { code, message, data } = reply.jsonrpcError;
    reply = rpcError(reply.status ?? 400, rpcId(rec), code, message, data);
  }
  const raw = reply as Extract<Fault, { status: number; body?: unknown }>;
  const body = typeof raw.body === "string" ? encoder.encode(raw.body) : raw.body ?? new Uint8Array();
  const headers: HeaderList = [];
  const given = Object.entries(raw.headers ?? {});
  const hasType = given.some(([k]) => k.toLowerCase() === "content-type");
  const type = raw.contentType ?? (body.length && !hasType ? "application/json" : undefined);
  if (type) headers.push(["Content-Type", type]);
  for (const [k, v] of given) {
    if (k.toLowerCase() !== "content-length" && k.toLowerCase() !== "connection") headers.push([k, v]);
  }
  return { kind: "reply", status: raw.status, headers, body };
}

/** The status an answer writes, if any. */
export function statusOf(answer: Answer): number | undefined {
  if (answer.kind === "reply" || answer.kind === "reset") return answer.status;
  if (answer.kind === "websocket") return 101;
  return answer.kind === "huge" ? 200 : undefined;
}
