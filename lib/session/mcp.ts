// The mcp session: the host side on stdio, the relay side deferred past the
// handshake (deferred_facade.ts), the startup line, and the ways it ends: end
// of input, the host gone, or tinyagent's own code failing to load (a clear
// stop with what to fix, never blamed on the relay).

import type { Command } from "../cli/args.ts";
import { Fatal } from "../cli/fatal.ts";
import { DIAGNOSE_TOOL, READ_TOOLS, WRITE_TOOLS } from "../facade/tools.ts";
import { HostChannel } from "../host/channel.ts";
import { askThroughHost, canElicitForm } from "../host/elicitation.ts";
import { serve } from "../host/protocol.ts";
import { type LineWriter, processStdio } from "../host/stdio.ts";
import type { Signer } from "../key/signer.ts";
import { PackageLoadError } from "../key/stack.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import { oversightSummary } from "../oversight/settings.ts";
import { type CodeParts, deferredFacade } from "./deferred_facade.ts";
import { parentGone } from "./lifecycle.ts";
import { listening, type LoadListening } from "./listening.ts";
import { type LoadResources, resourceMethods } from "./resource_methods.ts";
import { SharedStream } from "./shared_stream.ts";
import { approvalsSummary, listenSummary } from "../listen/summary.ts";

type Mcp = Extract<Command, { command: "mcp" }>;

/** The parts mcp may load (session/parts.ts): listening and code mode, with their flags; the resources. */
interface McpParts extends CodeParts {
  listen?: LoadListening;
  resources?: LoadResources;
}

export async function mcp(
  command: Mcp,
  signer: Signer,
  log: (line: string) => void,
  audit: AuditSink | undefined,
  parts: McpParts,
): Promise<number> {
  const end = sessionEnd();
  // The first answer, or the first tools request: from then on timers cost the handshake nothing.
  const answered = Promise.withResolvers<void>();
  // Our requests to the host (the person's approval of a write) and the host's responses.
  const channel = new HostChannel(log);
  // The relay's websocket, made by whichever needs it first: the listener, or a resource subscription.
  const stream = new SharedStream();
  // The relay reaching the agent (--listen) and approvals from the room (--approvers), or neither.
  const room = listening(command, signer, log, audit, parts.listen, stream);
  const host = hostWatch(answered);
  // The relay's rooms, threads, issues, wiki pages, tasks and files as resources (and, with
  // --read-tool, as tiny_read): their code loads at the host's first request for one; each read is
  // a resource call of the facade's.
  const resources = resourceMethods(parts.resources, {
    command,
    signer,
    log,
    callTool: (params, context) => (host.watch(), side.callTool(params, context)),
    stream,
  });
  const side = deferredFacade(command, signer, log, end.stop, answered.promise, {
    ask: room.ask ?? askThroughHost(channel, command.oversight.confirmTimeoutMs),
    where: room.ask ? "room" : "host",
    audit,
    budget: room.budget,
    localTools: [...room.localTools ?? [], ...resources.tools],
  }, parts);
  if (Deno.stdin.isTerminal()) log(byHandHint(command));
  const announce = announcer(command, signer, channel, log, end.stop);
  const notifications = { ...room.notifications, bind: bindBoth(room.notifications, resources) };
  const closeAll = () => [room, resources, stream].forEach((part) => part.close());
  const session = serve({
    input: processStdio.input,
    output: processStdio.output,
    tools: {
      listTools: () => (host.watch(), side.listTools()),
      callTool: (params, context) => (host.watch(), side.callTool(params, context)),
      onToolsChanged: (listener) => side.onToolsChanged(listener),
      close: () => {
        closeAll();
        side.close();
      },
    },
    log,
    // Ready for the first call while the host does its handshake, which waited for none of it: the
    // connection to the relay has been opening since the start (no request is sent before the host
    // lists or calls tools), and now the relay side loads, and the signing stack with the
    // announcement's public key.
    afterFirstAnswer: () => {
      side.warm();
      void announce();
      host.watch();
      room.start();
    },
    hostGone: host.gone,
    channel,
    features: { ...room.features, capabilities: resources.capabilities },
    methods: resources.methods,
    notifications,
  });
  await Promise.race([session, end.stopped]);
  closeAll();
  // The startup line is said however short the session was; the signing stack loads with it.
  if (!end.failure()) await announce();
  end.rethrow();
  return 0;
}

