// The person's hold on an agent's writes, in the order a write meets it: the
// budget before the relay is contacted; the budget again and the person's
// approval before a template is signed (or an upload forwarded); and after the
// relay's answer, the receipt on stderr and the entry in the audit log. The
// facade calls it; what it asks and where it writes are ports (confirmation.ts,
// audit_log.ts), so it does no I/O of its own.

import { failureText, type RelayAnswer } from "../relay/answer.ts";
import { type JsonObject, toolError } from "../wire/mcp.ts";
import {
  type AuditEntry,
  type AuditOutcome,
  loggedAnswer,
  loggedArguments,
  outcomeWhy,
} from "./audit_record.ts";
import type { AuditSink } from "./audit_log.ts";
import {
  type Approval,
  askedWhere,
  type Asker,
  type AskPerson,
  confirmationQuestion,
  heldReason,
  heldText,
} from "./confirmation.ts";
import {
  heldLine,
  notSentText,
  outcomeOf,
  receiptLine,
  unknownOutcomeText,
  uploadReceiptLine,
  type WriteOutcome,
} from "./receipt.ts";
import type { Reservation, WriteBudget } from "./write_budget.ts";
import { type EventFields, meaningOf, uploadMeaning } from "./write_summary.ts";

export interface WriteGateOptions {
  /** The relay's base URL, as the log and the question name it. */
  relay: string;
  /** Which process this is, in the log: several sessions may append to one file. */
  session: string;
  budget: WriteBudget;
  /** Asks the person before each write (`--confirm-writes`); none: writes go ahead unasked. */
  ask?: AskPerson;
  /** Who asks: the host (mcp), the terminal (call) or the room (--confirm-via relay), as refusals say it. */
  where: Asker;
  audit?: AuditSink;
  /** The key's npub, for the question. */
  signerName?: () => Promise<string>;
  log(line: string): void;
  now?: () => Date;
  /** Writes made by a program rather than the host's own call (withOrigin). */
  origin?: WriteOrigin;
}

/** A write made from a program the agent wrote (tiny_execute) rather than by the host's own call. */
export interface WriteOrigin {
  /** The tool that runs the program, as the question and the log name it. */
  via: string;
  /** What the program says it is for, shown to the person asked and kept in the log. */
  intent?: string;
  /** The key the program gave the write (`{ idempotencyKey }`), kept in the log. */
  idempotencyKey?: string;
  /** The program was cancelled: a question still open is withdrawn, and the write held. */
  signal?: AbortSignal;
  /** Stops the program's clock while the person is asked; returns what starts it again. */
  pause?(): () => void;
  /** Told each write's fate once it is known: what the program's answer reports. */
  noted?(note: WriteNote): void;
}

/** One write as its caller is told of it: held (nothing signed), or the relay's verdict on it. */
export interface WriteNote {
  tool: string;
  outcome: AuditOutcome;
  /** The signed event's id, when one was signed. */
  event?: string;
  why?: string;
}

/**
 * A write cleared to go ahead, holding its place in the budget (and, when approved in the room, the
 * approving event, for its audit entry); or the tool error that holds it back.
 */
export type Clearance =
  | { ok: true; reservation: Reservation; approval?: Approval }
  | { ok: false; text: string };

/** A signed event as the gate records it. */
type Signed = EventFields & { id: string; pubkey: string; created_at: number; sig: string };

export class WriteGate {
  #options: WriteGateOptions;

  constructor(options: WriteGateOptions) {
    this.#options = options;
  }

