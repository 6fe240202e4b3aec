// The command line: argv in, a validated command or a usage error out (the
// help text is usage.ts; each family of commands parses its own flags in
// flags.ts, session_args.ts, rpc_args.ts and call_args.ts). Pure; the key is
// read in session/run.ts, inside the sandbox.

import type { RelayEndpoint } from "../relay/endpoint.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { type CallCommand, callCommand } from "./call_args.ts";
import {
  auditLogFlag,
  type HelpCommand,
  keyEnvName,
  kindsFlag,
  list,
  parse,
  redactKeys,
  RELAY_FLAGS,
  relayAndKey,
  timeoutFlag,
  UsageError,
} from "./flags.ts";
import { type MethodCommand, type RpcCommand, rpcCommand } from "./rpc_args.ts";
import {
  type ConfigCommand,
  configCommand,
  type McpCommand,
  mcpCommand,
  type ToolsCommand,
  toolsCommand,
} from "./session_args.ts";

export {
  DEFAULT_KEY_ENV,
  DEFAULT_TIMEOUT_SECONDS,
  MAX_WRITES_LIMIT,
  redactKeys,
  type Topic,
  UsageError,
} from "./flags.ts";
export { DEFAULT_KEY_FILE, type HostName, HOSTS, type ToolSession } from "./session_args.ts";
export type { RpcSession } from "./rpc_args.ts";

export type Command =
  | HelpCommand
  | { command: "version" }
  | McpCommand
  | ToolsCommand
  | CallCommand
  | RpcCommand
  | MethodCommand
  | ConfigCommand
  | {
    command: "diagnose";
    relay: RelayEndpoint;
    keyEnv: string;
    rooms: string[];
    kinds: number[];
    json: boolean;
    timeoutMs: number;
    proxy?: Proxy;
  }
  /** `json`: the Go peer's `{"pubkey","secret"}` line instead of the .env line. */
  | { command: "keygen"; json?: true }
  | { command: "whoami"; keyEnv: string }
  | {
    command: "sandbox-check";
    relay: RelayEndpoint;
    keyEnv: string;
    json: boolean;
    proxy?: Proxy;
    /** The audit log the sandbox would let the facade write, when one is named. */
    auditLog?: string;
  };

/** The commands that reach the relay. */
export type RelayCommand = Extract<Command, { relay: RelayEndpoint }>;

function diagnoseCommand(rest: string[]): Command {
  const { values } = parse("diagnose", rest, {
    ...RELAY_FLAGS,
    rooms: { type: "string" },
    kinds: { type: "string" },
    json: { type: "boolean" },
    timeout: { type: "string" },
  });
  if (values.help) return { command: "help", topic: "diagnose" };
  return {
    command: "diagnose",
    ...relayAndKey(values, "diagnose"),
    rooms: list(values.rooms as string | undefined) ?? [],
    kinds: kindsFlag(values.kinds as string | undefined, "diagnose") ?? [],
    json: values.json === true,
    timeoutMs: timeoutFlag(values.timeout as string | undefined, "diagnose"),
  };
}

function sandboxCheckCommand(rest: string[]): Command {
  const { values } = parse("sandbox-check", rest, {
    ...RELAY_FLAGS,
    "audit-log": { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return { command: "help", topic: "sandbox-check" };
  const auditLog = auditLogFlag(values["audit-log"] as string | undefined, "sandbox-check");
  return {
    command: "sandbox-check",
    ...relayAndKey(values, "sandbox-check"),
    json: values.json === true,
    ...(auditLog === undefined ? {} : { auditLog }),
  };
}

/**
 * A `${user_config.NAME}` an MCP bundle's host left in place: it substitutes only the settings that
 * have a value, so this names the setting to fill in rather than a flag that looks wrong.
 */
function unsubstituted(argv: string[]): string | undefined {
  for (const arg of argv) {
    const setting = /\$\{user_config\.([^}]*)\}/.exec(arg)?.[1];
    if (setting !== undefined) return setting;
  }
  return undefined;
}

/** Parses argv into a command, or throws UsageError. */
export function parseCommand(argv: string[]): Command {
  const setting = unsubstituted(argv);
  if (setting !== undefined) {
    throw new UsageError(
      `the host passed \${user_config.${redactKeys(setting).slice(0, 60)}} as it is: that setting of the ` +
        `tinyagent extension has no value; fill it in the host's settings for the extension`,
      "main",
    );
  }
  const [first, ...rest] = argv;
  // No command at all is a mistake a script should see: usage on stderr and a usage status.
  if (first === undefined) throw new UsageError("no command given", "main");
  if (first === "--help" || first === "-h" || first === "help") return { command: "help", topic: "main" };
  if (["--version", "-v", "-V", "version"].includes(first)) return { command: "version" };
  switch (first) {
    case "mcp":
      return mcpCommand(rest);
    case "rpc":
      return rpcCommand(rest);
    case "tools":
      return toolsCommand(rest);
    case "call":
      return callCommand(rest);
    case "config":
      return configCommand(rest);
    case "diagnose":
      return diagnoseCommand(rest);
    case "sandbox-check":
      return sandboxCheckCommand(rest);
    case "keygen": {
      const { values } = parse("keygen", rest, { json: { type: "boolean" } });
      if (values.help) return { command: "help", topic: "keygen" };
      return values.json === true ? { command: "keygen", json: true } : { command: "keygen" };
    }
    case "whoami": {
      const { values } = parse("whoami", rest, { "key-env": { type: "string" } });
      if (values.help) return { command: "help", topic: "whoami" };
      return { command: "whoami", keyEnv: keyEnvName(values["key-env"] as string | undefined, "whoami") };
    }
    default:
      throw new UsageError(`unknown command ${JSON.stringify(first)}`, "main");
  }
}
