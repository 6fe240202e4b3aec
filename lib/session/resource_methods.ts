// What an mcp session serves of the relay's resources before their code is loaded: the methods
// by name (each loading the resources part, session/resources_session.ts, on the first request
// that needs it, never before), with --read-tool the tiny_read tool (the same part, loaded on its
// first call), the capabilities `initialize` declares for them, and the notifications the part
// sends the host once the session has bound its stdout.

import type { MethodHandler } from "../host/protocol.ts";
import type { LineWriter } from "../host/stdio.ts";
import { INTERNAL_ERROR, type LocalTool, toolError } from "../wire/mcp.ts";
import { readToolEntry } from "../resources/read_tool.ts";
import type { ResourceService, ResourcesParts } from "./resources_session.ts";

/** The methods the resources part answers. */
export const RESOURCE_METHODS = [
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "resources/subscribe",
  "resources/unsubscribe",
  "completion/complete",
] as const;

/**
 * What `initialize` declares: resources with subscriptions, and completions. No `listChanged`:
 * tinyagent never sends notifications/resources/list_changed (a host lists again when it wants).
 */
export const RESOURCE_CAPABILITIES = { resources: { subscribe: true }, completions: {} } as const;

/** Notifications queued on stdout past this size are dropped: the host is behind, and will read again. */
const STDOUT_QUEUE_LIMIT = 1024 * 1024;

/** How the resources part is loaded (session/parts.ts). */
export type LoadResources = () => Promise<typeof import("./resources_session.ts")>;

export interface ResourceMethods {
  methods: ReadonlyMap<string, MethodHandler>;
  /** With --read-tool: tiny_read, for the facade to offer beside its own tools. */
  tools: LocalTool[];
  capabilities: Readonly<Record<string, unknown>>;
  /** The host's stdout, once the session has bound it. */
  bind(writer: LineWriter): void;
  close(): void;
}

/** The methods, answered by the part `load` gives once it is needed; none without it. */
export function resourceMethods(
  load: LoadResources | undefined,
  parts: Omit<ResourcesParts, "notify">,
): ResourceMethods {
  let writer: LineWriter | undefined;
  let closed = false;
  let started: Promise<ResourceService> | undefined;
  const notify = (uri: string) => {
    if (!writer || writer.closed || writer.pending > STDOUT_QUEUE_LIMIT) return;
    void writer.writeLine(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } }),
    );
  };
  const start = (loader: LoadResources) =>
    started ??= loader().then((module) => {
      const service = module.startResources({ ...parts, notify });
      if (closed) service.close();
      return service;
    }, (error) => {
      started = undefined;
      throw error;
    });
  const loaded = async (loader: LoadResources): Promise<ResourceService | string> => {
    try {
      return await start(loader);
    } catch (error) {
      return `tinyagent's resources code could not load: ${(error as Error)?.message ?? String(error)}`;
    }
  };
  const handler = (loader: LoadResources, method: string): MethodHandler => async (params, context) => {
    const service = await loaded(loader);
    if (typeof service === "string") return { error: { code: INTERNAL_ERROR, message: service } };
    return await service.handle(method, params, context);
  };
  const readTool = (loader: LoadResources): LocalTool => ({
    entry: readToolEntry(namespaceOf(parts.command.relay.base)),
    call: async (args) => {
      const service = await loaded(loader);
      return typeof service === "string" ? toolError(service) : await service.readTool(args);
    },
  });
  return {
    methods: new Map(load ? RESOURCE_METHODS.map((method) => [method, handler(load, method)]) : []),
    tools: load && parts.command.readTool ? [readTool(load)] : [],
    capabilities: load ? RESOURCE_CAPABILITIES : {},
    bind: (lines) => void (writer = lines),
    close: () => {
      closed = true;
      void started?.then((service) => service.close(), () => {});
    },
  };
}

/** The namespace's base for tiny_read's description: `tiny://` and the relay's host and tenant path. */
function namespaceOf(base: string): string {
  const url = new URL(base);
  return `tiny://${url.host}${url.pathname.replace(/\/+$/, "")}`;
}