  /** This gate, for writes made by a program: the same budget and log, the question saying who asks. */
  withOrigin(origin: WriteOrigin): WriteGate {
    return new WriteGate({ ...this.#options, origin });
  }

  /** Before the relay is contacted for a write tool: the tool error when the budget is spent. */
  async admit(tool: string, args: JsonObject): Promise<string | undefined> {
    const refused = this.#options.budget.refusal();
    if (refused === undefined) return undefined;
    await this.#held(tool, args, "a write", undefined, "write budget spent", refused);
    return refused;
  }

  /**
   * Before `template` is signed (or, with none, an upload forwarded): a place in the budget, then
   * the person's approval when asked for. A write held back gives its place back and is recorded.
   */
  async clear(tool: string, args: JsonObject, template: EventFields | undefined): Promise<Clearance> {
    const { budget, ask } = this.#options;
    const what = template ? described(tool, template) : uploadMeaning(args);
    const reservation = budget.reserve();
    if ("refused" in reservation) {
      await this.#held(tool, args, what, template, "write budget spent", reservation.refused);
      return { ok: false, text: reservation.refused };
    }
    if (!ask) return { ok: true, reservation };
    const { origin } = this.#options;
    const question = confirmationQuestion({ tool, event: template, args }, {
      relay: this.#options.relay,
      signer: await this.#options.signerName?.(),
      budget: budget.limit === undefined ? undefined : { spent: budget.spent, limit: budget.limit },
      origin,
    });
    // The program's clock stops while its person decides.
    const resume = origin?.pause?.();
    const answer = await ask(question, origin?.signal).finally(() => resume?.());
    if (answer.action === "accept") {
      return answer.approval
        ? { ok: true, reservation, approval: answer.approval }
        : { ok: true, reservation };
    }
    reservation.release();
    const text = heldText(answer, this.#options.where, template === undefined)!;
    const why = `${heldReason(answer)} ${askedWhere(this.#options.where)}`;
    await this.#held(tool, args, what, template, why, text);
    return { ok: false, text };
  }

  /**
   * A write leaving now (its event signed, or an upload cleared): a program is told it may be published
   * before the relay answers, so one cut off meanwhile reports it sent. Its entry comes with the answer.
   */
  sending(tool: string, event?: string): void {
    const why = "sent; the relay had not answered when this was said";
    this.#options.origin?.noted?.({ tool, outcome: "unknown", ...(event ? { event } : {}), why });
  }

  /** A template the signing rules refused (a kind the tool does not publish, say): said and recorded. */
  refused(tool: string, args: JsonObject, template: EventFields, why: string): Promise<void> {
    return this.#held(tool, args, described(tool, template), template, why, why);
  }

  /**
   * After the relay's answer to a signed event: the receipt, the entry, and the result the host
   * sees — `result` as it is, unless the event's fate is unknown or it never left, which the host
   * must be told in words that keep the agent from publishing it twice. `approval`: the clearance's.
   */
  async signed(
    tool: string,
    args: JsonObject,
    event: Signed,
    answer: RelayAnswer,
    result: JsonObject,
    approval?: Approval,
  ): Promise<JsonObject> {
    const outcome = outcomeOf(answer);
    await this.signedWith(tool, args, event, outcome, answerOf(answer), approval);
    if (outcome.status === "unknown") return toolError(unknownOutcomeText(outcome.detail, tool, event));
    if (outcome.status === "not sent") return toolError(notSentText(outcome.detail, tool, event));
    return result;
  }

  /**
   * After a signed event's fate is known, however the caller read it (the rpc helper reads the
   * relay's `/events` receipt): the receipt line and the entry, with `answer` as the log keeps it,
   * and the approving event beside the write when it was approved in the room.
   */
  async signedWith(
    tool: string,
    args: JsonObject,
    event: Signed,
    outcome: WriteOutcome,
    answer: unknown,
    approval?: Approval,
  ): Promise<void> {
    this.#options.log(receiptLine(tool, event, outcome));
    await this.#record({ tool, arguments: args, event: { ...event }, approval, answer, outcome });
  }

  /** After the relay's answer to an upload: the receipt and the entry. */
  uploaded(tool: string, args: JsonObject, answer: RelayAnswer): Promise<void> {
    return this.uploadedWith(tool, args, outcomeOf(answer), answerOf(answer));
  }

  /** After an upload's fate is known, however the caller read it. */
  async uploadedWith(tool: string, args: JsonObject, outcome: WriteOutcome, answer: unknown): Promise<void> {
    this.#options.log(uploadReceiptLine(tool, args, outcome));
    await this.#record({ tool, arguments: args, answer, outcome });
  }

  /** A write held back before anything was signed: the stderr line, and the entry with why. */
  async #held(
    tool: string,
    args: JsonObject,
    what: string,
    template: EventFields | undefined,
    why: string,
    text: string,
  ): Promise<void> {
    this.#options.log(heldLine(tool, what, text));
    await this.#append({
      tool,
      arguments: loggedArguments(args),
      ...(template ? { template: { ...template } } : {}),
      outcome: "held",
      why,
    });
  }

  async #record(
    entry: {
      tool: string;
      arguments: JsonObject;
      event?: JsonObject;
      approval?: Approval;
      answer: unknown;
      outcome: WriteOutcome;
    },
  ): Promise<void> {
    const why = outcomeWhy(entry.outcome);
    await this.#append({
      tool: entry.tool,
      arguments: loggedArguments(entry.arguments),
      ...(entry.event ? { event: entry.event } : {}),
      ...(entry.approval
        ? { approved_by: { event: entry.approval.event, author: entry.approval.author } }
        : {}),
      answer: loggedAnswer(entry.answer),
      outcome: entry.outcome.status,
      ...(why === undefined ? {} : { why }),
    });
  }

  #append(entry: Omit<AuditEntry, "time" | "session" | "relay">): Promise<void> {
    const { audit, now, session, relay, origin } = this.#options;
    const event = typeof entry.event?.id === "string" ? entry.event.id : undefined;
    origin?.noted?.({
      tool: entry.tool,
      outcome: entry.outcome,
      ...(event ? { event } : {}),
      ...(entry.why ? { why: entry.why } : {}),
    });
    if (!audit) return Promise.resolve();
    const { tool, ...rest } = entry;
    const via = origin
      ? {
        via: {
          tool: origin.via,
          ...(origin.intent ? { intent: origin.intent } : {}),
          ...(origin.idempotencyKey === undefined ? {} : { idempotency_key: origin.idempotencyKey }),
        },
      }
      : {};
    return audit.append({
      time: (now?.() ?? new Date()).toISOString(),
      session,
      relay,
      tool,
      ...via,
      ...rest,
    });
  }
}

/** What a template would publish, with its kind unless the words already name it. */
function described(tool: string, template: EventFields): string {
  const meaning = meaningOf(tool, template);
  return meaning.includes(`kind ${template.kind} `) ? meaning : `${meaning} (kind ${template.kind})`;
}

/** What the relay answered, for the log: its result, or the failure's words. */
function answerOf(answer: RelayAnswer): unknown {
  return answer.ok ? answer.result : { error: failureText(answer.failure) };
}
