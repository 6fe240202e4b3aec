// The relay's Nostr side (rpc-facts 6): the websocket on any path of the tenant, `POST /events`, room
// attachments and `/media`, around one event store. The core hands it every request first; what it
// does not route goes on to /mcp and /manage/rpc.

import type { NostrEvent } from "nostr-tools/pure";
import { answerUpload, plainError } from "./attachments_endpoint.ts";
import type { NostrContext } from "./context.ts";
import { type GatePolicy, gateRefusal, type Receipt, receipt } from "./event_gates.ts";
import { EventStore } from "./event_store.ts";
import { answerEvents } from "./events_endpoint.ts";
import type { IncomingRequest, Reply } from "./exchange.ts";
import type { Filter } from "./filters.ts";
import { answerMedia } from "./media_endpoint.ts";
import type { Authentication, PayloadRule } from "./nip98.ts";
import { canonical, eventProblem } from "./signed_event.ts";
import type { Attachment, ClientMessage, RecordedRequest, WsMode } from "./types.ts";
import { type WsBinding, WsServer } from "./ws_server.ts";
import { type SessionHost, WsSession } from "./ws_session.ts";

export const DEFAULT_MAX_MESSAGE = 1024 * 1024;
export const DEFAULT_CLOSE_REASON = "blocked: relay access policy changed; subscribe again";

/** What the Nostr side reads of the core. */
export interface NostrSideOptions {
  prefix: string;
  scheme: "http" | "https";
  host: string;
  now(): number;
  authenticate(rec: RecordedRequest, payload: PayloadRule): Authentication;
  membersOnly(): boolean;
  isMember(pubkey: string): boolean;
  readsNeedAuth(): boolean;
  /** The relay's rooms (tests change them at run time). */
  rooms(): ReadonlySet<string>;
  maxMessageBytes?: number;
}

const UPLOAD_RE = /^\/rooms\/([a-z0-9_-]{1,64})\/attachments$/;

function isUpgrade(req: IncomingRequest): boolean {
  // HTTP/2 has no Upgrade: a websocket client always comes over HTTP/1.1.
  return req.httpVersion !== "2" && /(^|,)\s*websocket\s*(,|$)/i.test(req.headers.get("upgrade") ?? "");
}

export class NostrSide implements SessionHost {
  readonly store = new EventStore();
  readonly maxMessageBytes: number;
  readonly clientMessages: ClientMessage[] = [];
  readonly attachments = new Map<string, Attachment>();
  #o: NostrSideOptions;
  #mode: WsMode = "normal";
  #gate?: (event: NostrEvent) => string | undefined;
  #sessions = new Set<WsSession>();
  #ws: WsServer;
  #ctx: NostrContext;

  constructor(options: NostrSideOptions) {
    this.#o = options;
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE;
    this.#ws = new WsServer((socket, binding) => this.#start(socket, binding));
    this.store.onStored((ev) => {
      for (const session of this.#sessions) session.deliver(ev);
    });
    this.#ctx = {
      prefix: options.prefix,
      scheme: options.scheme,
      host: options.host,
      maxMessageBytes: this.maxMessageBytes,
      now: () => options.now(),
      authenticate: (rec, payload) => options.authenticate(rec, payload),
      membersOnly: () => options.membersOnly(),
      isMember: (pubkey) => options.isMember(pubkey),
      rooms: () => options.rooms(),
      publish: (ev) => this.publish(ev),
      attachments: this.attachments,
    };
  }

  /** Every stored event, in arrival order. */
  get events(): NostrEvent[] {
    return this.store.events;
  }
  get wsConnections(): number {
    return this.#ws.accepted;
  }
  get openWebSockets(): number {
    return this.#ws.open;
  }

