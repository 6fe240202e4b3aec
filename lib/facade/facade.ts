// The facade's tool logic: which tools the host sees (the table, table.ts),
// forwarding calls, the sign-and-resubmit step, error marks and bounds. The
// host protocol calls it; it calls the relay through a narrow port. It never
// sees JSON-RPC framing and never holds the key, only a Signer. Every write
// passes the person's hold on it (oversight/write_gate.ts): the budget, the
// confirmation, the receipt and the audit log.

import { conformResult } from "./conform.ts";
import { excerpt, isObject } from "../wire/json.ts";
import {
  type CallError,
  type CallOutcome,
  type CallToolResult,
  INVALID_PARAMS,
  type JsonObject,
  type LocalTool,
  type RequestContext,
  type Tool,
  toolError,
} from "../wire/mcp.ts";
import { markPermission } from "../relay/answer.ts";
import { refusalIn, type SeenRefusal, withAdvice } from "../relay/refusal.ts";
import type { Signer } from "../key/signer.ts";
import { WriteBudget } from "../oversight/write_budget.ts";
import { WriteGate, type WriteOrigin } from "../oversight/write_gate.ts";
import { nearest } from "../wire/nearest.ts";
import { forward, type Forwarding, type RelayPort, upload } from "./forward.ts";
import { type Scheduler, type TableState, ToolTable } from "./table.ts";
import { isWriteTool, publishesNothing, unknownToolHint } from "./tools.ts";

export type { RelayPort } from "./forward.ts";

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
  /**
   * Code mode (--code-mode): these tools (tiny_search, tiny_execute) are offered in place of the
   * relay's, whose tools a program calls; the host calling one directly is refused, saying so.
   */
  programTools?: LocalTool[];
  /** One diagnostic line to stderr. */
  log(line: string): void;
  /** The background fetches' clock (table.ts); real timers unless a test brings its own. */
  schedule?: Scheduler;
  /** The person's hold on the writes; by default no budget, no question, no log: receipts on stderr only. */
  gate?: WriteGate;
  /**
   * Told each relay tool's answer, made valid, whoever called (the host, a program, a resource read):
   * code mode learns its result shapes here. On the call's path, so it only takes note.
   */
  answered?(tool: string, result: CallToolResult): void;
}

/**
 * What a call is told besides its params: the host cancelled it; for a call a program makes
 * (tiny_execute), where its writes come from; for a resource read, that it is one.
 */
export interface CallContext extends Partial<RequestContext> {
  origin?: WriteOrigin;
  /** A relay read the host asked for by URI (resources/read, a listing, a completion). */
  resource?: boolean;
}

