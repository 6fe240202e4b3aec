// `tinyagent sandbox-check`: the sandbox proved from inside. Run where the
// facade runs (the same worker, with the same permissions), it tries what the
// facade may do and everything it must not, and reports each outcome. The
// release runs it on every binary and the test suite runs it under deno run:
// one probe for both.

import type { RelayEndpoint } from "../relay/endpoint.ts";
import type { Proxy } from "../transport/tunnel.ts";

export interface ProbeResult {
  name: string;
  expect: "allowed" | "denied";
  /** "ok", or the error's class name (NotCapable when the sandbox refused). */
  outcome: string;
  pass: boolean;
}

export interface SandboxReport {
  /** Where the probe ran: the sandboxed worker, or a process already started confined. */
  ran: "worker" | "confined process";
  checks: ProbeResult[];
  /** Permission kinds the main thread still held after the worker ran; empty when it held none. */
  main_thread_holds: string[];
  pass: boolean;
}

async function attempt(action: () => unknown): Promise<string> {
  try {
    await action();
    return "ok";
  } catch (error) {
    if (!(error instanceof Error)) return String(error);
    // Module loading reports the same refusal as a TypeError "Requires import access to …".
    return /^Requires \w+ access to /.test(error.message) ? "NotCapable" : error.name;
  }
}

/** A path to try to read or write: its existence does not matter, the permission is checked first. */
function elsewhere(name: string): string {
  return Deno.build.os === "windows" ? `C:\\Windows\\Temp\\${name}` : `/tmp/${name}`;
}

type Try = [name: string, expect: "allowed" | "denied", action: () => unknown];

/** What must be denied everywhere: other hosts and ports, other variables, files, processes, code. */
function deniedTries(host: string, otherPort: number, keyEnv: string): Try[] {
  return [
    [
      `connect to another port ${host}:${otherPort}`,
      "denied",
      () => Deno.connect({ hostname: host, port: otherPort }),
    ],
    [
      "connect to another host example.com:443",
      "denied",
      () => Deno.connect({ hostname: "example.com", port: 443 }),
    ],
    ["fetch another host", "denied", () => fetch("https://example.com/")],
    ["read another variable (PATH)", "denied", () => Deno.env.get(keyEnv === "PATH" ? "HOME" : "PATH")],
    ["read the whole environment", "denied", () => Deno.env.toObject()],
    ["read a file", "denied", () => Deno.readTextFile(elsewhere("tinyagent-sandbox-check"))],
    ["write a file", "denied", () => Deno.writeTextFile(elsewhere("tinyagent-sandbox-check"), "x")],
    [
      "start a process",
      "denied",
      () => new Deno.Command(Deno.build.os === "windows" ? "cmd" : "true").output(),
    ],
    ["load a native library (FFI)", "denied", () => Deno.dlopen(elsewhere("tinyagent-sandbox-check.so"), {})],
    ["read system information", "denied", () => Deno.hostname()],
    [
      "import code from the network",
      "denied",
      // Built at run time: a literal specifier is fetched ahead by Deno's module graph (and by compile).
      () => import(new URL("/sandbox-check.js", "https://example.com").href),
    ],
  ];
}

/**
 * The one file the facade may write, opened as it opens it (created readable by its owner alone when
 * missing), and a file beside it, which it may not.
 */
function auditLogTries(auditLog: string): Try[] {
  return [
    [
      `append to the audit log ${auditLog}`,
      "allowed",
      async () => (await Deno.open(auditLog, { append: true, create: true, mode: 0o600 })).close(),
    ],
    [
      "write another file beside the audit log",
      "denied",
      () => Deno.writeTextFile(`${auditLog}.sandbox-check`, "x"),
    ],
  ];
}

/**
 * Tries each capability. The relay's host:port is allowed: any outcome but
 * NotCapable passes (a refused connection means no relay is listening there).
 * Everything else must fail with NotCapable.
 */
export async function probeSandbox(
  relay: RelayEndpoint,
  keyEnv: string,
  proxy?: Proxy,
  auditLog?: string,
): Promise<ProbeResult[]> {
  const separator = relay.netHost.lastIndexOf(":");
  const host = relay.netHost.slice(0, separator).replace(/^\[|\]$/g, "");
  const port = Number(relay.netHost.slice(separator + 1));
  const proxyTries: Try[] = proxy
    ? [[
      `connect to the proxy ${proxy.netHost}`,
      "allowed",
      async () => (await Deno.connect({ hostname: proxy.hostname, port: proxy.port })).close(),
    ]]
    : [];
  const tries: Try[] = [
    [
      `connect to the relay ${relay.netHost}`,
      "allowed",
      async () => (await Deno.connect({ hostname: host, port })).close(),
    ],
    [`read ${keyEnv}`, "allowed", () => Deno.env.get(keyEnv)],
    ...proxyTries,
    ...(auditLog === undefined ? [] : auditLogTries(auditLog)),
    ...deniedTries(host, port === 65535 ? port - 1 : port + 1, keyEnv),
  ];
  const results: ProbeResult[] = [];
  for (const [name, expect, action] of tries) {
    const outcome = await attempt(action);
    const pass = expect === "allowed" ? outcome !== "NotCapable" : outcome === "NotCapable";
    results.push({ name, expect, outcome, pass });
  }
  return results;
}

/** The permission kinds this thread still holds. */
export function heldPermissions(): string[] {
  const kinds = ["net", "env", "read", "write", "run", "ffi", "sys", "import"] as const;
  return kinds.filter((name) => {
    try {
      return Deno.permissions.querySync({ name } as Deno.PermissionDescriptor).state === "granted";
    } catch {
      return false;
    }
  });
}

export function sandboxReport(
  ran: SandboxReport["ran"],
  checks: ProbeResult[],
  mainThreadHolds: string[],
): SandboxReport {
  return {
    ran,
    checks,
    main_thread_holds: mainThreadHolds,
    pass: checks.every((check) => check.pass) && mainThreadHolds.length === 0,
  };
}

/** One line per check, then the verdict. */
export function renderSandboxReport(report: SandboxReport): string {
  const lines = [`sandbox-check: the probe ran in the ${report.ran}`];
  for (const check of report.checks) {
    const got = check.outcome === "ok"
      ? "allowed"
      : check.outcome === "NotCapable"
      ? "denied (NotCapable)"
      : `allowed (${check.outcome})`;
    lines.push(
      `${check.pass ? "✓" : "✗"} ${check.name.padEnd(44)} ${got}${
        check.pass ? "" : `, expected ${check.expect}`
      }`,
    );
  }
  const main = report.main_thread_holds;
  lines.push(
    `${main.length === 0 ? "✓" : "✗"} ${"the main thread holds no permission".padEnd(44)} ${
      main.length === 0 ? "none held" : `holds ${main.join(", ")}`
    }`,
  );
  lines.push(report.pass ? "sandbox: confined" : "sandbox: NOT confined");
  return lines.join("\n");
}
