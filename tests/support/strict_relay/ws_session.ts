// One websocket connection's NIP-01 and NIP-42 conversation, as the real relay holds it (rpc-facts
// 6.2, tinyrelay's relay.go): the unprompted challenge, AUTH, REQ (history newest first, EOSE with its
// hints, then live events), CLOSE, EVENT, COUNT and NIP-77's NEG-* as a relay that serves neither, and
// the NOTICE for every message it cannot take. The socket is Deno's own (ws_server.ts).

import type { NostrEvent } from "nostr-tools/pure";
import { bytesToHex, randomBytes } from "@noble/hashes/utils.js";
import type { Receipt } from "./event_gates.ts";
import { type Filter, matches, parseFilter } from "./filters.ts";
import { checkAuth } from "./nip42.ts";
import { canonical, eventProblem } from "./signed_event.ts";
import type { ClientMessage, WsMode } from "./types.ts";
import { isRecord } from "./values.ts";

/** How large the `oversized` behaviour's one message is. */
const OVERSIZED_BYTES = 2 * 1024 * 1024;
const MAX_SUB_ID = 64;

/** What a session needs of the relay. */
export interface SessionHost {
  /** Unix seconds. */
  now(): number;
  readonly maxMessageBytes: number;
  /** The read gate's CLOSED reason for a connection authenticated as `authed`, if it refuses. */
  readRefusal(authed: ReadonlySet<string>): string | undefined;
  /** The stored events a REQ's filters select that its connection may read, newest first. */
  stored(filters: Filter[], authed: ReadonlySet<string>): NostrEvent[];
  /** Gates and stores a complete signed event published by a connection authenticated as `session`. */
  publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt;
  /** Whether a history was cut short by a filter's limit. */
  more(filters: Filter[], authed: ReadonlySet<string>): boolean;
  /** Whether a connection authenticated as `authed` may read the event (a members-only room's). */
  visible(ev: NostrEvent, authed: ReadonlySet<string>): boolean;
  /** Whether `room` is a live members-only room (a reader should AUTH to see it). */
  membersRoom(room: string): boolean;
  record(message: ClientMessage): void;
  /** The session is over (its socket closed). */
  ended(session: WsSession): void;
}

/** Who the session is talking to. */
export interface ConnectionInfo {
  /** The client connection's number, as in RecordedRequest.connection. */
  connection: number;
  /** The connection's own URL (ws or wss, its Host header, the tenant prefix): what AUTH must name. */
  relayUrl: string;
  mode: WsMode;
}

const encoder = new TextEncoder();

/** A subscription id as the relay takes one: a string of 1 to 64 bytes. */
function goodSubId(id: unknown): id is string {
  return typeof id === "string" && id !== "" && encoder.encode(id).length <= MAX_SUB_ID;
}

/** NIP-77's message: a string Go's hex.DecodeString takes (pairs of hex digits, either case). */
function isHexMessage(v: unknown): boolean {
  // null decodes as "", which is hex for no bytes at all.
  return v === null || (typeof v === "string" && /^(?:[0-9a-fA-F]{2})*$/.test(v));
}

export class WsSession {
  #socket: WebSocket;
  #host: SessionHost;
  #info: ConnectionInfo;
  #challenge?: string;
  #authed = new Set<string>();
  #subs = new Map<string, Filter[]>();
  /** While this session's own EVENT is being published: its live deliveries, sent after the OK. */
  #held?: unknown[][];

  constructor(socket: WebSocket, host: SessionHost, info: ConnectionInfo) {
    this.#socket = socket;
    this.#host = host;
    this.#info = info;
    socket.binaryType = "arraybuffer";
    socket.onopen = () => this.#opened();
    socket.onmessage = (e) => this.#received(e.data);
    socket.onerror = () => {};
    socket.onclose = () => {
      this.#subs.clear();
      host.ended(this);
    };
  }

