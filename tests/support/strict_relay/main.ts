// `deno task relay`: the strict relay the tests use, as a program to try tinyagent against. It
// listens on 127.0.0.1, is members-only with the agent key as its one member, reports an active
// agent grant for it, prints its websocket URL, ready-to-paste `tinyagent mcp` and `diagnose` lines
// and its own process id, and runs until SIGINT or SIGTERM. With --seed its read tools answer from
// demo content (content_gen.ts's demoContent), for trying reads and resources by hand.

import { generateSecretKey, getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { bytesToHex } from "@noble/hashes/utils.js";
import { CONTRACT_KINDS } from "../contract.ts";
import { demoContent, type GrantScope, startStrictRelay, type StrictRelayOptions } from "./mod.ts";

const DEFAULT_PORT = 8787;

/** The grant: room general, and every kind tinyagent's write tools publish. */
const SCOPE: GrantScope = {
  rooms: ["general"],
  kinds: [...new Set(Object.values(CONTRACT_KINDS).flat())].sort((a, b) => a - b),
};

export const USAGE = `Usage: deno task relay [--port N] [--prefix /r/NAME] [--pubkey HEX|NPUB] [--seed]

Runs the strict local relay tinyagent's tests use, on 127.0.0.1, until Ctrl-C: every POST to
<prefix>/mcp and <prefix>/manage/rpc must carry a valid NIP-98 token, and no token is accepted
twice. The relay is members-only. Its one member is the agent key, with the agent role and an
active agent grant (what browsegrant, and so diagnose, reports) for
  room   ${SCOPE.rooms.join(", ")}
  kinds  ${SCOPE.kinds.join(", ")}
         (every kind tinyagent's write tools publish).
It prints the agent key and ready-to-paste tinyagent mcp and diagnose lines, for the release
binary and for a checkout (deno task start), and its own process id on a "# pid N" line:
kill N stops it (SIGTERM, as Ctrl-C does). Signal that pid, not the one a shell started:
deno task runs the relay as its child, and npm's deno is a Node program that runs Deno as
its child and does not pass signals on. In a shell, with the relay's output in "$log":
  kill "$(sed -n 's/^# pid *//p' "$log")"

  --port N          the port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)
  --prefix /r/NAME  a tenant prefix: the relay is then http://127.0.0.1:PORT/r/NAME
  --pubkey KEY      the agent's public key, 64 hex characters or npub1...; without it, a
                    throwaway test key is generated and printed as TINY_PRIVATE_KEY=<hex>
  --seed            serve demo content: the read tools then answer from a dozen rooms, the
                    agent's repository demo with issues and pull requests, wiki pages, long
                    tasks that ask the agent, and two files of the agent's
  -h, --help        this help`;

export interface RelayArgs {
  port: number;
  prefix: string;
  pubkey?: string;
  /** Set (true) by --seed only. */
  seed?: boolean;
  help: boolean;
}

/** A flag the program cannot run with: its message is the one line printed. */
export class UsageError extends Error {}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new UsageError(`--port: "${value}" is not a port (0 to 65535)`);
  }
  return port;
}

function parsePrefix(value: string): string {
  if (!/^\/?[A-Za-z0-9._~-]+(\/[A-Za-z0-9._~-]+)*\/?$/.test(value)) {
    throw new UsageError(`--prefix: "${value}" is not a path such as /r/acme`);
  }
  return `/${value.replace(/^\/|\/$/g, "")}`;
}

