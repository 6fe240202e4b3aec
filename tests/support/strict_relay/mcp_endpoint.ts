// `POST <prefix>/mcp`: tinyrelay's checks in its order and words (internal/mcp/server.go), then the
// three methods it serves. /mcp authenticates with NIP-98 alone: a key that is not a member is
// answered too, and refused by the tools themselves. Early refusals carry no id; later ones do.

import type { IncomingRequest, Reply } from "./exchange.ts";
import { isFault } from "./results.ts";
import type { RelayContext } from "./context.ts";
import { callTool } from "./tool_calls.ts";
import {
  type CallContext,
  PROTOCOL_VERSION,
  type RecordedRequest,
  SERVER_INFO,
  WWW_AUTHENTICATE,
} from "./types.ts";
import { type Args, goJson, isRecord } from "./values.ts";

const META_VERSION = "io.modelcontextprotocol/protocolVersion";
const META_CAPS = "io.modelcontextprotocol/clientCapabilities";
const META_SERVER = "io.modelcontextprotocol/serverInfo";

/** The relay's server/discover instructions: the newest its source holds (mcp_http.go). */
export const INSTRUCTIONS =
  "This relay hosts Social notes and articles, Chat, files, Git repositories, sites and a wiki. Read tools return only data your key may see; management tools follow the relay's roles. Signed write tools accept an event, or return an unsigned event for you to sign and resubmit as event. An unsigned result is not a publication. upload_attachment stores room media; pass its descriptor in attachments to post_message, start_thread or reply_in_thread. request_decision asks a person for a kind 7 approval or denial, or a kind 1111 reply. request_grant lets an active agent request scope changes with a reason of 1 to 500 Unicode characters; sign and submit the returned kind 1111 request. Only the current operator's signed kind 30392 replacement grants access; a + reaction does not. request_job, job_feedback and job_result publish NIP-90 tasks, progress and results; list_jobs and read_job follow them. add_callback registers an HTTPS endpoint for signed event notifications. Read /llms.txt and the linked guides for authentication, grants, file access, event formats and optional runner setup. Tool availability does not override tenant policy or your grant.";

/**
 * The answer to a method other than POST, before any other check: Go's http.Error, so plain text
 * with nosniff, and the Allow and Cache-Control every /mcp answer carries (server.go's Handle).
 */
export function methodRefusal(): Reply {
  return {
    status: 405,
    body: "method not allowed: the MCP endpoint accepts POST\n",
    contentType: "text/plain; charset=utf-8",
    headers: { "Cache-Control": "no-store", Allow: "POST", "X-Content-Type-Options": "nosniff" },
  };
}

/** A JSON-RPC error as the relay writes it: the id only when it has one (Go's omitempty). */
function rpcFailure(
  status: number,
  id: unknown,
  code: number,
  message: string,
  data?: unknown,
  headers: Record<string, string> = {},
): Reply {
  const error: Record<string, unknown> = { code, message, ...(data === undefined ? {} : { data }) };
  const body = id === undefined ? { jsonrpc: "2.0", error } : { jsonrpc: "2.0", id, error };
  return {
    status,
    body: goJson(body),
    contentType: "application/json",
    headers: { "Cache-Control": "no-store", ...headers },
  };
}

/** A header's media type without its parameters, as written. */
const bare = (value: string | null) => (value ?? "").split(";")[0].trim();
/** Content-Type's media type as Go's mime.ParseMediaType gives it: lowercase. */
const mediaType = (value: string | null) => bare(value).toLowerCase();

/**
 * Whether an Accept header takes JSON: application/json, application/* or * / *, compared as written,
 * as the relay's accepts() compares them (so Application/JSON is not JSON to it).
 */
function acceptsJson(accept: string): boolean {
  return accept.split(",").some((part) => ["application/json", "*/*", "application/*"].includes(bare(part)));
}

