// `tinyagent config HOST` (lib/cli/host_config.ts), row by row: each host's exact configuration
// for the same launch, the flags as mcp would get them, and the key only as a placeholder.

import assert from "node:assert/strict";
import { type Command, parseCommand } from "../../lib/cli/args.ts";
import { hostConfig, mcpArgs, type ServerLaunch, shellQuote } from "../../lib/cli/host_config.ts";

const RELAY = "https://relay.example.test/r/acme";
const BIN = "/home/you/.local/bin/tinyagent";

function config(...argv: string[]): Extract<Command, { command: "config" }> {
  const command = parseCommand(["config", ...argv]);
  assert.equal(command.command, "config");
  return command as Extract<Command, { command: "config" }>;
}

function launch(args: string[], extra: Partial<ServerLaunch> = {}): ServerLaunch {
  return {
    name: "tiny",
    command: BIN,
    args,
    keyEnv: "TINY_PRIVATE_KEY",
    keyFile: "$HOME/.hermes/.env",
    os: "posix",
    ...extra,
  };
}

Deno.test("the mcp arguments: every flag given, none left at its default", () => {
  assert.deepEqual(mcpArgs(config("hermes", "--relay", RELAY)), ["mcp", "--relay", RELAY]);
  // Every flag given, in mcp's order: they come back as given (the relay without its trailing slash).
  const every = [
    "--key-env",
    "AGENT_KEY",
    "--tools",
    "read_room,post_message",
    "--allow-writes",
    "--confirm-writes",
    "--confirm-timeout",
    "90",
    "--max-writes",
    "5",
    "--audit-log",
    "/var/log/tiny.jsonl",
    "--timeout",
    "30",
    "--code-mode",
    "--code-timeout",
    "12.5",
  ];
  assert.deepEqual(mcpArgs(config("claude-code", "--relay", `${RELAY}/`, ...every, "--read-tool")), [
    "mcp",
    "--relay",
    RELAY,
    ...every,
    "--read-tool",
  ]);
  // The default set, named in full or as `default`, is left out; so is a bundle's `=false`.
  assert.deepEqual(
    mcpArgs(
      config(
        "hermes",
        "--relay",
        RELAY,
        "--tools=default",
        "--allow-writes=false",
        "--code-mode=false",
        "--read-tool=false",
      ),
    ),
    ["mcp", "--relay", RELAY],
  );
  // Code mode at its default limit: the flag alone.
  assert.deepEqual(mcpArgs(config("hermes", "--relay", RELAY, "--code-mode", "--code-timeout", "30")), [
    "mcp",
    "--relay",
    RELAY,
    "--code-mode",
  ]);
  // Cursor shows its model tools and no resources: its configuration reads them through tiny_read.
  for (const flags of [[], ["--read-tool=false"], ["--read-tool"]]) {
    assert.deepEqual(mcpArgs(config("cursor", "--relay", RELAY, ...flags)), [
      "mcp",
      "--relay",
      RELAY,
      "--read-tool",
    ]);
  }
  assert.deepEqual(
    mcpArgs(config("claude-code", "--relay", RELAY)),
    ["mcp", "--relay", RELAY],
    "resources there",
  );
});

Deno.test("hermes: the mcp_servers entry, with Hermes' placeholder; with confirmation, its limits", () => {
  assert.deepEqual(hostConfig("hermes", launch(["mcp", "--relay", RELAY])), {
    text: [
      "mcp_servers:",
      "  tiny:",
      `    command: "${BIN}"`,
      `    args: ["mcp", "--relay", "${RELAY}"]`,
      "    env:",
      '      TINY_PRIVATE_KEY: "${TINY_PRIVATE_KEY}"',
    ].join("\n"),
    note: "goes under mcp_servers in ~/.hermes/config.yaml, with TINY_PRIVATE_KEY=<key> in ~/.hermes/.env; " +
      "check it with: hermes mcp test tiny",
  });
  const confirmed = hostConfig(
    "hermes",
    launch(["mcp", "--relay", RELAY, "--confirm-writes", "--confirm-timeout", "60"]),
  );
  assert.ok(
    confirmed.text.endsWith("\n    timeout: 300\n    elicitation:\n      enabled: true\n      timeout: 60"),
    confirmed.text,
  );
});

Deno.test("claude-code: one claude mcp add line, the placeholder quoted against the shell", () => {
  const { text, note } = hostConfig(
    "claude-code",
    launch(["mcp", "--relay", RELAY, "--audit-log", "/a b/log"]),
  );
  assert.equal(
    text,
    `claude mcp add -s user tiny --env 'TINY_PRIVATE_KEY=\${TINY_PRIVATE_KEY}' -- ${BIN} mcp --relay ${RELAY} ` +
      `--audit-log '/a b/log'`,
  );
  assert.match(note, /check it with: claude mcp list$/);
});

