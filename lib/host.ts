// The host side: MCP over newline-delimited JSON-RPC 2.0 on stdio. Answers
// the handshake and ping itself, hands tools/list and tools/call to the
// facade, and knows nothing of Nostr or the relay.

import { LINE_LIMIT } from "./bounds.ts";
import type { CallOutcome } from "./facade.ts";
import { type ByteSink, type LineEvent, LineWriter, readLines } from "./stdio.ts";
import type { ToolEntry } from "./tools.ts";
import { NAME, VERSION } from "./version.ts";
import { isObject } from "./json.ts";

/** Handshake versions answered as asked; any other is answered with the fallback. */
export const HANDSHAKE_VERSIONS: readonly string[] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];
export const FALLBACK_VERSION = "2025-06-18";

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;

/** What the host protocol needs from the facade. */
export interface ToolProvider {
  listTools(): Promise<ToolEntry[]>;
  callTool(params: unknown): Promise<CallOutcome>;
}

type Id = string | number | null;

/** The version answered to an `initialize` that asked for `requested`. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === "string" && HANDSHAKE_VERSIONS.includes(requested)
    ? requested
    : FALLBACK_VERSION;
}

function errorMessage(id: Id, code: number, message: string) {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

/**
 * Answers one input line. Returns the answer to write, or undefined for a
 * notification, a response, or a blank line, which get none.
 */
export async function answerLine(line: string, tools: ToolProvider): Promise<unknown | undefined> {
  if (line.trim() === "") return undefined;
  let message: unknown;
  try {
    message = JSON.parse(line);
  } catch {
    return errorMessage(null, PARSE_ERROR, "Parse error: the line is not valid JSON");
  }
  if (!isObject(message)) {
    return errorMessage(null, PARSE_ERROR, "Parse error: the line is not one JSON object");
  }
  const hasId = Object.hasOwn(message, "id");
  const rawId = message.id;
  const validId = typeof rawId === "string" || (typeof rawId === "number" && Number.isFinite(rawId));
  const id: Id = validId ? rawId as string | number : null;
  if (message.jsonrpc !== "2.0") {
    return errorMessage(id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"');
  }
  if (typeof message.method !== "string") {
    // We never send requests, so a well-formed response is stray, and JSON-RPC forbids answering it.
    if (hasId && (Object.hasOwn(message, "result") || Object.hasOwn(message, "error"))) return undefined;
    return errorMessage(id, INVALID_REQUEST, "Invalid Request: method must be a string");
  }
  if (!hasId) return undefined; // A notification: ignored, whatever its method.
  if (!validId) {
    return errorMessage(null, INVALID_REQUEST, "Invalid Request: id must be a string or a number");
  }
  const params = message.params;
  if (params !== undefined && !isObject(params) && !Array.isArray(params)) {
    return errorMessage(id, INVALID_REQUEST, "Invalid Request: params must be an object or an array");
  }
  switch (message.method) {
    case "initialize":
      return {
        jsonrpc: "2.0",
        id,
        result: {
          protocolVersion: negotiateVersion(isObject(params) ? params.protocolVersion : undefined),
          capabilities: { tools: {} },
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
      return errorMessage(id, METHOD_NOT_FOUND, `Method not found: ${message.method}`);
  }
}

function overlongAnswer(event: Extract<LineEvent, { type: "overlong" }>) {
  return errorMessage(
    event.id,
    INVALID_REQUEST,
    `Invalid Request: the line is ${event.bytes} bytes, over the 48 MiB (${LINE_LIMIT} byte) line limit`,
  );
}

export interface ServeOptions {
  input: AsyncIterable<Uint8Array>;
  output: ByteSink;
  tools: ToolProvider;
  log(line: string): void;
  lineLimit?: number;
  /** Called once, after the first answer has been written (work deferred past the handshake). */
  afterFirstAnswer?: () => void;
}

/**
 * Reads requests until end of input and answers each one as soon as it is
 * ready: requests run concurrently, answers are written whole, one per line.
 * At end of input every request still in flight is answered before this
 * resolves, so nothing the host sent is lost.
 */
export async function serve(options: ServeOptions): Promise<void> {
  const writer = new LineWriter(
    options.output,
    (error) => options.log(`stdout closed: ${(error as Error).message}`),
  );
  const inFlight = new Set<Promise<void>>();
  let answered = false;
  for await (const event of readLines(options.input, options.lineLimit)) {
    if (event.type === "overlong") {
      options.log(`refused a ${event.bytes} byte line: over the 48 MiB line limit`);
      writer.write(overlongAnswer(event));
      continue;
    }
    const task = answerLine(event.text, options.tools)
      .catch((error) => {
        // A bug must not take the session down: answer and say why on stderr.
        options.log(`internal error: ${(error as Error)?.stack ?? error}`);
        return internalError(event.text);
      })
      .then(async (answer) => {
        if (answer === undefined) return;
        await writer.write(answer);
        if (!answered) {
          answered = true;
          options.afterFirstAnswer?.();
        }
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
  }
  while (inFlight.size > 0) await Promise.all(inFlight);
  await writer.flush();
}

function internalError(line: string) {
  let id: Id = null;
  try {
    const parsed = JSON.parse(line);
    if (typeof parsed?.id === "string" || typeof parsed?.id === "number") id = parsed.id;
  } catch {
    // Keep id null.
  }
  return errorMessage(id, -32603, "Internal error");
}
