// One facade as every command that offers or calls the relay's tools builds it (mcp, tools, call):
// the relay client, the signer, the exposure flags and tiny_diagnose. In one place, so what
// 'tinyagent tools' lists and 'tinyagent call' does is exactly what a host meets.

import type { ToolSession } from "../cli/args.ts";
import { diagnoseTool } from "../diagnose/tool.ts";
import { Facade } from "../facade/facade.ts";
import type { Signer } from "../key/signer.ts";
import type { RelayClient } from "../relay/client.ts";

export function assembleFacade(
  session: ToolSession,
  signer: Signer,
  relay: RelayClient,
  log: (line: string) => void,
): Facade {
  return new Facade({
    relay,
    signer,
    exposed: session.exposed,
    allowWrites: session.allowWrites,
    // diagnose's report code loads on the first tiny_diagnose call only.
    diagnose: diagnoseTool(async (asked) =>
      (await import("../diagnose/probe.ts")).diagnose(relay, signer, asked)
    ),
    log,
  });
}