  /** Sends a matching live event to every subscription it matches (after the OK, when it is ours). */
  deliver(ev: NostrEvent): void {
    for (const [id, filters] of this.#subs) {
      if (!filters.some((f) => matches(f, ev)) || !this.#host.visible(ev, this.#authed)) continue;
      if (this.#held) this.#held.push(["EVENT", id, ev]);
      else this.#send(["EVENT", id, ev]);
    }
  }

  /** A CLOSED for every live subscription, which ends them; how many. */
  closeSubscriptions(reason: string): number {
    const ids = [...this.#subs.keys()];
    this.#subs.clear();
    for (const id of ids) this.#send(["CLOSED", id, reason]);
    return ids.length;
  }

  #send(message: unknown[] | string): void {
    if (this.#socket.readyState !== WebSocket.OPEN) return;
    try {
      this.#socket.send(typeof message === "string" ? message : JSON.stringify(message));
    } catch {
      // closed under us
    }
  }

  #notice(text: string): void {
    this.#send(["NOTICE", text]);
  }

  #opened(): void {
    if (this.#info.mode === "no-challenge") return;
    this.#challenge = bytesToHex(randomBytes(16));
    this.#send(["AUTH", this.#challenge]);
    if (this.#info.mode === "oversized") {
      // A valid NOTICE of exactly OVERSIZED_BYTES bytes.
      const frame = '["NOTICE",""]';
      this.#send(`["NOTICE","${"x".repeat(OVERSIZED_BYTES - frame.length)}"]`);
    }
  }

  #received(data: unknown): void {
    const text = typeof data === "string" ? data : undefined;
    const record: ClientMessage = {
      connection: this.#info.connection,
      at: Date.now(),
      data: text ?? new Uint8Array(data as ArrayBuffer),
    };
    if (text !== undefined) {
      try {
        record.message = JSON.parse(text);
      } catch {
        // unparsable: recorded as sent
      }
    }
    this.#host.record(record);
    if (text === undefined) return this.#notice("error: binary frames are not supported");
    if (encoder.encode(text).length > this.#host.maxMessageBytes) {
      return this.#notice("error: message too large");
    }
    const message = record.message;
    if (!Array.isArray(message) || message.length === 0) {
      return this.#notice("error: could not parse message");
    }
    // Go decodes null into a string as "", an unknown type; anything else not a string is refused.
    if (message[0] === null) message[0] = "";
    if (typeof message[0] !== "string") return this.#notice("error: message type must be a string");
    this.#dispatch(message[0], message);
  }

  #dispatch(type: string, message: unknown[]): void {
    switch (type) {
      case "AUTH":
        return this.#auth(message);
      case "REQ":
        return this.#req(message);
      case "COUNT":
        return this.#count(message);
      case "CLOSE":
        // Silent whatever it names: an unknown id, or none that decodes, is no error to the relay.
        if (typeof message[1] === "string") this.#subs.delete(message[1]);
        return;
      case "EVENT":
        return this.#event(message);
      case "NEG-OPEN":
      case "NEG-MSG":
      case "NEG-CLOSE":
        return this.#sync(type, message);
      default:
        this.#notice(`error: unknown message type ${type}`);
    }
  }

  #auth(message: unknown[]): void {
    const raw = message[1];
    const id = isRecord(raw) && typeof raw.id === "string" ? raw.id : "";
    if (this.#info.mode === "auth-false") return this.#send(["OK", id, false, "restricted: not allowed"]);
    const checked = checkAuth(message, {
      challenge: this.#challenge,
      relayUrl: this.#info.relayUrl,
      now: this.#host.now(),
    });
    if ("reason" in checked) return this.#send(["OK", id, false, checked.reason]);
    this.#authed.add(checked.event.pubkey);
    this.#send(["OK", id, true, ""]);
  }

