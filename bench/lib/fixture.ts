// The relay every benchmark talks to, the agent key, and the request lines a host would send.

import {
  startStrictRelay,
  type StrictRelay,
  type ToolHandler,
} from "../../tests/support/strict_relay/mod.ts";
import { newKey, type TestKey } from "../../tests/support/tinyagent.ts";
import type { Checkout } from "./checkout.ts";
import { type ChildSpec, type LineChild, type Program, resultOf } from "./child.ts";

/** The small fixed answer of the per-call benchmarks. */
export const SMALL_TOOL = "read_room";
export const SMALL_RESULT = { content: [{ type: "text", text: "ok" }], isError: false };

export interface Fixture {
  relay: StrictRelay;
  key: TestKey;
  spec(program: Program): ChildSpec;
  /** Forgets the relay's recorded requests (they would otherwise pile up in this process). */
  forget(): void;
  close(): Promise<void>;
}

export async function fixture(
  options: { keepAlive: boolean; tools?: Record<string, ToolHandler>; baseline?: Checkout },
): Promise<Fixture> {
  const relay = await startStrictRelay({ keepAlive: options.keepAlive });
  relay.setTool(SMALL_TOOL, () => SMALL_RESULT);
  for (const [name, handler] of Object.entries(options.tools ?? {})) relay.setTool(name, handler);
  const key = newKey();
  const result: Fixture = {
    relay,
    key,
    spec: (program) => ({
      program,
      relayUrl: relay.url,
      relayHost: relay.host,
      keyHex: key.hex,
      ...(options.baseline ? { baseline: options.baseline } : {}),
    }),
    forget: () => void (relay.requests.length = 0),
    close: () => relay.close(),
  };
  return result;
}

let nextId = 1;

/** One JSON-RPC request line, newline included. */
export function requestLine(method: string, params?: unknown): string {
  const message = params === undefined
    ? { jsonrpc: "2.0", id: nextId++, method }
    : { jsonrpc: "2.0", id: nextId++, method, params };
  return `${JSON.stringify(message)}\n`;
}

export function callLine(name: string, args: Record<string, unknown> = {}): string {
  return requestLine("tools/call", { name, arguments: args });
}

export const INITIALIZE_PARAMS = {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "tinyagent-bench", version: "0" },
};

/** What a host does first: initialize, the initialized notification, tools/list. Times in ms. */
export async function handshake(child: LineChild): Promise<{ initialize: number; toolsList: number }> {
  const init = await child.trip(requestLine("initialize", INITIALIZE_PARAMS));
  resultOf(init.line);
  await child.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
  const list = await child.trip(requestLine("tools/list", {}));
  const tools = resultOf(list.line).tools as { name: string }[];
  if (!tools.some((tool) => tool.name === SMALL_TOOL)) throw new Error(`tools/list lacks ${SMALL_TOOL}`);
  return { initialize: init.line.at - child.spawnedAt, toolsList: list.line.at - child.spawnedAt };
}

/** One small call; fails unless the answer is the fixed result. Returns the round trip in ms. */
export async function smallCall(child: LineChild): Promise<number> {
  const trip = await child.trip(callLine(SMALL_TOOL, { id: "general" }));
  const result = resultOf(trip.line) as { content?: { text?: string }[] };
  if (result.content?.[0]?.text !== "ok") {
    throw new Error(`${child.spec.program}: unexpected answer ${JSON.stringify(result).slice(0, 300)}`);
  }
  return trip.ms;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
