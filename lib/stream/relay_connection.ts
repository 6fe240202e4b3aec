// One websocket session with the relay (rpc-facts.md 4.4, 4.5): opened,
// answered when it challenges (NIP-42, signed by the Signer), and every
// message routed to the REQ it belongs to. While an AUTH answer is pending,
// events are not passed on, EOSE is not taken as the end of history and an
// `auth-required:` CLOSED is not taken as a refusal; once the relay accepts
// the AUTH every REQ is sent again. Events pass on only with a valid shape
// and signature.

import type { SignedEvent, Signer } from "../key/signer.ts";
import { type EventCheck, eventVerifier } from "../key/verify.ts";
import {
  authFrame,
  closeFrame,
  isSignedEventShape,
  parseRelayMessage,
  reqFrame,
  signedEventOf,
} from "./nip01.ts";
import { authTemplate } from "./nip42.ts";
import { openWebSocket, type WebSocketConnection, type WebSocketOptions } from "./websocket.ts";

/** What a REQ is told of its connection (stream_query.ts, stream_subscription.ts). */
export interface Req {
  readonly id: string;
  readonly filters: readonly unknown[];
  /** The REQ went out on `connection` (a new one, or again after AUTH). */
  sent(connection: RelayConnection): void;
  /**
   * An event for this REQ, its shape checked, and its signature too unless `checksAtEnd`; `size`: its
   * message's length.
   */
  event(event: SignedEvent, size: number): void;
  /** The REQ checks its events' signatures itself, all at once at its end (a query: verify_batch.ts). */
  readonly checksAtEnd?: boolean;
  eose(): void;
  closed(reason: string): void;
  /** The relay refused this connection's AUTH. */
  refused(reason: string): void;
  /** The connection ended with the REQ still open. */
  lost(why: string): void;
}

export interface ConnectionHost {
  /** The REQ with this id, if it is still wanted. */
  req(id: string): Req | undefined;
  /** Every REQ wanted now, to send on a new connection or again after AUTH. */
  reqs(): Iterable<Req>;
  /** The connection ended; `upMs`: how long it was up and authenticated (when asked). */
  ended(connection: RelayConnection, why: string, upMs: number): void;
  log(line: string): void;
}

/** Notices are the relay's words for a person; a connection says at most this many on stderr. */
const NOTICES_SAID = 5;
/** How long the relay has to answer our AUTH before the connection is given up as not answering. */
const AUTH_ANSWER_MS = 10_000;
/** Challenges answered on one connection, at most: a relay cannot make the key sign without end. */
const AUTH_PER_CONNECTION = 5;

/**
 * The most bytes `text` takes once written out: its UTF-8, and five more for each character the
 * helper's lines escape as `\u00XX` (rpc/lines.ts). What a query's size bound counts.
 */
export function encodedSize(text: string): number {
  let size = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) size += code === 0x3c || code === 0x3e || code === 0x26 ? 6 : 1;
    else if (code < 0x800) size += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      size += 4; // a surrogate pair is one four-byte character
      i++;
    } else size += code === 0x2028 || code === 0x2029 ? 6 : 3;
  }
  return size;
}

/** The relay's words made safe for a terminal: no control or format characters, cut. */
function shown(text: string): string {
  const clean = text.replace(/[\p{Cc}\p{Cf}]/gu, "?");
  return clean.length > 200 ? `${clean.slice(0, 200)}…` : clean;
}

export class RelayConnection {
  #socket: WebSocketConnection;
  #host: ConnectionHost;
  #signer: Signer;
  #url: string;
  #verify: EventCheck;
  /** The AUTH event awaiting the relay's OK, or "signing" while it is being made. */
  #authPending: string | undefined;
  #challenged = false;
  #authenticated = false;
  #authTimer: ReturnType<typeof setTimeout> | undefined;
  #auths = 0;
  #upSince = Date.now();
  #notices = 0;
  /** When the relay last sent a message; 0: never. */
  #heardAt = 0;
  #badEvents = 0;
  #done = false;

  private constructor(
    socket: WebSocketConnection,
    host: ConnectionHost,
    signer: Signer,
    url: string,
    verify: EventCheck,
  ) {
    this.#socket = socket;
    this.#host = host;
    this.#signer = signer;
    this.#url = url;
    this.#verify = verify;
  }

  /** Opens a session on `url` (the relay's ws or wss URL) and sends every REQ wanted; rejects when none opens. */
  static async open(
    url: string,
    options: Omit<WebSocketOptions, "url">,
    signer: Signer,
    host: ConnectionHost,
  ): Promise<RelayConnection> {
    const [socket, verify] = await Promise.all([
      openWebSocket({ ...options, url: new URL(url) }),
      eventVerifier(),
    ]);
    const connection = new RelayConnection(socket, host, signer, url, verify);
    for (const req of host.reqs()) connection.request(req);
    void connection.#read();
    return connection;
  }

  /** Whether the relay asked for AUTH on this connection and accepted it. */
  get authenticated(): boolean {
    return this.#authenticated;
  }

