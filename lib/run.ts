// Runs a validated command. This is everything that touches the key, the
// network and stdio, so it is what runs inside the sandbox.

import type { Command, RelayCommand } from "./cli.ts";
import { DEFAULT_KEY_ENV } from "./cli.ts";
import { diagnose } from "./diagnose.ts";
import { exitCode } from "./diagnose_report.ts";
import { renderReport } from "./diagnose_render.ts";
import { Facade } from "./facade.ts";
import { serve } from "./host.ts";
import { parentGone } from "./lifecycle.ts";
import { RelayClient } from "./relay.ts";
import { Signer } from "./signer.ts";
import { processStdio } from "./stdio.ts";
import { diagnoseTool } from "./tiny_diagnose.ts";
import { DIAGNOSE_TOOL } from "./tools.ts";

/** A startup failure: one line on stderr, then this exit status. */
export class Fatal extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

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

/** The signer and a relay client for it, once both permissions are confirmed. */
async function connect(
  command: Extract<Command, { command: "mcp" | "diagnose" }>,
): Promise<{ signer: Signer; relay: RelayClient }> {
  const signer = await readKey(command.keyEnv);
  requireNet(command);
  const relay = new RelayClient({
    endpoint: command.relay,
    signer,
    timeoutMs: command.timeoutMs,
    proxy: command.proxy,
  });
  return { signer, relay };
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
  const { signer, relay } = await connect(command);
  // Ready for the first call while the host does its handshake: the connection opens now (no request is
  // sent before the host lists or calls tools), the signing stack loads after the first answer.
  relay.warm();
  const facade = new Facade({
    relay,
    signer,
    exposed: command.exposed,
    allowWrites: command.allowWrites,
    diagnose: diagnoseTool((asked) => diagnose(relay, signer, asked)),
    log,
  });
  // The line names the key's npub, whose derivation is deferred past the first answer.
  let announced: Promise<void> | undefined;
  const announce = () =>
    announced ??= signer.identity().then(({ npub }) =>
      log(
        `mcp: relay ${command.relay.base} as ${npub}; ${command.exposed.length} relay tools and ` +
          `${DIAGNOSE_TOOL} exposed; writes ${command.allowWrites ? "allowed" : "not allowed"}`,
      )
    );
  await serve({
    input: processStdio.input,
    output: processStdio.output,
    tools: facade,
    log,
    afterFirstAnswer: () => void announce(),
    hostGone: parentGone(),
  });
  await announce();
  return 0;
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
      const { signer, relay } = await connect(command);
      const report = await diagnose(relay, signer, { rooms: command.rooms, kinds: command.kinds });
      console.log(
        command.json ? JSON.stringify(report, null, 2) : renderReport(report, Deno.stdout.isTerminal()),
      );
      return exitCode(report.verdict);
    }
    case "mcp":
      return await mcp(command);
  }
}
