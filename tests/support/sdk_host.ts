// The official MCP TypeScript SDK client as a host that can ask its person (MCP elicitation), driving a
// tinyagent it started itself over stdio against a strict relay: each elicitation recorded and answered
// by the test's own `answer`; the key checked absent from stderr and from every request the relay got.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { startStrictRelay, type StrictRelay } from "./strict_relay/mod.ts";
import { assertNoSecret, newKey, sdkStdio, type TestKey } from "./tinyagent.ts";

export type Params = { message: string; requestedSchema: unknown };
export type Answer = (params: Params, signal: AbortSignal) => Promise<ElicitResult>;

/** The tools/call requests the relay received for `tool`, with their arguments. */
export function callsOf(relay: StrictRelay, tool: string): Record<string, unknown>[] {
  return relay.requests
    .map((request) =>
      request.json as { method?: string; params?: { name?: string; arguments?: Record<string, unknown> } }
    )
    .filter((json) => json?.method === "tools/call" && json.params?.name === tool)
    .map((json) => json.params!.arguments ?? {});
}

export interface Host {
  client: Client;
  relay: StrictRelay;
  key: TestKey;
  /** The elicitations the host received, in order. */
  asked: { id: unknown; params: Params }[];
  /** What the person answers next; by default, accept. */
  answer: Answer;
  /** Sends a raw message to tinyagent, as a host would (a response to any id it likes). */
  send(message: unknown): Promise<void>;
  stderr(): string;
}

/**
 * Runs `fn` with tinyagent started by the SDK client as a host: with elicitation declared unless
 * `elicitation` is false, its answers given by `host.answer`.
 */
export async function withHost(
  options: {
    args: string[];
    elicitation?: boolean;
    /** Permission flags instead of the narrow ones (shippedFlags(): the sandbox, which may write an audit log). */
    flags?: string[];
    /** The entry to run, main.ts unless given (LAUNCH, with shippedFlags(): as bin/tinyagent runs it). */
    script?: string;
    prepare?: (relay: StrictRelay, key: TestKey) => void;
  },
  fn: (host: Host) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay();
  const key = newKey();
  options.prepare?.(relay, key);
  const { transport, stderr } = sdkStdio({
    netHost: relay.host,
    relayUrl: relay.url,
    key,
    args: options.args,
    flags: options.flags,
    script: options.script,
  });
  const client = new Client(
    { name: "oversight-test", version: "1.0.0" },
    { capabilities: options.elicitation === false ? {} : { elicitation: {} } },
  );
  const host: Host = {
    client,
    relay,
    key,
    asked: [],
    answer: () => Promise.resolve({ action: "accept", content: {} }),
    send: (message) => transport.send(message as Parameters<typeof transport.send>[0]),
    stderr,
  };
  if (options.elicitation !== false) {
    // Typed by hand: the SDK's schema-generic signature does not infer here.
    const handler = (request: { params: unknown }, extra: { requestId: unknown; signal: AbortSignal }) => {
      host.asked.push({ id: extra.requestId, params: request.params as Params });
      return host.answer(request.params as Params, extra.signal);
    };
    client.setRequestHandler(ElicitRequestSchema, handler as Parameters<typeof client.setRequestHandler>[1]);
  }
  try {
    await client.connect(transport);
    await fn(host);
  } finally {
    await client.close();
    await relay.close();
  }
  assertNoSecret(key, stderr(), "stderr");
  for (const [i, request] of relay.requests.entries()) {
    assertNoSecret(key, request.bodyText, `relay request ${i}`);
  }
}
