// The rpc helper's session (`tinyagent rpc`) and one of its methods run by
// hand (`call METHOD`): the relay's HTTP side and its websocket, the person's
// hold on the writes, and the methods over them. What `call` runs is exactly
// what the plugin's helper runs, but for the streams.

import type { Command, RpcSession } from "../cli/args.ts";
import { processStdio } from "../host/stdio.ts";
import type { Signer } from "../key/signer.ts";
import type { AuditSink } from "../oversight/audit_log.ts";
import type { AskPerson } from "../oversight/confirmation.ts";
import { oversightSummary } from "../oversight/settings.ts";
import { askAtTerminal, processTerminal } from "../oversight/terminal_prompt.ts";
import { WriteBudget } from "../oversight/write_budget.ts";
import { WriteGate } from "../oversight/write_gate.ts";
import { webSocketUrl } from "../relay/endpoint.ts";
import { SignedHttp } from "../relay/signed_http.ts";
import { HelperMethods, type HelperParts } from "../rpc/methods.ts";
import { helperWriter, RpcError, serveRpc } from "../rpc/serve.ts";
import { HelperStreams } from "../rpc/streams.ts";
import { RelayStream } from "../stream/relay_stream.ts";
import { AUDIT_SESSION } from "./tool_session.ts";

/** The parts every method stands on; `ask`: how `call` asks the person (rpc asks nobody). */
function helperParts(
  session: RpcSession,
  signer: Signer,
  log: (line: string) => void,
  audit?: AuditSink,
  ask?: AskPerson,
): Omit<HelperParts, "streams"> {
  const { relay: endpoint, proxy, timeoutMs, oversight } = session;
  return {
    endpoint,
    signer,
    http: new SignedHttp({ endpoint, signer, timeoutMs, proxy }),
    stream: new RelayStream({ url: webSocketUrl(endpoint), signer, proxy, log }),
    gate: new WriteGate({
      relay: endpoint.base,
      session: AUDIT_SESSION,
      budget: new WriteBudget(oversight.maxWrites),
      ask: oversight.confirmWrites ? ask : undefined,
      where: "terminal", // the only asker there is: call's
      audit,
      signerName: async () => (await signer.identity()).npub,
      log,
    }),
    ...(session.kinds === undefined ? {} : { kinds: session.kinds }),
    timeoutMs,
    ...(proxy ? { proxy } : {}),
  };
}

/** What the helper holds its writes to, in words, for its startup line. */
function writesText(session: RpcSession): string {
  const kinds = session.kinds ? `; publish signs only kinds ${session.kinds.join(",")}` : "";
  return oversightSummary(session.oversight, true, "terminal") + kinds;
}

export async function rpc(
  command: Extract<Command, { command: "rpc" }>,
  signer: Signer,
  log: (line: string) => void,
  audit?: AuditSink,
): Promise<number> {
  const writer = helperWriter(processStdio.output, log);
  const parts = helperParts(command, signer, log, audit);
  parts.http.warm();
  const methods = new HelperMethods({ ...parts, streams: new HelperStreams(parts.stream, writer) });
  void signer.identity().then(({ npub }) =>
    log(
      `rpc: serving relay ${command.relay.base} as ${npub}: ${writesText(command)}` +
        (command.proxy ? `; through the proxy ${command.proxy.display}` : ""),
    ), () => {});
  await serveRpc({ input: processStdio.input, writer, dispatch: methods, timeoutMs: command.timeoutMs, log });
  return 0;
}

/** `call METHOD`: the method once, its result as one line of JSON (indented with --json); 1 on an error. */
export async function callMethod(
  command: Extract<Command, { command: "method" }>,
  signer: Signer,
  log: (line: string) => void,
  audit?: AuditSink,
): Promise<number> {
  const ask = askAtTerminal(processTerminal, command.oversight.confirmTimeoutMs);
  const methods = new HelperMethods(helperParts(command, signer, log, audit, ask));
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new RpcError(`${command.method}: no answer within ${command.timeoutMs / 1000} s (--timeout)`),
      ),
    command.timeoutMs,
  );
  try {
    if (await methods.holdsKey(command.params)) {
      throw new RpcError("the params hold this agent's private key; refused, nothing was sent");
    }
    // The params' text is kept whole, so `request` sends its body exactly as it was typed.
    const request = {
      method: command.method,
      params: JSON.parse(command.params),
      line: `{"params":${command.params}}`,
    };
    const result = await methods.call(request, controller.signal);
    console.log(command.json ? JSON.stringify(result ?? null, null, 2) : JSON.stringify(result ?? null));
    return 0;
  } catch (error) {
    if (!(error instanceof RpcError)) throw error;
    log(`call: ${error.message}`);
    return 1;
  } finally {
    clearTimeout(timer);
    await methods.close();
  }
}
