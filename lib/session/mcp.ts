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
import { processStdio } from "../host/stdio.ts";
import type { Signer } from "../key/signer.ts";
import { PackageLoadError } from "../key/stack.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import { oversightSummary } from "../oversight/settings.ts";
import { deferredFacade } from "./deferred_facade.ts";
import { parentGone } from "./lifecycle.ts";
import { listening } from "./listening.ts";
import { approvalsSummary, listenSummary } from "../listen/summary.ts";

export async function mcp(
  command: Extract<Command, { command: "mcp" }>,
  signer: Signer,
  log: (line: string) => void,
  audit?: AuditSink,
): Promise<number> {
  // tinyagent's own code failing to load ends the session with that failure's message.
  let failure: unknown;
  const stopped = Promise.withResolvers<void>();
  const stop = (error: unknown) => {
    failure ??= error instanceof PackageLoadError ? new Fatal(error.message) : error;
    stopped.resolve();
  };
  // The first answer, or the first tools request: from then on timers cost the handshake nothing.
  const answered = Promise.withResolvers<void>();
  // Our requests to the host (the person's approval of a write) and the host's responses.
  const channel = new HostChannel(log);
  // The relay reaching the agent (--listen) and approvals from the room (--approvers), or neither.
  const room = listening(command, signer, log, audit);
  const side = deferredFacade(command, signer, log, stop, answered.promise, {
    ask: room.ask ?? askThroughHost(channel, command.oversight.confirmTimeoutMs),
    where: room.ask ? "room" : "host",
    audit,
    budget: room.budget,
    localTools: room.localTools,
  });
  if (Deno.stdin.isTerminal()) {
    // Started by hand: say what it is waiting for rather than look hung. Stdout stays protocol-only.
    // `deno task demo` exists only in a checkout, so only a run from source suggests it.
    log(
      "mcp: waiting for an MCP host on stdin (this is a stdio server: a host such as Hermes or Claude starts it); " +
        `to see what a host would be offered, run 'tinyagent tools --relay ${command.relay.base}', ` +
        `and 'tinyagent diagnose --relay ${command.relay.base}' to check access` +
        (Deno.build.standalone ? "" : "; in the checkout, 'deno task demo' shows the whole flow"),
    );
  }
  // The line names the key's npub, whose derivation is deferred past the first answer. It says what
  // is configured: which of these tools are offered is the relay's table to say, at tools/list. It
  // is said after the handshake, so it can say once whether this host can ask its person.
  let announced: Promise<void> | undefined;
  const announce = () =>
    announced ??= signer.identity().then(({ npub, pubkey }) =>
      log(
        `mcp: configured for relay ${command.relay.base} as ${npub}: ${configuredTools(command)}, ` +
          `offered when the relay lists them, and ${DIAGNOSE_TOOL}; ` +
          writesSummary(command, canElicitForm(channel.capabilities)) +
          listenSummary(command.listen) +
          approvalsSummary(command.approvals, pubkey, command.oversight.confirmTimeoutMs / 1000) +
          (command.proxy ? `; through the proxy ${command.proxy.display}` : ""),
      ), stop);
  // The host's process is watched from the first answer or the first tools request, whichever
  // comes first: the runtime's first timer costs ~10 ms, which the handshake need not wait for, and
  // a host that dies with a call hung at the relay must still end this process.
  const hostGone = Promise.withResolvers<string>();
  let watching = false;
  const watchHost = () => {
    if (watching) return;
    watching = true;
    answered.resolve();
    void parentGone().then(hostGone.resolve);
  };
  const session = serve({
    input: processStdio.input,
    output: processStdio.output,
    tools: {
      listTools: () => (watchHost(), side.listTools()),
      callTool: (params) => (watchHost(), side.callTool(params)),
      onToolsChanged: (listener) => side.onToolsChanged(listener),
      close: () => {
        room.close();
        side.close();
      },
    },
    log,
    // Ready for the first call while the host does its handshake, which waited for none of it: the
    // connection to the relay has been opening since the start (no request is sent before the host
    // lists or calls tools), and now the relay side loads, and the signing stack with the
    // announcement's public key, whose first curve work is the expensive one.
    afterFirstAnswer: () => {
      side.warm();
      void announce();
      watchHost();
      room.start();
    },
    hostGone: hostGone.promise,
    channel,
    features: room.features,
    notifications: room.notifications,
  });
  await Promise.race([session, stopped.promise]);
  room.close();
  // The startup line is said however short the session was; the signing stack loads with it.
  if (!failure) await announce();
  if (failure) throw failure;
  return 0;
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

/** What the exposure flags configured, in words. */
function configuredTools(command: Extract<Command, { command: "mcp" }>): string {
  const count = command.exposed.length;
  if (command.exposed.join() === [...READ_TOOLS, ...WRITE_TOOLS].join()) {
    return `the ${count} read and write tools`;
  }
  if (command.exposed.join() === READ_TOOLS.join()) return `the ${count} read tools`;
  return `${count} tool${count === 1 ? "" : "s"} named by --tools`;
}
