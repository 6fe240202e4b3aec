// A strict loopback imitation of the relay's MCP endpoint (`<prefix>/mcp`) and its NIP-86
// management endpoint (`<prefix>/manage/rpc`), used as the oracle for tinyagent's tests and demo,
// and run by `deno task relay` (main.ts).
//
// The layout: the core (core.ts) routes each parsed request to an answer through the two
// endpoints, NIP-98 and the default tools; a front end frames it on the wire. The one front end
// today is HTTP/1.1 over Deno.listen (http1_server.ts); exchange.ts is the seam between them.

import { RelayCore } from "./core.ts";
import { Http1FrontEnd } from "./http1_server.ts";
import type { StrictRelay, StrictRelayOptions } from "./types.ts";

export type {
  BrowsegrantFn,
  CallContext,
  Fault,
  GrantScope,
  NostrEvent,
  RecordedRequest,
  StrictRelay,
  StrictRelayOptions,
  ToolDef,
  ToolHandler,
  ToolResult,
} from "./types.ts";
export { PROTOCOL_VERSION, SERVER_INFO, WWW_AUTHENTICATE } from "./types.ts";
export { DEFAULT_TOOLS } from "./tool_table.ts";
export { isFault, nip86Error, toolError, toolOk } from "./results.ts";

/** Starts a relay on 127.0.0.1 (an OS-chosen port unless `port` is given). Close it with relay.close(). */
export function startStrictRelay(options: StrictRelayOptions = {}): Promise<StrictRelay> {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: options.port ?? 0, transport: "tcp" });
  const relay = new RelayCore((listener.addr as Deno.NetAddr).port, options);
  const http1 = new Http1FrontEnd(listener, (request) => relay.handle(request), {
    keepAlive: options.keepAlive ?? false,
    maxBody: relay.maxBodyBytes,
  });
  relay.attach(http1);
  return Promise.resolve(relay);
}
