// Runs a validated command. This is everything that touches the key, the
// network and stdio, so it is what runs inside the sandbox.

import type { Command, RelayCommand } from "../cli/args.ts";
import { Fatal } from "../cli/fatal.ts";
import { DEFAULT_KEY_ENV } from "../cli/args.ts";
import { Signer } from "../key/signer.ts";
import { PackageLoadError } from "../key/stack.ts";
import type { AuditLog } from "../oversight/audit_log.ts";
import { partOf, type SessionParts } from "./parts.ts";

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

/**
 * The audit log, opened for appending before anything is served: a path that cannot be written
 * stops startup, naming it. Loaded only when one is named.
 */
async function openAuditLog(path: string | undefined): Promise<AuditLog | undefined> {
  if (path === undefined) return undefined;
  const { AuditLog } = await import("../oversight/audit_log.ts");
  const opened = await AuditLog.open(path, log);
  if (!opened.ok) throw new Fatal(opened.error);
  return opened.log;
}

/** Runs `work` with the command's audit log open; its entries are all written before it closes. */
async function withAuditLog(
  path: string | undefined,
  work: (audit: AuditLog | undefined) => Promise<number>,
): Promise<number> {
  const audit = await openAuditLog(path);
  try {
    return await work(audit);
  } finally {
    await audit?.close();
  }
}

/** The signer, once the key's and the relay's permissions are confirmed. */
async function signerFor(command: Exclude<RelayCommand, { command: "sandbox-check" }>): Promise<Signer> {
  const signer = await readKey(command.keyEnv);
  requireNet(command);
  return signer;
}

async function keygen(json: boolean): Promise<number> {
  const { signer, privateKeyHex } = await Signer.generate();
  const { pubkey, npub } = await signer.identity();
  if (json) {
    // The Go peer's line, for scripts that read it.
    console.log(JSON.stringify({ pubkey, secret: privateKeyHex }));
    return 0;
  }
  console.log(`# tinyagent key, made ${new Date().toISOString()}`);
  console.log(`# public key (hex):  ${pubkey}`);
  console.log(`# public key (npub): ${npub}`);
  console.log(`# give the public key to the relay operator to be granted access`);
  console.log(`${DEFAULT_KEY_ENV}=${privateKeyHex}`);
  return 0;
}

/**
 * Runs `command` and returns its exit status, loading what it needs from `parts` (the caller's: a
 * worker holds only its command's). tinyagent's own code failing to load is a Fatal that says so.
 */
export async function run(
  command: Exclude<Command, { command: "help" | "version" | "sandbox-check" | "config" }>,
  parts: Partial<SessionParts>,
): Promise<number> {
  try {
    return await runCommand(command, parts);
  } catch (error) {
    if (error instanceof PackageLoadError) throw new Fatal(error.message);
    throw error;
  }
}

async function runCommand(
  command: Exclude<Command, { command: "help" | "version" | "sandbox-check" | "config" }>,
  parts: Partial<SessionParts>,
): Promise<number> {
  switch (command.command) {
    case "keygen":
      return await keygen(command.json === true);
    case "whoami": {
      const { pubkey, npub } = await (await readKey(command.keyEnv)).identity();
      console.log(`hex:  ${pubkey}`);
      console.log(`npub: ${npub}`);
      return 0;
    }
    case "diagnose": {
      const signer = await signerFor(command);
      return await (await partOf(parts, "diagnose")()).diagnoseCommand(command, signer);
    }
    // The relay side loads only for the commands that use it, never ahead of mcp's handshake.
    case "tools": {
      const signer = await signerFor(command);
      return await (await partOf(parts, "tools")()).listOffer(command, signer, log);
    }
    case "call": {
      const signer = await signerFor(command);
      const { callOne } = await partOf(parts, "tools")();
      return await withAuditLog(command.oversight.auditLog, (audit) => callOne(command, signer, log, audit));
    }
    case "mcp": {
      const signer = await signerFor(command);
      const { mcp } = await partOf(parts, "mcp")();
      return await withAuditLog(
        command.oversight.auditLog,
        (audit) => mcp(command, signer, log, audit, parts),
      );
    }
    // The helper loads only for its own commands.
    case "rpc": {
      const signer = await signerFor(command);
      const { rpc } = await partOf(parts, "rpc")();
      return await withAuditLog(command.oversight.auditLog, (audit) => rpc(command, signer, log, audit));
    }
    case "method": {
      const signer = await signerFor(command);
      const { callMethod } = await partOf(parts, "rpc")();
      return await withAuditLog(
        command.oversight.auditLog,
        (audit) => callMethod(command, signer, log, audit),
      );
    }
  }
}
