// What tinyagent's entry points do (main.ts, launch.ts): parse the command line, then run the
// command, sandboxed when the process holds broader permissions than the command needs. Usage errors
// and startup failures are one line on stderr, never a trace. Every module beyond these is loaded
// through the entry's `modules`: by literal names in main.ts (a confined run, which can read no file,
// holds them all from the start), by URL in launch.ts (only what the command runs is read).

import { type Command, parseCommand, UsageError } from "../cli/args.ts";
import { proxyFor } from "../cli/proxy_settings.ts";
import { Fatal } from "../cli/fatal.ts";
import { exitOnTermination } from "../session/lifecycle.ts";
import type { SessionParts } from "../session/parts.ts";
import { isConfined, runInSandbox, type SandboxedCommand } from "./confine.ts";
import { versionText } from "../cli/version.ts";
import { NAME } from "../wire/identity.ts";

/** What the entry loads on the main thread when a command needs it, and the parts a command may run. */
export interface EntryModules {
  run(): Promise<typeof import("../session/run.ts")>;
  check(): Promise<typeof import("./check.ts")>;
  usage(): Promise<typeof import("../cli/usage.ts")>;
  hostConfig(): Promise<typeof import("../cli/host_config.ts")>;
  parts: SessionParts;
}

/** Those modules from lib/, for an entry that loads them by URL. */
export const ENTRY_MODULES: Readonly<Record<Exclude<keyof EntryModules, "parts">, string>> = {
  run: "session/run.ts",
  check: "sandbox/check.ts",
  usage: "cli/usage.ts",
  hostConfig: "cli/host_config.ts",
};

function log(line: string): void {
  console.error(`${NAME}: ${line}`);
}

/** Runs the probe where the facade would run, then reports it with what the main thread still holds. */
async function sandboxCheck(
  command: Extract<SandboxedCommand, { command: "sandbox-check" }>,
  modules: EntryModules,
): Promise<number> {
  const { heldPermissions, probeSandbox, renderSandboxReport, sandboxReport } = await modules.check();
  let report;
  if (isConfined()) {
    const checks = await probeSandbox(command.relay, command.keyEnv, command.proxy, command.auditLog);
    report = sandboxReport("confined process", checks, heldPermissions());
  } else {
    const outcome = await runInSandbox(command, log);
    if (!outcome.started || !outcome.checks) {
      log(`sandbox-check: no sandbox: ${outcome.started ? "the probe did not report" : outcome.reason}`);
      return 1;
    }
    report = sandboxReport("worker", outcome.checks, heldPermissions());
  }
  console.log(command.json ? JSON.stringify(report, null, 2) : renderSandboxReport(report));
  return report.pass ? 0 : 1;
}

async function sandboxed(
  command: Exclude<SandboxedCommand, { command: "sandbox-check" }>,
  modules: EntryModules,
): Promise<number> {
  // Started with only the relay's host and the key variable: already confined.
  if (isConfined()) return await runHere(command, modules);
  const outcome = await runInSandbox(command, log);
  if (outcome.started) return outcome.code;
  log(
    `the sandbox is not active (${
      outcome.reason.split("\n")[0]
    }), so this process holds more than it needs; ` +
      `run the release binary, or deno run with only --allow-net=<relay host:port> --allow-env=<key variable>, ` +
      `or with the flags of 'deno task start'`,
  );
  return await runHere(command, modules);
}

/**
 * Runs a command in this thread. Loaded only then: in the sandboxed case the worker loads it, and
 * loading it here as well would only delay the worker's start.
 */
async function runHere(
  command: Parameters<typeof import("../session/run.ts").run>[0],
  modules: EntryModules,
): Promise<number> {
  const { run } = await modules.run();
  return await run(command, modules.parts);
}

/**
 * This tinyagent's absolute path, as a host must be given it: the binary itself, or from source the
 * checkout's launcher (bin/tinyagent, a POSIX script running main.ts with the shipped flags).
 */
