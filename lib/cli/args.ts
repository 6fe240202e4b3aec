// Command-line flags and their validation (the help text is usage.ts). Pure:
// argv in, a validated command or a usage error out; the key is read in
// session/run.ts, inside the sandbox.

import { parseRelayUrl, type RelayEndpoint } from "../relay/endpoint.ts";
import type { Proxy } from "../transport/tunnel.ts";
import { resolveExposure } from "../facade/tools.ts";
import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { DEFAULT_OVERSIGHT, type OversightSettings } from "../oversight/settings.ts";

export const DEFAULT_KEY_ENV = "TINY_PRIVATE_KEY";
export const DEFAULT_TIMEOUT_SECONDS = 120;

/** A command's help (usage.ts), or the main one. */
export type Topic =
  | "main"
  | "mcp"
  | "tools"
  | "call"
  | "config"
  | "diagnose"
  | "keygen"
  | "whoami"
  | "sandbox-check";

/** What every command that offers or calls the relay's tools is given (`mcp`, `tools`, `call`), and `config` prints. */
export interface ToolSession {
  relay: RelayEndpoint;
  keyEnv: string;
  /** The tools offered, in order (facade/tools.ts resolves --tools and --allow-writes). */
  exposed: string[];
  allowWrites: boolean;
  /** The person's hold on the writes: the audit log, the budget, confirmation. */
  oversight: OversightSettings;
  timeoutMs: number;
  /** Set by the main thread from the environment (proxy_settings.ts), not by a flag. */
  proxy?: Proxy;
}

export type Command =
  | { command: "help"; topic: Topic }
  | { command: "version" }
  | ({ command: "mcp" } & ToolSession)
  | ({ command: "tools"; json: boolean } & ToolSession)
  | ({ command: "call"; tool: string; arguments: JsonObject; json: boolean } & ToolSession)
  /** `config HOST`: the host's configuration for an mcp session with these flags (host_config.ts). */
  | ({ command: "config"; host: HostName; name: string; keyFile: string } & ToolSession)
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

/** What a private key looks like when pasted where it does not belong: 64 hex characters, or an nsec. */
const KEY_SHAPES = /[0-9a-fA-F]{64}|nsec1[02-9ac-hj-np-z]{20,}/gi;

/** `text` with anything shaped like a private key replaced, so no error can echo a key a user typed. */
export function redactKeys(text: string): string {
  return text.replace(KEY_SHAPES, "<a private key, not shown>");
}

export class UsageError extends Error {
  constructor(message: string, readonly topic: Topic) {
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
function keyEnvName(value: string | undefined, topic: Topic): string {
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

/** A number of seconds above 0 and at most an hour, as milliseconds. */
function secondsFlag(flag: string, value: string | undefined, fallbackSeconds: number, topic: Topic): number {
  if (value === undefined) return fallbackSeconds * 1000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0) || seconds > 3600) {
    throw new UsageError(`${flag}: give a number of seconds above 0 and at most 3600`, topic);
  }
  return Math.round(seconds * 1000);
}

function timeoutFlag(value: string | undefined, topic: Topic): number {
  return secondsFlag("--timeout", value, DEFAULT_TIMEOUT_SECONDS, topic);
}

/** The most writes `--max-writes` may allow: past this, leave the flag out. */
export const MAX_WRITES_LIMIT = 1_000_000;

/**
 * `--audit-log FILE`: a path as given. A host passes `~` literally (no shell expands it), so a path
 * starting with it would name a folder called `~`: refused with what to write instead.
 */
function auditLogFlag(value: string | undefined, topic: Topic): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") throw new UsageError("--audit-log: give the path of the file to append to", topic);
  if (value.includes("\0")) throw new UsageError("--audit-log: the path holds a NUL character", topic);
  // The path is said on the startup line and in the host's log: nothing shaped like a key goes there.
  if (redactKeys(value) !== value) {
    throw new UsageError("--audit-log: the path looks like it holds a private key, and is not shown", topic);
  }
  if (/^~(?:[\\/]|$)/.test(value)) {
    throw new UsageError(
      "--audit-log: a path starting with ~ is not expanded when a host starts tinyagent; give the full path " +
        "(such as /home/you/.tinyagent/audit.jsonl)",
      topic,
    );
  }
  return value;
}

