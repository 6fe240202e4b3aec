// The relay side of an mcp session, loaded on first need: the facade, the
// relay client and the tiny_diagnose tool are imported and built once the
// host's first answer is out (or at its first tools request), so answering
// the handshake waits for none of that code. Loading it also opens the
// connection to the relay, ahead of the first call.

import type { Command } from "./cli.ts";
import type { Facade } from "./facade.ts";
import type { ToolProvider } from "./host.ts";
import type { CallOutcome, Tool } from "./mcp.ts";
import type { Signer } from "./signer.ts";

export interface RelaySide extends ToolProvider {
  /** Loads the relay side now and opens its connection; no request is sent. */
  warm(): void;
  /** The host is gone: nothing more is signed or sent, whether or not the relay side was loaded. */
  close(): void;
}

export function relaySide(
  command: Extract<Command, { command: "mcp" }>,
  signer: Signer,
  log: (line: string) => void,
): RelaySide {
  let closed = false;
  let loading: Promise<Facade> | undefined;
  const load = () =>
    loading ??= (async () => {
      const [{ Facade }, { RelayClient }, { diagnoseTool }] = await Promise.all([
        import("./facade.ts"),
        import("./relay.ts"),
        import("./tiny_diagnose.ts"),
      ]);
      const relay = new RelayClient({
        endpoint: command.relay,
        signer,
        timeoutMs: command.timeoutMs,
        proxy: command.proxy,
      });
      const facade = new Facade({
        relay,
        signer,
        exposed: command.exposed,
        allowWrites: command.allowWrites,
        diagnose: diagnoseTool(async (asked) =>
          (await import("./diagnose.ts")).diagnose(relay, signer, asked)
        ),
        log,
      });
      if (closed) facade.close();
      else relay.warm();
      return facade;
    })();
  return {
    warm: () => void load(),
    listTools: async (): Promise<Tool[]> => (await load()).listTools(),
    callTool: async (params: unknown): Promise<CallOutcome> => (await load()).callTool(params),
    close: () => {
      closed = true;
      void loading?.then((facade) => facade.close());
    },
  };
}
