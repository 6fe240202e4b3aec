// `tinyagent tools` and `tinyagent call`: one relay session run by hand, through
// the very facade a host meets (tool_session.ts), printed for a person or, with
// --json, for a script.

import type { Command } from "../cli/args.ts";
import type { Signer } from "../key/signer.ts";
import { describeOffer, renderOffer } from "../facade/offer.ts";
import { RelayClient } from "../relay/client.ts";
import type { CallToolResult } from "../wire/mcp.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import { oversightReport, oversightSummary } from "../oversight/settings.ts";
import { askAtTerminal, processTerminal } from "../oversight/terminal_prompt.ts";
import { assembleFacade, type OversightParts } from "./tool_session.ts";

/** `call`'s exit statuses beyond 0 (a result) and 1 (usage): a tool error, and a call refused before the relay. */
const CALL_TOOL_ERROR = 2;
const CALL_REFUSED = 3;
/** `tools`: the relay's table could not be read. */
const TABLE_UNREADABLE = 3;

/** The facade a host would meet, over its own relay client; closing it closes the client. */
function facadeFor(
  command: Extract<Command, { command: "tools" | "call" }>,
  signer: Signer,
  log: (line: string) => void,
  parts?: OversightParts,
) {
  const relay = new RelayClient({
    endpoint: command.relay,
    signer,
    timeoutMs: command.timeoutMs,
    proxy: command.proxy,
  });
  return assembleFacade(command, signer, relay, log, parts);
}

/** Lists what a host would be offered, and why not the rest. */
export async function listOffer(
  command: Extract<Command, { command: "tools" }>,
  signer: Signer,
  log: (line: string) => void,
): Promise<number> {
  const facade = facadeFor(command, signer, log);
  try {
    const offer = describeOffer(command.exposed, command.allowWrites, await facade.tableForList());
    // What would hold the writes back, as mcp would apply it with the same flags (a host asks).
    const oversight = oversightReport(command.oversight, command.allowWrites);
    console.log(
      command.json
        ? JSON.stringify({ relay: command.relay.base, ...offer, oversight }, null, 2)
        : `${renderOffer(offer)}\n\nwrites: ${
          oversightSummary(command.oversight, command.allowWrites, "host")
        }`,
    );
    return offer.table.ok ? 0 : TABLE_UNREADABLE;
  } finally {
    facade.close();
  }
}

/** The text a person reads of a result: its text blocks, or its structured content when it has none. */
function resultText(result: CallToolResult): string {
  const texts = result.content.filter((block) => block.type === "text").map((block) => String(block.text));
  if (texts.length > 0) return texts.join("\n");
  return result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent, null, 2);
}

/** Calls one tool exactly as `mcp` would for a host; with --confirm-writes, the terminal asks the person. */
export async function callOne(
  command: Extract<Command, { command: "call" }>,
  signer: Signer,
  log: (line: string) => void,
  audit?: AuditSink,
): Promise<number> {
  const facade = facadeFor(command, signer, log, {
    ask: askAtTerminal(processTerminal, command.oversight.confirmTimeoutMs),
    where: "terminal",
    audit,
  });
  try {
    const outcome = await facade.callTool({ name: command.tool, arguments: command.arguments });
    if ("error" in outcome) {
      if (command.json) console.log(JSON.stringify({ error: outcome.error }, null, 2));
      else log(`call: ${outcome.error.message}`);
      return CALL_REFUSED;
    }
    console.log(command.json ? JSON.stringify(outcome.result, null, 2) : resultText(outcome.result));
    return outcome.result.isError === true ? CALL_TOOL_ERROR : 0;
  } finally {
    facade.close();
  }
}
