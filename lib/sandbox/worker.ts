// The sandboxed worker's protocol: it announces that its code is loaded, then runs the one command it
// is given with the parts its entry gave it, and reports the exit status. Its entry is a module that
// imports this one and calls serveWorker: under `deno run` one the main thread writes for the command
// (worker_entry.ts), in the compiled binary worker_all.ts.

import { Fatal } from "../cli/fatal.ts";
import { run } from "../session/run.ts";
import type { SessionParts } from "../session/parts.ts";
import type { FromWorker, ToWorker } from "./confine.ts";
import { probeSandbox } from "./check.ts";

// The worker global scope, typed without pulling the worker lib into the whole program.
const scope = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

export function serveWorker(parts: Partial<SessionParts>): void {
  scope.onmessage = async (event) => {
    const command = event.data.command;
    try {
      if (command.command === "sandbox-check") {
        // The probe runs here, where the facade runs; the main thread reports it.
        scope.postMessage({
          type: "probed",
          checks: await probeSandbox(command.relay, command.keyEnv, command.proxy, command.auditLog),
        });
        return;
      }
      scope.postMessage({ type: "exit", code: await run(command, parts) });
    } catch (error) {
      if (error instanceof Fatal) {
        scope.postMessage({ type: "fatal", message: error.message, code: error.exitCode });
      } else throw error;
    }
  };
  scope.postMessage({ type: "ready" });
}
