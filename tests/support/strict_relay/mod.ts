// A strict loopback imitation of the relay's MCP endpoint (`<prefix>/mcp`), its NIP-86 management
// endpoint (`<prefix>/manage/rpc`) and its Nostr side (the websocket, `<prefix>/events`, room
// attachments and `<prefix>/media`), used as the oracle for tinyagent's tests and demo, and run by
// `deno task relay` (main.ts).
//
// The layout: the core (core.ts) routes each parsed request to an answer through the Nostr side
// (nostr_side.ts) or the two endpoints, NIP-98 and the default tools; a front end frames it on the
// wire: HTTP/1.1 over Deno.listen (http1_server.ts) for plain HTTP; with `tls`, the TLS gate
// (tls_gate.ts) in front of that HTTP/1.1 front end and, with `http2`, of an HTTP/2 one
// (http2_server.ts). exchange.ts is the seam between core and front ends. An accepted websocket
// upgrade is spliced by the HTTP/1.1 front end to an internal Deno.serve (ws_splice.ts, ws_server.ts),
// where each connection's session (ws_session.ts) speaks NIP-01 and NIP-42. relay.seed() adds
// content: the read tools answer from what the relay holds, seeded rooms, repositories, issues, wiki pages,
// long tasks and files (content_types.ts says how; content_gen.ts builds seeds).

import { testCertificates } from "../tls.ts";
import { ATTACHMENT_MAX_BYTES } from "./attachments_endpoint.ts";
import { DEFAULT_MCP_BODY, RelayCore } from "./core.ts";
import type { FrontEnd } from "./exchange.ts";
import { Http1FrontEnd } from "./http1_server.ts";
import { Http2FrontEnd } from "./http2_server.ts";
import { TlsGate } from "./tls_gate.ts";
import type { CutHow, StrictRelay, StrictRelayOptions } from "./types.ts";

export type {
  Attachment,
  BrowsegrantFn,
  CallContext,
  ClientMessage,
  CutHow,
  Fault,
  GrantScope,
  GrantState,
  NostrEvent,
  RecordedRequest,
  StrictRelay,
  StrictRelayOptions,
  ToolDef,
  ToolHandler,
  ToolResult,
  WsMode,
} from "./types.ts";
export { PROTOCOL_VERSION, SERVER_INFO, WWW_AUTHENTICATE } from "./types.ts";
export { DEFAULT_TOOLS } from "./tool_table.ts";
export { isFault, nip86Error, toolError, toolOk } from "./results.ts";
export type { CommitSeed, FileSeed, MemberSeed, RepositorySeed, RoomSeed, Seed } from "./content_types.ts";
export { CONTENT_TOOLS } from "./content_tools.ts";
export { demoContent, filesContent, jobsContent, roomsContent, wikiContent } from "./content_gen.ts";
export { issuesContent } from "./content_gen_repo.ts";
export { type GenKey, mergeSeeds } from "./content_gen_kit.ts";

/** A body larger than this the twin reads no further, whatever the operator's flag (its own memory). */
const READ_CAP = 64 * 1024 * 1024;

/** What front ends read of a body: what any route may take, within the twin's own cap. */
function readLimit(options: StrictRelayOptions): number {
  const message = Math.min(options.maxMessageBytes || READ_CAP, READ_CAP);
  return Math.max(options.maxMessageBytes || DEFAULT_MCP_BODY, ATTACHMENT_MAX_BYTES, message) + 1;
}

/** Starts a relay on 127.0.0.1 (an OS-chosen port unless `port` is given). Close it with relay.close(). */
export function startStrictRelay(options: StrictRelayOptions = {}): Promise<StrictRelay> {
  if (options.http2 && !options.tls) {
    throw new Error("strict relay: http2 needs tls (h2 is negotiated by ALPN)");
  }
  if (options.tls) return startTlsRelay(options);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: options.port ?? 0, transport: "tcp" });
  const relay = new RelayCore((listener.addr as Deno.NetAddr).port, options);
  const http1 = new Http1FrontEnd(listener, (request) => relay.handle(request), {
    keepAlive: options.keepAlive ?? false,
    maxBody: readLimit(options),
    idleTimeoutMs: options.idleTimeoutMs,
  });
  relay.attach(http1);
  return Promise.resolve(relay);
}

/** The gate owns the client connections, so it is the one that counts and cuts them. */
class TlsFrontEnd implements FrontEnd {
  constructor(readonly gate: TlsGate, readonly inner: { close(): Promise<void> }[]) {}
  get connections(): number {
    return this.gate.connections;
  }
  get openConnections(): number {
    return this.gate.openConnections;
  }
  cutAll(how: CutHow): number {
    return this.gate.cutAll(how);
  }
  suspend(): void {
    this.gate.suspend();
  }
  resume(): Promise<void> {
    return this.gate.resume();
  }
  async close(): Promise<void> {
    await this.gate.close();
    await Promise.all(this.inner.map((frontEnd) => frontEnd.close()));
  }
}

async function startTlsRelay(options: StrictRelayOptions): Promise<StrictRelay> {
  const certificates = await testCertificates();
  // The front ends come first (the gate needs their ports), the core last (it needs the gate's).
  const late: { relay?: RelayCore; gate?: TlsGate } = {};
  const handle = (request: Parameters<RelayCore["handle"]>[0]) => late.relay!.handle(request);
  const innerPort = (conn: Deno.Conn) => (conn.remoteAddr as Deno.NetAddr).port;
  const maxBody = readLimit(options);
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0, transport: "tcp" });
  const http1 = new Http1FrontEnd(listener, handle, {
    keepAlive: options.keepAlive ?? false,
    maxBody,
    idleTimeoutMs: options.idleTimeoutMs,
    owner: {
      idOf: (conn) => late.gate!.idOf(innerPort(conn)),
      cut: (conn, how) => late.gate!.cut(innerPort(conn), how),
      close: (conn) => late.gate!.closeClient(innerPort(conn)),
    },
  });
  const http2 = options.http2 ? new Http2FrontEnd(handle, () => late.gate!, { maxBody }) : undefined;
  let gate: TlsGate;
  try {
    gate = late.gate = await TlsGate.open({
      port: options.port ?? 0,
      certPem: certificates.certPem,
      keyPem: certificates.keyPem,
      alpn: http2 ? ["h2", "http/1.1"] : ["http/1.1"],
      innerPort: (protocol) => protocol === "h2" && http2 ? http2.port : (listener.addr as Deno.NetAddr).port,
      h2IdleMs: options.idleTimeoutMs,
    });
  } catch (err) {
    await http1.close();
    await http2?.close();
    throw err;
  }
  const relay = late.relay = new RelayCore(gate.port, options);
  relay.caPem = certificates.caPem;
  relay.caFile = certificates.caFile;
  relay.attach(new TlsFrontEnd(gate, http2 ? [http1, http2] : [http1]));
  return relay;
}
