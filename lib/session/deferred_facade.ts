// The relay side of an mcp session, loaded on first need. The connection to
// the relay is opened at once, while the host does its handshake (no request
// is sent before the host lists or calls tools); only the transport's code is
// loaded for that. The facade, the relay client and the tiny_diagnose tool are
// imported and built once the host's first answer is out (or at its first
// tools request), so answering the handshake waits for none of that code.

import type { Command } from "../cli/args.ts";
import type { CallContext, Facade } from "../facade/facade.ts";
import type { ToolProvider } from "../host/protocol.ts";
import type { CallOutcome, Tool } from "../wire/mcp.ts";
import type { Signer } from "../key/signer.ts";
import { PackageLoadError } from "../key/stack.ts";
import type { RelayTransport } from "../transport/kept_connection.ts";
import type { OversightParts } from "./tool_session.ts";

/** A session started with --code-mode whose runner was not given the code part: tinyagent's own bug. */
const missingCode = () =>
  Promise.reject(new Error("internal error: the code part was not loaded with --code-mode"));

export interface RelaySide extends ToolProvider {
  /** A call of a relay tool; a resource's read, listing or completion says so (`{resource: true}`). */
  callTool(params: unknown, context?: CallContext): Promise<CallOutcome>;
  /** Loads the relay side now; no request is sent. */
  warm(): void;
  /** Tells `listener` when the host should list again, from the moment the facade loads. */
  onToolsChanged(listener: () => void): void;
  /** The host is gone: nothing more is signed or sent, whether or not the relay side was loaded. */
  close(): void;
}

type Mcp = Extract<Command, { command: "mcp" }>;

/** Code mode's parts (session/parts.ts), for --code-mode: its tools, and literal package loaders if given. */
export interface CodeParts {
  code?: () => Promise<typeof import("./code_mode.ts")>;
  packages?: () => Promise<typeof import("../code/packages_named.ts")>;
}

/** Code mode's tools module and its packages' loaders: the runner's literal ones, or none (by name). */
async function loadCodeMode(parts: CodeParts) {
  const [tools, named] = await Promise.all([(parts.code ?? missingCode)(), parts.packages?.()]);
  return { tools, packages: named?.NAMED };
}

/** The session's connection to the relay, opened at once; its deadlines armed once the host has an answer. */
async function openTransport(command: Mcp, answered: Promise<void>): Promise<RelayTransport> {
  const { RelayTransport, stepBound } = await import("../transport/kept_connection.ts");
  return new RelayTransport({
    origin: new URL(command.relay.origin),
    proxy: command.proxy,
    stepMs: stepBound(command.timeoutMs), // the connect steps end no later than a call would
    timersFrom: answered,
  });
}

/** The facade over `transport`: the relay client, the person's hold on writes, code mode's tools. */
async function buildFacade(
  command: Mcp,
  signer: Signer,
  log: (line: string) => void,
  oversight: OversightParts,
  transport: Promise<RelayTransport>,
  codeParts: CodeParts,
): Promise<Facade> {
  const [{ assembleFacade }, { RelayClient }, opened, code] = await Promise.all([
    import("./tool_session.ts"),
    import("../relay/client.ts"),
    transport,
    command.codeMode ? loadCodeMode(codeParts) : undefined,
  ]);
  const relay = new RelayClient({
    endpoint: command.relay,
    signer,
    timeoutMs: command.timeoutMs,
    transport: opened, // made with the proxy, if any
  });
  // Code mode's tools call the facade they are offered by: bound once it is built.
  let built: Facade | undefined;
  const codeMode = code && command.codeMode
    ? code.tools.programTools(() => built!, command.codeMode, code.packages)
    : undefined;
  return built = assembleFacade(command, signer, relay, log, {
    ...oversight,
    programTools: codeMode?.tools,
    answered: codeMode?.answered,
  });
}

/**
 * Starts opening the session's connection to the relay; the relay side itself loads later. A
 * request that meets tinyagent's own load failure (key/stack.ts) is never answered: `stop` is told,
 * and the session ends with that failure's message rather than blame the relay.
 */
export function deferredFacade(
  command: Mcp,
  signer: Signer,
  log: (line: string) => void,
  stop: (error: PackageLoadError) => void,
  /** Resolves once the host has its first answer: the connection's deadlines are armed then. */
  answered: Promise<void>,
  /** Who asks the person before a write (the host), and the audit log. */
  oversight: OversightParts,
  /** Code mode's parts, loaded with --code-mode. */
  codeParts: CodeParts = {},
): RelaySide {
  const guarded = <T>(work: Promise<T>): Promise<T> =>
    work.catch((error) => {
      if (!(error instanceof PackageLoadError)) throw error;
      stop(error);
      return new Promise<T>(() => {});
    });
  let closed = false;
  const opening = openTransport(command, answered).then((transport) => {
    if (closed) transport.close();
    else transport.warm();
    return transport;
  });
  let loading: Promise<Facade> | undefined;
  let toolsChanged: (() => void) | undefined;
  const load = () =>
    loading ??= buildFacade(command, signer, log, oversight, opening, codeParts).then((facade) => {
      if (toolsChanged) facade.onToolsChanged(toolsChanged);
      if (closed) facade.close();
      return facade;
    });
  return {
    warm: () => void load(),
    listTools: (): Promise<Tool[]> => guarded(load().then((facade) => facade.listTools())),
    callTool: (params: unknown, context?: CallContext): Promise<CallOutcome> =>
      guarded(load().then((facade) => facade.callTool(params, context))),
    onToolsChanged: (listener) => {
      toolsChanged = listener;
      void loading?.then((facade) => facade.onToolsChanged(listener));
    },
    close: () => {
      closed = true;
      void opening.then((transport) => transport.close());
      void loading?.then((facade) => facade.close());
    },
  };
}
