// Approvals signed in the room (`--approvers KEYS --home-room ROOM`): each
// Claude Code permission request, and with `--confirm-via relay` each
// `--confirm-writes` question, is posted as a card (cards.ts) through the
// cards' own write gate (the budget and the audit log; it never asks), and
// settled once: by the first valid answer an approver signs, or by its expiry,
// which the agent says in the card's thread. One subscription takes the
// answers to every open card while any is open; whatever is not a valid
// answer changes nothing and is counted on stderr. An agent among its own
// approvers could approve itself: then every approval is refused.

import type { EventTemplate, SignedEvent } from "../key/signer.ts";
import type { ConfirmAnswer } from "../oversight/confirmation.ts";
import { gatedPublish, type PublishDeps, type Published } from "../oversight/gated_publish.ts";
import { printable } from "../oversight/write_summary.ts";
import type { RelayStream, StreamSubscription } from "../stream/relay_stream.ts";
import type { JsonObject } from "../wire/mcp.ts";
import * as cards from "./cards.ts";
import type { ApprovalSettings } from "./settings.ts";
import { Tally } from "./tally.ts";

export interface ApprovalsOptions {
  settings: ApprovalSettings;
  /** The agent's public key, hex. */
  agent: string;
  stream: RelayStream;
  /** How a card is published: its gate shares the session's budget and audit log, and never asks. */
  publish: PublishDeps;
  /** How long a card stays open (`--confirm-timeout`). */
  lifetimeMs: number;
  /** Tells Claude Code a permission request's verdict. */
  verdict(requestId: string, behavior: "allow" | "deny"): void;
  /** A card the agent posted, for the listener: the answers to it are tinyagent's, kept from the model. */
  ownEvent(id: string): void;
  log(line: string): void;
  /** The clock, in ms (tests). */
  now?: () => number;
}

/** Cards posted or being posted at once, at most; more are refused, said. */
export const MAX_OPEN_CARDS = 32;
/** Answers held while a card's receipt is on the way (they may be for it), at most. */
const EARLY_LIMIT = 64;
/** Settled cards remembered, so a late or second answer is counted as such. */
const SETTLED_LIMIT = 256;
/** Answers remembered as decided, so the history a new subscription brings is not counted twice. */
const TAKEN_LIMIT = 1_024;
const SAY_IGNORED_EVERY_MS = 10_000;
/** A card or an expiry reply is given up after this long at the relay. */
const POST_BOUND_MS = 30_000;

type Outcome = cards.CardOutcome;

interface OpenCard {
  event: SignedEvent;
  timer: ReturnType<typeof setTimeout>;
  settle(outcome: Outcome): void;
}

