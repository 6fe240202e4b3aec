// The host side: MCP over newline-delimited JSON-RPC 2.0 on stdio. Answers
// the handshake and ping itself, hands tools/list and tools/call to the
// facade, and knows nothing of Nostr or the relay.

import { isObject } from "../wire/json.ts";
import {
  type CallOutcome,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  type RpcId,
  type Tool,
} from "../wire/mcp.ts";
import { rawIdOf } from "./line_id.ts";
import { type ByteSink, LINE_LIMIT, type LineEvent, LineWriter, readLines } from "./stdio.ts";
import type { HostChannel, HostResponse } from "./channel.ts";
import { NAME, VERSION } from "../wire/identity.ts";

/** Handshake versions answered as asked (facade.md, `initialize`); any other gets the fallback. */
export const HANDSHAKE_VERSIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
export const FALLBACK_VERSION = "2025-06-18";

/**
 * The JSON text of an id on its way back to the host: a numeric id as the
 * exact text the host wrote when that is at hand, so `9007199254740993` is
 * not echoed as `9007199254740992` (JSON.parse rounds it).
 */
export function idText(id: RpcId, raw?: string): string {
  if (typeof id === "number" && raw !== undefined && Number(raw) === id) return raw;
  return JSON.stringify(id);
}

/** What the host protocol needs from the facade. */
export interface ToolProvider {
  listTools(): Promise<Tool[]>;
  callTool(params: unknown): Promise<CallOutcome>;
  /** Gives the provider what tells the host to list the tools again. */
  onToolsChanged?(listener: () => void): void;
}

/**
 * The one message tinyagent sends the host unasked: the tools changed, list
 * them again. Announced in `initialize` (`listChanged: true`).
 */
export const TOOLS_CHANGED = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';

/** A JSON-RPC message to write to the host. */
export type Answer =
  | { jsonrpc: "2.0"; id: RpcId; result: unknown }
  | { jsonrpc: "2.0"; id: RpcId; error: { code: number; message: string } };

/** A well-formed request, ready to dispatch. */
export interface Request {
  id: string | number;
  /** A numeric id's JSON text as the host wrote it, echoed as is on the wire. */
  rawId?: string;
  method: string;
  params: unknown;
}

/**
 * What one input line is: a request, an answer already decided (a protocol error), a response to
 * a request of ours (channel.ts), or nothing to answer.
 */
export type Parsed =
  | { request: Request }
  | { answer: Answer; rawId?: string }
  | { response: HostResponse }
  | { ignore: true };

/**
 * One answer as its line, with the id exactly as the host wrote it. An answer
 * that cannot be encoded (a relay result nested too deep to write) becomes an
 * internal error for the same id, never a crash.
 */
export function encodeAnswer(answer: Answer, rawId?: string, log?: (line: string) => void): string {
  const head = `{"jsonrpc":"2.0","id":${idText(answer.id, rawId)},`;
  try {
    const body = "result" in answer
      ? JSON.stringify({ result: answer.result })
      : JSON.stringify({ error: answer.error });
    return head + body.slice(1);
  } catch (error) {
    log?.(`internal error: the answer could not be encoded (${(error as Error).message})`);
    return `${head}"error":${
      JSON.stringify({ code: INTERNAL_ERROR, message: "Internal error: the answer could not be encoded" })
    }}`;
  }
}

/** The version answered to an `initialize` that asked for `requested`. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && HANDSHAKE_VERSIONS.includes(requested)
    ? requested
    : FALLBACK_VERSION;
}

function errorAnswer(id: RpcId, code: number, message: string): Answer {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/**
 * Reads one input line as JSON-RPC. Notifications and blank lines are ignored, a response is
 * handed on for matching (never answered: JSON-RPC forbids it); anything malformed is answered
 * with the matching error.
 */
export function parseLine(line: string): Parsed {
  if (line.trim() === "") return { ignore: true };
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return { answer: errorAnswer(null, PARSE_ERROR, "Parse error: the line is not valid JSON") };
  }
  if (!isObject(message)) {
    return { answer: errorAnswer(null, PARSE_ERROR, "Parse error: the line is not one JSON object") };
  }
  const hasId = Object.hasOwn(message, "id");
  const rawId = message.id;
  const validId = typeof rawId === "string" || (typeof rawId === "number" && Number.isFinite(rawId));
  const id: RpcId = validId ? rawId as string | number : null;
  // A numeric id is echoed as written; the line is scanned for its text only then.
  const raw = validId && typeof rawId === "number" ? rawIdOf(line) : undefined;
  const invalid = (why: string): Parsed => ({
    answer: errorAnswer(id, INVALID_REQUEST, `Invalid Request: ${why}`),
    rawId: raw,
  });
  if (message.jsonrpc !== "2.0") return invalid('jsonrpc must be "2.0"');
  if (typeof message.method !== "string") {
    if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) {
      return { response: { id: message.id, result: message.result, error: message.error } };
    }
    return invalid("method must be a string");
  }
  if (!hasId) return { ignore: true }; // A notification: ignored, whatever its method.
  if (!validId) {
    return { answer: errorAnswer(null, INVALID_REQUEST, "Invalid Request: id must be a string or a number") };
  }
  const params = message.params;
  if (params !== undefined && !isObject(params) && !Array.isArray(params)) {
    return invalid("params must be an object or an array");
  }
  return { request: { id: id as string | number, rawId: raw, method: message.method, params } };
}