/**
 * The oversight flags, checked. They never conflict with the other flags: without `--allow-writes`
 * a budget or a confirmation has nothing to act on, and the startup line says so (a bundle or a
 * catalog passes every setting, whatever the others are).
 */
function oversightFlags(values: Record<string, unknown>, topic: Topic): OversightSettings {
  const max = values["max-writes"] as string | undefined;
  const confirm = values["confirm-writes"] === true;
  const timeout = values["confirm-timeout"] as string | undefined;
  let maxWrites: number | undefined;
  if (max !== undefined) {
    maxWrites = Number(max);
    if (!/^\d+$/.test(max) || maxWrites < 1 || maxWrites > MAX_WRITES_LIMIT) {
      throw new UsageError(
        `--max-writes: give a whole number of writes from 1 to ${MAX_WRITES_LIMIT} (to allow none, leave out ` +
          `--allow-writes)`,
        topic,
      );
    }
  }
  const auditLog = auditLogFlag(values["audit-log"] as string | undefined, topic);
  return {
    ...DEFAULT_OVERSIGHT,
    ...(auditLog === undefined ? {} : { auditLog }),
    ...(maxWrites === undefined ? {} : { maxWrites }),
    confirmWrites: confirm,
    confirmTimeoutMs: secondsFlag(
      "--confirm-timeout",
      timeout,
      DEFAULT_OVERSIGHT.confirmTimeoutMs / 1000,
      topic,
    ),
  };
}

function relayFlag(value: string | undefined, topic: Topic): RelayEndpoint {
  if (value === undefined) throw new UsageError("--relay URL is required", topic);
  const parsed = parseRelayUrl(value);
  if (!parsed.ok) throw new UsageError(parsed.error, topic);
  return parsed.endpoint;
}

/**
 * A boolean flag is given bare (`--allow-writes`) or with its value (`--allow-writes=true`,
 * `--allow-writes=false`): a bundle or a catalog substitutes a setting's value into one argument.
 */
type Flags = Record<string, { type: "string" | "boolean" }>;

/** The flags of every command that talks to a relay. */
const RELAY_FLAGS: Flags = { relay: { type: "string" }, "key-env": { type: "string" } };

/** `--relay` and `--key-env`, checked, in that order. */
function relayAndKey(
  values: Record<string, unknown>,
  topic: Topic,
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
  topic: Topic,
  args: string[],
  options: Flags,
  maxPositionals = 0,
): { values: Record<string, unknown>; positionals: string[] } {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h" || arg === "--help") {
      values.help = true;
      continue;
    }
    if (!arg.startsWith("-") && positionals.length < maxPositionals) {
      positionals.push(arg);
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
      const given = eq === -1 ? "true" : arg.slice(eq + 1);
      if (given !== "true" && given !== "false") {
        throw new UsageError(
          `flag '--${name}' is given bare, or as --${name}=true or --${name}=false`,
          topic,
        );
      }
      values[name] = given === "true";
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
  return { values, positionals };
}

/** The flags `mcp`, `tools` and `call` share: what is offered, and how each relay call is bounded. */
const SESSION_FLAGS: Flags = {
  ...RELAY_FLAGS,
  tools: { type: "string" },
  "allow-writes": { type: "boolean" },
  "audit-log": { type: "string" },
  "max-writes": { type: "string" },
  "confirm-writes": { type: "boolean" },
  "confirm-timeout": { type: "string" },
  timeout: { type: "string" },
};

