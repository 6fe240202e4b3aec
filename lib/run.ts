// Runs a validated command. This is everything that touches the key, the
// network and stdio, so it is what runs inside the sandbox.

import { loadNostr } from "./nostr.ts";
import type { Command } from "./cli.ts";
import { DEFAULT_KEY_ENV } from "./cli.ts";
import { type AgentKey, parseKey } from "./keys.ts";
import { RelayClient } from "./relay.ts";
import { Facade } from "./facade.ts";
import { serve } from "./host.ts";
import { processStdio } from "./stdio.ts";
import { diagnose, DIAGNOSE_ENTRY, diagnoseTool, exitCode, renderReport } from "./diagnose.ts";
import type { RelayEndpoint } from "./endpoint.ts";
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
export async function readKey(variable: string): Promise<AgentKey> {
  if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") {
    throw new Fatal(`no permission to read ${variable}; run with --allow-env=${variable}`);
  }
  const value = Deno.env.get(variable);
  // Only an nsec key needs the stack (bech32) before the handshake.
  if (value?.trim().startsWith("nsec1")) await loadNostr();
  const parsed = parseKey(value, variable);
  if (!parsed.ok) throw new Fatal(parsed.error);
  return parsed.key;
}

function requireNet(endpoint: RelayEndpoint): void {
  if (Deno.permissions.querySync({ name: "net", host: endpoint.netHost }).state !== "granted") {
    throw new Fatal(`no permission to reach ${endpoint.netHost}; run with --allow-net=${endpoint.netHost}`);
  }
}

/** The key and a relay client for it, once both permissions are confirmed. */
async function connect(
  command: Extract<Command, { command: "mcp" | "diagnose" }>,
): Promise<{ key: AgentKey; relay: RelayClient }> {
  const key = await readKey(command.keyEnv);
  requireNet(command.relay);
  return {
    key,
    relay: new RelayClient({
      endpoint: command.relay,
      secretKey: key.secretKey,
      timeoutMs: command.timeoutMs,
    }),
  };
}

/** Runs `command` and returns its exit status. */
export async function run(command: Exclude<Command, { command: "help" | "version" }>): Promise<number> {
  switch (command.command) {
    case "keygen": {
      const { pure, nip19, utils } = await loadNostr();
      const secretKey = pure.generateSecretKey();
      const pubkey = pure.getPublicKey(secretKey);
      console.log(`# tinyagent key, made ${new Date().toISOString()}`);
      console.log(`# public key (hex):  ${pubkey}`);
      console.log(`# public key (npub): ${nip19.npubEncode(pubkey)}`);
      console.log(`# give the public key to the relay operator to be granted access`);
      console.log(`${DEFAULT_KEY_ENV}=${utils.bytesToHex(secretKey)}`);
      return 0;
    }
    case "whoami": {
      const key = await readKey(command.keyEnv);
      await loadNostr();
      console.log(`hex:  ${key.pubkey}`);
      console.log(`npub: ${key.npub}`);
      return 0;
    }
    case "diagnose": {
      const { key, relay } = await connect(command);
      const report = await diagnose(relay, key, { rooms: command.rooms, kinds: command.kinds });
      console.log(
        command.json ? JSON.stringify(report, null, 2) : renderReport(report, Deno.stdout.isTerminal()),
      );
      return exitCode(report.verdict);
    }
    case "mcp": {
      const { key, relay } = await connect(command);
      const facade = new Facade({
        relay,
        secretKey: key.secretKey,
        exposed: command.exposed,
        allowWrites: command.allowWrites,
        diagnose: { entry: DIAGNOSE_ENTRY, run: (args) => diagnoseTool(relay, key, args) },
        log,
      });
      // The line names the key's npub, whose derivation is deferred past the first answer.
      let announced: Promise<void> | undefined;
      const announce = () =>
        announced ??= loadNostr().then(() =>
          log(
            `mcp: relay ${command.relay.base} as ${key.npub}; ${command.exposed.length} relay tools and ` +
              `${DIAGNOSE_TOOL} exposed; writes ${command.allowWrites ? "allowed" : "not allowed"}`,
          )
        );
      await serve({
        input: processStdio.input,
        output: processStdio.output,
        tools: facade,
        log,
        afterFirstAnswer: () => void announce(),
      });
      await announce();
      return 0;
    }
  }
}
