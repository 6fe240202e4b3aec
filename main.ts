// tinyagent's entry point: parse the command line, then run the command.
// Usage errors and startup failures are one line on stderr, never a trace.

import { parseCommand, USAGE, UsageError } from "./lib/cli.ts";
import { Fatal, run } from "./lib/run.ts";
import { NAME, VERSION } from "./lib/version.ts";

async function main(argv: string[]): Promise<number> {
  try {
    const command = parseCommand(argv);
    if (command.command === "help") {
      console.log(USAGE[command.topic]);
      return 0;
    }
    if (command.command === "version") {
      console.log(`${NAME} ${VERSION}`);
      return 0;
    }
    return await run(command);
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`${NAME}: ${error.message}\n\n${USAGE[error.topic]}`);
      return 1;
    }
    if (error instanceof Fatal) {
      console.error(`${NAME}: ${error.message}`);
      return error.exitCode;
    }
    throw error;
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));
