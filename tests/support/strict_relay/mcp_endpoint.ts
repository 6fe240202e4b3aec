// `POST <prefix>/mcp`: the real relay's checks in its order (relay-facts.md), then the three
// methods it serves. Early refusals carry no id; later ones carry the request's.

import { defaultTool } from "./default_tools.ts";
import { type IncomingRequest, json, type Reply, rpcError } from "./exchange.ts";
import { decodeToken } from "./nip98.ts";
import { isFault } from "./results.ts";
import type { RelayContext } from "./context.ts";
import {
  type CallContext,
  PROTOCOL_VERSION,
  type RecordedRequest,
  SERVER_INFO,
  WWW_AUTHENTICATE,
} from "./types.ts";
import { type Args, isRecord } from "./values.ts";

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPS = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER = "io.modelcontextprotocol/serverInfo";

function mediaType(value: string | null): string {
  return (value ?? "").split(";")[0].trim().toLowerCase();
}

/** Checks 2 to 6: origin, size, NIP-98, membership, Accept and Content-Type. */
function httpRefusal(
  ctx: RelayContext,
  req: IncomingRequest,
  rec: RecordedRequest,
): Reply | { pubkey: string } {
  const h = req.headers;
  const origin = h.get("origin");
  if (origin !== null && origin.toLowerCase() !== `http://${(h.get("host") ?? ctx.host).toLowerCase()}`) {
    return rpcError(403, null, -32600, "forbidden: origin not allowed");
  }
  if (req.tooLarge) return rpcError(413, null, -32600, `request body exceeds ${ctx.maxBody} bytes`);
  const auth = ctx.authenticate(rec, false);
  if ("reason" in auth) {
    return {
      ...rpcError(401, null, -32600, `auth-required: ${auth.reason}`),
      headers: { "WWW-Authenticate": WWW_AUTHENTICATE },
    };
  }
  if (ctx.refusesNonMember(auth.pubkey)) {
    return rpcError(403, null, -32600, "restricted: this relay is members-only");
  }
  const accept = h.get("accept");
  if (
    accept !== null &&
    !accept.split(",").map((a) => mediaType(a)).some((t) => t === "application/json" || t === "*/*")
  ) {
    return rpcError(406, null, -32600, "not acceptable: responses are application/json");
  }
  if (mediaType(h.get("content-type")) !== "application/json") {
    return rpcError(415, null, -32600, "unsupported media type: use application/json");
  }
  return auth;
}

/** Checks 7 and 8: one JSON-RPC request object; a notification is accepted and not answered. */
function messageRefusal(msg: unknown): Reply | undefined {
  if (!isRecord(msg)) return rpcError(400, null, -32700, "parse error: body must be one JSON-RPC object");
  const hasId = "id" in msg;
  const id = msg.id;
  if (hasId && typeof id !== "string" && typeof id !== "number") {
    return rpcError(400, null, -32600, "invalid request: id must be a string or number");
  }
  if (msg.jsonrpc !== "2.0") return rpcError(400, id, -32600, 'invalid request: jsonrpc must be "2.0"');
  if (typeof msg.method !== "string" || msg.method === "") {
    return rpcError(400, id, -32600, "invalid request: missing method");
  }
  if (!hasId) return { status: 202 };
  return undefined;
}

/** Check 9: the protocol version header. */
function versionRefusal(h: Headers, id: unknown): Reply | undefined {
  const version = h.get("mcp-protocol-version");
  if (version === null) {
    return rpcError(400, id, -32020, "header mismatch: MCP-Protocol-Version is required");
  }
  if (version !== PROTOCOL_VERSION) {
    return rpcError(400, id, -32022, `unsupported protocol version ${version}`, {
      supported: [PROTOCOL_VERSION],
      requested: version,
    });
  }
  return undefined;
}

/** Check 10: params is an object whose `_meta` repeats the version and carries client capabilities. */
function metaRefusal(id: unknown, raw: unknown, version: string): Reply | undefined {
  const params = isRecord(raw) ? raw : undefined;
  if (raw !== undefined && !params) {
    return rpcError(400, id, -32602, "invalid params: params must be an object");
  }
  const meta = params && isRecord(params._meta) ? params._meta : undefined;
  const metaVersion = meta?.[META_VERSION];
  if (typeof metaVersion !== "string") {
    return rpcError(400, id, -32602, `invalid params: _meta["${META_VERSION}"] is required`);
  }
  if (metaVersion !== version) {
    return rpcError(
      400,
      id,
      -32020,
      `header mismatch: MCP-Protocol-Version ${version} differs from _meta ${metaVersion}`,
    );
  }
  if (!isRecord(meta?.[META_CAPS])) {
    return rpcError(400, id, -32602, `invalid params: _meta["${META_CAPS}"] must be an object`);
  }
  return undefined;
}