function thisTinyagent(): string {
  if (Deno.build.standalone) return Deno.execPath();
  if (Deno.build.os === "windows") {
    throw new Fatal(
      "config: from source on Windows there is no launcher to name (bin/tinyagent is a POSIX script); " +
        "run the release binary's tinyagent config",
    );
  }
  return new URL("../../bin/tinyagent", import.meta.url).pathname;
}

/** `tinyagent config HOST`: the host's configuration on stdout, where it goes on stderr. Reads no key. */
async function config(
  command: Extract<Command, { command: "config" }>,
  modules: EntryModules,
): Promise<number> {
  const { hostConfig, mcpArgs } = await modules.hostConfig();
  const { text, note, link } = hostConfig(command.host, {
    name: command.name,
    command: thisTinyagent(),
    args: mcpArgs(command),
    keyEnv: command.keyEnv,
    keyFile: command.keyFile,
    os: Deno.build.os === "windows" ? "windows" : "posix",
  });
  console.log(text);
  log(`config: ${note}`);
  if (link) log(`config: or open this link to add it to Cursor: ${link}`);
  return 0;
}

/** An environment variable, when this process may read it (a confined run may not; then it is unset). */
function readable(name: string): string | undefined {
  return Deno.permissions.querySync({ name: "env", variable: name }).state === "granted"
    ? Deno.env.get(name)
    : undefined;
}

/** The proxy between tinyagent and the relay, read here: the sandboxed worker may read only the key. */
function withProxy<C extends Command>(command: C): C {
  if (!("relay" in command)) return command;
  const result = proxyFor(new URL(command.relay.origin), readable);
  if (!result.ok) throw new Fatal(result.error);
  return result.proxy ? { ...command, proxy: result.proxy } : command;
}

/**
 * The audit log's path made absolute while this thread may still read the working directory (a
 * host picks that directory, and the log should say where it is), with a warning when an existing
 * log can be read by other users.
 */
function withAuditLogPath<C extends Command>(command: C): C {
  const path = command.command === "sandbox-check"
    ? command.auditLog
    : "oversight" in command
    ? command.oversight.auditLog
    : undefined;
  if (path === undefined) return command;
  let absolute = path;
  if (!/^(?:\/|[A-Za-z]:[\\/]|\\\\)/.test(path)) {
    try {
      absolute = `${Deno.cwd()}${Deno.build.os === "windows" ? "\\" : "/"}${path}`;
    } catch {
      // No permission to read the working directory (started confined): the path stays as given.
    }
  }
  try {
    const mode = Deno.statSync(absolute).mode;
    if (mode !== null && (mode & 0o077) !== 0) {
      log(
        `--audit-log: ${JSON.stringify(absolute)} can be read by other users (mode ${
          (mode & 0o777).toString(8)
        }); ` +
          `chmod 600 it to keep the record of this agent's writes to yourself`,
      );
    }
  } catch {
    // Not there yet (it is created readable by its owner alone), or not readable here.
  }
  if (command.command === "sandbox-check") return { ...command, auditLog: absolute };
  return "oversight" in command
    ? { ...command, oversight: { ...command.oversight, auditLog: absolute } }
    : command;
}

/** Runs the command `argv` names; resolves with the exit status. */
export async function main(argv: string[], modules: EntryModules): Promise<number> {
  try {
    const command = withAuditLogPath(withProxy(parseCommand(argv)));
    switch (command.command) {
      case "help":
        console.log((await modules.usage()).USAGE[command.topic]);
        return 0;
      case "version":
        console.log(versionText());
        return 0;
      case "keygen":
        return await runHere(command, modules); // Needs no permission at all.
      case "config":
        return await config(command, modules); // Reads no key, reaches nothing.
      case "sandbox-check":
        return await sandboxCheck(command, modules);
      default:
        exitOnTermination();
        return await sandboxed(command, modules);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      // The help text loads only when it is printed.
      const { USAGE } = await modules.usage();
      console.error(`${NAME}: ${error.message}\n\n${USAGE[error.topic]}`);
      return 1;
    }
    if (error instanceof Fatal) {
      log(error.message);
      return error.exitCode;
    }
    throw error;
  }
}