Deno.test("claude-desktop: a shell reads the key from its file on POSIX; Windows is pointed at the bundle", () => {
  const posix = hostConfig("claude-desktop", launch(["mcp", "--relay", RELAY]));
  assert.deepEqual(JSON.parse(posix.text), {
    mcpServers: {
      tiny: {
        command: "/bin/sh",
        args: [
          "-c",
          `export "$(grep '^TINY_PRIVATE_KEY=' "$HOME"/.hermes/.env | tail -n 1)" && exec ${BIN} mcp --relay ${RELAY}`,
        ],
      },
    },
  });
  const other = hostConfig("claude-desktop", launch(["mcp"], { keyFile: "/etc/tiny/key file", keyEnv: "K" }));
  assert.match(
    JSON.parse(other.text).mcpServers.tiny.args[1],
    /^export "\$\(grep '\^K=' '\/etc\/tiny\/key file' \|/,
  );
  const windows = hostConfig(
    "claude-desktop",
    launch(["mcp", "--relay", RELAY], { command: "C:\\tiny\\tinyagent.exe", os: "windows" }),
  );
  assert.deepEqual(JSON.parse(windows.text), {
    mcpServers: { tiny: { command: "C:\\tiny\\tinyagent.exe", args: ["mcp", "--relay", RELAY] } },
  });
  assert.match(windows.note, /install the tinyagent \.mcpb bundle instead/);
});

Deno.test("cursor: mcp.json with ${env:…}, and the install link carrying the same server", () => {
  const { text, link, note } = hostConfig(
    "cursor",
    launch(["mcp", "--relay", RELAY], { name: "relay-tools" }),
  );
  const server = {
    command: BIN,
    args: ["mcp", "--relay", RELAY],
    env: { TINY_PRIVATE_KEY: "${env:TINY_PRIVATE_KEY}" },
  };
  assert.deepEqual(JSON.parse(text), { mcpServers: { "relay-tools": server } });
  const url = new URL(link!);
  assert.equal(url.protocol, "cursor:");
  assert.equal(url.host, "anysphere.cursor-deeplink");
  assert.equal(url.pathname, "/mcp/install");
  assert.equal(url.searchParams.get("name"), "relay-tools");
  const decoded = new TextDecoder().decode(
    Uint8Array.from(atob(url.searchParams.get("config")!), (c) => c.charCodeAt(0)),
  );
  assert.deepEqual(JSON.parse(decoded), server);
  assert.match(note, /^goes in ~\/\.cursor\/mcp\.json/);
});

Deno.test("shell quoting: plain words as they are, anything else in single quotes", () => {
  assert.equal(shellQuote("--relay=https://r.test:8443/a,b@c%d+e"), "--relay=https://r.test:8443/a,b@c%d+e");
  assert.equal(shellQuote("a b"), "'a b'");
  assert.equal(shellQuote("it's"), `'it'\\''s'`);
  assert.equal(shellQuote("${X}"), "'${X}'");
  assert.equal(shellQuote(""), "''");
});

Deno.test("config's own flags and mistakes", () => {
  const named = config("cursor", "--relay", RELAY, "--name", "relay_2", "--key-file", "/etc/k");
  assert.deepEqual([named.host, named.name, named.keyFile], ["cursor", "relay_2", "/etc/k"]);
  assert.equal(config("hermes", "--relay", RELAY).keyFile, "$HOME/.hermes/.env");
  const refused = (argv: string[], message: RegExp) => {
    assert.throws(() => parseCommand(["config", ...argv]), message);
  };
  refused(["--relay", RELAY], /^Error: config: name the host: hermes, claude-code, claude-desktop, cursor$/);
  refused(["vscode", "--relay", RELAY], /unknown host "vscode"/);
  refused(["cursor"], /--relay URL is required/);
  refused(["cursor", "--relay", RELAY, "--name", "a b"], /--name: letters, digits/);
  refused(["cursor", "--relay", RELAY, "--key-file", "keys.env"], /--key-file: give an absolute path/);
  // Something shaped like a key, wherever it was typed, is refused and never echoed.
  const key = "ab".repeat(32);
  for (
    const argv of [["cursor", "--relay", RELAY, "--name", key], ["hermes", "--relay", `${RELAY}/${key}`]]
  ) {
    assert.throws(() => parseCommand(["config", ...argv]), (error: Error) => {
      assert.match(error.message, /looks like a private key/);
      assert.ok(!error.message.includes(key));
      return true;
    });
  }
});
