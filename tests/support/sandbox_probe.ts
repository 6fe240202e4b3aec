// Runs probe code exactly where the facade runs: through lib/sandbox.ts's
// runInSandbox, with the sandbox's permissions and the main thread's
// revocation, but with a probe worker instead of the facade's. Started by
// tests/e2e/sandbox_test.ts under the shipped flags. Test code only: the
// binary never embeds it.

import { parseCommand } from "../../lib/cli.ts";
import { runInSandbox, type SandboxedCommand } from "../../lib/sandbox.ts";

const command = parseCommand(Deno.args) as SandboxedCommand;
const outcome = await runInSandbox(
  command,
  (line) => console.error(line),
  new URL("./sandbox_probe_worker.ts", import.meta.url),
);
// What the main thread still holds once the worker runs.
const main: Record<string, string> = {};
for (const name of ["net", "env", "read", "write", "run", "ffi", "sys"] as const) {
  main[name] = Deno.permissions.querySync({ name }).state;
}
console.log(JSON.stringify({ outcome, main }));
Deno.exit(outcome.started ? outcome.code : 1);