/** Checks 11 and 12: `Mcp-Method`, and `Mcp-Name` for tools/call (Base64 when not plain ASCII). */
function routingRefusal(
  h: Headers,
  id: unknown,
  method: string,
  params: Args | undefined,
): Reply | undefined {
  const mcpMethod = h.get("mcp-method");
  if (mcpMethod !== method) {
    return rpcError(
      400,
      id,
      -32020,
      `header mismatch: Mcp-Method ${JSON.stringify(mcpMethod)} differs from method ${method}`,
    );
  }
  if (method !== "tools/call") return undefined;
  const header = h.get("mcp-name");
  if (header === null) {
    return rpcError(400, id, -32020, "header mismatch: Mcp-Name is required for tools/call");
  }
  if (typeof params?.name !== "string") {
    return rpcError(400, id, -32602, "invalid params: name is required");
  }
  const b64 = /^=\?base64\?(.*)\?=$/.exec(header);
  const decoded = b64 ? decodeToken(b64[1]) : header;
  if (decoded !== params.name) {
    return rpcError(400, id, -32020, `header mismatch: Mcp-Name differs from params.name ${params.name}`);
  }
  return undefined;
}

/** A successful JSON-RPC answer, with the relay's resultType and serverInfo. */
function result(id: unknown, value: Record<string, unknown>): Reply {
  const meta = isRecord(value._meta) ? value._meta : {};
  return json(200, {
    jsonrpc: "2.0",
    id,
    result: {
      ...value,
      resultType: value.resultType ?? "complete",
      _meta: { ...meta, [META_SERVER]: { ...SERVER_INFO } },
    },
  });
}

async function callTool(
  ctx: RelayContext,
  id: string | number,
  params: Args,
  pubkey: string,
  rec: RecordedRequest,
): Promise<Reply> {
  const name = params.name as string;
  const tool = ctx.table().find((t) => t.name === name);
  if (!tool) return rpcError(400, id, -32602, `Unknown tool: ${name}`);
  if (params.arguments !== undefined && !isRecord(params.arguments)) {
    return rpcError(400, id, -32602, "invalid params: arguments must be an object");
  }
  const args = (params.arguments ?? {}) as Args;
  const call: CallContext = { pubkey, args, tool: name, request: rec };
  const handler = ctx.handler(name) ?? ((c: CallContext) => defaultTool(tool, c, ctx.store));
  const out = await handler(call);
  if (isFault(out)) return out;
  return result(id, out);
}

/** Answers a request to `<prefix>/mcp` that is a POST. */
export async function answerMcp(
  ctx: RelayContext,
  req: IncomingRequest,
  rec: RecordedRequest,
): Promise<Reply> {
  const auth = httpRefusal(ctx, req, rec);
  if (!("pubkey" in auth)) return auth;
  const msg = rec.json;
  const refused = messageRefusal(msg);
  if (refused) return refused;
  const { id, method, params: raw } = msg as { id: string | number; method: string; params?: unknown };
  const params = isRecord(raw) ? raw : undefined;
  const h = req.headers;
  const problem = versionRefusal(h, id) ?? metaRefusal(id, raw, PROTOCOL_VERSION) ??
    routingRefusal(h, id, method, params);
  if (problem) return problem;

  switch (method) {
    case "server/discover":
      return result(id, {
        supportedVersions: [PROTOCOL_VERSION],
        capabilities: { tools: { listChanged: false } },
        serverInfo: { ...SERVER_INFO },
        instructions: "Strict test relay: every POST carries NIP-98 and the MCP headers.",
      });
    case "tools/list":
      return result(id, { tools: ctx.table(), ttlMs: 60000, cacheScope: "private" });
    case "tools/call":
      return await callTool(ctx, id, params as Args, auth.pubkey, rec);
    default:
      return rpcError(404, id, -32601, `Method not found: ${method}`);
  }
}
