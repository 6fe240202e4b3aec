// The facade's tool logic: which tools the host sees (the table, table.ts),
// forwarding calls, the sign-and-resubmit step, error marks and bounds. The
// host protocol calls it; it calls the relay through a narrow port. It never
// sees JSON-RPC framing and never holds the key, only a Signer. Every write
// passes the person's hold on it (oversight/write_gate.ts): the budget, the
// confirmation, the receipt and the audit log.

import { conformResult } from "./conform.ts";
import { isObject } from "../wire/json.ts";
import {
  type CallError,
  type CallOutcome,
  INVALID_PARAMS,
  type JsonObject,
  type LocalTool,
  type RequestContext,
  type Tool,
  toolError,
} from "../wire/mcp.ts";
import { failureText, markPermission, type RelayAnswer } from "../relay/answer.ts";
import type { Signer } from "../key/signer.ts";
import { WriteBudget } from "../oversight/write_budget.ts";
import { WriteGate, type WriteOrigin } from "../oversight/write_gate.ts";
import { decideSigning, eventToSign } from "./signing_rules.ts";
import { type Scheduler, type TableState, ToolTable } from "./table.ts";
import { DIAGNOSE_TOOL, isWriteTool, publishesNothing, unknownToolHint } from "./tools.ts";

/** The two calls the facade makes to the relay. */
export interface RelayPort {
  listTools(): Promise<RelayAnswer>;
  callTool(name: string, args: JsonObject): Promise<RelayAnswer>;
  /** Send nothing more. */
  close?(): void;
}

export interface FacadeOptions {
  relay: RelayPort;
  signer: Pick<Signer, "sign" | "mentionsKey">;
  /** Exposed relay tools, in the order they are listed. */
  exposed: readonly string[];
  allowWrites: boolean;
  /** `tiny_diagnose`: always offered, answered here, never an error whatever the verdict. */
  diagnose: LocalTool;
  /** Other tools answered here, offered after tiny_diagnose (tiny_inbox, with --listen). */
  localTools?: LocalTool[];
  /** One diagnostic line to stderr. */
  log(line: string): void;
  /** The background fetches' clock (table.ts); real timers unless a test brings its own. */
  schedule?: Scheduler;
  /** The person's hold on the writes; by default no budget, no question, no log: receipts on stderr only. */
  gate?: WriteGate;
}

/**
 * A relay tool result, whether the relay itself answered (anything but a transport failure), and
 * the relay's answer as it came (undefined when the relay was not called).
 */
interface Forwarded {
  result: JsonObject;
  answered: boolean;
  /** Undefined only when tinyagent held the call back itself (a refused clearance). */
  answer?: RelayAnswer;
}

/**
 * What a call is told besides its params: the host cancelled it, and, for a call a program makes
 * (tiny_execute), where its writes come from.
 */
export interface CallContext extends Partial<RequestContext> {
  origin?: WriteOrigin;
}

/** Nothing is sent (the host is gone, or the call was cancelled): a signed event's receipt says so. */
function gone(detail = "the host is gone"): Forwarded {
  const failure = { class: "transport" as const, detail, unsent: true };
  return {
    result: toolError(`transport: ${failure.detail}`),
    answered: false,
    answer: { ok: false, failure },
  };
}

export class Facade {
  #options: FacadeOptions;
  #table: ToolTable;
  #gate: WriteGate;
  /** Set when the host is gone: nothing more is signed or sent. */
  #closed = false;

