// The relay's Nostr side (rpc-facts 6): the websocket on any path of the tenant, `POST /events`, room
// attachments and `/media`, around one event store. The core hands it every request first; what it
// does not route goes on to /mcp and /manage/rpc.

import type { NostrEvent } from "nostr-tools/pure";
import { answerUpload, plainError } from "./attachments_endpoint.ts";
import type { NostrContext } from "./context.ts";
import { type GateContext, gateRefusal, type Receipt, receipt } from "./event_gates.ts";
import { EventStore } from "./event_store.ts";
import { answerEvents } from "./events_endpoint.ts";
import type { IncomingRequest, Reply } from "./exchange.ts";
import type { Filter } from "./filters.ts";
import { answerFileDownload } from "./files_endpoint.ts";
import { answerMedia } from "./media_endpoint.ts";
import type { UploadDeps } from "./room_uploads.ts";
import type { Authentication, PayloadRule } from "./nip98.ts";
import { canonical, eventProblem } from "./signed_event.ts";
import type { Attachment, ClientMessage, RecordedRequest, WsMode } from "./types.ts";
import { type WsBinding, WsServer } from "./ws_server.ts";
import { type SessionHost, WsSession } from "./ws_session.ts";

/** No limit: the relay's --max-message-bytes defaults to 0, which sets none on the websocket or /events. */
export const NO_MESSAGE_LIMIT = Number.POSITIVE_INFINITY;
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
  /** What the write gates read of the relay, for a write whose door authenticated `session`. */
  gates(session: ReadonlySet<string>): GateContext;
  uploads: UploadDeps;
  /** The relay's one event store. */
  store: EventStore;
  /** The read gate for one caller ("" for nobody). */
  readRefusal(pubkey: string): string | undefined;
  file(sha256: string): { bytes: Uint8Array; type: string; uploaded: number } | undefined;
  seekable(): boolean;
  /** Told of each event accepted and newly stored (a room joined, a room created). */
  accepted?(ev: NostrEvent): void;
  /** The operator's --max-message-bytes (0 or none: no limit on the websocket or /events). */
  maxMessageBytes?: number;
}

const UPLOAD_RE = /^\/rooms\/([a-z0-9_-]{1,64})\/attachments$/;

function isUpgrade(req: IncomingRequest): boolean {
  // HTTP/2 has no Upgrade: a websocket client always comes over HTTP/1.1.
  return req.httpVersion !== "2" && /(^|,)\s*websocket\s*(,|$)/i.test(req.headers.get("upgrade") ?? "");
}

export class NostrSide implements SessionHost {
  readonly store: EventStore;
  readonly maxMessageBytes: number;
  readonly clientMessages: ClientMessage[] = [];
  readonly attachments: Map<string, Attachment>;
  #o: NostrSideOptions;
  #mode: WsMode = "normal";
  #gate?: (event: NostrEvent) => string | undefined;
  #sessions = new Set<WsSession>();
  #ws: WsServer;
  #ctx: NostrContext;

  constructor(options: NostrSideOptions) {
    this.#o = options;
    this.maxMessageBytes = options.maxMessageBytes || NO_MESSAGE_LIMIT;
    this.attachments = options.uploads.attachments;
    this.store = options.store;
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
      publish: (ev, session) => this.publish(ev, session),
      attachments: this.attachments,
      uploads: options.uploads,
      readRefusal: (pubkey) => options.readRefusal(pubkey),
      file: (sha256) => options.file(sha256),
      seekable: () => options.seekable(),
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
    if (path === "/files/raw") return answerFileDownload(this.#ctx, req, rec);
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
  stored(filters: Filter[], authed: ReadonlySet<string>): NostrEvent[] {
    return this.store.query(filters, (ev) => this.visible(ev, authed));
  }
  more(filters: Filter[], authed: ReadonlySet<string>): boolean {
    return this.store.more(filters, (ev) => this.visible(ev, authed));
  }
  /** A members-only room's events are read only by a key with a role in it. */
  visible(ev: NostrEvent, authed: ReadonlySet<string>): boolean {
    const id = ev.kind === 445 ? undefined : ev.tags.find((t) => t[0] === "h")?.[1];
    const room = id === undefined ? undefined : this.#o.uploads.room(id);
    return room?.access !== "members" || [...authed].some((pubkey) => room.roleOf(pubkey) !== undefined);
  }
  membersRoom(room: string): boolean {
    return this.#o.uploads.room(room)?.access === "members";
  }
  /**
   * Gates and stores a signed event that came by a door which authenticated `session`: the one publish
   * path of the websocket, POST /events and /mcp's write tools. A duplicate is accepted, and says so.
   */
  publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt {
    const refused = gateRefusal(ev, this.#o.gates(session)) ?? this.#gate?.(ev);
    if (refused) return receipt(ev, false, refused);
    const newer = this.#newerVersion(ev);
    if (newer) return receipt(ev, false, newer);
    const fresh = this.store.add(canonical(ev));
    if (fresh) this.#o.accepted?.(ev);
    return receipt(ev, true, fresh ? "" : "duplicate: already have this event");
  }
  /** A replaceable or addressable event older than the stored version is refused, as storage refuses it. */
  #newerVersion(ev: NostrEvent): string | undefined {
    const replaceable = ev.kind === 0 || ev.kind === 3 || (ev.kind >= 10000 && ev.kind < 20000);
    const addressable = ev.kind >= 30000 && ev.kind < 40000;
    if (!replaceable && !addressable) return undefined;
    const d = ev.tags.find((t) => t[0] === "d")?.[1] ?? "";
    const stored = this.store.events.find((e) =>
      e.id !== ev.id && e.kind === ev.kind && e.pubkey === ev.pubkey &&
      (replaceable || (e.tags.find((t) => t[0] === "d")?.[1] ?? "") === d)
    );
    return stored && stored.created_at > ev.created_at ? "duplicate: a newer version exists" : undefined;
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