/** Answers one well-formed request. */
export async function dispatch(request: Request, tools: ToolProvider): Promise<Answer> {
  const { id, params } = request;
  switch (request.method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: negotiateVersion(isObject(params) ? params.protocolVersion : undefined),
          // Beyond the contract's {"tools": {}}: the table heals in the background, and hosts
          // that list once learn of it only through notifications/tools/list_changed.
          capabilities: { tools: { listChanged: true } },
          serverInfo: { name: NAME, version: VERSION },
        },
      };
    case "ping":
      return { jsonrpc: "2.0", id, result: {} };
    case "tools/list":
      return { jsonrpc: "2.0", id, result: { tools: await tools.listTools() } };
    case "tools/call": {
      const outcome = await tools.callTool(params);
      return "error" in outcome
        ? { jsonrpc: "2.0", id, error: outcome.error }
        : { jsonrpc: "2.0", id, result: outcome.result };
    }
    default:
      return errorAnswer(id, METHOD_NOT_FOUND, `Method not found: ${request.method}`);
  }
}

/** Answers one input line; undefined for a notification, a response, or a blank line. */
export async function answerLine(line: string, tools: ToolProvider): Promise<Answer | undefined> {
  const parsed = parseLine(line);
  if ("ignore" in parsed || "response" in parsed) return undefined;
  if ("answer" in parsed) return parsed.answer;
  return await dispatch(parsed.request, tools);
}

function mebibytes(bytes: number): string {
  return `${+(bytes / (1024 * 1024)).toFixed(2)} MiB`;
}

function overlongAnswer(event: Extract<LineEvent, { type: "overlong" }>, limit: number): Answer {
  return errorAnswer(
    event.id,
    INVALID_REQUEST,
    `Invalid Request: the line is ${event.bytes} bytes, over the ${
      mebibytes(limit)
    } (${limit} byte) line limit`,
  );
}

export interface ServeOptions {
  input: AsyncIterable<Uint8Array>;
  output: ByteSink;
  tools: ToolProvider & { close?(): void };
  log(line: string): void;
  lineLimit?: number;
  /** Called once, after the first answer has been written (work deferred past the handshake). */
  afterFirstAnswer?: () => void;
  /** Resolves with a reason when the host is known to be gone otherwise than by stdout (its process ended). */
  hostGone?: Promise<string>;
  /**
   * Requests of ours to the host and their responses: bound to the writer here, told the host's
   * capabilities at each `initialize`, and closed when the host can no longer answer.
   */
  channel?: HostChannel;
}

/**
 * Reads requests until end of input and answers each one as soon as it is
 * ready: requests run concurrently, answers are written whole, one per line.
 * At end of input every request still in flight is answered before this
 * resolves, so nothing the host sent is lost. Once the host is gone (stdout
 * closed, or `hostGone`), nobody can receive an answer: the tools are closed,
 * so nothing more is signed or sent, and this resolves at once.
 */
export async function serve(options: ServeOptions): Promise<void> {
  let hostGone!: (reason: string) => void;
  const gone = new Promise<string>((resolve) => hostGone = resolve);
  const writer = new LineWriter(
    options.output,
    (error) => hostGone(`stdout closed (${(error as Error).message})`),
  );
  options.hostGone?.then(hostGone);
  options.channel?.bind((line) => void writer.writeLine(line));
  const reason = await Promise.race([answerAll(options, writer), gone]);
  if (reason === undefined) return;
  options.channel?.close(`the host is gone: ${reason}`);
  options.log(`the host is gone: ${reason}; stopping`);
  options.tools.close?.();
}

/** The session until end of input: undefined once every request has been answered. */
async function answerAll(options: ServeOptions, writer: LineWriter): Promise<undefined> {
  const limit = options.lineLimit ?? LINE_LIMIT;
  const inFlight = new Set<Promise<void>>();
  let answered = false;
  // The tools-changed notification waits for the handshake's answer; several before it are one.
  let initialized = false;
  let changedBeforeInitialize = false;
  options.tools.onToolsChanged?.(() => {
    if (writer.closed) return;
    if (initialized) void writer.writeLine(TOOLS_CHANGED);
    else changedBeforeInitialize = true;
  });
  const write = async (answer: Answer, rawId?: string, method?: string) => {
    await writer.writeLine(encodeAnswer(answer, rawId, options.log));
    if (method === "initialize" && !initialized) {
      initialized = true;
      if (changedBeforeInitialize) void writer.writeLine(TOOLS_CHANGED);
    }
    if (!answered) {
      answered = true;
      options.afterFirstAnswer?.();
    }
  };
  for await (const event of readLines(options.input, limit)) {
    if (writer.closed) break;
    if (event.type === "overlong") {
      options.log(`refused a ${event.bytes} byte line: over the ${mebibytes(limit)} line limit`);
      void write(overlongAnswer(event, limit), event.rawId);
      continue;
    }
    const parsed = parseLine(event.text);
    if ("ignore" in parsed) continue;
    if ("response" in parsed) {
      options.channel?.settle(parsed.response);
      continue;
    }
    if ("answer" in parsed) {
      void write(parsed.answer, parsed.rawId);
      continue;
    }
    const { request } = parsed;
    if (request.method === "initialize" && options.channel) {
      // What the host can be asked (elicitation) is what its latest handshake declared.
      const params = isObject(request.params) ? request.params : {};
      options.channel.capabilities = isObject(params.capabilities) ? params.capabilities : {};
    }
    const task = dispatch(request, options.tools)
      .catch((error) => {
        // A bug must not take the session down: answer and say why on stderr.
        options.log(`internal error: ${(error as Error)?.stack ?? error}`);
        return errorAnswer(request.id, INTERNAL_ERROR, "Internal error");
      })
      .then((answer) => write(answer, request.rawId, request.method))
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  }
  // The host sends nothing more, so no question of ours can be answered: those calls end now.
  options.channel?.close("the host's input ended");
  while (inFlight.size > 0) await Promise.all(inFlight);
  await writer.flush();
  return undefined;
}
