// The session's ear on the relay (`mcp --listen`): one subscription to the
// rooms over the relay's websocket (stream/relay_stream.ts: the same client,
// reconnects, AUTH and bounds as `rpc`), each event through addressing.ts, an
// unknown parent looked up in batches, and each admitted event given once to
// the inbox and to the host's channel. A host that does not read its stdout
// pauses the subscription rather than queue without end. Drops are counted
// on stderr, never shown to the model.

import type { ListenSettings } from "./settings.ts";
import type { SignedEvent } from "../key/signer.ts";
import type { RelayStream, StreamSubscription } from "../stream/relay_stream.ts";
import { admission, type Audience, type DropReason, LISTEN_KINDS, parentsOf } from "./addressing.ts";
import { type ListenedEvent, listenedEvent } from "./channel_message.ts";
import type { Inbox } from "./inbox.ts";
import { Tally } from "./tally.ts";

/** How the host is told of an event: false when its stdout is behind; `drained` resolves once it caught up. */
export interface ChannelOut {
  send(event: ListenedEvent): boolean;
  drained(): Promise<void>;
}

export interface ListenerOptions {
  stream: RelayStream;
  settings: ListenSettings;
  /** The agent's public key, hex. */
  agent: string;
  npubOf(hex: string): string;
  inbox: Inbox;
  /** Claude Code's channel; none: the inbox alone. */
  channel?: ChannelOut;
  log(line: string): void;
  /** Unix seconds from which events count (default: a minute before now, for clocks a little apart). */
  since?: number;
}

/** Events whose parents are being looked up, at most; more are dropped as not known to be addressed. */
const MAX_PENDING = 500;
/** Ids looked up in one query, and how often one goes. */
const LOOKUP_BATCH = 100;
const LOOKUP_EVERY_MS = 200;
const LOOKUP_BOUND_MS = 10_000;
/** Events known to be the agent's or not, remembered at most. */
const KNOWN_LIMIT = 20_000;
/** History events held to be given oldest first, at most; past it, what is held goes at once. */
const HISTORY_LIMIT = 1000;
/** How often dropped events are counted on stderr. */
const SAY_DROPS_EVERY_MS = 10_000;