function parsePubkey(value: string): string {
  if (/^[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  if (value.startsWith("nsec1")) {
    throw new UsageError("--pubkey: that is a private key; give the public key (hex or npub1...)");
  }
  try {
    const decoded = nip19.decode(value);
    if (decoded.type === "npub") return decoded.data;
  } catch {
    // not bech32: reported below
  }
  throw new UsageError("--pubkey: not a public key (64 hex characters or npub1...)");
}

/** Reads the command line: `--flag value` or `--flag=value`. */
export function parseRelayArgs(argv: string[]): RelayArgs {
  const parsed: RelayArgs = { port: DEFAULT_PORT, prefix: "", help: false };
  const readers: Record<string, (value: string) => void> = {
    "--port": (v) => (parsed.port = parsePort(v)),
    "--prefix": (v) => (parsed.prefix = parsePrefix(v)),
    "--pubkey": (v) => (parsed.pubkey = parsePubkey(v)),
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") {
      parsed.help = true;
      continue;
    }
    if (arg === "--seed") {
      parsed.seed = true;
      continue;
    }
    const eq = arg.indexOf("=");
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const read = readers[name];
    if (!read) throw new UsageError(`unknown argument "${arg}"`);
    const value = eq < 0 ? argv[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`${name} needs a value`);
    read(value);
  }
  return parsed;
}

/**
 * What the relay prints once it listens: comments (its process id among them), the key line when
 * generated, and commands.
 */
export function banner(url: string, pubkey: string, pid: number, secretHex?: string, seeded = false): string {
  const npub = nip19.npubEncode(pubkey);
  const mcp = `mcp --relay ${url} --allow-writes`;
  const diagnose = `diagnose --relay ${url}`;
  const key = secretHex === undefined
    ? ["# The agent key is yours: set TINY_PRIVATE_KEY to its private key where you run tinyagent."]
    : [
      "# A throwaway test key, generated for this run: never use it for anything real.",
      "# Put it in the environment you run tinyagent from (prefix the line with `export ` in a",
      "# shell, or add it to ~/.hermes/.env):",
      `TINY_PRIVATE_KEY=${secretHex}`,
    ];
  return [
    "# tinyagent's strict local relay: NIP-98 checked on every POST, replays refused, members-only.",
    `# relay  ${url}`,
    `# ws     ${url.replace(/^http/, "ws")}`,
    `# pid    ${pid}`,
    `# agent  ${npub} (${pubkey}), the only member, role agent`,
    `# grant  active, for room ${SCOPE.rooms.join(", ")} and kinds ${SCOPE.kinds.join(", ")}`,
    ...(seeded
      ? ["# seeded rooms room-001 to room-012, repository demo, wiki pages, long tasks, two files"]
      : []),
    "#",
    ...key,
    "#",
    "# mcp is what an MCP host starts (it speaks JSON-RPC on stdin); diagnose runs in a terminal.",
    "# With the release binary:",
    `tinyagent ${mcp}`,
    `tinyagent ${diagnose}`,
    "# From source, in a tinyagent checkout:",
    `deno task start ${mcp}`,
    `deno task start ${diagnose}`,
    "#",
    "# Ctrl-C stops the relay.",
  ].join("\n");
}

/** The relay this program runs: members-only, `pubkey` its one member, an agent granted SCOPE. */
export function relayOptions(args: RelayArgs, pubkey: string): StrictRelayOptions {
  return { port: args.port, prefix: args.prefix, membersOnly: true, members: [pubkey], grantScope: SCOPE };
}

/** Runs until SIGINT or SIGTERM; the exit status. */
async function main(argv: string[]): Promise<number> {
  let args: RelayArgs;
  try {
    args = parseRelayArgs(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`relay: ${error.message} (see --help)`);
    return 1;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const secret = args.pubkey === undefined ? generateSecretKey() : undefined;
  const pubkey = args.pubkey ?? getPublicKey(secret!);
  let relay;
  try {
    relay = await startStrictRelay(relayOptions(args, pubkey));
  } catch (error) {
    console.error(`relay: cannot listen on 127.0.0.1:${args.port}: ${(error as Error).message}`);
    return 1;
  }
  // The signals are handled before the banner says the relay is ready: whoever signals the printed
  // pid once it is printed stops the relay as Ctrl-C does, never mid-start.
  const stopped = Promise.withResolvers<void>();
  const signals: Deno.Signal[] = Deno.build.os === "windows" ? ["SIGINT"] : ["SIGINT", "SIGTERM"];
  for (const signal of signals) Deno.addSignalListener(signal, stopped.resolve);
  if (args.seed) relay.seed(demoContent(pubkey));
  console.log(banner(relay.url, pubkey, Deno.pid, secret && bytesToHex(secret), args.seed));
  await stopped.promise;
  for (const signal of signals) Deno.removeSignalListener(signal, stopped.resolve);
  await relay.close();
  console.error("relay: stopped");
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
