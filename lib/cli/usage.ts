// The help text of every command. Pure data, loaded only to be printed. The
// tool lists come from the curated lists themselves (facade/tools.ts), so the
// help can never name a tool tinyagent does not offer.

import { READ_TOOLS, WRITE_KINDS, WRITE_TOOLS } from "../facade/tools.ts";
import { DEFAULT_KEY_ENV, DEFAULT_TIMEOUT_SECONDS, type Topic } from "./flags.ts";
import { CODE_TIMEOUT_SECONDS } from "./session_args.ts";
import { DEFAULT_CONFIRM_TIMEOUT_SECONDS } from "../oversight/settings.ts";

/** Names wrapped to lines of at most `width` characters, each line indented. */
function wrapped(names: readonly string[], indent: string, width = 100): string {
  const lines: string[] = [];
  let line = "";
  for (const name of names) {
    const next = line ? `${line}, ${name}` : name;
    if (indent.length + next.length + 1 > width && line) {
      lines.push(`${line},`);
      line = name;
    } else line = next;
  }
  if (line) lines.push(line);
  return lines.map((text) => indent + text).join("\n");
}

/** The curated tools, as help and `--tools` errors list them. */
export function toolListText(indent = "  "): string {
  const writes = WRITE_TOOLS.map((name) =>
    WRITE_KINDS[name].length > 0 ? `${name} (${WRITE_KINDS[name].join(" or ")})` : `${name} (signs nothing)`
  );
  return `read tools, offered by default:\n${wrapped(READ_TOOLS, indent)}\n` +
    `write tools, with --allow-writes (the event kinds tinyagent signs for each):\n${
      wrapped(writes, indent)
    }`;
}

const RELAY_FLAGS =
  `  --relay URL          relay origin, with a tenant prefix if any (https://relay.example/r/acme)
  --key-env NAME       environment variable holding the private key, hex or nsec (default ${DEFAULT_KEY_ENV})`;
const EXPOSURE_FLAGS =
  `  --tools a,b          offer only these tools, in this order (default: every read tool)
  --allow-writes       add the write tools and let tinyagent sign the events they return`;
const TIMEOUT_FLAG = `  --timeout SECONDS    bound on each relay call (default ${DEFAULT_TIMEOUT_SECONDS})`;
const OVERSIGHT_FLAGS =
  `  --confirm-writes     ask the person before each write (through the host; call: at the terminal)
  --confirm-timeout S  how long the person has to answer (default ${DEFAULT_CONFIRM_TIMEOUT_SECONDS}); then the write is refused
  --max-writes N       at most N writes in this process (an upload counts as one)
  --audit-log FILE     append every write, signed or held back, to FILE as JSON Lines (created 0600)`;
const LISTEN_FLAGS =
  `  --listen a,b         the rooms whose events may reach the model (Claude Code's channel, tiny_inbox)
  --allow-from KEYS    whose events (npub or hex, comma list); needed with --listen: nobody by default
  --require-mention=false  every message of those rooms, not only mentions, replies and jobs naming the agent
  --approvers KEYS     who may approve from the room (npub or hex): Claude Code's permission requests,
                       and with --confirm-via relay the --confirm-writes questions, as signed answers
  --home-room ROOM     where the approval cards are posted (with --approvers)
  --confirm-via W      host (the host asks its person; default) or relay (a card in --home-room)`;
const CODE_FLAGS =
  `  --code-mode          offer tiny_search and tiny_execute in place of the relay's tools: the model writes one
                       program that calls them (the same exposure, signing and hold on writes)
  --code-timeout S     a program's time limit, at most ${CODE_TIMEOUT_SECONDS} s (the default), with --code-mode
  --read-tool          offer tiny_read too: the relay's tiny:// resources read by URI, for hosts that show
                       tools and no resources (Cursor, Zed, Windsurf)`;
const OVERSIGHT_USAGE = "[--confirm-writes [--confirm-timeout S]] [--max-writes N] [--audit-log FILE]";

