// The facade's tool logic: which tools the host sees, forwarding calls, the
// sign-and-resubmit step, error mapping and bounds. The host protocol calls
// it; it calls the relay client. It never sees JSON-RPC framing.

import type { RelayClient } from "./relay.ts";
import { nostr } from "./nostr.ts";
import { boundResult } from "./bounds.ts";
import { failureText, markPermission, type RelayFailure, toolError } from "./errors.ts";
import { decideSigning, eventToSign } from "./signing.ts";
import { DIAGNOSE_TOOL, exposedTable, type ToolEntry } from "./tools.ts";
import { isObject } from "./json.ts";

export interface FacadeOptions {
  relay: RelayClient;
  secretKey: Uint8Array;
  /** Exposed relay tools, in the order they are listed. */
  exposed: readonly string[];
  allowWrites: boolean;
  /** The `tiny_diagnose` entry and its handler (the report, never an error). */
  diagnose: { entry: ToolEntry; run(args: Record<string, unknown>): Promise<Record<string, unknown>> };
  /** One diagnostic line to stderr. */
  log(line: string): void;
}

/** A JSON-RPC error the host receives instead of a tool result. */
export interface CallError {
  code: number;
  message: string;
}

export type CallOutcome = { result: Record<string, unknown> } | { error: CallError };

const INVALID_PARAMS = -32602;

type TableState = { ok: true; table: ToolEntry[] } | { ok: false; failure: RelayFailure };

export class Facade {
  #options: FacadeOptions;
  /** The relay's table restricted to the exposed set; kept until the relay reports an unknown tool. */
  #table: ToolEntry[] | undefined;
  /** A fetch in progress, shared by concurrent requests. */
  #loading: Promise<TableState> | undefined;

  constructor(options: FacadeOptions) {
    this.#options = options;
  }

  /** The relay's exposed tools followed by `tiny_diagnose`; never fails. */
  async listTools(): Promise<ToolEntry[]> {
    const state = await this.#loadTable();
    if (!state.ok) {
      this.#options.log(`tools/list: ${failureText(state.failure)}; offering ${DIAGNOSE_TOOL} only`);
      return [this.#options.diagnose.entry];
    }
    return [...state.table, this.#options.diagnose.entry];
  }

  /** Fetches the table unless it is held; a failed fetch is retried on the next request. */
  #loadTable(): Promise<TableState> {
    if (this.#table) return Promise.resolve({ ok: true, table: this.#table });
    this.#loading ??= this.#fetchTable().finally(() => this.#loading = undefined);
    return this.#loading;
  }

  async #fetchTable(): Promise<TableState> {
    const answer = await this.#options.relay.mcp("tools/list", {});
    if (!answer.ok) return { ok: false, failure: answer.failure };
    const tools = answer.result.tools;
    if (!Array.isArray(tools)) {
      return {
        ok: false,
        failure: { class: "transport", detail: "the relay's tools/list answer has no tools list" },
      };
    }
    this.#table = exposedTable(tools, this.#options.exposed);
    return { ok: true, table: this.#table };
  }

  /** Answers a `tools/call` request's params. */
  async callTool(params: unknown): Promise<CallOutcome> {
    if (!isObject(params) || typeof params.name !== "string" || params.name === "") {
      return { error: { code: INVALID_PARAMS, message: "Invalid params: params.name must name a tool" } };
    }
    const name = params.name;
    const args = params.arguments ?? {};
    if (!isObject(args)) {
      return {
        error: { code: INVALID_PARAMS, message: "Invalid params: params.arguments must be an object" },
      };
    }
    if (name === DIAGNOSE_TOOL) return { result: boundResult(await this.#options.diagnose.run(args)) };
    // A tool outside the exposed set is refused before any relay contact.
    if (!this.#options.exposed.includes(name)) return unknownTool(name);
    const state = await this.#loadTable();
    if (!state.ok) return { result: toolError(failureText(state.failure)) };
    if (!state.table.some((entry) => entry.name === name)) return unknownTool(name);
    return { result: boundResult(markPermission(await this.#forward(name, args))) };
  }

  /** Calls the tool, and when it returns a template the facade may sign, signs it and calls again. */
  async #forward(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const first = await this.#call(name, args);
    const decision = decideSigning(name, first, this.#options.allowWrites);
    switch (decision.action) {
      case "pass":
        return first;
      case "refuse":
        return toolError(decision.message, decision.showResult ? first.structuredContent : undefined);
      case "sign": {
        const now = Math.floor(Date.now() / 1000);
        const event = nostr().pure.finalizeEvent(
          eventToSign(decision.template, now),
          this.#options.secretKey,
        );
        // The second answer is the publish result; it is never signed again.
        return this.#call(name, { ...args, event });
      }
    }
  }

  async #call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const answer = await this.#options.relay.mcp("tools/call", { name, arguments: args });
    if (answer.ok) return answer.result;
    if (answer.failure.unknownTool) this.#table = undefined;
    return toolError(failureText(answer.failure));
  }
}

function unknownTool(name: string): CallOutcome {
  return { error: { code: INVALID_PARAMS, message: `Unknown tool: ${name}` } };
}
