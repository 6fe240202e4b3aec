// The official MCP TypeScript SDK client as the host of `tinyagent mcp` for its resources: it
// spawns tinyagent on pipes against the strict relay seeded with content (rooms, the agent's
// repository with issues and pull requests, wiki pages, long tasks, the agent's files), validates
// every answer against the protocol's schemas, and collects notifications/resources/updated.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { finalizeEvent, generateSecretKey, type NostrEvent } from "nostr-tools/pure";
import {
  filesContent,
  issuesContent,
  jobsContent,
  mergeSeeds,
  roomsContent,
  startStrictRelay,
  type StrictRelay,
  wikiContent,
} from "./strict_relay/mod.ts";
import { type RateFront, startRateFront } from "./rate_front.ts";
import { assertNoSecret, newKey, sdkStdio, type TestKey } from "./tinyagent.ts";
import { within } from "./waits.ts";

/** What the relay was seeded with, for a test to name. */
export function seedContent(agent: string, rooms = 12) {
  const content = {
    rooms: roomsContent(rooms),
    issues: issuesContent(agent, "demo"),
    wiki: wikiContent(),
    jobs: jobsContent({ assignees: [agent] }),
    files: filesContent({ uploader: agent }),
  };
  const seed = mergeSeeds(...Object.values(content).map((part) => part.seed));
  return { ...content, seed };
}

export type Seeded = ReturnType<typeof seedContent>;

export interface ResourceHost {
  client: Client;
  relay: StrictRelay;
  key: TestKey;
  content: Seeded;
  /** `tiny://127.0.0.1:<port>`: the relay's namespace (the front's address, with a front). */
  base: string;
  /** With `front`: the rate-limiting front tinyagent reaches the relay through. */
  front?: RateFront;
  /** Every notifications/resources/updated's uri, in order. */
  updated: string[];
}

/**
 * A host on a freshly seeded relay, reached through a rate-limiting front when `front` is set;
 * tinyagent's stderr is checked for the key afterwards.
 */
export async function withResourceHost(
  options: { args?: string[]; rooms?: number; front?: boolean },
  fn: (host: ResourceHost) => Promise<void>,
): Promise<void> {
  const relay = await startStrictRelay();
  const front = options.front ? startRateFront(relay) : undefined;
  const key = newKey();
  const content = seedContent(key.pubkey, options.rooms);
  relay.seed(content.seed);
  const reached = front ?? relay;
  const { transport, stderr } = sdkStdio({
    netHost: reached.host,
    relayUrl: reached.url,
    key,
    args: options.args,
  });
  const client = new Client({ name: "resources-test", version: "1.0.0" });
  const updated: string[] = [];
  client.setNotificationHandler(
    ResourceUpdatedNotificationSchema,
    (n: { params: { uri: string } }) => void updated.push(n.params.uri),
  );
  try {
    await client.connect(transport);
    await fn({ client, relay, key, content, base: `tiny://${reached.host}`, front, updated });
  } catch (error) {
    console.error(stderr());
    throw error;
  } finally {
    await client.close();
    await front?.close();
    await relay.close();
  }
  assertNoSecret(key, stderr(), "stderr");
}

/** The JSON-RPC error a request is refused with (the SDK raises it as McpError). */
export async function refusedWith(promise: Promise<unknown>): Promise<McpError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof McpError, `an McpError, not ${error}`);
    return error;
  }
  assert.fail("the request was answered, not refused");
}

const stranger = generateSecretKey();
let posted = 0;

/**
 * A new kind 9 message in `room`, from someone else, stored and delivered live (each one unique),
 * dated `ahead` seconds from now (a clock a little ahead: what a subscription made after it replays).
 */
export function postTo(relay: StrictRelay, room: string, content: string, ahead = 0): NostrEvent {
  const event = finalizeEvent({
    kind: 9,
    created_at: Math.floor(Date.now() / 1000) + ahead,
    tags: [["h", room]],
    content: `${content} (${++posted})`,
  }, stranger);
  assert.ok(relay.inject(event));
  return event;
}

/** Waits (bounded) until `holds`. */
export function until(ms: number, what: string, holds: () => boolean): Promise<void> {
  return within(
    ms,
    what,
    (async () => {
      while (!holds()) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
  );
}
