// Code mode's tools for an mcp session (--code-mode): tiny_search over the exposed table the facade holds,
// and tiny_execute, whose programs call the relay through the facade as their own (lib/code/). Loaded as
// a part (parts.ts) only with the flag; the sandbox and the type stripper load on the first tiny_execute.
// The session's state lives here: the result shapes seen in the facade's answers, and (in tiny_execute)
// the idempotency keys of its programs' writes.

import type { CodeModeSettings } from "../cli/session_args.ts";
import { executeTool } from "../code/execute_tool.ts";
import type { CodePackages } from "../code/packages.ts";
import { searchTool, tableHash } from "../code/search_tool.ts";
import { SeenResults } from "../code/seen_results.ts";
import { shippedShape } from "../code/relay_answers.ts";
import type { Facade } from "../facade/facade.ts";
import { failureText } from "../relay/answer.ts";
import type { CallToolResult, LocalTool } from "../wire/mcp.ts";

/** Code mode's part of a session: its tools, and what it takes note of in every relay answer. */
export interface CodeMode {
  tools: LocalTool[];
  /** The facade's `answered`: each relay tool's answer, whoever called, for tiny_search's result types. */
  answered(tool: string, result: CallToolResult): void;
}

/**
 * tiny_search and tiny_execute, on the facade `facade()` gives once it is built; QuickJS and the type stripper
 * loaded by `packages` (code/packages.ts), by name unless given.
 */
export function programTools(
  facade: () => Facade,
  settings: CodeModeSettings,
  packages?: CodePackages,
): CodeMode {
  const seen = new SeenResults(undefined, shippedShape);
  const table = async () => {
    const state = await facade().exposedTable();
    return state.ok ? state.table : { unavailable: failureText(state.failure) };
  };
  return {
    tools: [
      searchTool(table, (tool, maxChars) => seen.typeOf(tool, maxChars), seen),
      executeTool({
        call: (tool, args, origin) => facade().callTool({ name: tool, arguments: args }, { origin }),
        run: async (code, bridge, options) =>
          (await import("../code/sandbox.ts")).runProgram(code, bridge, { ...options, packages }),
        limits: { wallMs: settings.wallMs },
        tableHash: async (fetch) => {
          const held = facade().heldExposedTable();
          if (held || !fetch) return held && await tableHash(held, seen);
          const state = await facade().exposedTable();
          return state.ok ? await tableHash(state.table, seen) : undefined;
        },
      }),
    ],
    answered: (tool, result) => seen.record(tool, result),
  };
}