/** The host's stdout, bound for the listener's notifications and the resources' alike. */
function bindBoth(...sides: { bind(writer: LineWriter): void }[]): (writer: LineWriter) => void {
  return (writer) => {
    for (const side of sides) side.bind(writer);
  };
}

/** How the session stops early: tinyagent's own code failing to load ends it with that failure's message. */
function sessionEnd() {
  let failure: unknown;
  const stopped = Promise.withResolvers<void>();
  return {
    stopped: stopped.promise,
    stop: (error: unknown) => {
      failure ??= error instanceof PackageLoadError ? new Fatal(error.message) : error;
      stopped.resolve();
    },
    failure: () => failure,
    rethrow: () => {
      if (failure) throw failure;
    },
  };
}

/** Started by hand: what it is waiting for, rather than look hung (stdout stays protocol-only). */
function byHandHint(command: Mcp): string {
  // `deno task demo` exists only in a checkout, so only a run from source suggests it.
  return "mcp: waiting for an MCP host on stdin (this is a stdio server: a host such as Hermes or Claude starts it); " +
    `to see what a host would be offered, run 'tinyagent tools --relay ${command.relay.base}', ` +
    `and 'tinyagent diagnose --relay ${command.relay.base}' to check access` +
    (Deno.build.standalone ? "" : "; in the checkout, 'deno task demo' shows the whole flow");
}

/**
 * The startup line, said once. It names the key's npub, whose derivation is deferred past the first
 * answer, and what is configured: which tools are offered is the relay's table to say, at tools/list.
 * Said after the handshake, so it can say whether this host can ask its person.
 */
function announcer(
  command: Mcp,
  signer: Signer,
  channel: HostChannel,
  log: (line: string) => void,
  stop: (error: unknown) => void,
): () => Promise<void> {
  let announced: Promise<void> | undefined;
  return () =>
    announced ??= signer.identity().then(({ npub, pubkey }) =>
      log(
        `mcp: configured for relay ${command.relay.base} as ${npub}: ${configuredTools(command)}, ` +
          `offered when the relay lists them, and ${DIAGNOSE_TOOL}; ` +
          writesSummary(command, canElicitForm(channel.capabilities)) +
          listenSummary(command.listen) +
          approvalsSummary(command.approvals, pubkey, command.oversight.confirmTimeoutMs / 1000) +
          (command.proxy ? `; through the proxy ${command.proxy.display}` : ""),
      ), stop);
}

/**
 * The host's process, watched from the first answer or the first tools request, whichever comes
 * first: the runtime's first timer costs ~10 ms, which the handshake need not wait for, and a host
 * that dies with a call hung at the relay must still end this process.
 */
function hostWatch(answered: PromiseWithResolvers<void>) {
  const gone = Promise.withResolvers<string>();
  let watching = false;
  return {
    gone: gone.promise,
    watch: () => {
      if (watching) return;
      watching = true;
      answered.resolve();
      void parentGone().then(gone.resolve);
    },
  };
}

/** The oversight settings in words; with --confirm-via relay, the approvers answer, not the host. */
function writesSummary(command: Extract<Command, { command: "mcp" }>, canElicit: boolean): string {
  const room = command.approvals?.confirmViaRelay ? { room: command.approvals.homeRoom } : undefined;
  return oversightSummary(
    command.oversight,
    command.allowWrites,
    room ?? "host",
    canElicit,
    !!command.approvals,
  );
}

/** What the exposure flags configured, in words; in code mode, as a program's functions. */
function configuredTools(command: Extract<Command, { command: "mcp" }>): string {
  const count = command.exposed.length;
  const tools = command.exposed.join() === [...READ_TOOLS, ...WRITE_TOOLS].join()
    ? `the ${count} read and write tools`
    : command.exposed.join() === READ_TOOLS.join()
    ? `the ${count} read tools`
    : `${count} tool${count === 1 ? "" : "s"} named by --tools`;
  if (!command.codeMode) return tools;
  return `code mode (tiny_search and tiny_execute, programs of at most ${
    command.codeMode.wallMs / 1000
  } s, ` +
    `calling ${tools})`;
}
