// `tiny_execute` (code mode): the model's program run in the sandbox, each `relay.<tool>(args)` one call
// on the very path a host's tools/call takes (exposure, a fresh NIP-98 token, sign-and-resubmit, the
// person's hold on every write), made as the program's: the question names it and its intent, its clock
// stops while the person decides, its writes are logged as its own. The answer reports what it returned,
// its logs, every call and every write (report.ts). The host's notifications/cancelled stops it.

import type { WriteOrigin } from "../oversight/write_gate.ts";
import {
  type CallOutcome,
  type CallToolResult,
  type JsonObject,
  type LocalTool,
  type RequestContext,
  type Tool,
  toolError,
} from "../wire/mcp.ts";
import { programValue, textOf } from "./bridge.ts";
import { IdempotencyKeys, keyedCall } from "./idempotency.ts";
import { CODE_MAX_CHARS } from "./messages.ts";
import type { ProgramLimits, ProgramOutcome, RelayBridge } from "./program.ts";
import { type CallReport, runResult } from "./report.ts";
import { SEARCH_TOOL } from "./search_tool.ts";

export const EXECUTE_TOOL = "tiny_execute";
/** The longest intent taken, in characters: a sentence for the person asked, not a document. */
export const MAX_INTENT = 500;

export const EXECUTE_ENTRY: Tool = {
  name: EXECUTE_TOOL,
  title: "Run a program against the relay",
  description: "Runs one small JavaScript or TypeScript program (types are stripped, not checked) that " +
    "defines `async function run(relay) { … }` and returns a JSON value. Each `await relay.<name>(args)` " +
    `calls one of the relay's tools this agent may call (${SEARCH_TOOL} lists them with their signatures), ` +
    "signed as the agent; it returns the tool's structuredContent (its text when it has none) and throws an " +
    "Error with the tool's error text. Writes are held by the person's settings exactly as direct calls " +
    "are: a confirmation for each, the write budget, the audit log. Use it to chain reads and keep only " +
    "what you need: filter, loop and join in the program. Inside: no fetch, imports, timers or files. " +
    'Pass every write a key of its own, `await relay.<write>(args, { idempotencyKey: "…" })`: the ' +
    "program run again with that key and the same arguments is answered from the write already sent, " +
    "never sent twice. An answer with a next_cursor has getNextPage() and `for await` over its items. " +
    "Limits: 30 s (not counting a person deciding), 64 MiB, 100 relay calls (8 at once), 1 MiB of result " +
    "and console output together. The answer always says what was returned, the logs, every relay call, " +
    "whether any write was sent, and the hash of the functions' table; on a failure, check it before " +
    "running the program again.",
  inputSchema: {
    type: "object",
    properties: {
      code: {
        type: "string",
        maxLength: CODE_MAX_CHARS,
        description: "The program: `async function run(relay) { … return value; }`.",
      },
      intent: {
        type: "string",
        maxLength: MAX_INTENT,
        description:
          "What the program is for, in one sentence: shown to the person asked to approve a write.",
      },
    },
    required: ["code"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
};

/** What tiny_execute needs of its session. */
export interface ExecutePorts {
  /** One relay call on the facade's path, as the program's (`origin`). */
  call(tool: string, args: JsonObject, origin: WriteOrigin): Promise<CallOutcome>;
  /** Runs the program (lib/code/sandbox.ts, loaded on the first call). */
  run(
    code: string,
    bridge: RelayBridge,
    options: { limits: Partial<ProgramLimits>; signal: AbortSignal },
  ): Promise<ProgramOutcome>;
  /** The limits set for this session (--code-timeout lowers wallMs). */
  limits: Partial<ProgramLimits>;
  /**
   * The exposed table's short hash: of the table held now; or, with `fetch`, read again when none is
   * (the relay reported a tool it no longer lists); none when it cannot be had.
   */
  tableHash?: (fetch: boolean) => Promise<string | undefined>;
  /** The session's idempotency keys; a store of its own unless given. */
  keys?: IdempotencyKeys;
}

type Parsed = { ok: true; code: string; intent?: string } | { ok: false; error: string };

/** tiny_execute's arguments, or the words refusing them. */
export function parseExecuteArgs(args: JsonObject): Parsed {
  const unknown = Object.keys(args).filter((key) => key !== "code" && key !== "intent");
  if (unknown.length > 0) {
    return { ok: false, error: `tiny_execute takes code and intent, not ${unknown.slice(0, 3).join(", ")}` };
  }
  const { code, intent } = args;
  if (typeof code !== "string" || code.trim() === "") {
    return { ok: false, error: "tiny_execute needs code: a program defining async function run(relay)" };
  }
  if (intent !== undefined && typeof intent !== "string") {
    return { ok: false, error: "tiny_execute's intent must be a string" };
  }
  if (intent !== undefined && intent.length > MAX_INTENT) {
    return {
      ok: false,
      error: `tiny_execute's intent is ${intent.length} characters, at most ${MAX_INTENT}`,
    };
  }
  return { ok: true, code, ...(intent?.trim() ? { intent: intent.trim() } : {}) };
}

/** The bridge from the program's relay calls to the facade, each call recorded as it goes. */
function bridgeFor(
  ports: ExecutePorts,
  keys: IdempotencyKeys,
  intent: string | undefined,
  calls: CallReport[],
): RelayBridge {
  return {
    call: (tool, args, { signal, pause, idempotencyKey }) => {
      // Unknown until the call answers: a call cut off in flight may have taken effect.
      const record: CallReport = { tool, state: "unknown" };
      calls.push(record);
      const origin: WriteOrigin = {
        via: EXECUTE_TOOL,
        ...(intent ? { intent } : {}),
        ...(idempotencyKey === undefined ? {} : { idempotencyKey }),
        signal,
        pause,
        noted: (note) => {
          record.write = { outcome: note.outcome, ...(note.event ? { event: note.event } : {}) };
          if (note.why) record.write.why = note.why;
        },
      };
      const make = () => facadeCall(ports, record, args as JsonObject, origin);
      // A key is looked up before the write enters the facade's path (idempotency.ts).
      return idempotencyKey === undefined ? make() : keyedCall(keys, idempotencyKey, record, args, make);
    },
  };
}

/** One call on the facade's path: the value the program sees, or an Error with the facade's words. */
async function facadeCall(
  ports: ExecutePorts,
  record: CallReport,
  args: JsonObject,
  origin: WriteOrigin,
): Promise<unknown> {
  const outcome = await ports.call(record.tool, args, origin);
  const failure = "error" in outcome
    ? outcome.error.message
    : outcome.result.isError
    ? textOf(outcome.result)
    : undefined;
  if (failure !== undefined) {
    Object.assign(record, { state: "error", error: failure });
    throw new Error(failure);
  }
  record.state = "ok";
  return programValue((outcome as { result: CallToolResult }).result);
}

/**
 * The calls as the answer reports them: those that reached the bridge as recorded (copied: one still in
 * flight may settle later), then those the program asked for that never left.
 */
function callReports(recorded: readonly CallReport[], outcome: ProgramOutcome): CallReport[] {
  const reports = recorded.map((call) => ({ ...call, ...(call.write ? { write: { ...call.write } } : {}) }));
  for (const call of outcome.calls.slice(recorded.length)) {
    if (call.state === "not-sent") reports.push({ tool: call.tool, state: "not sent" });
  }
  return reports;
}

export function executeTool(ports: ExecutePorts): LocalTool {
  const keys = ports.keys ?? new IdempotencyKeys();
  return {
    entry: EXECUTE_ENTRY,
    async call(args: JsonObject, context?: RequestContext): Promise<CallToolResult> {
      const parsed = parseExecuteArgs(args);
      if (!parsed.ok) return toolError(parsed.error);
      const recorded: CallReport[] = [];
      const signal = context?.signal ?? new AbortController().signal;
      // A table held when the program starts and gone when it ends changed under it: read it again then.
      const heldAtStart = (await ports.tableHash?.(false).catch(() => undefined)) !== undefined;
      const outcome = await ports.run(parsed.code, bridgeFor(ports, keys, parsed.intent, recorded), {
        limits: ports.limits,
        signal,
      });
      const tableHash = await ports.tableHash?.(heldAtStart).catch(() => undefined);
      return runResult({
        ...outcome,
        calls: callReports(recorded, outcome),
        ...(tableHash === undefined ? {} : { tableHash }),
      });
    },
  };
}
