// The host side: MCP over newline-delimited JSON-RPC 2.0 on stdio. Answers
// the handshake and ping itself, hands tools/list and tools/call to the
// facade, and knows nothing of Nostr or the relay.

import { isObject } from "../wire/json.ts";
import {
  type CallError,
  type CallOutcome,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  METHOD_NOT_FOUND,
  type RequestContext,
  type Tool,
} from "../wire/mcp.ts";
import { type Answer, encodeAnswer, errorAnswer, parseLine, type Request } from "./messages.ts";
import { type ByteSink, LINE_LIMIT, type LineEvent, LineWriter, readLines } from "./stdio.ts";
import type { HostChannel } from "./channel.ts";
import { initializeResult, type ServerFeatures } from "./handshake.ts";

export { FALLBACK_VERSION, HANDSHAKE_VERSIONS, negotiateVersion } from "./handshake.ts";
export { type Answer, encodeAnswer, idText, type Parsed, parseLine, type Request } from "./messages.ts";

/** What the host protocol needs from the facade. */
export interface ToolProvider {
  listTools(): Promise<Tool[]>;
  callTool(params: unknown, context?: RequestContext): Promise<CallOutcome>;
  /** Gives the provider what tells the host to list the tools again. */
  onToolsChanged?(listener: () => void): void;
}

/**
 * The one message tinyagent sends the host unasked: the tools changed, list
 * them again. Announced in `initialize` (`listChanged: true`).
 */
export const TOOLS_CHANGED = '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}';

/** A method a session serves beyond the tools (resources, completion): a result or a JSON-RPC error. */
export type MethodHandler = (
  params: unknown,
  context: RequestContext,
) => Promise<{ result: unknown } | { error: CallError }>;

/** Answers one well-formed request. */
export async function dispatch(
  request: Request,
  tools: ToolProvider,
  features?: ServerFeatures,
  methods?: ReadonlyMap<string, MethodHandler>,
  context: RequestContext = { signal: new AbortController().signal },
): Promise<Answer> {
  const { id, params } = request;
  const method = methods?.get(request.method);
  if (method) {
    const outcome = await method(params, context);
    return "error" in outcome
      ? { jsonrpc: "2.0", id, error: outcome.error }
      : { jsonrpc: "2.0", id, ...outcome };
  }
  switch (request.method) {
    case "initialize":
      return { jsonrpc: "2.0", id, result: initializeResult(params, features) };
    case "ping":
      return { jsonrpc: "2.0", id, result: {} };
    case "tools/list":
      return { jsonrpc: "2.0", id, result: { tools: await tools.listTools() } };
    case "tools/call": {
      const outcome = await tools.callTool(params, context);
      return "error" in outcome
        ? { jsonrpc: "2.0", id, error: outcome.error }
        : { jsonrpc: "2.0", id, result: outcome.result };
    }
    default:
      return errorAnswer(id, METHOD_NOT_FOUND, `Method not found: ${request.method}`);
  }
}

/** A request id as a key: the number 1 and the string "1" are different requests. */
function idKey(id: unknown): string {
  return `${typeof id}:${String(id)}`;
}

/** Answers one input line; undefined for a notification, a response, or a blank line. */
export async function answerLine(line: string, tools: ToolProvider): Promise<Answer | undefined> {
  const parsed = parseLine(line);
  if ("ignore" in parsed || "response" in parsed || "notification" in parsed) return undefined;
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
  /** What `initialize` declares beyond the tools: the model's instructions, experimental capabilities. */
  features?: ServerFeatures;
  /** Methods served beyond the tools (resources, completion), by name. */
  methods?: ReadonlyMap<string, MethodHandler>;
  /** The host's notifications, for a session that acts on some; and how it sends its own (bound at start). */
  notifications?: {
    /** The line writer the session's own notifications go through (its queue says when the host is behind). */
    bind(writer: LineWriter): void;
    receive(method: string, params: unknown): void;
  };
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
  options.notifications?.bind(writer);
  const reason = await Promise.race([answerAll(options, writer), gone]);
  if (reason === undefined) return;
  options.channel?.close(`the host is gone: ${reason}`);
  options.log(`the host is gone: ${reason}; stopping`);
  options.tools.close?.();
}

/** The answers' writer: each whole on its line; after the first, the deferred work starts. */
function answerWriter(options: ServeOptions, writer: LineWriter) {
  let answered = false;
  // The tools-changed notification waits for the handshake's answer; several before it are one.
  let initialized = false;
  let changedBeforeInitialize = false;
  options.tools.onToolsChanged?.(() => {
    if (writer.closed) return;
    if (initialized) void writer.writeLine(TOOLS_CHANGED);
    else changedBeforeInitialize = true;
  });
  return async (answer: Answer, rawId?: string, method?: string) => {
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
}

/**
 * Requests in flight, each answered once when ready, with what cancels it: the host's
 * notifications/cancelled reaches the one it names (a cancelled request is still answered once,
 * saying what happened).
 */
function requestsInFlight(options: ServeOptions, write: ReturnType<typeof answerWriter>) {
  const tasks = new Set<Promise<void>>();
  const running = new Map<string, AbortController>();
  return {
    cancel: (requestId: unknown) => running.get(idKey(requestId))?.abort(),
    start: (request: Request) => {
      const key = idKey(request.id);
      const cancel = new AbortController();
      running.set(key, cancel);
      const context = { signal: cancel.signal };
      const task = dispatch(request, options.tools, options.features, options.methods, context)
        .catch((error) => {
          // A bug must not take the session down: answer and say why on stderr.
          options.log(`internal error: ${(error as Error)?.stack ?? error}`);
          return errorAnswer(request.id, INTERNAL_ERROR, "Internal error");
        })
        .then((answer) => write(answer, request.rawId, request.method))
        .finally(() => {
          tasks.delete(task);
          if (running.get(key) === cancel) running.delete(key);
        });
      tasks.add(task);
    },
    all: async () => {
      while (tasks.size > 0) await Promise.all(tasks);
    },
  };
}

/** The session until end of input: undefined once every request has been answered. */
async function answerAll(options: ServeOptions, writer: LineWriter): Promise<undefined> {
  const limit = options.lineLimit ?? LINE_LIMIT;
  const write = answerWriter(options, writer);
  const requests = requestsInFlight(options, write);
  for await (const event of readLines(options.input, limit)) {
    if (writer.closed) break;
    if (event.type === "overlong") {
      options.log(`refused a ${event.bytes} byte line: over the ${mebibytes(limit)} line limit`);
      void write(overlongAnswer(event, limit), event.rawId);
      continue;
    }
    const parsed = parseLine(event.text);
    if ("ignore" in parsed) continue;
    if ("notification" in parsed) {
      const { method, params } = parsed.notification;
      if (method === "notifications/cancelled" && isObject(params)) requests.cancel(params.requestId);
      options.notifications?.receive(method, params);
    } else if ("response" in parsed) options.channel?.settle(parsed.response);
    else if ("answer" in parsed) void write(parsed.answer, parsed.rawId);
    else {
      const { request } = parsed;
      if (request.method === "initialize" && options.channel) {
        // What the host can be asked (elicitation) is what its latest handshake declared.
        const params = isObject(request.params) ? request.params : {};
        options.channel.capabilities = isObject(params.capabilities) ? params.capabilities : {};
      }
      requests.start(request);
    }
  }
  // The host sends nothing more, so no question of ours can be answered: those calls end now.
  options.channel?.close("the host's input ended");
  await requests.all();
  await writer.flush();
  return undefined;
}
