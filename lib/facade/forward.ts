// One relay tool call on its way out and back (facade.md, "Sign and resubmit"): sent, and when it
// answers with a template the facade may sign, cleared with the person's hold on writes, signed and
// sent again, the second answer getting its receipt; an upload cleared before it goes. Nothing is
// sent once the host is gone or a program's call was cancelled.

import { toolError } from "../wire/mcp.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { failureText, type RelayAnswer } from "../relay/answer.ts";
import type { Signer } from "../key/signer.ts";
import { unsigned } from "../oversight/gated_publish.ts";
import type { WriteGate } from "../oversight/write_gate.ts";
import { carriesArguments, resubmission } from "./resubmission.ts";
import { decideSigning, eventToSign } from "./signing_rules.ts";

/** The two calls the facade makes to the relay. */
export interface RelayPort {
  listTools(): Promise<RelayAnswer>;
  callTool(name: string, args: JsonObject): Promise<RelayAnswer>;
  /** Send nothing more. */
  close?(): void;
}

/** What a call needs of the facade that makes it. */
export interface Forwarding {
  relay: RelayPort;
  signer: Pick<Signer, "sign">;
  allowWrites: boolean;
  /** The host is gone: nothing more is signed or sent. */
  closed(): boolean;
  /** The relay said it does not know a tool: its table changed. */
  tableChanged(): void;
}

/** A call's parts on its way through the facade. */
export interface OneCall {
  name: string;
  args: JsonObject;
  gate: WriteGate;
  /** A program's call: aborts when the program ends. */
  signal?: AbortSignal;
}

/**
 * A relay tool result, whether the relay itself answered (anything but a transport failure), and
 * the relay's answer as it came (undefined when the relay was not called).
 */
export interface Forwarded {
  result: JsonObject;
  answered: boolean;
  /** Undefined only when tinyagent held the call back itself (a refused clearance). */
  answer?: RelayAnswer;
}

/** Why a cancelled call sent nothing. */
const CANCELLED = "the call was cancelled before it was sent";

/** Nothing is sent (the host is gone, or the call was cancelled): a signed event's receipt says so. */
function unsent(detail: string): Forwarded {
  const failure = { class: "transport" as const, detail, unsent: true };
  return { result: toolError(`transport: ${detail}`), answered: false, answer: { ok: false, failure } };
}

/** Why nothing may be sent now, if so. */
function stopped(f: Forwarding, signal?: AbortSignal): Forwarded | undefined {
  if (f.closed()) return unsent("the host is gone");
  if (signal?.aborted) return unsent(CANCELLED);
  return undefined;
}

/** One relay call, unless the host is gone or the call was cancelled: then nothing is sent. */
async function relayCall(
  f: Forwarding,
  name: string,
  args: JsonObject,
  signal?: AbortSignal,
): Promise<Forwarded> {
  const held = stopped(f, signal);
  if (held) return held;
  const answer = await f.relay.callTool(name, args);
  if (answer.ok) return { result: answer.result, answered: true, answer };
  if (answer.failure.unknownTool) f.tableChanged();
  return {
    result: toolError(failureText(answer.failure)),
    answered: answer.failure.class !== "transport",
    answer,
  };
}

/**
 * Calls the tool, and when it returns a template the facade may sign, clears it with the person's
 * hold on writes, signs it and calls again; the second answer gets its receipt.
 */
export async function forward(f: Forwarding, { name, args, gate, signal }: OneCall): Promise<Forwarded> {
  const first = await relayCall(f, name, args, signal);
  if (!first.answered) return first;
  const decision = decideSigning(name, first.result, f.allowWrites);
  if (decision.action === "pass") return first;
  if (decision.action === "refuse") {
    await gate.refused(name, args, decision.template, decision.message);
    const shown = decision.showResult ? first.result.structuredContent : undefined;
    return { result: toolError(decision.message, shown), answered: true, answer: first.answer };
  }
  const clearance = await gate.clear(name, args, decision.template);
  if (!clearance.ok) return { result: toolError(clearance.text), answered: true };
  const held = stopped(f, signal);
  if (held) {
    clearance.reservation.release();
    return held;
  }
  // Filled now, after any wait for the person: a missing created_at is the time of signing.
  const now = Math.floor(Date.now() / 1000);
  let event;
  try {
    event = await f.signer.sign(eventToSign(decision.template, now));
  } catch (error) {
    clearance.reservation.release(); // nothing was signed: its place is free again
    const text = await unsigned(gate, name, args, decision.template, error);
    return { result: toolError(text), answered: true, answer: first.answer };
  }
  clearance.reservation.spend();
  gate.sending(name, event.id);
  // The second answer is the publish result; it is never signed again.
  const second = await resubmit(f, name, resubmission(name, args, { ...event }), signal);
  // relayCall always gives the relay's answer, or what kept it from being sent.
  const result = await gate.signed(name, args, event, second.answer!, second.result, clearance.approval);
  return { ...second, result };
}

/**
 * The signed event sent back; refused as too large with the arguments beside it (an operator's bound
 * below the default, or a front's), it goes once more alone: a 413 means the relay read none of it.
 */
async function resubmit(
  f: Forwarding,
  name: string,
  args: JsonObject,
  signal?: AbortSignal,
): Promise<Forwarded> {
  const second = await relayCall(f, name, args, signal);
  const tooLarge = second.answer?.ok === false && second.answer.failure.tooLarge === true;
  if (!tooLarge || !carriesArguments(args)) return second;
  return await relayCall(f, name, { event: args.event }, signal);
}

/**
 * An upload signs nothing, and is a write all the same: cleared first, with its receipt after. A
 * template it returns is refused like any other (it publishes no kind).
 */
export async function upload(f: Forwarding, call: OneCall): Promise<Forwarded> {
  const { name, args, gate, signal } = call;
  const clearance = await gate.clear(name, args, undefined);
  if (!clearance.ok) return { result: toolError(clearance.text), answered: false };
  const held = stopped(f, signal);
  if (held) {
    clearance.reservation.release();
    return held;
  }
  clearance.reservation.spend();
  gate.sending(name);
  const forwarded = await forward(f, call);
  if (forwarded.answer) await gate.uploaded(name, args, forwarded.answer);
  return forwarded;
}