  /** Sends `req`'s REQ now, or once the pending AUTH is answered. */
  request(req: Req): void {
    if (this.#done) return;
    if (this.#authPending === undefined) this.#send(reqFrame(req.id, req.filters));
    req.sent(this);
  }

  /** Ends a REQ the relay still serves. */
  cancel(id: string): void {
    if (!this.#done) this.#send(closeFrame(id));
  }

  /** When the relay last sent a message on this connection (ms since the epoch). */
  get heardAt(): number {
    return this.#heardAt;
  }

  /** Gives the connection up at once: the relay is not answering on it. */
  abort(why: string): void {
    this.#socket.abort(why);
  }

  /** Closes the session (a close handshake, bounded). */
  close(): void {
    this.#socket.close(1000, "");
  }

  #send(frame: string): void {
    // A write that fails ends the socket, and `ended` says why: nothing to do here.
    this.#socket.send(frame).catch(() => {});
  }

  async #read(): Promise<void> {
    for (;;) {
      const message = await this.#socket.next();
      if (message === undefined) break;
      // Only an event too large for the native curve, checked in JavaScript, makes this wait (in order).
      if (message.type === "text") await this.#handle(message.text);
    }
    this.#done = true;
    clearTimeout(this.#authTimer);
    const ended = await this.#socket.ended;
    if (this.#badEvents > 0) {
      this.#host.log(`dropped ${this.#badEvents} events with a bad shape or signature`);
    }
    const upMs = this.#challenged && !this.#authenticated ? 0 : Date.now() - this.#upSince;
    this.#host.ended(this, ended.reason, upMs);
  }

  #handle(text: string): void | Promise<void> {
    this.#heardAt = Date.now();
    const message = parseRelayMessage(text);
    switch (message.type) {
      case "AUTH":
        return void this.#answer(message.challenge);
      case "OK":
        if (message.id === this.#authPending) this.#authAnswered(message.accepted, message.reason);
        return;
      case "EVENT": {
        const req = this.#authPending === undefined ? this.#host.req(message.subscription) : undefined;
        if (!req) return;
        const event = message.event;
        const verdict = !isSignedEventShape(event) ? false : req.checksAtEnd || this.#verify(event);
        if (typeof verdict === "boolean") return this.#take(req, event, verdict, text);
        return verdict.then(
          (ok) => this.#take(req, event, ok, text),
          (error) => {
            this.#host.log(`cannot check a large event's signature: ${(error as Error)?.message ?? error}`);
            this.#take(req, event, false, text);
          },
        );
      }
      case "EOSE":
        if (this.#authPending === undefined) this.#host.req(message.subscription)?.eose();
        return;
      case "CLOSED":
        // Asked for AUTH and not yet through it: the REQ goes again once it is.
        if (message.reason.startsWith("auth-required:") && this.#challenged && !this.#authenticated) return;
        return this.#host.req(message.subscription)?.closed(message.reason);
      case "NOTICE":
        if (this.#notices++ < NOTICES_SAID) {
          this.#host.log(`the relay says: ${shown(message.message)}`);
        }
    }
  }

  /** An event passed on to its REQ when it holds; counted as dropped when it does not. */
  #take(req: Req, event: unknown, ok: boolean, text: string): void {
    if (!ok) this.#badEvents++;
    else req.event(signedEventOf(event as SignedEvent), encodedSize(text));
  }

  /**
   * Signs the AUTH event for `challenge` and sends it; REQs wait for the relay's answer, for a bounded
   * time. A challenge while one is being answered, or past the few a connection answers, is ignored.
   */
  async #answer(challenge: unknown): Promise<void> {
    if (this.#authPending !== undefined || this.#auths >= AUTH_PER_CONNECTION) return;
    this.#auths++;
    this.#challenged = true;
    if (typeof challenge !== "string") {
      for (const req of this.#host.reqs()) req.refused("invalid AUTH challenge");
      this.#socket.close(1002, "invalid AUTH challenge");
      return;
    }
    this.#authPending = "signing";
    this.#authenticated = false;
    try {
      const event = await this.#signer.sign(
        authTemplate(this.#url, challenge, Math.floor(Date.now() / 1000)),
      );
      this.#authPending = event.id;
      this.#send(authFrame(event));
      this.#authTimer = setTimeout(() => {
        if (this.#authPending === event.id) {
          this.#socket.abort(`the relay did not answer our AUTH within ${AUTH_ANSWER_MS / 1000} s`);
        }
      }, AUTH_ANSWER_MS);
    } catch (error) {
      // tinyagent's own signing code failed to load: said, and the connection given up.
      this.#host.log(`cannot answer the relay's AUTH: ${(error as Error)?.message ?? error}`);
      this.#socket.close(1011, "cannot sign AUTH");
    }
  }

  #authAnswered(accepted: boolean, reason: string): void {
    this.#authPending = undefined;
    clearTimeout(this.#authTimer);
    if (!accepted) {
      for (const req of this.#host.reqs()) req.refused(reason);
      this.#socket.close(1000, "AUTH refused");
      return;
    }
    this.#authenticated = true;
    this.#upSince = Date.now();
    for (const req of this.#host.reqs()) this.request(req);
  }
}
