// The resources part of an mcp session (session/parts.ts), loaded on the host's first resources/*
// or completion/complete request (or tiny_read call): the relay's tiny:// namespace
// (lib/resources/) wired to the facade's call path (every read a resource call: exposure, signing
// and bounds as a tool call's), to the relay's file download for pieces of big files (the signed
// GET rpc's `download` makes, on connections of its own, opened on the first piece), and to the
// session's one websocket stream, which it makes if the listener has not. A relay URL whose path is
// not a tenant prefix has no namespace: the lists are empty and a read says why.

import type { Command } from "../cli/args.ts";
import type { CallContext } from "../facade/facade.ts";
import type { MethodHandler } from "../host/protocol.ts";
import type { Signer } from "../key/signer.ts";
import { webSocketUrl } from "../relay/endpoint.ts";
import { CallCache } from "../resources/call_cache.ts";
import { Completer } from "../resources/completer.ts";
import { Lister } from "../resources/lister.ts";
import { exposedListSources } from "../resources/listing.ts";
import { type Download, FilePieces } from "../resources/file_pieces.ts";
import { LINKS_KEY } from "../resources/links.ts";
import { Reader } from "../resources/reader.ts";
import { readToolArgs, readToolResult } from "../resources/read_tool.ts";
import { downloadRequest } from "../relay/download.ts";
import type { SignedHttp } from "../relay/signed_http.ts";
import { Subscriptions } from "../resources/subscriptions.ts";
import { exposedTemplates, templateEntry } from "../resources/templates.ts";
import { type ResourceBase, resourceBase } from "../resources/uri.ts";
import { RelayStream } from "../stream/relay_stream.ts";
import {
  type CallOutcome,
  type CallToolResult,
  INVALID_PARAMS,
  type JsonObject,
  type RequestContext,
  toolError,
} from "../wire/mcp.ts";
import { isObject } from "../wire/json.ts";
import type { SharedStream } from "./shared_stream.ts";

export interface ResourcesParts {
  command: Extract<Command, { command: "mcp" }>;
  signer: Signer;
  log(line: string): void;
  /** A relay tool call through the facade (the session's deferred relay side). */
  callTool(params: unknown, context: CallContext): Promise<CallOutcome>;
  stream: SharedStream;
  /** Tells the host that a subscribed resource changed. */
  notify(uri: string): void;
}

export interface ResourceService {
  handle(method: string, params: unknown, context: RequestContext): ReturnType<MethodHandler>;
  /** tiny_read: a read by URI, as a tool's result. */
  readTool(args: JsonObject): Promise<CallToolResult>;
  close(): void;
}

export function startResources(parts: ResourcesParts): ResourceService {
  const { command, log } = parts;
  const base = resourceBase(command.relay);
  if (!base.ok) {
    log(`resources: none offered: ${base.error}`);
    return noNamespace(base.error);
  }
  return namespace(parts, base.base);
}

function namespace(parts: ResourcesParts, base: ResourceBase): ResourceService {
  const { command, signer, log } = parts;
  const exposed = new Set(command.exposed);
  const call = (tool: string, args: JsonObject) =>
    parts.callTool({ name: tool, arguments: args }, { resource: true });
  const cache = new CallCache(call);
  const templates = exposedTemplates(base, exposed);
  const lister = new Lister({ base, sources: exposedListSources(exposed), cache, log });
  const http = relayDownload(parts);
  const reader = new Reader({
    base,
    exposed,
    call,
    cache,
    self: async () => (await signer.identity()).pubkey,
    files: new FilePieces(http.download),
  });
  const completer = new Completer({ templates, exposed, cache });
  const stream = () =>
    Promise.resolve(
      parts.stream.get(() =>
        new RelayStream({ url: webSocketUrl(command.relay), signer, proxy: command.proxy, log })
      ),
    );
  const subscriptions = new Subscriptions({ base, exposed, stream, notify: parts.notify, log });
  const methods: Record<string, (params: unknown) => ReturnType<MethodHandler>> = {
    "resources/templates/list": (params) =>
      Promise.resolve(
        hasCursor(params) ? badCursor() : { result: { resourceTemplates: templates.map(templateEntry) } },
      ),
    "resources/list": (params) => lister.list(params),
    "resources/read": (params) => reader.read(params),
    "resources/subscribe": (params) => subscriptions.subscribe(params),
    "resources/unsubscribe": (params) => Promise.resolve(subscriptions.unsubscribe(params)),
    "completion/complete": (params) => completer.complete(params),
  };
  return {
    handle: (method, params) => methods[method]?.(params) ?? Promise.resolve(unknownMethod(method)),
    readTool: async (args) => {
      const asked = readToolArgs(args);
      if ("refused" in asked) return asked.refused;
      return readToolResult(await reader.read({ uri: asked.uri }), LINKS_KEY);
    },
    close: () => {
      subscriptions.close();
      http.close();
    },
  };
}

/**
 * The relay's file download for pieces of big files: rpc's signed GET (relay/download.ts) over
 * SignedHttp's connections, made on the first piece; each bounded by --timeout and in size.
 */
function relayDownload(parts: ResourcesParts): { download: Download; close(): void } {
  const { command, signer } = parts;
  let http: Promise<SignedHttp> | undefined;
  let closed = false;
  const download: Download = async (path, range, max) => {
    const get = downloadRequest(command.relay, path, range);
    if (!get.ok) return { ok: false, error: get.error };
    if (closed) return { ok: false, error: "the session is ending" };
    let client: SignedHttp;
    try {
      client = await (http ??= import("../relay/signed_http.ts").then(({ SignedHttp }) =>
        new SignedHttp({
          endpoint: command.relay,
          signer,
          timeoutMs: command.timeoutMs,
          proxy: command.proxy,
        })
      ));
    } catch (error) {
      http = undefined;
      return {
        ok: false,
        error: `tinyagent's download code could not load: ${(error as Error)?.message ?? error}`,
      };
    }
    const sent = await client.send(get.request, AbortSignal.timeout(command.timeoutMs), max);
    if (!sent.ok) return { ok: false, error: sent.detail, ...(sent.tooLarge ? { tooLarge: true } : {}) };
    const { status, headers, bytes } = sent.answer;
    return { ok: true, status, headers, bytes: bytes ?? new Uint8Array() };
  };
  return {
    download,
    close: () => {
      closed = true;
      void http?.then((client) => client.close());
    },
  };
}

/** Without a namespace: nothing is listed, and what asks for a resource is told why. */
function noNamespace(why: string): ResourceService {
  const refused = { error: { code: INVALID_PARAMS, message: `No tiny:// resources here: ${why}` } };
  const empty: Record<string, unknown> = {
    "resources/templates/list": { resourceTemplates: [] },
    "resources/list": { resources: [] },
  };
  return {
    handle: (method) => Promise.resolve(method in empty ? { result: empty[method] } : refused),
    readTool: () => Promise.resolve(toolError(refused.error.message)),
    close: () => {},
  };
}

function hasCursor(params: unknown): boolean {
  return isObject(params) && params.cursor !== undefined;
}

function badCursor() {
  return {
    error: {
      code: INVALID_PARAMS,
      message: "Invalid params: the templates come in one page; this server gave no cursor",
    },
  };
}

function unknownMethod(method: string) {
  return { error: { code: -32601, message: `Method not found: ${method}` } };
}
