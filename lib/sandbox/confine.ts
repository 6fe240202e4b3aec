// The sandbox: the facade, the relay client and diagnose run in a Worker
// whose permissions are exactly the relay's host:port and the key variable;
// the main thread then gives up all of its own. A compiled binary's flags are
// fixed at build time, while the host and the variable are known only now,
// so this is how the binary holds no more than it needs.

import type { Command } from "../cli/args.ts";
import config from "../../deno.json" with { type: "json" };
import type { ProbeResult } from "./check.ts";
import { warmTrustStore } from "./tls_warmup.ts";
import { partsFor, workerEntryUrl } from "./worker_entry.ts";

/** The commands that touch the key or the network, and so run sandboxed. */
export type SandboxedCommand = Extract<
  Command,
  { command: "mcp" | "rpc" | "tools" | "call" | "method" | "diagnose" | "whoami" | "sandbox-check" }
>;

/** Messages between the main thread and the worker. */
export type ToWorker = { type: "run"; command: SandboxedCommand };
export type FromWorker =
  | { type: "ready" }
  | { type: "exit"; code: number }
  /** sandbox-check's probe results, from inside the worker. */
  | { type: "probed"; checks: ProbeResult[] }
  | { type: "fatal"; message: string; code: number };

/** lib/, whose modules a worker's entry names. */
const LIB = new URL("../", import.meta.url);

/**
 * Where the worker for `command` starts: in the compiled binary the entry with every part (embedded,
 * nothing to read), under `deno run` one that names its command's parts only (worker_entry.ts).
 */
export function workerUrlFor(command: SandboxedCommand): URL {
  return Deno.build.standalone
    ? new URL("./worker_all.ts", import.meta.url)
    : new URL(workerEntryUrl(partsFor(command), LIB));
}

/** The permission kinds a worker could hold; every one is listed, since an omitted key is not reliably denied. */
const KINDS = ["net", "env", "read", "write", "run", "ffi", "sys", "import"] as const;

/**
 * The audit log a command writes (mcp, rpc and call, which sign), or whose permission sandbox-check
 * proves; `tools` signs nothing and opens no log.
 */
export function auditLogOf(command: SandboxedCommand): string | undefined {
  if (command.command === "sandbox-check") return command.auditLog;
  return "oversight" in command && command.command !== "tools" ? command.oversight.auditLog : undefined;
}

/**
 * What the sandboxed worker may do: reach the relay's host:port, read the key variable, and append
 * to the audit log when one is named. Nothing else.
 */
export function sandboxPermissions(command: SandboxedCommand): Deno.PermissionOptionsObject {
  const auditLog = auditLogOf(command);
  return {
    // The relay's host:port, and the proxy's when one stands in between (proxy.ts).
    net: "relay" in command
      ? [command.relay.netHost, ...(command.proxy ? [command.proxy.netHost] : [])]
      : false,
    env: [command.keyEnv],
    read: false,
    // That one file: not its folder, not a file beside it.
    write: auditLog === undefined ? false : [auditLog],
    run: false,
    ffi: false,
    sys: false,
    import: false,
  };
}

function granted(name: (typeof KINDS)[number]): boolean {
  try {
    return Deno.permissions.querySync({ name } as Deno.PermissionDescriptor).state === "granted";
  } catch {
    return false; // A kind this runtime does not know cannot be held.
  }
}

/**
 * Whether the process already holds no broad permission (run as
 * `deno run --allow-net=HOST --allow-env=VAR main.ts …`): then it runs as it
 * is, and the per-host and per-variable checks happen at startup.
 */
export function isConfined(): boolean {
  return !KINDS.some(granted);
}

/** Gives up every permission the main thread holds; the worker keeps its own. */
export function revokeAll(): void {
  for (const name of KINDS) {
    try {
      Deno.permissions.revokeSync({ name } as Deno.PermissionDescriptor);
    } catch {
      // Not held, or not a kind this runtime knows.
    }
  }
}

/**
 * Whether this runtime accepts per-worker permissions. A compiled binary is
 * built with `--unstable-worker-options`, and deno.json enables the feature
 * for `deno run` (Deno reads the config beside main.ts). Asking Deno by trying
 * is not an option: without the feature, creating such a worker ends the
 * process.
 */
export function workerOptionsAvailable(): boolean {
  return Deno.build.standalone || (config.unstable ?? []).includes("worker-options");
}

export type SandboxOutcome =
  | { started: true; code: number; checks?: ProbeResult[] }
  | { started: false; reason: string };

/**
 * Starts `workerUrl` with the sandbox's permissions, waits until its code is
 * loaded (loading is checked against this thread's permissions), revokes
 * this thread's permissions, then runs the command in the worker. Resolves
 * with the exit status, or says why no sandbox could be started; nothing has
 * run and nothing has been revoked in that case.
 */
export function runInSandbox(
  command: SandboxedCommand,
  log: (line: string) => void,
  workerUrl: URL = workerUrlFor(command),
): Promise<SandboxOutcome> {
  if (!workerOptionsAvailable()) {
    return Promise.resolve({ started: false, reason: "this runtime does not allow per-worker permissions" });
  }
  // Under deno run the worker's code is loaded with this thread's read permission.
  const code = workerUrl.protocol === "file:" ? workerUrl : LIB;
  if (
    !Deno.build.standalone && Deno.permissions.querySync({ name: "read", path: code }).state !== "granted"
  ) {
    return Promise.resolve({ started: false, reason: "no read permission to load the sandbox's code" });
  }
  let worker: Worker;
  try {
    worker = new Worker(workerUrl, {
      type: "module",
      name: "tinyagent",
      deno: { permissions: sandboxPermissions(command) },
    });
  } catch (error) {
    return Promise.resolve({ started: false, reason: (error as Error).message });
  }
  // While the worker boots on its own thread, this one builds what its first TLS connection needs.
  const warmed = "relay" in command && command.relay.origin.startsWith("https:")
    ? warmTrustStore()
    : Promise.resolve();
  return new Promise((resolve) => {
    let running = false;
    worker.onmessage = async (event: MessageEvent<FromWorker>) => {
      const message = event.data;
      if (message.type === "ready") {
        await warmed;
        revokeAll();
        running = true;
        worker.postMessage({ type: "run", command } satisfies ToWorker);
      } else if (message.type === "fatal") {
        log(message.message);
        resolve({ started: true, code: message.code });
      } else if (message.type === "probed") {
        resolve({ started: true, code: 0, checks: message.checks });
      } else {
        resolve({ started: true, code: message.code });
      }
    };
    worker.onerror = (event) => {
      event.preventDefault();
      worker.terminate();
      if (running) {
        log(`internal error: ${event.message}`);
        resolve({ started: true, code: 1 });
      } else {
        resolve({ started: false, reason: event.message });
      }
    };
  });
}
