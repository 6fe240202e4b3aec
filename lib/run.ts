// Runs a validated command. This is everything that touches the key, the
// network and stdio, so it is what runs inside the sandbox.

import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { Command } from "./cli.ts";
import { DEFAULT_KEY_ENV } from "./cli.ts";
import { type AgentKey, parseKey } from "./keys.ts";
import { RelayClient } from "./relay.ts";
import { Facade } from "./facade.ts";
import { serve } from "./host.ts";
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
export function readKey(variable: string): AgentKey {
  if (Deno.permissions.querySync({ name: "env", variable }).state !== "granted") {
    throw new Fatal(`no permission to read ${variable}; run with --allow-env=${variable}`);
  }
  const parsed = parseKey(Deno.env.get(variable), variable);
  if (!parsed.ok) throw new Fatal(parsed.error);
  return parsed.key;
}

function requireNet(endpoint: RelayEndpoint): void {
  if (Deno.permissions.querySync({ name: "net", host: endpoint.netHost }).state !== "granted") {
    throw new Fatal(`no permission to reach ${endpoint.netHost}; run with --allow-net=${endpoint.netHost}`);
  }
}

/** The key and a relay client for it, once both permissions are confirmed. */
function connect(
  command: Extract<Command, { command: "mcp" | "diagnose" }>,
): { key: AgentKey; relay: RelayClient } {
  const key = readKey(command.keyEnv);
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
      const secretKey = generateSecretKey();
      const pubkey = getPublicKey(secretKey);
      console.log(`# tinyagent key, made ${new Date().toISOString()}`);
      console.log(`# public key (hex):  ${pubkey}`);
      console.log(`# public key (npub): ${nip19.npubEncode(pubkey)}`);
      console.log(`# give the public key to the relay operator to be granted access`);
      console.log(`${DEFAULT_KEY_ENV}=${bytesToHex(secretKey)}`);
      return 0;
    }
    case "whoami": {
      const key = readKey(command.keyEnv);
      console.log(`hex:  ${key.pubkey}`);
      console.log(`npub: ${key.npub}`);
      return 0;
    }
    case "diagnose": {
      const { key, relay } = connect(command);
      const report = await diagnose(relay, key, { rooms: command.rooms, kinds: command.kinds });
      console.log(
        command.json ? JSON.stringify(report, null, 2) : renderReport(report, Deno.stdout.isTerminal()),
      );
      return exitCode(report.verdict);
    }
    case "mcp": {
      const { key, relay } = connect(command);
      const facade = new Facade({
        relay,
        secretKey: key.secretKey,
        exposed: command.exposed,
        allowWrites: command.allowWrites,
        diagnose: { entry: DIAGNOSE_ENTRY, run: (args) => diagnoseTool(relay, key, args) },
        log,
      });
      log(
        `mcp: relay ${command.relay.base} as ${key.npub}; ${command.exposed.length} relay tools and ` +
          `${DIAGNOSE_TOOL} exposed; writes ${command.allowWrites ? "allowed" : "not allowed"}`,
      );
      await serve({ input: Deno.stdin.readable, output: Deno.stdout.writable, tools: facade, log });
      return 0;
    }
  }
}