/** Origin, size, NIP-98, Accept and Content-Type, in that order. */
function httpRefusal(
  ctx: RelayContext,
  req: IncomingRequest,
  rec: RecordedRequest,
): Reply | { pubkey: string } {
  const h = req.headers;
  const origin = h.get("origin");
  const own = `${new URL(rec.url).protocol}//${(h.get("host") ?? ctx.host)}`;
  if (origin !== null && origin !== "" && origin.toLowerCase() !== own.toLowerCase()) {
    return rpcFailure(403, undefined, -32600, `origin ${origin} is not allowed`);
  }
  if (req.tooLarge) return rpcFailure(413, undefined, -32600, `request body exceeds ${ctx.maxBody} bytes`);
  const auth = ctx.authenticate(rec, false);
  if ("reason" in auth) {
    return rpcFailure(401, undefined, -32600, `auth-required: ${auth.reason}`, undefined, {
      "WWW-Authenticate": WWW_AUTHENTICATE,
    });
  }
  const accept = h.get("accept");
  if (accept !== null && accept !== "" && !acceptsJson(accept)) {
    return rpcFailure(406, undefined, -32600, "Accept must include application/json");
  }
  if (mediaType(h.get("content-type")) !== "application/json") {
    return rpcFailure(415, undefined, -32600, "Content-Type must be application/json");
  }
  return auth;
}

/** One JSON-RPC object with jsonrpc "2.0", a method and a string or number id; a notification is 202. */
function messageRefusal(rec: RecordedRequest): Reply | undefined {
  const msg = rec.json;
  if (!isRecord(msg) || !rec.bodyText.trimStart().startsWith("{") || !goDecodes(msg)) {
    return rpcFailure(400, undefined, -32700, "body must be a single JSON-RPC request or notification");
  }
  if (msg.jsonrpc !== "2.0" || msg.method === undefined || msg.method === "") {
    return rpcFailure(400, undefined, -32600, 'jsonrpc must be "2.0" and method is required');
  }
  if (!Object.hasOwn(msg, "id")) return { status: 202, headers: { "Cache-Control": "no-store" } };
  if (typeof msg.id !== "string" && typeof msg.id !== "number") {
    return rpcFailure(400, undefined, -32600, "id must be a string or a number");
  }
  return undefined;
}

/** Whether the members the relay decodes have their types (jsonrpc and method strings; null is none). */
function goDecodes(msg: Record<string, unknown>): boolean {
  const text = (v: unknown) => v === undefined || v === null || typeof v === "string";
  return text(msg.jsonrpc) && text(msg.method);
}

/** The params and their headers: version, _meta, Mcp-Method, and Mcp-Name for tools/call. */
function headerRefusal(req: IncomingRequest, id: unknown, method: string, raw: unknown): Reply | undefined {
  const h = req.headers;
  if (raw !== undefined && raw !== null && !isRecord(raw)) {
    return rpcFailure(400, id, -32602, "params must be an object");
  }
  const params = isRecord(raw) ? raw : {};
  const version = h.get("mcp-protocol-version");
  if (!version) {
    return rpcFailure(
      400,
      id,
      -32020,
      `missing MCP-Protocol-Version header; this server speaks ${PROTOCOL_VERSION}`,
    );
  }
  if (version !== PROTOCOL_VERSION) {
    return rpcFailure(400, id, -32022, "Unsupported protocol version", {
      supported: [PROTOCOL_VERSION],
      requested: version,
    });
  }
  const meta = isRecord(params._meta) ? params._meta : {};
  if (typeof meta[META_VERSION] !== "string") {
    return rpcFailure(400, id, -32602, `params._meta[${JSON.stringify(META_VERSION)}] is required`);
  }
  const mismatch = (header: string, value: string, body: string) =>
    rpcFailure(
      400,
      id,
      -32020,
      `Header mismatch: ${header} header value '${value}' does not match body value '${body}'`,
    );
  if (meta[META_VERSION] !== version) {
    return mismatch("MCP-Protocol-Version", version, meta[META_VERSION] as string);
  }
  if (!isRecord(meta[META_CAPS])) {
    return rpcFailure(
      400,
      id,
      -32602,
      `params._meta[${JSON.stringify(META_CAPS)}] is required; send {} when the client has none`,
    );
  }
  const mcpMethod = h.get("mcp-method");
  if (!mcpMethod) return rpcFailure(400, id, -32020, "missing Mcp-Method header");
  if (mcpMethod !== method) return mismatch("Mcp-Method", mcpMethod, method);
  if (method !== "tools/call" && method !== "prompts/get" && method !== "resources/read") return undefined;
  const source = String((method === "resources/read" ? params.uri : params.name) ?? "");
  const header = h.get("mcp-name");
  if (!header) return rpcFailure(400, id, -32020, "missing Mcp-Name header");
  const name = decodeHeaderValue(header);
  if ("error" in name) return rpcFailure(400, id, -32020, `Header mismatch: Mcp-Name ${name.error}`);
  return name.value === source ? undefined : mismatch("Mcp-Name", name.value, source);
}

