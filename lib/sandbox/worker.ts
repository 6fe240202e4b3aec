// The sandboxed worker's entry: it announces that its code is loaded, then
// runs the one command it is given and reports the exit status.

import { Fatal } from "../cli/fatal.ts";
import { run } from "../session/run.ts";
import type { FromWorker, ToWorker } from "./confine.ts";
import { probeSandbox } from "./check.ts";

// The worker global scope, typed without pulling the worker lib into the whole program.
const scope = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

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
    scope.postMessage({ type: "exit", code: await run(command) });
  } catch (error) {
    if (error instanceof Fatal) {
      scope.postMessage({ type: "fatal", message: error.message, code: error.exitCode });
    } else throw error;
  }
};

scope.postMessage({ type: "ready" });
