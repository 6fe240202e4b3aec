// The sandbox's permissions (lib/sandbox/confine.ts): exactly the relay's host:port (and the
// proxy's), exactly the key variable, and every other kind denied by name. The worker that runs
// with them is tested end to end in tests/e2e/sandbox_test.ts.

import assert from "node:assert/strict";
import { type Command, parseCommand } from "../../lib/cli/args.ts";
import { type SandboxedCommand, sandboxPermissions } from "../../lib/sandbox/confine.ts";
import type { Proxy } from "../../lib/transport/tunnel.ts";

const PROXY: Proxy = {
  hostname: "10.0.0.1",
  port: 3128,
  netHost: "10.0.0.1:3128",
  display: "http://10.0.0.1:3128",
  variable: "HTTPS_PROXY",
};

function sandboxed(argv: string[], proxy?: Proxy): SandboxedCommand {
  const command = parseCommand(argv) as Command;
  assert.ok(
    ["mcp", "tools", "call", "diagnose", "whoami", "sandbox-check"].includes(command.command),
    command.command,
  );
  const result = command as SandboxedCommand;
  if (proxy && "relay" in result) result.proxy = proxy;
  return result;
}

/** Everything denied but the net hosts and the variable given. */
function only(net: string[] | false, env: string[]): Deno.PermissionOptionsObject {
  return { net, env, read: false, write: false, run: false, ffi: false, sys: false, import: false };
}

Deno.test("sandboxPermissions: exactly the relay's host:port and the key variable", async (t) => {
  const cases: [string, string[], Proxy | undefined, Deno.PermissionOptionsObject][] = [
    [
      "mcp, https with a tenant prefix: port 443 made explicit",
      ["mcp", "--relay", "https://relay.example.test/r/acme"],
      undefined,
      only(["relay.example.test:443"], ["TINY_PRIVATE_KEY"]),
    ],
    [
      "mcp, http on a port, another key variable",
      ["mcp", "--relay", "http://127.0.0.1:8080", "--key-env", "AGENT_KEY"],
      undefined,
      only(["127.0.0.1:8080"], ["AGENT_KEY"]),
    ],
    [
      "mcp through a proxy: the proxy's host:port too",
      ["mcp", "--relay", "https://relay.example.test"],
      PROXY,
      only(["relay.example.test:443", "10.0.0.1:3128"], ["TINY_PRIVATE_KEY"]),
    ],
    [
      "an IPv6 relay",
      ["mcp", "--relay", "https://[::1]:8443"],
      undefined,
      only(["[::1]:8443"], ["TINY_PRIVATE_KEY"]),
    ],
    [
      "diagnose",
      ["diagnose", "--relay", "http://relay.test", "--key-env", "K"],
      undefined,
      only(["relay.test:80"], ["K"]),
    ],
    [
      "sandbox-check through a proxy",
      ["sandbox-check", "--relay", "https://relay.test"],
      PROXY,
      only(["relay.test:443", "10.0.0.1:3128"], ["TINY_PRIVATE_KEY"]),
    ],
    ["whoami: no network at all", ["whoami", "--key-env", "K"], undefined, only(false, ["K"])],
  ];
  for (const [name, argv, proxy, expected] of cases) {
    await t.step(name, () => {
      assert.deepEqual(sandboxPermissions(sandboxed(argv, proxy)), expected);
    });
  }
  await t.step("every permission kind is named, none left to a default", () => {
    const permissions = sandboxPermissions(sandboxed(["mcp", "--relay", "https://relay.test"]));
    assert.deepEqual(Object.keys(permissions).sort(), [
      "env",
      "ffi",
      "import",
      "net",
      "read",
      "run",
      "sys",
      "write",
    ]);
    for (const [kind, value] of Object.entries(permissions)) {
      if (kind !== "net" && kind !== "env") assert.equal(value, false, kind);
    }
  });
  await t.step('never a blanket grant: net and env are lists, never true or "inherit"', () => {
    for (const argv of [["mcp", "--relay", "https://relay.test"], ["whoami"]]) {
      const { net, env } = sandboxPermissions(sandboxed(argv));
      assert.ok(net === false || Array.isArray(net), JSON.stringify(net));
      assert.ok(Array.isArray(env) && env.length === 1, JSON.stringify(env));
    }
  });
});

Deno.test("sandboxPermissions with --audit-log: write for that one file, for the commands that sign", async (t) => {
  const LOG = "/home/you/.tinyagent/audit.jsonl";
  const withLog = (net: string[]) => ({ ...only(net, ["TINY_PRIVATE_KEY"]), write: [LOG] });
  await t.step("mcp and call: that file and nothing else", () => {
    assert.deepEqual(
      sandboxPermissions(sandboxed(["mcp", "--relay", "https://relay.test", "--audit-log", LOG])),
      withLog(["relay.test:443"]),
    );
    assert.deepEqual(
      sandboxPermissions(
        sandboxed(["call", "--relay", "https://relay.test", "list_rooms", "--audit-log", LOG]),
      ),
      withLog(["relay.test:443"]),
    );
  });
  await t.step("sandbox-check proves that very permission", () => {
    assert.deepEqual(
      sandboxPermissions(sandboxed(["sandbox-check", "--relay", "https://relay.test", "--audit-log", LOG])),
      withLog(["relay.test:443"]),
    );
  });
  await t.step("tools signs nothing and opens no log: no write at all", () => {
    assert.deepEqual(
      sandboxPermissions(sandboxed(["tools", "--relay", "https://relay.test", "--audit-log", LOG])),
      only(["relay.test:443"], ["TINY_PRIVATE_KEY"]),
    );
  });
});

Deno.test("sandboxPermissions: rpc and call METHOD hold exactly what mcp holds (the websocket is the relay's origin)", () => {
  const commands = (extra: string[]) => ({
    mcp: parseCommand(["mcp", "--relay", "wss://relay.example.test/r/acme", ...extra]),
    rpc: parseCommand(["rpc", "--relay", "wss://relay.example.test/r/acme", ...extra]),
    method: parseCommand(["call", "--relay", "wss://relay.example.test/r/acme", ...extra, "identity"]),
  });
  const plain = commands([]);
  for (const command of Object.values(plain)) {
    assert.deepEqual(
      sandboxPermissions(command as SandboxedCommand),
      only(["relay.example.test:443"], ["TINY_PRIVATE_KEY"]),
      command.command,
    );
  }
  const logged = commands(["--audit-log", "/var/log/tiny.jsonl"]);
  for (const command of Object.values(logged)) {
    assert.deepEqual(
      sandboxPermissions(command as SandboxedCommand),
      { ...only(["relay.example.test:443"], ["TINY_PRIVATE_KEY"]), write: ["/var/log/tiny.jsonl"] },
      `${command.command} with --audit-log`,
    );
  }
});