function toolSession(values: Record<string, unknown>, topic: Topic): ToolSession {
  const { relay, keyEnv } = relayAndKey(values, topic);
  const allowWrites = values["allow-writes"] === true;
  // `--tools=default` is the default set, as a bundle's unedited setting passes it.
  const tools = values.tools === "default" ? undefined : values.tools as string | undefined;
  const exposure = resolveExposure(list(tools), allowWrites);
  if (!exposure.ok) throw new UsageError(exposure.error, topic);
  const oversight = oversightFlags(values, topic);
  const timeoutMs = timeoutFlag(values.timeout as string | undefined, topic);
  return { relay, keyEnv, exposed: exposure.names, allowWrites, oversight, timeoutMs };
}

function mcpCommand(rest: string[]): Command {
  const { values } = parse("mcp", rest, SESSION_FLAGS);
  if (values.help) return { command: "help", topic: "mcp" };
  return { command: "mcp", ...toolSession(values, "mcp") };
}

function toolsCommand(rest: string[]): Command {
  const { values } = parse("tools", rest, { ...SESSION_FLAGS, json: { type: "boolean" } });
  if (values.help) return { command: "help", topic: "tools" };
  return { command: "tools", ...toolSession(values, "tools"), json: values.json === true };
}

/** `call`'s arguments: one JSON object, `{}` when none is given. */
function callArguments(text: string | undefined): JsonObject {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`call: the arguments are not JSON (${(error as Error).message})`, "call");
  }
  if (!isObject(value)) {
    throw new UsageError(`call: the arguments must be one JSON object, such as '{"limit": 5}'`, "call");
  }
  return value;
}

function callCommand(rest: string[]): Command {
  const { values, positionals } = parse("call", rest, { ...SESSION_FLAGS, json: { type: "boolean" } }, 2);
  if (values.help) return { command: "help", topic: "call" };
  const [tool, args] = positionals;
  if (!tool) throw new UsageError("call: name the tool to call, such as list_rooms", "call");
  const session = toolSession(values, "call");
  return { command: "call", ...session, tool, arguments: callArguments(args), json: values.json === true };
}

/** The hosts `tinyagent config` writes a configuration for (host_config.ts). */
export const HOSTS = ["hermes", "claude-code", "claude-desktop", "cursor"] as const;
export type HostName = (typeof HOSTS)[number];

/** Where Claude Desktop's shell reads the key from unless --key-file says otherwise (the README's key file). */
export const DEFAULT_KEY_FILE = "$HOME/.hermes/.env";

function configCommand(rest: string[]): Command {
  // A configuration never holds the key (tinyagent reads it from the variable at start), so nothing
  // shaped like one is printed back, whatever was typed where.
  if (rest.some((arg) => redactKeys(arg) !== arg)) {
    throw new UsageError(
      "config: an argument looks like a private key (64 hex characters or nsec1…), and is not shown: a " +
        "host's configuration never holds the key; tinyagent reads it from the --key-env variable when it starts",
      "config",
    );
  }
  const { values, positionals } = parse("config", rest, {
    ...SESSION_FLAGS,
    name: { type: "string" },
    "key-file": { type: "string" },
  }, 1);
  if (values.help) return { command: "help", topic: "config" };
  const [host] = positionals;
  if (!HOSTS.includes(host as HostName)) {
    throw new UsageError(
      host === undefined
        ? `config: name the host: ${HOSTS.join(", ")}`
        : `config: unknown host ${JSON.stringify(host)}; the hosts are ${HOSTS.join(", ")}`,
      "config",
    );
  }
  const name = (values.name as string | undefined) ?? "tiny";
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
    throw new UsageError("--name: letters, digits, _ and -, at most 64 of them", "config");
  }
  const keyFile = (values["key-file"] as string | undefined) ?? DEFAULT_KEY_FILE;
  if (!/^(\/|\$HOME(\/|$))/.test(keyFile) || keyFile.includes("\0")) {
    throw new UsageError("--key-file: give an absolute path, or one starting with $HOME/", "config");
  }
  return { command: "config", host: host as HostName, name, keyFile, ...toolSession(values, "config") };
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
