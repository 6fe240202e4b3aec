// The flags of the commands that offer or call the relay's MCP tools (`mcp`,
// `tools`, `call TOOL`) and of `config`, which prints a host's configuration
// for such a session: what is exposed, the person's hold on the writes, the
// bound on each call. Pure.

import { resolveExposure } from "../facade/tools.ts";
import { DEFAULT_OVERSIGHT, type OversightSettings } from "../oversight/settings.ts";
import type { RelayEndpoint } from "../relay/endpoint.ts";
import type { Proxy } from "../transport/tunnel.ts";
import {
  approvalFlags,
  type ApprovalSettings,
  LISTEN_FLAGS,
  listenFlags,
  type ListenSettings,
} from "./listen_args.ts";
import {
  auditLogFlag,
  type Flags,
  type HelpCommand,
  list,
  maxWritesFlag,
  parse,
  redactKeys,
  RELAY_FLAGS,
  relayAndKey,
  secondsFlag,
  timeoutFlag,
  type Topic,
  UsageError,
} from "./flags.ts";

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
  /** mcp (and config): the rooms listened to, and whose events reach the model (`--listen`). */
  listen?: ListenSettings;
  /** mcp (and config): approvals from the room (`--approvers`, `--home-room`, `--confirm-via`). */
  approvals?: ApprovalSettings;
  /** mcp (and config), `--code-mode`: tiny_search and tiny_execute in place of the relay's tools. */
  codeMode?: CodeModeSettings;
  /** mcp (and config), `--read-tool`: tiny_read, the tiny:// resources as a tool, for hosts without resources. */
  readTool?: boolean;
}

/** What `--code-mode` and `--code-timeout` set. */
export interface CodeModeSettings {
  /** A program's wall-clock limit: 30 s, or lower with --code-timeout. */
  wallMs: number;
}

/** A program's wall-clock limit unless --code-timeout lowers it, in seconds. */
export const CODE_TIMEOUT_SECONDS = 30;

/** The code mode flags, and `--read-tool`, which `mcp` and `config` take. */
export const CODE_FLAGS: Flags = {
  "code-mode": { type: "boolean" },
  "code-timeout": { type: "string" },
  "read-tool": { type: "boolean" },
};

/** `--code-mode` and `--code-timeout`, checked: the timeout only lowers the limit, and only in code mode. */
export function codeModeFlags(values: Record<string, unknown>, topic: Topic): CodeModeSettings | undefined {
  const timeout = values["code-timeout"] as string | undefined;
  if (values["code-mode"] !== true) {
    if (timeout !== undefined) {
      throw new UsageError(
        "--code-timeout bounds tiny_execute's programs: add --code-mode, or leave it out",
        topic,
      );
    }
    return undefined;
  }
  const wallMs = secondsFlag("--code-timeout", timeout, CODE_TIMEOUT_SECONDS, topic);
  if (wallMs > CODE_TIMEOUT_SECONDS * 1000) {
    throw new UsageError(
      `--code-timeout: at most ${CODE_TIMEOUT_SECONDS} seconds (it can only lower the limit)`,
      topic,
    );
  }
  return { wallMs };
}

export type McpCommand = { command: "mcp" } & ToolSession;
export type ToolsCommand = { command: "tools"; json: boolean } & ToolSession;
/** `config HOST`: the host's configuration for an mcp session with these flags (host_config.ts). */
export type ConfigCommand =
  & { command: "config"; host: HostName; name: string; keyFile: string }
  & ToolSession;

/** The hosts `tinyagent config` writes a configuration for (host_config.ts). */
export const HOSTS = ["hermes", "claude-code", "claude-desktop", "cursor"] as const;
export type HostName = (typeof HOSTS)[number];

/** The hosts that show their model tools and no resources: their configuration adds `--read-tool` (docs/hosts.md). */
export const HOSTS_WITHOUT_RESOURCES: readonly HostName[] = ["cursor"];

/** Where Claude Desktop's shell reads the key from unless --key-file says otherwise (the README's key file). */
export const DEFAULT_KEY_FILE = "$HOME/.hermes/.env";

/** The oversight flags, which `mcp`, `call` and `rpc` share. */
export const OVERSIGHT_FLAGS: Flags = {
  "audit-log": { type: "string" },
  "max-writes": { type: "string" },
  "confirm-writes": { type: "boolean" },
  "confirm-timeout": { type: "string" },
};

/** The flags `mcp`, `tools` and `call` share: what is offered, and how each relay call is bounded. */
export const SESSION_FLAGS: Flags = {
  ...RELAY_FLAGS,
  ...OVERSIGHT_FLAGS,
  tools: { type: "string" },
  "allow-writes": { type: "boolean" },
  timeout: { type: "string" },
};

/**
 * The oversight flags, checked. They never conflict with the other flags: without `--allow-writes`
 * a budget or a confirmation has nothing to act on, and the startup line says so (a bundle or a
 * catalog passes every setting, whatever the others are).
 */
export function oversightFlags(
  values: Record<string, unknown>,
  topic: Topic,
  noWrites = "leave out --allow-writes",
): OversightSettings {
  const maxWrites = maxWritesFlag(values["max-writes"] as string | undefined, topic, noWrites);
  const auditLog = auditLogFlag(values["audit-log"] as string | undefined, topic);
  return {
    ...DEFAULT_OVERSIGHT,
    ...(auditLog === undefined ? {} : { auditLog }),
    ...(maxWrites === undefined ? {} : { maxWrites }),
    confirmWrites: values["confirm-writes"] === true,
    confirmTimeoutMs: secondsFlag(
      "--confirm-timeout",
      values["confirm-timeout"] as string | undefined,
      DEFAULT_OVERSIGHT.confirmTimeoutMs / 1000,
      topic,
    ),
  };
}

export function toolSession(values: Record<string, unknown>, topic: Topic): ToolSession {
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

/** The session, with what mcp alone has: listening and approvals from the room, code mode. */
function mcpSession(values: Record<string, unknown>, topic: Topic): ToolSession {
  const session = toolSession(values, topic);
  const listen = listenFlags(values, topic);
  const approvals = approvalFlags(values, session.oversight.confirmWrites, topic);
  const codeMode = codeModeFlags(values, topic);
  return {
    ...session,
    ...(listen ? { listen } : {}),
    ...(approvals ? { approvals } : {}),
    ...(codeMode ? { codeMode } : {}),
    ...(values["read-tool"] === true ? { readTool: true } : {}),
  };
}

export function mcpCommand(rest: string[]): McpCommand | HelpCommand {
  const { values } = parse("mcp", rest, { ...SESSION_FLAGS, ...LISTEN_FLAGS, ...CODE_FLAGS });
  if (values.help) return { command: "help", topic: "mcp" };
  return { command: "mcp", ...mcpSession(values, "mcp") };
}

export function toolsCommand(rest: string[]): ToolsCommand | HelpCommand {
  const { values } = parse("tools", rest, { ...SESSION_FLAGS, json: { type: "boolean" } });
  if (values.help) return { command: "help", topic: "tools" };
  return { command: "tools", ...toolSession(values, "tools"), json: values.json === true };
}

export function configCommand(rest: string[]): ConfigCommand | HelpCommand {
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
    ...LISTEN_FLAGS,
    ...CODE_FLAGS,
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
  const session = mcpSession(values, "config");
  // A host that shows no resources gets them as a tool.
  if (HOSTS_WITHOUT_RESOURCES.includes(host as HostName)) session.readTool = true;
  return { command: "config", host: host as HostName, name, keyFile, ...session };
}