  constructor(options: FacadeOptions) {
    this.#options = options;
    this.#gate = options.gate ??
      new WriteGate({ relay: "", session: "", budget: new WriteBudget(), where: "host", log: options.log });
    this.#table = new ToolTable({
      relay: options.relay,
      exposed: options.exposed,
      log: options.log,
      schedule: options.schedule,
    });
  }

  /** Tells `listener` whenever the host should list the tools again (notifications/tools/list_changed). */
  onToolsChanged(listener: () => void): void {
    this.#table.onChange = listener;
  }

  /** The host is gone: sign nothing more and make no further relay call. */
  close(): void {
    this.#closed = true;
    this.#table.close();
    this.#options.relay.close?.();
  }

  /** The relay's exposed tools followed by `tiny_diagnose` (and the other local tools); never fails. */
  async listTools(): Promise<Tool[]> {
    const state = await this.tableForList();
    const local = [this.#options.diagnose, ...this.#options.localTools ?? []].map((tool) => tool.entry);
    return state.ok ? [...state.table, ...local] : local;
  }

  /** What tools/list answers from: the exposed table, or why the relay's could not be read. */
  tableForList(): Promise<TableState> {
    return this.#table.forList();
  }

  /** Answers a `tools/call` request's params; every result leaves valid and bounded. */
  async callTool(params: unknown, context: CallContext = {}): Promise<CallOutcome> {
    const outcome = await this.#answerCall(params, context);
    if ("error" in outcome) return outcome;
    const { value, notes } = conformResult(outcome.result);
    if (notes.length > 0) this.#options.log(`tools/call: the result was repaired: ${notes.join("; ")}`);
    return { result: value };
  }

  async #answerCall(
    params: unknown,
    context: CallContext,
  ): Promise<{ result: JsonObject } | { error: CallError }> {
    if (!isObject(params) || typeof params.name !== "string" || params.name === "") {
      return invalidParams("params.name must name a tool");
    }
    const name = params.name;
    const args = params.arguments ?? {};
    if (!isObject(args)) return invalidParams("params.arguments must be an object");
    // The key goes nowhere: not to the relay in arguments, not into a receipt or the audit log.
    if (await this.#options.signer.mentionsKey(args)) {
      return {
        result: toolError(
          "permission: the arguments hold this agent's private key; nothing was sent, to the relay or anywhere",
        ),
      };
    }
    if (name === DIAGNOSE_TOOL) return { result: await this.#options.diagnose.call(args) };
    const local = this.#options.localTools?.find((tool) => tool.entry.name === name);
    if (local) return { result: await local.call(args, { signal: context.signal ?? NEVER }) };
    // A tool outside the exposed set is refused before any relay contact.
    if (!this.#options.exposed.includes(name)) {
      return unknownTool(name, unknownToolHint(name, this.#options.allowWrites));
    }
    // A spent write budget refuses the call before the relay is contacted (an exposed write tool
    // means writes are allowed).
    const gate = context.origin ? this.#gate.withOrigin(context.origin) : this.#gate;
    if (isWriteTool(name)) {
      const refused = await gate.admit(name, args);
      if (refused !== undefined) return { result: toolError(refused) };
    }
    // The table is read first to refuse a tool the relay does not serve; while it is down, the call
    // still goes to the relay, and the table is fetched again once the relay answers.
    const table = this.#table.held ?? (this.#table.failed ? undefined : await this.#tableIfLoads());
    if (table && !table.some((entry) => entry.name === name)) {
      return unknownTool(name, " (the relay does not list it)");
    }
    // The host's own call runs to its end whatever the host cancels (facade.md): only a program's calls
    // stop when it does.
    const call = { name, args, gate, signal: context.origin?.signal };
    const forwarded = publishesNothing(name) ? await this.#upload(call) : await this.#forward(call);
    if (forwarded.answered && !this.#closed) await this.#table.refreshAfterAnswer();
    return { result: markPermission(forwarded.result) };
  }

  async #tableIfLoads(): Promise<Tool[] | undefined> {
    const state = await this.#table.load();
    if (state.ok) return state.table;
    this.#options.log(
      `tools/call: the relay's table is unavailable; the call goes to the relay all the same`,
    );
    return undefined;
  }

  /**
   * Calls the tool, and when it returns a template the facade may sign, clears it with the person's
   * hold on writes, signs it and calls again; the second answer gets its receipt.
   */
  async #forward({ name, args, gate, signal }: OneCall): Promise<Forwarded> {
    const first = await this.#call(name, args, signal);
    if (!first.answered) return first;
    const decision = decideSigning(name, first.result, this.#options.allowWrites);
    switch (decision.action) {
      case "pass":
        return first;
      case "refuse":
        await gate.refused(name, args, decision.template, decision.message);
        return {
          result: toolError(
            decision.message,
            decision.showResult ? first.result.structuredContent : undefined,
          ),
          answered: true,
          answer: first.answer,
        };
      case "sign": {
        const clearance = await gate.clear(name, args, decision.template);
        if (!clearance.ok) return { result: toolError(clearance.text), answered: true };
        if (this.#closed || signal?.aborted) {
          clearance.reservation.release();
          return this.#closed ? gone() : gone(CANCELLED);
        }
        // Filled now, after any wait for the person: a missing created_at is the time of signing.
        const now = Math.floor(Date.now() / 1000);
        let event;
        try {
          event = await this.#options.signer.sign(eventToSign(decision.template, now));
        } catch (error) {
          clearance.reservation.release(); // nothing was signed: its place is free again
          throw error;
        }
        clearance.reservation.spend();
        // The second answer is the publish result; it is never signed again.
        const second = await this.#call(name, { ...args, event }, signal);
        // #call always gives the relay's answer, or what kept it from being sent.
        return {
          ...second,
          result: await gate.signed(
            name,
            args,
            event,
            second.answer!,
            second.result,
            clearance.approval,
          ),
        };
      }
    }
  }

  /**
   * An upload signs nothing, and is a write all the same: cleared first, with its receipt after. A
   * template it returns is refused like any other (it publishes no kind).
   */
  async #upload(call: OneCall): Promise<Forwarded> {
    const { name, args, gate, signal } = call;
    const clearance = await gate.clear(name, args, undefined);
    if (!clearance.ok) return { result: toolError(clearance.text), answered: false };
    if (this.#closed || signal?.aborted) {
      clearance.reservation.release();
      return this.#closed ? gone() : gone(CANCELLED);
    }
    clearance.reservation.spend();
    const forwarded = await this.#forward(call);
    if (forwarded.answer) await gate.uploaded(name, args, forwarded.answer);
    return forwarded;
  }

  /** One relay call, unless the host is gone or the call was cancelled: then nothing is sent. */
  async #call(name: string, args: JsonObject, signal?: AbortSignal): Promise<Forwarded> {
    if (this.#closed) return gone();
    if (signal?.aborted) return gone(CANCELLED);
    const answer = await this.#options.relay.callTool(name, args);
    if (answer.ok) return { result: answer.result, answered: true, answer };
    if (answer.failure.unknownTool) this.#table.invalidate();
    return {
      result: toolError(failureText(answer.failure)),
      answered: answer.failure.class !== "transport",
      answer,
    };
  }
}

/** A call's parts on its way through the facade. */
interface OneCall {
  name: string;
  args: JsonObject;
  gate: WriteGate;
  signal?: AbortSignal;
}

/** Why a cancelled call sent nothing. */
const CANCELLED = "the call was cancelled before it was sent";

/** A signal that never aborts, for a local tool called with none. */
const NEVER = new AbortController().signal;

function invalidParams(why: string): CallOutcome {
  return { error: { code: INVALID_PARAMS, message: `Invalid params: ${why}` } };
}

/** `Unknown tool: <name>` (the contract's words first), and what would change that. */
function unknownTool(name: string, hint: string): CallOutcome {
  return { error: { code: INVALID_PARAMS, message: `Unknown tool: ${name}${hint}` } };
}
