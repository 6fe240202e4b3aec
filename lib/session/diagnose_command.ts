// `tinyagent diagnose`: the one signed browsegrant call, its verdict and advice, printed for a person
// (colour at a terminal, unless NO_COLOR) or, with --json, for a script; the exit status says the
// verdict.

import type { Command } from "../cli/args.ts";
import { RelayClient } from "../relay/client.ts";
import { diagnose } from "../diagnose/probe.ts";
import { exitCode } from "../diagnose/report.ts";
import { renderReport } from "../diagnose/render.ts";
import type { Signer } from "../key/signer.ts";

export async function diagnoseCommand(
  command: Extract<Command, { command: "diagnose" }>,
  signer: Signer,
): Promise<number> {
  const relay = new RelayClient({
    endpoint: command.relay,
    signer,
    timeoutMs: command.timeoutMs,
    proxy: command.proxy,
  });
  try {
    const report = await diagnose(relay, signer, { rooms: command.rooms, kinds: command.kinds });
    // Colour only for a person at a terminal who has not asked for none (NO_COLOR, read by Deno at start).
    const colour = Deno.stdout.isTerminal() && !Deno.noColor;
    console.log(command.json ? JSON.stringify(report, null, 2) : renderReport(report, colour));
    return exitCode(report.verdict);
  } finally {
    relay.close();
  }
}
