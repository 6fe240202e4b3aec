// One facade as every command that offers or calls the relay's tools builds it (mcp, tools, call):
// the relay client, the signer, the exposure flags, the person's hold on the writes and
// tiny_diagnose. In one place, so what 'tinyagent tools' lists and 'tinyagent call' does is
// exactly what a host meets.

import type { ToolSession } from "../cli/args.ts";
import { diagnoseTool } from "../diagnose/tool.ts";
import { Facade } from "../facade/facade.ts";
import type { Signer } from "../key/signer.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import type { Asker, AskPerson } from "../oversight/confirmation.ts";
import { WriteBudget } from "../oversight/write_budget.ts";
import { WriteGate } from "../oversight/write_gate.ts";
import type { RelayClient } from "../relay/client.ts";
import type { CallToolResult, LocalTool } from "../wire/mcp.ts";

/** Who asks the person, and where writes are recorded: the command's own parts. */
export interface OversightParts {
  /** With --confirm-writes: how the person is asked (the host under mcp, the terminal under call). */
  ask?: AskPerson;
  where: Asker;
  audit?: AuditSink;
  /** The budget, when the session shares it with writes of its own (approval cards); else one is made. */
  budget?: WriteBudget;
  /** Tools tinyagent answers itself beside tiny_diagnose (tiny_inbox, with --listen). */
  localTools?: LocalTool[];
  /** With --code-mode: tiny_search and tiny_execute, offered in place of the relay's tools. */
  programTools?: LocalTool[];
  /** With --code-mode: told each relay tool's answer (the facade's `answered`). */
  answered?(tool: string, result: CallToolResult): void;
}

/** Which process wrote an audit entry: its id and when it started. */
export const AUDIT_SESSION = `${Deno.pid}@${new Date().toISOString()}`;

export function assembleFacade(
  session: ToolSession,
  signer: Signer,
  relay: RelayClient,
  log: (line: string) => void,
  parts: OversightParts = { where: "host" },
): Facade {
  const { oversight } = session;
  // --confirm-writes with nobody to ask refuses every write; it never lets one through unasked.
  const ask: AskPerson | undefined = oversight.confirmWrites
    ? parts.ask ?? (() => Promise.resolve({ action: "unable", why: "nobody can be asked here" }))
    : undefined;
  // tiny_diagnose tells the last refusal the facade saw: bound once the facade is made.
  const facade: Facade = new Facade({
    relay,
    signer,
    exposed: session.exposed,
    allowWrites: session.allowWrites,
    gate: new WriteGate({
      relay: relay.base,
      session: AUDIT_SESSION,
      budget: parts.budget ?? new WriteBudget(oversight.maxWrites),
      ask,
      where: parts.where,
      audit: parts.audit,
      signerName: async () => (await signer.identity()).npub,
      log,
    }),
    // diagnose's report code loads on the first tiny_diagnose call only.
    localTools: parts.localTools,
    programTools: parts.programTools,
    answered: parts.answered,
    diagnose: diagnoseTool(
      async (asked) => (await import("../diagnose/probe.ts")).diagnose(relay, signer, asked),
      () => facade.lastRefusal,
    ),
    log,
  });
  return facade;
}
