// A relay nobody here wrote, for interop: @nostr-relay/core's NostrRelay served over Deno's own
// websocket (Deno.serve, Deno.upgradeWebSocket), NIP-42 on (it challenges every connection as it
// opens), an in-memory store, and a plugin that serves reads only to an authenticated key, as a
// members-only relay does. It runs as a process of its own with this folder's deno.json:
// @nostr-relay/common requires @noble/hashes 1 without declaring it, and the project's own
// @noble/hashes 2 would stand in for it (tests/e2e/rpc_interop_test.ts starts it).
//
// stdout: {"port":N} once listening, then {"authenticated":"<pubkey>"} for each AUTH it accepts.
// stdin: one signed event per line, stored and sent to matching subscriptions.

import { NostrRelay } from "@nostr-relay/core";
import {
  type Client,
  type Event,
  EventRepository,
  type EventRepositoryUpsertResult,
  EventUtils,
  type Filter,
  type HandleMessagePlugin,
} from "@nostr-relay/common";

class MemoryRepository extends EventRepository {
  #events: Event[] = [];
  isSearchSupported(): boolean {
    return false;
  }
  upsert(event: Event): EventRepositoryUpsertResult {
    if (this.#events.some((stored) => stored.id === event.id)) {
      return { isDuplicate: true };
    }
    this.#events.push(event);
    return { isDuplicate: false };
  }
  find(filter: Filter): Event[] {
    const found = this.#events.filter((event) => EventUtils.isMatchingFilter(event, filter))
      .sort((a, b) => b.created_at - a.created_at);
    return filter.limit === undefined ? found : found.slice(0, filter.limit);
  }
  destroy(): Promise<void> {
    return Promise.resolve();
  }
}

/** Reads for authenticated keys only: a REQ before AUTH is closed, `auth-required:` as NIP-42 says. */
const membersOnly: HandleMessagePlugin = {
  handleMessage(ctx, message, next) {
    if (message[0] === "REQ" && !ctx.pubkey) {
      ctx.sendMessage([
        "CLOSED",
        message[1],
        "auth-required: this relay serves members only",
      ]);
      return Promise.resolve({ messageType: "REQ", events: [] } as never);
    }
    return next();
  },
};

const say = (message: unknown) => console.log(JSON.stringify(message));
const relay = new NostrRelay(new MemoryRepository(), {
  hostname: "127.0.0.1",
  logLevel: 3,
}).register(membersOnly);
const authenticated = new Set<string>();

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => say({ port }),
}, (request) => {
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
    return new Response("websocket only", { status: 400 });
  }
  const { socket: ws, response } = Deno.upgradeWebSocket(request);
  // Deno's WebSocket is the library's Client: send() and the standard readyState numbers.
  const socket = ws as unknown as Client;
  ws.onopen = () => relay.handleConnection(socket, "127.0.0.1");
  ws.onclose = () => relay.handleDisconnect(socket);
  ws.onmessage = async (frame) => {
    let message;
    try {
      message = JSON.parse(String(frame.data));
    } catch {
      return;
    }
    await relay.handleMessage(socket, message);
    if (
      message[0] === "AUTH" && relay.isAuthorized(socket) &&
      !authenticated.has(message[1]?.pubkey)
    ) {
      authenticated.add(message[1].pubkey);
      say({ authenticated: message[1].pubkey });
    }
  };
  return response;
});

for await (
  const line of Deno.stdin.readable.pipeThrough(new TextDecoderStream())
) {
  for (const text of line.split("\n").filter(Boolean)) {
    const event = JSON.parse(text) as Event;
    const result = await relay.handleEvent(event);
    if (!result.success) {
      console.error(`interop relay: refused ${event.id}: ${result.message}`);
    }
  }
}
await server.shutdown();
await relay.destroy();