/** A header value as the relay decodes it: `=?base64?…?=`, or visible ASCII, space and tab. */
function decodeHeaderValue(value: string): { value: string } | { error: string } {
  const sentinel = /^=\?base64\?(.*)\?=$/s.exec(value);
  if (sentinel) {
    try {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(sentinel[1]) || sentinel[1].length % 4 !== 0) throw new Error();
      const bytes = Uint8Array.from(atob(sentinel[1]), (c) => c.charCodeAt(0));
      return { value: new TextDecoder().decode(bytes) };
    } catch {
      return { error: "invalid Base64 header value" };
    }
  }
  const safe = value === value.trim() && /^[\x20-\x7e\t]*$/.test(value);
  return safe ? { value } : { error: "header value contains invalid characters" };
}

/** A result as the relay writes it, with its resultType and serverInfo (a test's own kept when it gave them). */
function result(id: unknown, value: Record<string, unknown>): Reply {
  const meta = { ...(isRecord(value._meta) ? value._meta : {}), [META_SERVER]: { ...SERVER_INFO } };
  const body = {
    jsonrpc: "2.0",
    id,
    result: { ...value, resultType: value.resultType ?? "complete", _meta: meta },
  };
  return {
    status: 200,
    body: goJson(body),
    contentType: "application/json",
    headers: { "Cache-Control": "no-store" },
  };
}

async function toolsCall(ctx: RelayContext, id: unknown, params: Args, pubkey: string, rec: RecordedRequest) {
  const name = typeof params.name === "string" ? params.name : "";
  if (name === "") return rpcFailure(400, id, -32602, "params.name is required");
  const tool = ctx.table().find((t) => t.name === name);
  if (!tool) return rpcFailure(400, id, -32602, `Unknown tool: ${name}`);
  if (params.arguments !== undefined && params.arguments !== null && !isRecord(params.arguments)) {
    return rpcFailure(400, id, -32602, "params.arguments must be an object");
  }
  const args = (params.arguments ?? {}) as Args;
  const call: CallContext = { pubkey, args, tool: name, request: rec };
  // A test's own handler answers as the test wrote it; the relay's tools answer as the relay does.
  const handler = ctx.handler(name);
  const out = handler ? await handler(call) : callTool(tool, call, ctx.tools);
  return isFault(out) ? out : result(id, out);
}

/** Answers a request to `<prefix>/mcp` that is a POST. */
export async function answerMcp(
  ctx: RelayContext,
  req: IncomingRequest,
  rec: RecordedRequest,
): Promise<Reply> {
  const auth = httpRefusal(ctx, req, rec);
  if (!("pubkey" in auth)) return auth;
  const refused = messageRefusal(rec);
  if (refused) return refused;
  const { id, method, params } = rec.json as { id: unknown; method: string; params?: unknown };
  const problem = headerRefusal(req, id, method, params);
  if (problem) return problem;
  switch (method) {
    case "server/discover":
      return result(id, {
        supportedVersions: [PROTOCOL_VERSION],
        capabilities: { tools: {} },
        instructions: INSTRUCTIONS,
        ttlMs: 3_600_000,
        cacheScope: "private",
      });
    case "tools/list":
      return result(id, { tools: ctx.table(), ttlMs: 300_000, cacheScope: "private" });
    case "tools/call":
      return await toolsCall(ctx, id, (params ?? {}) as Args, auth.pubkey, rec);
    default:
      return rpcFailure(404, id, -32601, `method ${method} is not supported`);
  }
}