export const USAGE: Readonly<Record<Topic, string>> = {
  main: `tinyagent — use a Nostr relay's tools from an MCP host, safely

Usage: tinyagent <command> [flags]

  tinyagent mcp --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--timeout SECONDS]
                ${OVERSIGHT_USAGE}
  tinyagent rpc --relay URL [--key-env NAME] [--kinds 9,12] [--max-writes N] [--audit-log FILE]
  tinyagent tools --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--json]
  tinyagent call --relay URL TOOL|METHOD ['{"json":"arguments"}'] [--allow-writes] [--json]
  tinyagent config hermes|claude-code|claude-desktop|cursor --relay URL [the flags mcp would get]
  tinyagent diagnose --relay URL [--key-env NAME] [--rooms a,b] [--kinds 9,11] [--json]
  tinyagent keygen [--json]
  tinyagent whoami [--key-env NAME]
  tinyagent sandbox-check --relay URL [--key-env NAME] [--json]
  tinyagent -v | --version
  tinyagent -h | --help

Run 'tinyagent <command> --help' for a command's flags.`,
  mcp: `Usage: tinyagent mcp --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--timeout SECONDS]
         ${OVERSIGHT_USAGE}
         [--listen a,b --allow-from KEYS [--require-mention=false]] [--approvers KEYS --home-room ROOM]
         [--code-mode [--code-timeout S]] [--read-tool]

Serves MCP over stdio to an agent host and forwards tool calls to the relay,
signing each request (NIP-98) with the key in the environment variable NAME.
A host starts it; to see what it offers or to call a tool by hand, use
'tinyagent tools' and 'tinyagent call'. Every event it signs gets a receipt
line on stderr, which the host keeps in its MCP log.

${RELAY_FLAGS}
${EXPOSURE_FLAGS}
${OVERSIGHT_FLAGS}
${TIMEOUT_FLAG}
${LISTEN_FLAGS}
${CODE_FLAGS}
  -h, --help           show this help

${toolListText()}
tiny_diagnose is always offered: tinyagent answers it itself (see 'tinyagent diagnose');
with --listen, tiny_inbox too; with --read-tool, tiny_read; with --code-mode, tiny_search and tiny_execute
instead of the tools above.`,
  rpc:
    `Usage: tinyagent rpc --relay URL [--key-env NAME] [--kinds 9,12] [--max-writes N] [--audit-log FILE] [--timeout SECONDS]

The JSON-lines helper the relay's Hermes platform plugin starts (TINY_CLI_PATH):
one request per line on stdin, {"id":…,"method":"…","params":{…}}; one answer
per line on stdout, {"id":…,"result":…} or {"id":…,"error":{"message":"…"}},
and stream lines {"event":"connected"|"event"|"error","subscription":"…",…}.
Up to 32 calls run at once (subscriptions apart), each bounded by --timeout.
The relay's websocket and HTTP endpoints are signed with the key in NAME
(NIP-42, NIP-98); every event publish signs gets a receipt line on stderr.

Methods:
  identity                          {"pubkey"}: the key's public key
  publish {event}                   signs the event (created_at filled when absent) and POSTs it to /events;
                                    never an authorization (22242, 24242, 27235) or an agent grant (30392)
  query {filter}                    the stored events matching a filter (or an array of filters)
  subscribe {subscription, filter}  {"subscribed":true}, then stream lines under that name
  unsubscribe {subscription}        {"stopped":true|false}
  request {path, method?, body?}    a signed request to a path of the relay, its JSON answer
  upload {room, data, filename?, type?}  a room attachment (base64, 1 byte to 32 MiB)
  download {path}                   {"data","type"} of a /media/… path
  diagnose {rooms?, kinds?}         the report of 'tinyagent diagnose'

${RELAY_FLAGS}
  --kinds 9,12         the only event kinds publish may sign (default: any but the ones above)
  --max-writes N       at most N writes in this process (a published event or an upload each counts)
  --audit-log FILE     append every write, signed or held back, to FILE as JSON Lines (created 0600)
${TIMEOUT_FLAG}
  -h, --help           show this help

--confirm-writes is refused here: the plugin has no person to ask ('tinyagent call' asks at the terminal).`,
  tools:
    `Usage: tinyagent tools --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--json] [--timeout SECONDS]

Lists the tools a host would be offered by 'tinyagent mcp' with the same flags,
in order, and for every curated tool that is not offered, why: the relay does
not serve it, it is a write tool and --allow-writes is not given, or --tools
leaves it out; then what holds the writes back (confirmation, budget, audit
log). Makes one signed tools/list request to the relay.

${RELAY_FLAGS}
${EXPOSURE_FLAGS}
${OVERSIGHT_FLAGS}
  --json               print the list as JSON
${TIMEOUT_FLAG}
  -h, --help           show this help

Exit status: 0 the relay's table was read, 3 it could not be read, 1 usage.`,
  call:
    `Usage: tinyagent call --relay URL TOOL ['{"json":"arguments"}'] [--key-env NAME] [--tools a,b] [--allow-writes] [--json] [--timeout SECONDS]
       tinyagent call --relay URL METHOD ['{"json":"params"}'] [--key-env NAME] [--kinds 9,12] [--json] [--timeout SECONDS]

Calls one tool exactly as 'tinyagent mcp' would for a host: the same tools are
offered, the same templates are signed and resubmitted (only with
--allow-writes, only the kinds the tool publishes), the same error prefixes and
bounds apply. Prints the result's text; --json prints the whole result. With
--confirm-writes it asks at the terminal (y/N), and refuses the write when
stdin is not a terminal.

  TOOL                 the tool to call, such as list_rooms or tiny_diagnose
  '{"…":…}'            its arguments, one JSON object (default {})
${RELAY_FLAGS}
${EXPOSURE_FLAGS}
${OVERSIGHT_FLAGS}
  --json               print the whole result (or the JSON-RPC error) as JSON
${TIMEOUT_FLAG}
  -h, --help           show this help

Exit status: 0 a result, 2 a result that is a tool error (isError), 3 the call
was refused before it reached the relay (such as Unknown tool), 1 usage.

When the name is a method of 'tinyagent rpc' (identity, publish, query, unsubscribe,
request, upload, download, diagnose), that method runs once, as rpc runs it, and
its result is printed as one line of JSON (--json: indented); --kinds narrows
what publish signs, and the oversight flags hold its writes as they do a
tool's. Exit status then: 0 a result, 1 an error (on stderr) or usage.`,
  config:
    `Usage: tinyagent config HOST --relay URL [--key-env NAME] [--tools a,b] [--allow-writes] [--timeout SECONDS]
         ${OVERSIGHT_USAGE} [--name NAME] [--key-file FILE]
         [--listen a,b --allow-from KEYS [--require-mention=false]] [--approvers KEYS --home-room ROOM]
         [--code-mode [--code-timeout S]] [--read-tool]

Prints the configuration HOST needs to start this tinyagent as an MCP server
with these flags: its absolute path, the relay, the flags, and the key only as
the host's own placeholder for the variable (never its value). On stderr, one
line on where it goes and how to check it (and Cursor's install link). Reads
no key and sends nothing.

  HOST                 hermes (YAML for ~/.hermes/config.yaml), claude-code (a claude mcp add
                       line), claude-desktop (JSON for claude_desktop_config.json), cursor (JSON
                       for ~/.cursor/mcp.json, and its install link; with --read-tool, as Cursor
                       shows no resources)
${RELAY_FLAGS}
${EXPOSURE_FLAGS}
${OVERSIGHT_FLAGS}
${TIMEOUT_FLAG}
${LISTEN_FLAGS}
${CODE_FLAGS}
  --name NAME          the server's name in the host's configuration (default tiny)
  --key-file FILE      claude-desktop: the file with the NAME=<key> line it reads at start
                       (default $HOME/.hermes/.env)
  -h, --help           show this help`,
  diagnose:
    `Usage: tinyagent diagnose --relay URL [--key-env NAME] [--rooms a,b] [--kinds 9,11] [--json] [--timeout SECONDS]

Tells in one verdict whether the relay answers, accepts this key's signature,
counts it as a member, and grants what it needs.

${RELAY_FLAGS}
  --rooms a,b          rooms the agent needs to post in
  --kinds 9,11         event kinds the agent needs to publish (0-65535)
  --json               print the report as JSON
  --timeout SECONDS    bound on the relay call (default ${DEFAULT_TIMEOUT_SECONDS})
  -h, --help           show this help

Exit status: 0 ok, 2 the relay refuses access (grant, membership, signature), 3 unreachable or error, 1 usage.`,
  keygen: `Usage: tinyagent keygen [--json]

Prints a fresh private key as a ${DEFAULT_KEY_ENV}=<hex> line, ready to append to
a .env file only you can read (umask 077), with its public key in comments.
--json prints {"pubkey":"<hex>","secret":"<hex>"} on one line instead, as the
Go tinyagent does.`,
  whoami: `Usage: tinyagent whoami [--key-env NAME]

Prints the public key (hex and npub) of the configured private key.`,
  "sandbox-check": `Usage: tinyagent sandbox-check --relay URL [--key-env NAME] [--audit-log FILE] [--json]

Proves the sandbox from inside: runs a probe exactly where 'mcp' would run
(the same worker, with the same permissions) and tries the relay's host:port
and the key variable (allowed), then another port, another host, another
variable, the whole environment, reading and writing a file, starting a
process, FFI, system information and remote code (each must be denied).
With --audit-log, appending to that file is allowed and writing beside it
denied. Reads no key and sends no request; --relay need not be running.

${RELAY_FLAGS}
  --audit-log FILE     the audit log mcp would be given: the one file it may write
  --json               print the report as JSON
  -h, --help           show this help

Exit status: 0 when every check is as expected, 1 otherwise.`,
};
