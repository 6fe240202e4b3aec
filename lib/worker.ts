// The sandboxed worker's entry: it announces that its code is loaded, then
// runs the one command it is given and reports the exit status.

import { Fatal, run } from "./run.ts";
import type { FromWorker, ToWorker } from "./sandbox.ts";

// The worker global scope, typed without pulling the worker lib into the whole program.
const scope = self as unknown as {
  postMessage(message: FromWorker): void;
  onmessage: ((event: MessageEvent<ToWorker>) => void) | null;
};

scope.onmessage = async (event) => {
  try {
    scope.postMessage({ type: "exit", code: await run(event.data.command) });
  } catch (error) {
    if (error instanceof Fatal) {
      scope.postMessage({ type: "fatal", message: error.message, code: error.exitCode });
    } else throw error;
  }
};

scope.postMessage({ type: "ready" });
