// One websocket connection's NIP-01 and NIP-42 conversation, as the real relay holds it (rpc-facts
// 6.2): the unprompted challenge, AUTH, REQ (history newest first, EOSE, then live events), CLOSE,
// EVENT, and the NOTICE for every message it cannot take. The socket is Deno's own (ws_server.ts).

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
  /** The stored events a REQ's filters select, newest first. */
  stored(filters: Filter[]): NostrEvent[];
  /** Gates and stores a complete signed event published by a connection authenticated as `session`. */
  publish(ev: NostrEvent, session: ReadonlySet<string>): Receipt;
  /** Whether a history was cut short by a filter's limit. */
  more(filters: Filter[]): boolean;
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

export class WsSession {
  #socket: WebSocket;
  #host: SessionHost;
  #info: ConnectionInfo;
  #challenge?: string;
  #authed = new Set<string>();
  #subs = new Map<string, Filter[]>();

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

  /** Sends a matching live event to every subscription it matches. */
  deliver(ev: NostrEvent): void {
    for (const [id, filters] of this.#subs) {
      if (filters.some((f) => matches(f, ev))) this.#send(["EVENT", id, ev]);
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
    if (typeof message[0] !== "string") return this.#notice("error: message type must be a string");
    this.#dispatch(message[0], message);
  }

  #dispatch(type: string, message: unknown[]): void {
    switch (type) {
      case "AUTH":
        return this.#auth(message);
      case "REQ":
        return this.#req(message);
      case "CLOSE":
        // An unknown id is no error: the subscription may have been closed by the relay meanwhile.
        if (typeof message[1] === "string") this.#subs.delete(message[1]);
        else this.#notice("error: bad subscription id");
        return;
      case "EVENT":
        return this.#event(message);
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

  #req(message: unknown[]): void {
    if (message.length < 3) return this.#notice("error: REQ needs an id and at least one filter");
    const id = message[1];
    if (typeof id !== "string" || id.length < 1 || id.length > MAX_SUB_ID) {
      return this.#notice("error: bad subscription id");
    }
    // The same id replaces the subscription, even when the new REQ is then refused.
    this.#subs.delete(id);
    const filters: Filter[] = [];
    for (const raw of message.slice(2)) {
      const filter = parseFilter(raw);
      if ("problem" in filter) return this.#send(["CLOSED", id, `invalid: bad filter: ${filter.problem}`]);
      filters.push(filter);
    }
    if (filters.some((f) => f.search !== undefined)) {
      return this.#send(["CLOSED", id, "unsupported: search is switched off on this relay"]);
    }
    const refusal = this.#info.mode === "no-challenge" ? undefined : this.#host.readRefusal(this.#authed);
    if (refusal) return this.#send(["CLOSED", id, refusal]);
    for (const ev of this.#host.stored(filters)) this.#send(["EVENT", id, ev]);
    this.#send(["EOSE", id, this.#hints(filters)]);
    this.#subs.set(id, filters);
  }

  /**
   * EOSE's hints, as the relay gives them: "more" when a limit cut the history short, else "finish";
   * then "auth" when a filter names no kinds, or asks for private kinds before AUTH.
   */
  #hints(filters: Filter[]): string[] {
    const hints = [this.#host.more(filters) ? "more" : "finish"];
    const privateKinds = [4, 13, 1059, 21059, 24133, 30390];
    const unauthedPrivate = this.#authed.size === 0 &&
      filters.some((f) => f.kinds?.some((kind) => privateKinds.includes(kind)));
    if (filters.some((f) => f.kinds === undefined) || unauthedPrivate) hints.push("auth");
    return hints;
  }

  #event(message: unknown[]): void {
    if (message.length < 2 || message[1] === null) return this.#notice("error: EVENT needs an event");
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
    const answer = this.#host.publish(ev, this.#authed);
    this.#send(["OK", answer.event_id, answer.accepted, answer.message]);
  }
}
