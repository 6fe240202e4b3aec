// `tinyagent config HOST`: the exact configuration each host wants for this
// tinyagent, in that host's own syntax — its absolute path, the relay, the
// flags given — with the key only as that host's placeholder, never its value.
// Pure: the launch in, the text and a one-line note (where it goes, how to
// check it) out.

import { DEFAULT_KEY_ENV, DEFAULT_TIMEOUT_SECONDS } from "./flags.ts";
import { CODE_TIMEOUT_SECONDS, type HostName, type ToolSession } from "./session_args.ts";
import { READ_TOOLS, WRITE_TOOLS } from "../facade/tools.ts";
import { DEFAULT_OVERSIGHT } from "../oversight/settings.ts";

/** How a host starts this tinyagent. */
export interface ServerLaunch {
  /** The server's name in the host's configuration. */
  name: string;
  /** This tinyagent's absolute path. */
  command: string;
  /** What follows it: `mcp` and its flags. */
  args: string[];
  /** The variable the key is read from. */
  keyEnv: string;
  /** Claude Desktop only: the file holding a `<keyEnv>=<key>` line, read when it starts the server. */
  keyFile: string;
  /** Claude Desktop's configuration differs: no shell on Windows. */
  os: "windows" | "posix";
}

export interface HostConfig {
  /** What to run, or to paste into the host's configuration file. */
  text: string;
  /** Where it goes and how to check it, in one line. */
  note: string;
  /** Cursor's install link. */
  link?: string;
}

/** The `mcp` arguments for a session's flags, each flag only when it differs from its default. */
export function mcpArgs(session: ToolSession): string[] {
  const args = ["mcp", "--relay", session.relay.base];
  if (session.keyEnv !== DEFAULT_KEY_ENV) args.push("--key-env", session.keyEnv);
  const defaults = session.allowWrites ? [...READ_TOOLS, ...WRITE_TOOLS] : READ_TOOLS;
  if (session.exposed.join() !== defaults.join()) args.push("--tools", session.exposed.join(","));
  if (session.allowWrites) args.push("--allow-writes");
  const { oversight } = session;
  if (oversight.confirmWrites) args.push("--confirm-writes");
  if (oversight.confirmTimeoutMs !== DEFAULT_OVERSIGHT.confirmTimeoutMs) {
    args.push("--confirm-timeout", String(oversight.confirmTimeoutMs / 1000));
  }
  if (oversight.maxWrites !== undefined) args.push("--max-writes", String(oversight.maxWrites));
  if (oversight.auditLog !== undefined) args.push("--audit-log", oversight.auditLog);
  if (session.timeoutMs !== DEFAULT_TIMEOUT_SECONDS * 1000) {
    args.push("--timeout", String(session.timeoutMs / 1000));
  }
  const { listen, approvals } = session;
  if (listen) {
    args.push("--listen", listen.rooms.join(","), "--allow-from", listen.allowFrom.join(","));
    if (!listen.requireMention) args.push("--require-mention=false");
  }
  if (approvals) {
    args.push("--approvers", approvals.approvers.join(","), "--home-room", approvals.homeRoom);
    if (approvals.confirmViaRelay) args.push("--confirm-via", "relay");
  }
  if (session.codeMode) {
    args.push("--code-mode");
    const seconds = session.codeMode.wallMs / 1000;
    if (seconds !== CODE_TIMEOUT_SECONDS) args.push("--code-timeout", String(seconds));
  }
  if (session.readTool) args.push("--read-tool");
  return args;
}

/** A word for a POSIX shell: as it is when it is plain, otherwise in single quotes. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=,@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The seconds a confirmation may take, plus a margin for the relay's two calls. */
function callLimitSeconds(args: string[]): number | undefined {
  if (!args.includes("--confirm-writes")) return undefined;
  const at = args.indexOf("--confirm-timeout");
  const seconds = at === -1 ? DEFAULT_OVERSIGHT.confirmTimeoutMs / 1000 : Number(args[at + 1]);
  return Math.ceil(seconds) + 2 * DEFAULT_TIMEOUT_SECONDS;
}

