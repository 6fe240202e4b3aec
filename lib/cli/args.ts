// Command-line flags, validation and help text. Pure: argv in, a validated
// command or a usage error out; the key is read in run.ts, inside the sandbox.

import { parseRelayUrl, type RelayEndpoint } from "../relay/endpoint.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { resolveExposure } from "../facade/tools.ts";

export const DEFAULT_KEY_ENV = "TINY_PRIVATE_KEY";
export const DEFAULT_TIMEOUT_SECONDS = 120;

export const USAGE = {
  main: `tinyagent — use a Nostr relay's tools from an MCP host, safely

Usage: tinyagent <command> [flags]

  tinyagent mcp --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--timeout SECONDS]
  tinyagent diagnose --relay URL [--key-env NAME] [--rooms a,b] [--kinds 9,11] [--json] [--timeout SECONDS]
  tinyagent keygen
  tinyagent whoami [--key-env NAME]
  tinyagent sandbox-check --relay URL [--key-env NAME] [--json]
  tinyagent --version | --help

Run 'tinyagent <command> --help' for a command's flags.`,
  mcp: `Usage: tinyagent mcp --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--timeout SECONDS]

Serves MCP over stdio to an agent host and forwards tool calls to the relay,
signing each request (NIP-98) with the key in the environment variable NAME.

  --relay URL          relay origin, with a tenant prefix if any (https://relay.example/r/acme)
  --key-env NAME       environment variable holding the private key, hex or nsec (default ${DEFAULT_KEY_ENV})
  --tools a,b          expose only these tools, in this order (default: every read tool)
  --allow-writes       add the write tools and let tinyagent sign the events they return
  --timeout SECONDS    bound on each relay call (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help`,
  diagnose:
    `Usage: tinyagent diagnose --relay URL [--key-env NAME] [--rooms a,b] [--kinds 9,11] [--json] [--timeout SECONDS]

Tells in one verdict whether the relay answers, accepts this key's signature,
counts it as a member, and grants what it needs.

  --relay URL          relay origin, with a tenant prefix if any
  --key-env NAME       environment variable holding the private key (default ${DEFAULT_KEY_ENV})
  --rooms a,b          rooms the agent needs to post in
  --kinds 9,11         event kinds the agent needs to publish (0-65535)
  --json               print the report as JSON
  --timeout SECONDS    bound on the relay call (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit status: 0 ok, 2 the relay refuses access (grant, membership, signature), 3 unreachable or error, 1 usage.`,
  keygen: `Usage: tinyagent keygen

Prints a fresh private key as a TINY_PRIVATE_KEY=<hex> line, ready to append to
a .env file (Hermes reads ~/.hermes/.env), with its public key in comments.`,
  whoami: `Usage: tinyagent whoami [--key-env NAME]

Prints the public key (hex and npub) of the configured private key.`,
  "sandbox-check": `Usage: tinyagent sandbox-check --relay URL [--key-env NAME] [--json]

Proves the sandbox from inside: runs a probe exactly where 'mcp' would run
(the same worker, with the same permissions) and tries the relay's host:port
and the key variable (allowed), then another port, another host, another
variable, the whole environment, reading and writing a file, starting a
process, FFI, system information and remote code (each must be denied).
Reads no key and sends no request; --relay need not be running.

  --relay URL          the relay whose host:port the sandbox allows
  --key-env NAME       the key variable the sandbox allows (default ${DEFAULT_KEY_ENV})
  --json               print the report as JSON
  -h, --help           show this help

Exit status: 0 when every check is as expected, 1 otherwise.`,
} as const;

export type Command =
  | { command: "help"; topic: keyof typeof USAGE }
  | { command: "version" }
  | {
    command: "mcp";
    relay: RelayEndpoint;
    keyEnv: string;
    exposed: string[];
    allowWrites: boolean;
    timeoutMs: number;
    /** Set by the main thread from the environment (proxy.ts), not by a flag. */
    proxy?: Proxy;
  }
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
  | { command: "keygen" }
  | { command: "whoami"; keyEnv: string }
  | { command: "sandbox-check"; relay: RelayEndpoint; keyEnv: string; json: boolean; proxy?: Proxy };

/** The commands that reach the relay. */
export type RelayCommand = Extract<Command, { relay: RelayEndpoint }>;

/** What a private key looks like when pasted where it does not belong: 64 hex characters, or an nsec. */
const KEY_SHAPES = /[0-9a-fA-F]{64}|nsec1[02-9ac-hj-np-z]{20,}/gi;

/** `text` with anything shaped like a private key replaced, so no error can echo a key a user typed. */
export function redactKeys(text: string): string {
  return text.replace(KEY_SHAPES, "<a private key, not shown>");
}

export class UsageError extends Error {
  constructor(message: string, readonly topic: keyof typeof USAGE) {
    super(redactKeys(message));
  }
}

function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(",").map((item) => item.trim()).filter((item) => item !== "");
}

/**
 * The `--key-env` name. A value that looks like a key (the easiest mistake:
 * the key pasted instead of its variable's name) or is no plausible variable
 * name is refused without being echoed: the line would land in the host's log.
 */