  /** The answer for a request of the Nostr side, or undefined when it is not one. */
  route(req: IncomingRequest, rec: RecordedRequest): Reply | undefined {
    const path = this.#tenantPath(rec.path);
    if (isUpgrade(req)) {
      return path === undefined ? plainError("relay not found", 404) : this.#upgrade(req, rec);
    }
    if (path === undefined) return undefined;
    if (path === "/events") return answerEvents(this.#ctx, req, rec);
    const upload = UPLOAD_RE.exec(path);
    if (upload) return answerUpload(this.#ctx, req, rec, upload[1]);
    if (path.startsWith("/media/")) return answerMedia(this.#ctx, req, rec, path.slice("/media/".length));
    return undefined;
  }

  /** Whether a route of this side takes bodies past maxBodyBytes (it applies its own limits). */
  ownsBody(req: IncomingRequest): boolean {
    const q = req.target.indexOf("?");
    const path = this.#tenantPath(q < 0 ? req.target : req.target.slice(0, q));
    return path !== undefined && (path === "/events" || UPLOAD_RE.test(path));
  }

  // The SessionHost side, for each connection's session.
  now(): number {
    return this.#o.now();
  }
  readRefusal(authed: ReadonlySet<string>): string | undefined {
    // The real relay has one read policy (auth or members); with both set, AUTH is asked for first.
    if (this.#o.readsNeedAuth() && authed.size === 0) return "auth-required: this relay requires AUTH";
    if (this.#o.membersOnly() && ![...authed].some((pubkey) => this.#o.isMember(pubkey))) {
      return "auth-required: this relay is members-only";
    }
    return undefined;
  }
  stored(filters: Filter[]): NostrEvent[] {
    return this.store.query(filters);
  }
  publish(ev: NostrEvent, authRefusal?: string): Receipt {
    const policy: GatePolicy = {
      rooms: this.#o.rooms(),
      membersOnly: this.#o.membersOnly(),
      isMember: (pubkey) => this.#o.isMember(pubkey),
      now: () => this.#o.now(),
      hook: this.#gate,
    };
    const refused = gateRefusal(ev, policy, authRefusal);
    if (refused) return receipt(ev, false, refused);
    const fresh = this.store.add(canonical(ev));
    return receipt(ev, true, fresh ? "" : "duplicate: already have this event");
  }
  record(message: ClientMessage): void {
    this.clientMessages.push(message);
  }
  ended(session: WsSession): void {
    this.#sessions.delete(session);
  }

  /** Stores an event as someone else's: validity checked (throws), no gates; false for a duplicate. */
  inject(event: NostrEvent): boolean {
    const problem = eventProblem(event);
    if (problem) throw new Error(`strict relay: inject: ${problem}`);
    return this.store.add(canonical(event));
  }
  /**
   * Sends an event to every live subscription it matches as it is, unchecked and never stored: a relay
   * passing on a forgery, or a message past the client's bound that must not come back with the history.
   */
  pass(event: NostrEvent): void {
    for (const session of this.#sessions) session.deliver(event);
  }
  closeSubscriptions(reason = DEFAULT_CLOSE_REASON): number {
    let closed = 0;
    for (const session of this.#sessions) closed += session.closeSubscriptions(reason);
    return closed;
  }
  wsBehaviour(mode: WsMode): void {
    this.#mode = mode;
  }
  trickleWebSockets(): number {
    return this.#ws.trickleOpen();
  }
  setEventGate(fn?: (event: NostrEvent) => string | undefined): void {
    this.#gate = fn;
  }

  async close(): Promise<void> {
    await this.#ws.close();
  }

  /** The path inside the tenant ("" for the prefix itself), or undefined when outside it. */
  #tenantPath(path: string): string | undefined {
    const prefix = this.#o.prefix;
    if (prefix === "") return path;
    if (path === prefix) return "";
    return path.startsWith(`${prefix}/`) ? path.slice(prefix.length) : undefined;
  }

  #upgrade(req: IncomingRequest, rec: RecordedRequest): Reply {
    if (req.method !== "GET") return plainError("method not allowed", 405);
    if (this.#mode === "refuse") return plainError("relay is starting", 503);
    const scheme = this.#o.scheme === "https" ? "wss" : "ws";
    const host = req.headers.get("host") ?? this.#o.host;
    const binding: WsBinding = {
      connection: rec.connection,
      relayUrl: `${scheme}://${host}${this.#o.prefix || "/"}`,
      mode: this.#mode,
    };
    return { websocket: this.#ws.splice(binding) };
  }

  #start(socket: WebSocket, binding: WsBinding): void {
    // A stalled or trickling connection gets no session: the splice passes nothing of it on anyway.
    if (binding.mode === "stall" || binding.mode === "trickle") {
      socket.onerror = () => {};
      return;
    }
    this.#sessions.add(new WsSession(socket, this, binding));
  }
}
