// The facade's tool logic: which tools the host sees, the table cache,
// forwarding calls, the sign-and-resubmit step, error marks and bounds. The
// host protocol calls it; it calls the relay through a narrow port. It never
// sees JSON-RPC framing and never holds the key, only a Signer.

import { boundResult } from "./bounds.ts";
import { isObject } from "./json.ts";
import {
  type CallOutcome,
  type CallToolResult,
  INVALID_PARAMS,
  type JsonObject,
  type Tool,
  toolError,
} from "./mcp.ts";
import { failureText, markPermission, type RelayAnswer, type RelayFailure } from "./relay_answer.ts";
import type { Signer } from "./signer.ts";
import { decideSigning, eventToSign } from "./signing.ts";
import { DIAGNOSE_TOOL, exposedTable } from "./tools.ts";

/** The two calls the facade makes to the relay. */
export interface RelayPort {
  listTools(): Promise<RelayAnswer>;
  callTool(name: string, args: JsonObject): Promise<RelayAnswer>;
}

/** A tool the facade answers itself (`tiny_diagnose`). */
export interface LocalTool {
  entry: Tool;
  call(args: JsonObject): Promise<CallToolResult>;
}

export interface FacadeOptions {
  relay: RelayPort;
  signer: Pick<Signer, "sign">;
  /** Exposed relay tools, in the order they are listed. */
  exposed: readonly string[];
  allowWrites: boolean;
  /** `tiny_diagnose`: always offered, answered here, never an error whatever the verdict. */
  diagnose: LocalTool;
  /** One diagnostic line to stderr. */
  log(line: string): void;
}

type TableState = { ok: true; table: Tool[] } | { ok: false; failure: RelayFailure };

export class Facade {
  #options: FacadeOptions;
  /** The relay's table restricted to the exposed set; kept until the relay reports an unknown tool. */
  #table: Tool[] | undefined;
  /** A fetch in progress, shared by concurrent requests. */
  #loading: Promise<TableState> | undefined;

  constructor(options: FacadeOptions) {
    this.#options = options;
  }

  /** The relay's exposed tools followed by `tiny_diagnose`; never fails. */
  async listTools(): Promise<Tool[]> {
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
    const answer = await this.#options.relay.listTools();
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
      return invalidParams("params.name must name a tool");
    }
    const name = params.name;
    const args = params.arguments ?? {};
    if (!isObject(args)) return invalidParams("params.arguments must be an object");
    if (name === DIAGNOSE_TOOL) return { result: boundResult(await this.#options.diagnose.call(args)) };
    // A tool outside the exposed set is refused before any relay contact.
    if (!this.#options.exposed.includes(name)) return unknownTool(name);
    const state = await this.#loadTable();
    if (!state.ok) return { result: toolError(failureText(state.failure)) };
    if (!state.table.some((entry) => entry.name === name)) return unknownTool(name);
    return { result: boundResult(markPermission(await this.#forward(name, args))) };
  }

  /** Calls the tool, and when it returns a template the facade may sign, signs it and calls again. */
  async #forward(name: string, args: JsonObject): Promise<JsonObject> {
    const first = await this.#call(name, args);
    const decision = decideSigning(name, first, this.#options.allowWrites);
    switch (decision.action) {
      case "pass":
        return first;
      case "refuse":
        return toolError(decision.message, decision.showResult ? first.structuredContent : undefined);
      case "sign": {
        const now = Math.floor(Date.now() / 1000);
        const event = await this.#options.signer.sign(eventToSign(decision.template, now));
        // The second answer is the publish result; it is never signed again.
        return this.#call(name, { ...args, event });
      }
    }
  }

  async #call(name: string, args: JsonObject): Promise<JsonObject> {
    const answer = await this.#options.relay.callTool(name, args);
    if (answer.ok) return answer.result;
    if (answer.failure.unknownTool) this.#table = undefined;
    return toolError(failureText(answer.failure));
  }
}

function invalidParams(why: string): CallOutcome {
  return { error: { code: INVALID_PARAMS, message: `Invalid params: ${why}` } };
}

function unknownTool(name: string): CallOutcome {
  return { error: { code: INVALID_PARAMS, message: `Unknown tool: ${name}` } };
}
