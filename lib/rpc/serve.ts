// The helper's loop (rpc-facts.md 2.3, 2.4): request lines in, one answer
// each out, in completion order. At most 32 calls run at once (the stream
// methods apart, which answer at once): with 32 in flight no more input is
// read until one ends. Each call is bounded; its answer is written once,
// whichever comes first. At end of input every call in flight is answered,
// then the streams end, then this resolves.

import { type ByteSink, LINE_LIMIT, LineWriter, readLines } from "../host/stdio.ts";
import { errorLine, parseRequestLine, resultLine, type RpcRequest } from "./lines.ts";

/** The Go peer's cap on calls at once. */
export const MAX_IN_FLIGHT = 32;

/** A failure a method reports to the caller as it is: its message is the answer. */
export class RpcError extends Error {}

/** What the loop dispatches to (methods.ts). */
export interface Dispatch {
  /** Whether `method` answers at once and takes no place among the calls in flight (subscribe, unsubscribe). */
  immediate(method: string): boolean;
  /** Runs one call; rejects with an RpcError for the caller, anything else is a bug. */
  call(request: RpcRequest, signal: AbortSignal): Promise<unknown>;
  /** The input ended: every stream ends, its last line written. */
  close(): Promise<void>;
  /** Whether `text` holds the agent's own private key: such a line is refused unread and unechoed. */
  holdsKey(text: string): Promise<boolean>;
}

/** Said for a line that holds the key: nothing of it, not even its id, is written back. */
export const HOLDS_KEY =
  "invalid request: the line holds this agent's private key; it was refused, nothing was " +
  "done, and no part of it is written back";

export interface RpcServeOptions {
  input: AsyncIterable<Uint8Array>;
  writer: LineWriter;
  dispatch: Dispatch;
  /** The bound on each call, in ms. */
  timeoutMs: number;
  log(line: string): void;
  lineLimit?: number;
  maxInFlight?: number;
}

/** The helper's stdout: a line writer that says once when nobody reads it any more. */
export function helperWriter(output: ByteSink, log: (line: string) => void): LineWriter {
  return new LineWriter(
    output,
    (error) => log(`stdout closed (${(error as Error)?.message ?? error}); stopping`),
  );
}

/** Places for calls in flight; a taker waits while all are held. */
class Slots {
  #free: number;
  #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  take(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  give(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

/** Serves until end of input (or stdout closing); resolves once everything has been answered. */
export async function serveRpc(options: RpcServeOptions): Promise<void> {
  const { writer, dispatch } = options;
  const limit = options.lineLimit ?? LINE_LIMIT;
  const slots = new Slots(options.maxInFlight ?? MAX_IN_FLIGHT);
  const inFlight = new Set<Promise<void>>();
  for await (const event of readLines(options.input, limit)) {
    if (writer.closed) break;
    if (event.type === "overlong") {
      const message = `invalid request: the line is ${event.bytes} bytes, over the ${limit} byte line limit`;
      const id = event.rawId !== undefined && await dispatch.holdsKey(event.rawId) ? undefined : event.rawId;
      void writer.writeLine(errorLine(id, message));
      continue;
    }
    if (await dispatch.holdsKey(event.text)) {
      void writer.writeLine(errorLine(undefined, HOLDS_KEY));
      continue;
    }
    const parsed = parseRequestLine(event.text);
    if ("refused" in parsed) {
      void writer.writeLine(errorLine(parsed.refused.id, parsed.refused.message));
      continue;
    }
    const { request } = parsed;
    const immediate = dispatch.immediate(request.method);
    if (!immediate) await slots.take(); // back-pressure: no more input is read meanwhile
    const task = answer(request, options).finally(() => {
      inFlight.delete(task);
      if (!immediate) slots.give();
    });
    inFlight.add(task);
  }
  while (inFlight.size > 0) await Promise.all(inFlight);
  await dispatch.close();
  await writer.flush();
}

/** Runs one call under its bound and writes its one answer. */
async function answer(request: RpcRequest, options: RpcServeOptions): Promise<void> {
  const controller = new AbortController();
  const seconds = options.timeoutMs / 1000;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new RpcError(`${request.method}: no answer within ${seconds} s (--timeout)`);
      controller.abort(error);
      reject(error);
    }, options.timeoutMs);
  });
  let line: string;
  try {
    const result = await Promise.race([options.dispatch.call(request, controller.signal), timedOut]);
    line = resultLine(request.id, result);
  } catch (error) {
    if (error instanceof RpcError) line = errorLine(request.id, error.message);
    else {
      // A bug must not take the helper down: answered, and said on stderr.
      options.log(`internal error in ${request.method}: ${(error as Error)?.stack ?? error}`);
      line = errorLine(request.id, `${request.method}: internal error`);
    }
  } finally {
    clearTimeout(timer);
  }
  await options.writer.writeLine(line);
}