export class Listener {
  #options: ListenerOptions;
  #audience: Audience;
  #known = new Map<string, boolean>();
  #pending: SignedEvent[] = [];
  /** Admitted events of the relay's history, until its end. */
  #history: SignedEvent[] = [];
  #lookup: ReturnType<typeof setTimeout> | undefined;
  #drops = new Tally<DropReason | "parent not looked up" | "an answer to an approval card">(
    (total, parts) => this.#options.log(`listen: ${total} event(s) kept from the model: ${parts}`),
    SAY_DROPS_EVERY_MS,
  );
  /** The approval cards this session posted: answers to them are tinyagent's to read, not the model's. */
  #cards = new Set<string>();
  #subscription: StreamSubscription | undefined;
  #live = false;
  #closed = false;

  /** An admitted event's author is one of --allow-from: their npubs are spelled once, not per event. */
  #npubs = new Map<string, string>();
  #npubOf = (hex: string) => {
    let npub = this.#npubs.get(hex);
    if (npub === undefined) this.#npubs.set(hex, npub = this.#options.npubOf(hex));
    return npub;
  };

  constructor(options: ListenerOptions) {
    this.#options = options;
    const { settings, agent } = options;
    this.#audience = {
      agent,
      allowFrom: new Set(settings.allowFrom),
      rooms: new Set(settings.rooms),
      requireMention: settings.requireMention,
    };
  }

  start(): void {
    const { settings, stream } = this.#options;
    const since = this.#options.since ?? Math.floor(Date.now() / 1000) - 60;
    this.#subscription = stream.subscribe({ kinds: LISTEN_KINDS, "#h": settings.rooms, since }, {
      connected: () => {
        if (!this.#live) {
          this.#options.log(`listen: live in ${settings.rooms.map((r) => `"${r}"`).join(", ")}`);
        }
        this.#live = true;
      },
      event: (event, stored) => this.#take(event, stored),
      caughtUp: () => this.#flushHistory(),
      trouble: (message) => this.#options.log(`listen: ${message}`),
    });
  }

  /** An event the agent signed elsewhere in this session: replies to it are addressed to the agent. */
  ownEvent(id: string): void {
    this.#remember(id, true);
  }

  /** An approval card this session posted (listen/approvals.ts): the answers to it never reach the model. */
  cardPosted(id: string): void {
    this.#cards.add(id);
    if (this.#cards.size > KNOWN_LIMIT) this.#cards.delete(this.#cards.values().next().value!);
  }

  close(): void {
    this.#closed = true;
    this.#subscription?.stop();
    clearTimeout(this.#lookup);
    this.#drops.close();
  }

  /** One event from the relay; false asks the subscription to pause (the host's stdout is behind). */
  #take(event: SignedEvent, stored = false): boolean {
    if (event.pubkey === this.#audience.agent) this.#remember(event.id, true);
    if (this.#cards.size > 0 && parentsOf(event).some((id) => this.#cards.has(id))) {
      this.#drops.count("an answer to an approval card");
      return true;
    }
    const verdict = admission(event, this.#audience, (id) => this.#known.get(id));
    if ("drop" in verdict) {
      this.#drops.count(verdict.drop);
      return true;
    }
    if ("parents" in verdict) {
      if (this.#pending.length >= MAX_PENDING) this.#drops.count("parent not looked up");
      else this.#pending.push(event);
      this.#lookup ??= setTimeout(() => void this.#lookUp(), LOOKUP_EVERY_MS);
      return true;
    }
    if (!stored) return this.#deliver(event);
    // The relay's history comes newest first: held until its end, then given oldest first.
    this.#history.push(event);
    if (this.#history.length >= HISTORY_LIMIT) this.#flushHistory();
    return true;
  }

  /** The history held since the REQ, oldest first. */
  #flushHistory(): void {
    const events = this.#history.splice(0).sort((a, b) =>
      a.created_at - b.created_at || (a.id < b.id ? -1 : 1)
    );
    void (async () => {
      for (const event of events) if (!this.#send(event)) await this.#sendWhenDrained(event);
    })();
  }

  /** Straight from the subscription: refused while the host is behind, which pauses the subscription. */
  #deliver(event: SignedEvent): boolean {
    if (this.#send(event)) return true;
    this.#options.log("listen: the host is not reading its stdout; the subscription waits until it does");
    void this.#resumeWhenDrained(this.#options.channel!);
    return false;
  }

  /** To the channel (when the host keeps up) and the inbox; false when the host is behind. */
  #send(event: SignedEvent): boolean {
    const listened = listenedEvent(event, this.#npubOf);
    const channel = this.#options.channel;
    if (channel && !channel.send(listened)) return false;
    this.#options.inbox.push(listened);
    return true;
  }

  async #resumeWhenDrained(channel: ChannelOut): Promise<void> {
    await channel.drained();
    if (this.#closed) return;
    const held = this.#subscription?.resume() ?? 0;
    this.#options.log(
      `listen: the host's stdout was behind; ${held} event(s) are fetched again from the relay`,
    );
  }

  /** The parents waiting events name, asked of the relay in one query; then each event decided again. */
  async #lookUp(): Promise<void> {
    const waiting = this.#pending.splice(0);
    const ids = [
      ...new Set(waiting.flatMap((event) => {
        const verdict = admission(event, this.#audience, (id) => this.#known.get(id));
        return "parents" in verdict ? verdict.parents : [];
      })),
    ].slice(0, LOOKUP_BATCH * 5);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error("no answer within 10 s")), LOOKUP_BOUND_MS);
    try {
      for (let at = 0; at < ids.length && !this.#closed; at += LOOKUP_BATCH) {
        const batch = ids.slice(at, at + LOOKUP_BATCH);
        const found = await this.#options.stream.query([{ ids: batch }], controller.signal);
        for (const id of batch) {
          this.#remember(
            id,
            found.some((e) => e.id === id && e.pubkey === this.#audience.agent),
          );
        }
      }
    } catch (error) {
      this.#options.log(
        `listen: the events replied to could not be looked up: ${(error as Error)?.message ?? error}`,
      );
    } finally {
      clearTimeout(timer);
      this.#lookup = undefined;
    }
    for (const event of waiting) this.#decideAgain(event);
    if (this.#pending.length > 0) this.#lookup = setTimeout(() => void this.#lookUp(), LOOKUP_EVERY_MS);
  }

  /** After a lookup: parents still unknown (the lookup failed) count as not the agent's. */
  #decideAgain(event: SignedEvent): void {
    if (this.#closed) return;
    const verdict = admission(event, this.#audience, (id) => this.#known.get(id) ?? false);
    if ("admit" in verdict) {
      // Taken from the subscription already: waits for the host's stdout rather than be lost.
      if (!this.#send(event)) void this.#sendWhenDrained(event);
    } else if ("drop" in verdict) this.#drops.count(verdict.drop);
  }

  async #sendWhenDrained(event: SignedEvent): Promise<void> {
    while (!this.#closed) {
      await this.#options.channel?.drained();
      if (this.#send(event)) return;
    }
  }

  #remember(id: string, agents: boolean): void {
    this.#known.delete(id);
    this.#known.set(id, agents);
    if (this.#known.size > KNOWN_LIMIT) this.#known.delete(this.#known.keys().next().value!);
  }
}