export class Approvals {
  #options: ApprovalsOptions;
  /** Set when approvals are refused for the whole session (the agent among the approvers). */
  #refusal: string | undefined;
  #open = new Map<string, OpenCard>();
  #settled = new Map<string, "answered" | "expired">();
  /** Permission requests with a card posted or on the way: one card each. */
  #requests = new Set<string>();
  #posting = 0;
  #serial = 0;
  #early: SignedEvent[] = [];
  /** Events already decided, newest last. */
  #taken = new Set<string>();
  #subscription: StreamSubscription | undefined;
  #ignored = new Tally<string>(
    (total, parts) =>
      this.#options.log(`approvals: ${total} event(s) in answer to cards changed nothing: ${parts}`),
    SAY_IGNORED_EVERY_MS,
  );
  #stop = new AbortController();
  #closed = false;

  constructor(options: ApprovalsOptions) {
    this.#options = options;
    if (options.settings.approvers.includes(options.agent)) {
      this.#refusal = "--approvers names this agent's own key, so approvals from the room are refused " +
        "(the model could approve its own requests by posting the answer)";
      options.log(
        `approvals: refused for this session: ${this.#refusal}; remove the agent's key from --approvers`,
      );
    }
  }

  /** `--confirm-via relay`: a write's question asked with a card; never rejects. */
  ask = async (question: string): Promise<ConfirmAnswer> =>
    cards.confirmAnswerOf(await this.#card({ question }, { asks: "confirmation" }), this.#options.lifetimeMs);

  /** A Claude Code permission request (untrusted params): a card, then at most one verdict. */
  permissionRequest(params: unknown): void {
    const request = cards.permissionRequestOf(params);
    const { log } = this.#options;
    if ("invalid" in request) return log(`approvals: a permission request was ignored: ${request.invalid}`);
    const { requestId } = request;
    const what = `permission request ${requestId} (${printable(request.toolName, 60)})`;
    if (this.#requests.has(requestId)) {
      return log(`approvals: ${what} has a card already; this one was ignored`);
    }
    this.#requests.add(requestId);
    void this.#card({ permission: request }, { asks: "permission", request_id: requestId }).then(
      (outcome) => {
        this.#requests.delete(requestId);
        // The answer was checked against the card: the verdict is the option it chose, nothing else.
        if ("choice" in outcome) this.#options.verdict(requestId, outcome.choice);
        const said = cards.permissionOutcomeText(outcome);
        if (said !== undefined) log(`approvals: ${what}${said}`);
      },
    );
  }

  /** Ends everything: the subscription, the timers, the posts; every pending `ask` is refused. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#stop.abort(new Error("the session is ending"));
    this.#subscription?.stop();
    this.#subscription = undefined;
    for (const card of this.#open.values()) {
      clearTimeout(card.timer);
      card.settle({ ended: true });
    }
    this.#open.clear();
    this.#early = [];
    this.#ignored.close();
  }

  /** Posts a card for `asked` (`args` name it in its receipt and audit entry) and waits for how it ends. */
  async #card(asked: cards.Asked, args: JsonObject): Promise<Outcome> {
    const { settings, lifetimeMs } = this.#options;
    const refused = this.#refusal ?? (this.#closed ? "the session is ending" : undefined) ??
      (this.#posting + this.#open.size >= MAX_OPEN_CARDS
        ? `${MAX_OPEN_CARDS} approval cards are waiting for an answer already (at most that many at once)`
        : undefined);
    if (refused !== undefined) return { unposted: refused };
    const nowMs = this.#now();
    // Never shorter than the lifetime, whatever part of a second it starts in.
    const expiration = Math.ceil((nowMs + Math.max(lifetimeMs, 1000)) / 1000);
    const template = cards.cardTemplate(asked, {
      room: settings.homeRoom,
      approvers: settings.approvers,
      createdAt: Math.floor(nowMs / 1000),
      expiration,
      serial: ++this.#serial,
    });
    this.#posting++;
    this.#listen(template.created_at);
    const published = await this.#publish("approval_card", { room: settings.homeRoom, ...args }, template);
    this.#posting--;
    if (!published.ok || this.#closed) {
      this.#afterPosting();
      if (published.ok || this.#closed) return { ended: true };
      return { unposted: cards.unpostedWhy(settings.homeRoom, published) };
    }
    const card = published.event;
    this.#options.ownEvent(card.id);
    const outcome = new Promise<Outcome>((settle) => {
      const timer = setTimeout(() => this.#expire(card.id), Math.max(0, expiration * 1000 - this.#now()));
      this.#open.set(card.id, { event: card, timer, settle });
    });
    this.#afterPosting();
    return outcome;
  }

  /** Publishes through the cards' gate, bounded, given up when the session ends; never rejects. */
  async #publish(tool: string, args: JsonObject, template: EventTemplate): Promise<Published> {
    const bound = new AbortController();
    const timer = setTimeout(
      () => bound.abort(new Error(`no answer in ${POST_BOUND_MS / 1000} s`)),
      POST_BOUND_MS,
    );
    const signal = AbortSignal.any([bound.signal, this.#stop.signal]);
    try {
      return await gatedPublish(this.#options.publish, tool, args, template, signal);
    } catch (error) {
      return {
        ok: false,
        held: true,
        error: `it could not be signed: ${(error as Error)?.message ?? error}`,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The answers' subscription, opened when a card is wanted; it ends when none is open or on the way. */
  #listen(since: number): void {
    if (this.#subscription || this.#closed) return;
    const { settings, agent, log } = this.#options;
    let live = false;
    const filter = { kinds: [cards.ANSWER_KIND], "#h": [settings.homeRoom], "#p": [agent], since };
    this.#subscription = this.#options.stream.subscribe(filter, {
      connected: () => {
        if (!live) log(`approvals: awaiting answers in room ${JSON.stringify(settings.homeRoom)}`);
        live = true;
      },
      event: (event) => (this.#take(event), true),
      trouble: (message) => log(`approvals: ${message}`),
    });
  }

  /** After a card was posted (or not): answers held for it are read again; idle, the subscription ends. */
  #afterPosting(): void {
    for (const event of this.#early.splice(0)) this.#take(event);
    if (this.#posting === 0 && this.#open.size === 0) {
      this.#subscription?.stop();
      this.#subscription = undefined;
    }
  }

  /** One event from the answers' subscription. */
  #take(event: SignedEvent): void {
    // The agent's own (its expiry replies), and what a new subscription's history brings again: not counted.
    if (this.#closed || event.pubkey === this.#options.agent || this.#taken.has(event.id)) return;
    const named = cards.namedCards(event);
    const id = named.find((id) => this.#open.has(id));
    // A card whose receipt is still on the way may be the one it answers.
    if (id === undefined && this.#posting > 0 && this.#early.length < EARLY_LIMIT) {
      return void this.#early.push(event);
    }
    this.#taken.add(event.id);
    if (this.#taken.size > TAKEN_LIMIT) this.#taken.delete(this.#taken.values().next().value!);
    if (id === undefined) {
      const settled = named.map((id) => this.#settled.get(id)).find((how) => how !== undefined);
      const names = { answered: "for a card answered already", expired: "for an expired card" };
      return this.#ignored.count(settled ? names[settled] : "for no open card");
    }
    const verdict = cards.answerVerdict(this.#open.get(id)!.event, event, {
      approvers: this.#options.settings.approvers,
      agent: this.#options.agent,
      now: Math.floor(this.#now() / 1000),
    });
    if ("refused" in verdict) return this.#ignored.count(verdict.refused);
    this.#settle(id, "answered", { choice: verdict.option as cards.Choice, answer: event });
  }

  #settle(id: string, how: "answered" | "expired", outcome: Outcome): void {
    const card = this.#open.get(id)!;
    clearTimeout(card.timer);
    this.#open.delete(id);
    this.#settled.set(id, how);
    if (this.#settled.size > SETTLED_LIMIT) this.#settled.delete(this.#settled.keys().next().value!);
    card.settle(outcome);
    this.#afterPosting();
  }

  /** A card's time is up: refused, and said in its thread. */
  #expire(id: string): void {
    const card = this.#open.get(id)?.event;
    if (!card || this.#closed) return;
    this.#settle(id, "expired", { expired: true });
    const reply = cards.expiryReply(card, Math.floor(this.#now() / 1000));
    void this.#publish("approval_expired", { card: id }, reply).then((published) => {
      if (published.ok || this.#closed) return;
      this.#options.log(
        `approvals: the expiry of card ${id} could not be said in its thread: ${published.error}`,
      );
    });
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }
}