function keyEnvName(value: string | undefined, topic: keyof typeof USAGE): string {
  const name = value ?? DEFAULT_KEY_ENV;
  const trimmed = name.trim();
  if (/^[0-9a-fA-F]{32,}$/.test(trimmed) || /^nsec1/i.test(trimmed) || redactKeys(trimmed) !== trimmed) {
    throw new UsageError(
      `--key-env takes the name of the variable that holds the key (such as ${DEFAULT_KEY_ENV}), not the key ` +
        `itself; what was given looks like a key and is not shown: put it in a variable and name that`,
      topic,
    );
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) {
    throw new UsageError(
      `--key-env: not an environment variable name (letters, digits and _, not starting with a digit); ` +
        `the value is not shown`,
      topic,
    );
  }
  return name;
}

function timeoutFlag(value: string | undefined, topic: keyof typeof USAGE): number {
  if (value === undefined) return DEFAULT_TIMEOUT_SECONDS * 1000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0) || seconds > 3600) {
    throw new UsageError("--timeout: give a number of seconds above 0 and at most 3600", topic);
  }
  return Math.round(seconds * 1000);
}

function relayFlag(value: string | undefined, topic: keyof typeof USAGE): RelayEndpoint {
  if (value === undefined) throw new UsageError("--relay URL is required", topic);
  const parsed = parseRelayUrl(value);
  if (!parsed.ok) throw new UsageError(parsed.error, topic);
  return parsed.endpoint;
}

type Flags = Record<string, { type: "string" | "boolean" }>;

/** The flags of every command that talks to a relay. */
const RELAY_FLAGS: Flags = { relay: { type: "string" }, "key-env": { type: "string" } };

/** `--relay` and `--key-env`, checked, in that order. */
function relayAndKey(
  values: Record<string, unknown>,
  topic: keyof typeof USAGE,
): { relay: RelayEndpoint; keyEnv: string } {
  return {
    relay: relayFlag(values.relay as string | undefined, topic),
    keyEnv: keyEnvName(values["key-env"] as string | undefined, topic),
  };
}

/**
 * A strict flag parser: `--name value`, `--name=value`, boolean `--flag`, `-h`/`--help`. Hand-written
 * because node:util costs ~5 ms of start-up (the Node compatibility layer) for one function.
 */
function parse(
  topic: keyof typeof USAGE,
  args: string[],
  options: Flags,
): { values: Record<string, unknown> } {
  const values: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h" || arg === "--help") {
      values.help = true;
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      throw new UsageError(`unexpected argument '${arg}'`, topic);
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) throw new UsageError(`unknown flag '--${name}'`, topic);
    if (option.type === "boolean") {
      if (eq !== -1) throw new UsageError(`flag '--${name}' does not take an argument`, topic);
      values[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = args[++i];
      if (value === undefined) throw new UsageError(`flag '--${name} <value>' needs a value`, topic);
      if (value.startsWith("-")) {
        throw new UsageError(`flag '--${name} <value>' argument is ambiguous: use --${name}=${value}`, topic);
      }
    }
    values[name] = value;
  }
  return { values };
}

function mcpCommand(rest: string[]): Command {
  const { values } = parse("mcp", rest, {
    ...RELAY_FLAGS,
    tools: { type: "string" },
    "allow-writes": { type: "boolean" },
    timeout: { type: "string" },
  });
  if (values.help) return { command: "help", topic: "mcp" };
  const { relay, keyEnv } = relayAndKey(values, "mcp");
  const allowWrites = values["allow-writes"] === true;
  const exposure = resolveExposure(list(values.tools as string | undefined), allowWrites);
  if (!exposure.ok) throw new UsageError(exposure.error, "mcp");
  const timeoutMs = timeoutFlag(values.timeout as string | undefined, "mcp");
  return { command: "mcp", relay, keyEnv, exposed: exposure.names, allowWrites, timeoutMs };
}

function kindsFlag(value: string | undefined): number[] {
  return (list(value) ?? []).map((item) => {
    const kind = Number(item);
    if (!/^\d+$/.test(item) || kind > 65535) {
      throw new UsageError(`--kinds: ${JSON.stringify(item)} is not an event kind (0-65535)`, "diagnose");
    }
    return kind;
  });
}

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
    kinds: kindsFlag(values.kinds as string | undefined),
    json: values.json === true,
    timeoutMs: timeoutFlag(values.timeout as string | undefined, "diagnose"),
  };
}

function sandboxCheckCommand(rest: string[]): Command {
  const { values } = parse("sandbox-check", rest, { ...RELAY_FLAGS, json: { type: "boolean" } });
  if (values.help) return { command: "help", topic: "sandbox-check" };
  return {
    command: "sandbox-check",
    ...relayAndKey(values, "sandbox-check"),
    json: values.json === true,
  };
}

/** Parses argv into a command, or throws UsageError. */
export function parseCommand(argv: string[]): Command {
  const [first, ...rest] = argv;
  if (first === undefined || first === "--help" || first === "-h" || first === "help") {
    return { command: "help", topic: "main" };
  }
  if (first === "--version" || first === "-V" || first === "version") return { command: "version" };
  switch (first) {
    case "mcp":
      return mcpCommand(rest);
    case "diagnose":
      return diagnoseCommand(rest);
    case "sandbox-check":
      return sandboxCheckCommand(rest);
    case "keygen": {
      const { values } = parse("keygen", rest, {});
      return values.help ? { command: "help", topic: "keygen" } : { command: "keygen" };
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