/** Standard Base64 of UTF-8 text (Cursor's install links carry the server's JSON this way). */
function base64(text: string): string {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

/** The configuration for `host`. */
export function hostConfig(host: HostName, launch: ServerLaunch): HostConfig {
  switch (host) {
    case "hermes":
      return hermesConfig(launch);
    case "claude-code":
      return claudeCodeConfig(launch);
    case "claude-desktop":
      return claudeDesktopConfig(launch);
    case "cursor":
      return cursorConfig(launch);
  }
}

/**
 * Hermes resolves ${VAR} from its environment and ~/.hermes/.env; its tool call limit must outlast a
 * person deciding.
 */
function hermesConfig({ name, command, args, keyEnv }: ServerLaunch): HostConfig {
  const limit = callLimitSeconds(args);
  const lines = [
    "mcp_servers:",
    `  ${name}:`,
    `    command: ${JSON.stringify(command)}`,
    `    args: [${args.map((arg) => JSON.stringify(arg)).join(", ")}]`,
    "    env:",
    `      ${keyEnv}: "\${${keyEnv}}"`,
  ];
  if (limit !== undefined) {
    const wait = limit - 2 * DEFAULT_TIMEOUT_SECONDS;
    lines.push(`    timeout: ${limit}`, "    elicitation:", "      enabled: true", `      timeout: ${wait}`);
  }
  return {
    text: lines.join("\n"),
    note: `goes under mcp_servers in ~/.hermes/config.yaml, with ${keyEnv}=<key> in ~/.hermes/.env; ` +
      `check it with: hermes mcp test ${name}`,
  };
}

function claudeCodeConfig({ name, command, args, keyEnv }: ServerLaunch): HostConfig {
  const words = ["claude", "mcp", "add", "-s", "user", name, "--env", `${keyEnv}=\${${keyEnv}}`, "--"];
  return {
    text: [...words, command, ...args].map(shellQuote).join(" "),
    note: `run it once in a shell; Claude Code reads ${keyEnv} from the environment claude starts in ` +
      `(export it first); check it with: claude mcp list`,
  };
}

function claudeDesktopConfig(launch: ServerLaunch): HostConfig {
  const { name, command, args, keyEnv } = launch;
  const where = launch.os === "windows"
    ? "%APPDATA%\\Claude\\claude_desktop_config.json"
    : "~/Library/Application Support/Claude/claude_desktop_config.json (macOS)";
  if (launch.os === "windows") {
    // No shell to read a file with: the bundle keeps the key in the credential store instead.
    return {
      text: JSON.stringify({ mcpServers: { [name]: { command, args } } }, null, 2),
      note: `goes in ${where}, but Claude Desktop passes no key to it this way: install the tinyagent ` +
        `.mcpb bundle instead, which keeps the key in Windows' credential store`,
    };
  }
  // Claude Desktop substitutes nothing in env, so a shell reads the key from its file at start.
  const script = `export "$(grep '^${keyEnv}=' ${shellPath(launch.keyFile)} | tail -n 1)" && exec ${
    [command, ...args].map(shellQuote).join(" ")
  }`;
  return {
    text: JSON.stringify({ mcpServers: { [name]: { command: "/bin/sh", args: ["-c", script] } } }, null, 2),
    note: `goes in ${where} (the .mcpb bundle, which keeps the key in the keychain, is the shorter way); ` +
      `restart Claude Desktop and check its Settings → Developer`,
  };
}

function cursorConfig({ name, command, args, keyEnv }: ServerLaunch): HostConfig {
  const server = { command, args, env: { [keyEnv]: `\${env:${keyEnv}}` } };
  return {
    text: JSON.stringify({ mcpServers: { [name]: server } }, null, 2),
    note: `goes in ~/.cursor/mcp.json; Cursor reads ${keyEnv} from the environment it starts in; check ` +
      `it in Cursor Settings → MCP`,
    link: `cursor://anysphere.cursor-deeplink/mcp/install?name=${encodeURIComponent(name)}&config=${
      encodeURIComponent(base64(JSON.stringify(server)))
    }`,
  };
}

/**
 * A path for a POSIX shell, `$HOME` left for the shell to expand when the path starts with it (the
 * configuration then holds no user's home directory), the rest quoted.
 */
function shellPath(path: string): string {
  const home = /^\$HOME(\/|$)/.exec(path);
  if (!home) return shellQuote(path);
  const rest = path.slice("$HOME".length);
  return rest === "" ? '"$HOME"' : `"$HOME"${shellQuote(rest)}`;
}