export class Facade {
  #options: FacadeOptions;
  #table: ToolTable;
  #gate: WriteGate;
  #forwarding: Forwarding;
  /** Set when the host is gone: nothing more is signed or sent. */
  #closed = false;
  #lastRefusal: SeenRefusal | undefined;

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
    this.#forwarding = {
      relay: options.relay,
      signer: options.signer,
      allowWrites: options.allowWrites,
      closed: () => this.#closed,
      tableChanged: () => this.#table.invalidate(),
    };
  }

  /**
   * Tells `listener` whenever the host should list the tools again (notifications/tools/list_changed);
   * never in code mode, where what tools/list answers does not change with the relay's table.
   */
  onToolsChanged(listener: () => void): void {
    if (!this.#options.programTools) this.#table.onChange = listener;
  }

  /** The last refusal of the relay's the session saw, in words tinyagent knows (tiny_diagnose tells it). */
  get lastRefusal(): SeenRefusal | undefined {
    return this.#lastRefusal;
  }

  /** The host is gone: sign nothing more and make no further relay call. */
  close(): void {
    this.#closed = true;
    this.#table.close();
    this.#options.relay.close?.();
  }

  /**
   * The relay's exposed tools followed by `tiny_diagnose` (and the other local tools); in code mode
   * the program tools in their place. Never fails.
   */
  async listTools(): Promise<Tool[]> {
    const local = this.#local().map((tool) => tool.entry);
    if (this.#options.programTools) return local;
    const state = await this.tableForList();
    return state.ok ? [...state.table, ...local] : local;
  }

  /** The tools answered here, in the order they are listed. */
  #local(): LocalTool[] {
    const { programTools, diagnose, localTools } = this.#options;
    return [...programTools ?? [], diagnose, ...localTools ?? []];
  }

  /** What tools/list answers from: the exposed table, or why the relay's could not be read. */
  tableForList(): Promise<TableState> {
    return this.#table.forList();
  }

  /**
   * The exposed table for a search (code mode's tiny_search), with the relay's output schemas: unlike
   * tableForList, the host saw none of it.
   */
  exposedTable(): Promise<TableState> {
    return this.#table.loadSearchable();
  }

  /** The same table if one is held now, never fetched (what a program's answer names). */
  heldExposedTable(): Tool[] | undefined {
    return this.#table.searchableHeld;
  }

  /** Answers a `tools/call` request's params; every result leaves valid and bounded. */
  async callTool(params: unknown, context: CallContext = {}): Promise<CallOutcome> {
    const outcome = await this.#answerCall(params, context);
    if ("error" in outcome) return outcome;
    const { value, notes } = conformResult(outcome.result);
    if (notes.length > 0) this.#options.log(`tools/call: the result was repaired: ${notes.join("; ")}`);
    if (outcome.relayTool !== undefined) this.#options.answered?.(outcome.relayTool, value);
    return outcome.retryAfter === undefined
      ? { result: value }
      : { result: value, retryAfter: outcome.retryAfter };
  }

  /** The call's result; `relayTool` when the relay's tool was called (not one answered here). */
  async #answerCall(
    params: unknown,
    context: CallContext,
  ): Promise<{ result: JsonObject; relayTool?: string; retryAfter?: number } | { error: CallError }> {
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
    const local = this.#local().find((tool) => tool.entry.name === name);
    if (local) {
      // A program calls the relay's tools, never these (not itself, not the host's diagnose or inbox).
      if (context.origin) {
        return unknownTool(name, " (a program calls the relay's tools, not tinyagent's own)");
      }
      return { result: await local.call(args, { signal: context.signal ?? NEVER }) };
    }
    const refused = this.#refusal(name, context);
    if (refused) return refused;
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
    const forwarded = await (publishesNothing(name) ? upload : forward)(this.#forwarding, call);
    if (forwarded.answered && !this.#closed) await this.#table.refreshAfterAnswer();
    // A refusal gets its mark and, when the relay's words name a cause, what the agent can do about it.
    const marked = markPermission(forwarded.result);
    const result = forwarded.answered ? withAdvice(marked) : marked;
    const refusal = forwarded.answered ? refusalIn(forwarded.result) : undefined;
    if (refusal) this.#lastRefusal = { ...refusal, tool: name, said: excerpt(refusal.said, 300) };
    const relayTool = forwarded.answered ? name : undefined;
    const retryAfter = forwarded.answer?.ok === false ? forwarded.answer.failure.retryAfter : undefined;
    return retryAfter === undefined ? { result, relayTool } : { result, relayTool, retryAfter };
  }

  /**
   * A relay tool the caller may not call: one outside the exposed set (refused before any relay
   * contact, naming the nearest it may call), or in code mode one the host calls itself.
   */
  #refusal(name: string, context: CallContext): CallOutcome | undefined {
    const { exposed, allowWrites, programTools } = this.#options;
    if (!exposed.includes(name)) {
      const hint = unknownToolHint(name, allowWrites);
      if (hint !== "") return unknownTool(name, hint);
      const near = nearest(
        name,
        context.origin ? exposed : [...exposed, ...this.#local().map((t) => t.entry.name)],
      );
      return unknownTool(name, near.length > 0 ? ` (nearest: ${near.join(", ")})` : "", near);
    }
    if (programTools && !context.origin && !context.resource) {
      return unknownTool(name, ` (code mode: a tiny_execute program calls it as relay.${name}(args))`);
    }
    return undefined;
  }

  async #tableIfLoads(): Promise<Tool[] | undefined> {
    const state = await this.#table.load();
    if (state.ok) return state.table;
    this.#options.log(
      `tools/call: the relay's table is unavailable; the call goes to the relay all the same`,
    );
    return undefined;
  }
}

/** A signal that never aborts, for a local tool called with none. */
const NEVER = new AbortController().signal;

function invalidParams(why: string): CallOutcome {
  return { error: { code: INVALID_PARAMS, message: `Invalid params: ${why}` } };
}

/** `Unknown tool: <name>` (the contract's words first), and what would change that, or the nearest. */
function unknownTool(name: string, hint: string, near?: string[]): CallOutcome {
  const message = `Unknown tool: ${name.length > 200 ? `${name.slice(0, 200)}…` : name}${hint}`;
  return {
    error: {
      code: INVALID_PARAMS,
      message,
      ...(near ? { data: { tool: name.slice(0, 200), nearest: near } } : {}),
    },
  };
}