  /** A REQ's or a COUNT's id and filters, or undefined once it was refused. */
  #request(type: string, message: unknown[]): { id: string; filters: Filter[] } | undefined {
    if (message.length < 3) {
      this.#notice(`error: ${type} needs an id and at least one filter`);
      return undefined;
    }
    const id = message[1];
    if (!goodSubId(id)) {
      this.#notice("error: bad subscription id");
      return undefined;
    }
    // The same id replaces the subscription, even when the new one is then refused (a COUNT too).
    this.#subs.delete(id);
    const filters: Filter[] = [];
    for (const raw of message.slice(2)) {
      const filter = parseFilter(raw);
      if ("problem" in filter) {
        this.#send(["CLOSED", id, `invalid: bad filter: ${filter.problem}`]);
        return undefined;
      }
      filters.push(filter);
    }
    return { id, filters };
  }

  #req(message: unknown[]): void {
    const request = this.#request("REQ", message);
    if (!request) return;
    const { id, filters } = request;
    if (filters.some((f) => f.search !== undefined)) {
      return this.#send(["CLOSED", id, "unsupported: search is switched off on this relay"]);
    }
    const refusal = this.#info.mode === "no-challenge" ? undefined : this.#host.readRefusal(this.#authed);
    if (refusal) return this.#send(["CLOSED", id, refusal]);
    for (const ev of this.#host.stored(filters, this.#authed)) this.#send(["EVENT", id, ev]);
    this.#send(["EOSE", id, this.#hints(filters)]);
    this.#subs.set(id, filters);
  }

  /** The relay's COUNT, on a relay whose owner switched COUNT off: every count fails so. */
  #count(message: unknown[]): void {
    const request = this.#request("COUNT", message);
    if (!request) return;
    this.#send([
      "CLOSED",
      request.id,
      "error: count failed: unsupported: COUNT is switched off on this relay",
    ]);
  }

  /** NIP-77's messages on a relay without sync: checked as the relay checks them, then refused. */
  #sync(type: string, message: unknown[]): void {
    if (message.length < 2) return this.#send(["NEG-ERR", "", `error: ${type} needs a subscription id`]);
    const id = message[1];
    if (!goodSubId(id)) return this.#send(["NEG-ERR", "", "error: bad subscription id"]);
    if (type === "NEG-CLOSE") return;
    const refuse = (reason: string) => this.#send(["NEG-ERR", id, reason]);
    if (type === "NEG-OPEN") {
      if (message.length < 4) return refuse("error: NEG-OPEN needs a filter and a message");
      const filter = parseFilter(message[2]);
      if ("problem" in filter) return refuse(`invalid: bad filter: ${filter.problem}`);
      if (!isHexMessage(message[3])) return refuse("invalid: message must be hex");
      return refuse("unsupported: sync is switched off on this relay");
    }
    if (message.length < 3) return refuse("error: NEG-MSG needs a message");
    if (!isHexMessage(message[2])) return refuse("invalid: message must be hex");
    // No NEG-OPEN ever opened a sync here.
    refuse("closed: no such sync, send NEG-OPEN first");
  }

  /**
   * EOSE's hints, as the relay gives them: "more" when a limit cut the history short, else "finish";
   * then "auth" when a filter names no kinds, or, before AUTH, asks for private kinds or targets a
   * members-only room.
   */
  #hints(filters: Filter[]): string[] {
    const hints = [this.#host.more(filters, this.#authed) ? "more" : "finish"];
    const privateKinds = [4, 13, 1059, 21059, 24133, 30390];
    const unauthed = this.#authed.size === 0 &&
      filters.some((f) =>
        f.kinds?.some((kind) => privateKinds.includes(kind)) ||
        f.tags.some(([name, rooms]) => name === "h" && rooms.some((room) => this.#host.membersRoom(room)))
      );
    if (filters.some((f) => f.kinds === undefined) || unauthed) hints.push("auth");
    return hints;
  }

  #event(message: unknown[]): void {
    if (message.length < 2) return this.#notice("error: EVENT needs an event");
    const raw = message[1];
    const problem = eventProblem(raw);
    if (problem) {
      const id = isRecord(raw) && typeof raw.id === "string" ? raw.id : "";
      return this.#send(["OK", id, false, problem]);
    }
    const ev = canonical(raw as NostrEvent);
    // The relay takes an EVENT with or without AUTH: who may publish what is the gates' business,
    // judged by the event's author (AUTH matters only to an event marked for its author alone).
    if (ev.kind === 22242) return this.#send(["OK", ev.id, false, "blocked: AUTH events use AUTH"]);
    // The relay queues the sender's OK before the event's live delivery to that same socket.
    const held: unknown[][] = this.#held = [];
    let answer: Receipt;
    try {
      answer = this.#host.publish(ev, this.#authed);
    } finally {
      this.#held = undefined;
    }
    this.#send(["OK", answer.event_id, answer.accepted, answer.message]);
    for (const message of held) this.#send(message);
  }
}
