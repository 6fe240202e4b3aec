// Runs a validated command. This is everything that touches the key, the
// network and stdio, so it is what runs inside the sandbox.

import type { Command, RelayCommand } from "../cli/args.ts";
import { Fatal } from "../cli/fatal.ts";
import { DEFAULT_KEY_ENV } from "../cli/args.ts";
import { serve } from "../host/protocol.ts";
import { parentGone } from "./lifecycle.ts";
import { relaySide } from "./deferred_facade.ts";
import { Signer } from "../key/signer.ts";
import { processStdio } from "../host/stdio.ts";
import { DIAGNOSE_TOOL, READ_TOOLS, WRITE_TOOLS } from "../facade/tools.ts";

export { Fatal };

function log(line: string): void {
  console.error(`tinyagent: ${line}`);
}

/** Reads the key, refusing with the permission flag to add rather than a stack trace. */
export async function readKey(variable: string): Promise<Signer> {
  if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") {
    throw new Fatal(`no permission to read ${variable}; run with --allow-env=${variable}`);
  }
  const parsed = await Signer.fromValue(Deno.env.get(variable), variable);
  if (!parsed.ok) throw new Fatal(parsed.error);
  return parsed.signer;
}

function requireNet(command: RelayCommand): void {
  const hosts = [command.relay.netHost, ...(command.proxy ? [command.proxy.netHost] : [])];
  for (const host of hosts) {
    if (Deno.permissions.querySync({ name: "net", host }).state !== "granted") {
      throw new Fatal(`no permission to reach ${host}; run with --allow-net=${hosts.join(",")}`);
    }
  }
}

/** The signer, once the key's and the relay's permissions are confirmed. */
async function signerFor(command: Extract<Command, { command: "mcp" | "diagnose" }>): Promise<Signer> {
  const signer = await readKey(command.keyEnv);
  requireNet(command);
  return signer;
}

async function keygen(): Promise<number> {
  const { signer, privateKeyHex } = await Signer.generate();
  const { pubkey, npub } = await signer.identity();
  console.log(`# tinyagent key, made ${new Date().toISOString()}`);
  console.log(`# public key (hex):  ${pubkey}`);
  console.log(`# public key (npub): ${npub}`);
  console.log(`# give the public key to the relay operator to be granted access`);
  console.log(`${DEFAULT_KEY_ENV}=${privateKeyHex}`);
  return 0;
}

async function mcp(command: Extract<Command, { command: "mcp" }>): Promise<number> {
  const signer = await signerFor(command);
  const side = relaySide(command, signer, log);
  if (Deno.stdin.isTerminal()) {
    // Started by hand: say what it is waiting for rather than look hung. Stdout stays protocol-only.
    log(
      "mcp: waiting for an MCP host on stdin (this is a stdio server: a host such as Hermes or Claude starts it); " +
        "to see it work, run 'deno task demo', or 'tinyagent diagnose --relay URL' to check access",
    );
  }
  // The line names the key's npub, whose derivation is deferred past the first answer. It says what
  // is configured: which of these tools are offered is the relay's table to say, at tools/list.
  let announced: Promise<void> | undefined;
  const announce = () =>
    announced ??= signer.identity().then(({ npub }) =>
      log(
        `mcp: configured for relay ${command.relay.base} as ${npub}: ${configuredTools(command)}, ` +
          `offered when the relay lists them, and ${DIAGNOSE_TOOL}; writes ${
            command.allowWrites ? "allowed" : "not allowed"
          }` +
          (command.proxy ? `; through the proxy ${command.proxy.display}` : ""),
      )
    );
  // The host's process is watched from the first answer or the first tools request, whichever
  // comes first: the runtime's first timer costs ~10 ms, which the handshake need not wait for, and
  // a host that dies with a call hung at the relay must still end this process.
  const hostGone = Promise.withResolvers<string>();
  let watching = false;
  const watchHost = () => {
    if (watching) return;
    watching = true;
    void parentGone().then(hostGone.resolve);
  };
  await serve({
    input: processStdio.input,
    output: processStdio.output,
    tools: {
      listTools: () => (watchHost(), side.listTools()),
      callTool: (params) => (watchHost(), side.callTool(params)),
      onToolsChanged: (listener) => side.onToolsChanged(listener),
      close: () => side.close(),
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
    },
    hostGone: hostGone.promise,
  });
  await announce();
  return 0;
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

/** Runs `command` and returns its exit status. */
export async function run(
  command: Exclude<Command, { command: "help" | "version" | "sandbox-check" }>,
): Promise<number> {
  switch (command.command) {
    case "keygen":
      return await keygen();
    case "whoami": {
      const { pubkey, npub } = await (await readKey(command.keyEnv)).identity();
      console.log(`hex:  ${pubkey}`);
      console.log(`npub: ${npub}`);
      return 0;
    }
    case "diagnose": {
      const signer = await signerFor(command);
      const [{ RelayClient }, { diagnose }, { exitCode }, { renderReport }] = await Promise.all([
        import("../relay/client.ts"),
        import("../diagnose/probe.ts"),
        import("../diagnose/report.ts"),
        import("../diagnose/render.ts"),
      ]);
      const relay = new RelayClient({
        endpoint: command.relay,
        signer,
        timeoutMs: command.timeoutMs,
        proxy: command.proxy,
      });
      const report = await diagnose(relay, signer, { rooms: command.rooms, kinds: command.kinds });
      // Colour only for a person at a terminal who has not asked for none (NO_COLOR, read by Deno at start).
      const colour = Deno.stdout.isTerminal() && !Deno.noColor;
      console.log(command.json ? JSON.stringify(report, null, 2) : renderReport(report, colour));
      relay.close();
      return exitCode(report.verdict);
    }
    case "mcp":
      return await mcp(command);
  }
}
