// The MCP bundles (.mcpb) and the MCP Registry entry (server.json) the release ships, beside the
// archives: one bundle per OS (Claude Desktop picks a bundle's command by OS, never by CPU), each
// holding the binaries its CPUs need, and one registry entry naming every bundle with its SHA-256.
// The manifest and the entry are pure; `packBundle` stages a bundle and packs it with the official
// bundle CLI, which validates the manifest first.

import { binaryName } from "./compile.ts";

/** The official bundle CLI, pinned: it validates and packs here, and the tests validate and unpack with it. */
export const MCPB_CLI = "@anthropic-ai/mcpb@2.1.2";
/** The manifest version Claude Desktop accepts (it refused 0.3 when this was written). */
export const MANIFEST_VERSION = "0.2";
/** The registry's server.json schema this entry follows. */
export const REGISTRY_SCHEMA = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";

/** One bundle per OS, with the targets whose binaries it carries. */
export const BUNDLES = [
  { os: "linux", platform: "linux", targets: ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu"] },
  { os: "macos", platform: "darwin", targets: ["x86_64-apple-darwin", "aarch64-apple-darwin"] },
  { os: "windows", platform: "win32", targets: ["x86_64-pc-windows-msvc"] },
] as const;

export type BundleOs = (typeof BUNDLES)[number]["os"];

export function bundleName(version: string, os: BundleOs): string {
  return `tinyagent-${version}-${os}.mcpb`;
}

/** The file a target's binary has inside a bundle: one per CPU beside the launcher, or the .exe. */
export function bundledBinary(target: string): string {
  if (target.includes("windows")) return "server/tinyagent.exe";
  return `server/tinyagent-${target.split("-")[0]}`;
}

/**
 * What a person sets when installing the bundle, and the flag (or the key variable) each becomes.
 * Every optional setting has a default: a host passes a setting without a value as the literal
 * `${user_config.NAME}` (tinyagent refuses that, naming it).
 */
export const USER_CONFIG = {
  relay_url: {
    type: "string",
    title: "Relay URL",
    description:
      "The relay's address, with its tenant prefix if it has one (https://relay.example.test/r/acme).",
    required: true,
  },
  private_key: {
    type: "string",
    title: "Agent private key",
    description:
      "The agent's Nostr key, 64 hex characters or nsec1…, from 'tinyagent keygen'. Kept in the OS " +
      "keychain, never in a configuration file; tinyagent reads it at start and never shows it.",
    sensitive: true,
    required: true,
  },
  allow_writes: {
    type: "boolean",
    title: "Allow writes",
    description:
      "Let the agent publish. tinyagent signs only the event kinds each write tool publishes, and " +
      "writes a receipt of each to its log.",
    default: false,
  },
  confirm_writes: {
    type: "boolean",
    title: "Ask before each write",
    description: "Ask you before each write, through the app. Claude Desktop cannot ask yet (no MCP " +
      "elicitation): with this on there, every write is refused.",
    default: false,
  },
  max_writes: {
    type: "number",
    title: "Most writes per session",
    description: "At most this many writes each time the app starts tinyagent (an upload counts as one).",
    default: 50,
    min: 1,
    max: 1_000_000,
  },
  tools: {
    type: "string",
    title: "Tools",
    description: "The tools to offer, comma-separated, in order; 'default' offers every read tool, and the " +
      "write tools when writes are allowed.",
    default: "default",
  },
  code_mode: {
    type: "boolean",
    title: "Code mode",
    description:
      "Offer two tools in place of the relay's: tiny_search to find its functions and tiny_execute " +
      "to run one small program that calls them, the same writes held as above. Fewer turns and far less " +
      "text for a task that reads many things.",
    default: false,
  },
  read_tool: {
    type: "boolean",
    title: "Read tool",
    description:
      "Offer tiny_read too: the model reads the relay's rooms, threads, issues, wiki pages, tasks " +
      "and files by their tiny:// URI, collections and pieces of big files included. The app's menu offers " +
      "them as resources either way; the model itself does not read those on its own.",
    default: false,
  },
} as const;

/** The mcp arguments, each setting substituted by the host into one argument. */
export function bundleArgs(): string[] {
  return [
    "mcp",
    "--relay",
    "${user_config.relay_url}",
    "--allow-writes=${user_config.allow_writes}",
    "--confirm-writes=${user_config.confirm_writes}",
    "--max-writes=${user_config.max_writes}",
    "--tools=${user_config.tools}",
    "--code-mode=${user_config.code_mode}",
    "--read-tool=${user_config.read_tool}",
  ];
}

/** The bundle's manifest for `os`. */
export function bundleManifest(version: string, os: BundleOs, repo: string): Record<string, unknown> {
  const windows = os === "windows";
  const platform = BUNDLES.find((bundle) => bundle.os === os)!.platform;
  // macOS and Linux start the launcher with /bin/sh: it picks the CPU's binary, and needs no execute
  // bit of its own (hosts have unpacked bundles without them).
  const entry = windows ? "server/tinyagent.exe" : "server/launch.sh";
  const mcpConfig = windows
    ? { command: "${__dirname}/server/tinyagent.exe", args: bundleArgs() }
    : { command: "/bin/sh", args: ["${__dirname}/server/launch.sh", ...bundleArgs()] };
  return {
    manifest_version: MANIFEST_VERSION,
    name: "tinyagent",
    display_name: "tinyagent",
    version,
    description:
      "A Nostr relay's tools for your agent, each call signed with its key (NIP-98); writes held " +
      "to the kinds each tool publishes.",
    long_description:
      "tinyagent forwards the relay's curated tools to the model, signs every request with the " +
      "agent's key, and signs the events the write tools return only for the kinds each tool is expected to " +
      "publish. The key stays in the OS keychain. tiny_diagnose says in one verdict why access fails.",
    author: { name: "tinyagent", url: `https://github.com/${repo}` },
    repository: { type: "git", url: `https://github.com/${repo}` },
    homepage: `https://github.com/${repo}`,
    documentation: `https://github.com/${repo}#readme`,
    keywords: ["nostr", "relay", "nip-98", "agent"],
    server: {
      type: "binary",
      entry_point: entry,
      mcp_config: { ...mcpConfig, env: { TINY_PRIVATE_KEY: "${user_config.private_key}" } },
    },
    compatibility: { platforms: [platform] },
    user_config: USER_CONFIG,
  };
}

/** The registry entry naming every bundle, with its release URL and SHA-256. */
export function registryEntry(
  version: string,
  repo: string,
  bundles: { name: string; sha256: string }[],
): Record<string, unknown> {
  const [owner] = repo.split("/");
  return {
    $schema: REGISTRY_SCHEMA,
    name: `io.github.${owner}/tinyagent`,
    title: "tinyagent",
    description: "A Nostr relay's tools for an agent: NIP-98-signed calls, writes held to each tool's kinds.",
    version,
    repository: { url: `https://github.com/${repo}`, source: "github" },
    websiteUrl: `https://github.com/${repo}`,
    packages: bundles.map(({ name, sha256 }) => ({
      registryType: "mcpb",
      identifier: `https://github.com/${repo}/releases/download/v${version}/${name}`,
      version,
      fileSha256: sha256,
      transport: { type: "stdio" },
      packageArguments: [
        { type: "positional", value: "mcp" },
        {
          type: "named",
          name: "--relay",
          description: "The relay's URL, with its tenant prefix if it has one.",
          isRequired: true,
          format: "string",
          placeholder: "https://relay.example.test",
        },
      ],
      environmentVariables: [{
        name: "TINY_PRIVATE_KEY",
        description: "The agent's Nostr private key (64 hex characters or nsec1…); tinyagent never shows it.",
        isRequired: true,
        isSecret: true,
        format: "string",
      }],
    })),
  };
}

/** Runs a program and returns its stdout; the caller's error type says what failed. */
export type Tool = (program: string, args: string[], cwd: URL) => Promise<string>;

/**
 * Stages the bundle for `os` in `stage` (which must not exist) from the binaries in `dist`, and packs
 * it to `out` with the official CLI, which refuses an invalid manifest.
 */
export async function packBundle(options: {
  version: string;
  os: BundleOs;
  repo: string;
  dist: URL;
  stage: URL;
  out: URL;
  launcher: URL;
  tool: Tool;
}): Promise<void> {
  const { os, stage } = options;
  const bundle = BUNDLES.find((candidate) => candidate.os === os)!;
  await Deno.mkdir(new URL("server/", stage), { recursive: true });
  await Deno.writeTextFile(
    new URL("manifest.json", stage),
    `${JSON.stringify(bundleManifest(options.version, os, options.repo), null, 2)}\n`,
  );
  if (os !== "windows") {
    await Deno.copyFile(options.launcher, new URL("server/launch.sh", stage));
    await Deno.chmod(new URL("server/launch.sh", stage), 0o755);
  }
  for (const target of bundle.targets) {
    const inside = new URL(bundledBinary(target), stage);
    await Deno.copyFile(new URL(binaryName(target), options.dist), inside);
    await Deno.chmod(inside, 0o755);
  }
  await options.tool("npx", ["--yes", MCPB_CLI, "pack", stage.pathname, options.out.pathname], stage);
}
