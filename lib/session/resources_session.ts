// The resources part of an mcp session (session/parts.ts), loaded on the host's first resources/*
// or completion/complete request: the relay's tiny:// namespace (lib/resources/) wired to the
// facade's call path (every read a resource call: exposure, signing and bounds as a tool call's)
// and to the session's one websocket stream, which it makes if the listener has not. A relay URL
// whose path is not a tenant prefix has no namespace: the lists are empty and a read says why.

import type { Command } from "../cli/args.ts";
import type { CallContext } from "../facade/facade.ts";
import type { MethodHandler } from "../host/protocol.ts";
import type { Signer } from "../key/signer.ts";
import { webSocketUrl } from "../relay/endpoint.ts";
import { CallCache } from "../resources/call_cache.ts";
import { Completer } from "../resources/completer.ts";
import { Lister } from "../resources/lister.ts";
import { exposedListSources } from "../resources/listing.ts";
import { Reader } from "../resources/reader.ts";
import { Subscriptions } from "../resources/subscriptions.ts";
import { exposedTemplates, templateEntry } from "../resources/templates.ts";
import { type ResourceBase, resourceBase } from "../resources/uri.ts";
import { RelayStream } from "../stream/relay_stream.ts";
import { type CallOutcome, INVALID_PARAMS, type JsonObject, type RequestContext } from "../wire/mcp.ts";
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
  const reader = new Reader({
    base,
    exposed,
    call,
    cache,
    self: async () => (await signer.identity()).pubkey,
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
    close: () => subscriptions.close(),
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
