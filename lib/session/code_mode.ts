// Code mode's tools for an mcp session (--code-mode): tiny_search over the exposed table the facade holds,
// and tiny_execute, whose programs call the relay through the facade as their own (lib/code/). Loaded as
// a part (parts.ts) only with the flag; the sandbox and the type stripper load on the first tiny_execute.

import type { CodeModeSettings } from "../cli/session_args.ts";
import { executeTool } from "../code/execute_tool.ts";
import type { CodePackages } from "../code/packages.ts";
import { searchTool } from "../code/search_tool.ts";
import type { Facade } from "../facade/facade.ts";
import { failureText } from "../relay/answer.ts";
import type { LocalTool } from "../wire/mcp.ts";

/**
 * tiny_search and tiny_execute, on the facade `facade()` gives once it is built; QuickJS and the type stripper
 * loaded by `packages` (code/packages.ts), by name unless given.
 */
export function programTools(
  facade: () => Facade,
  settings: CodeModeSettings,
  packages?: CodePackages,
): LocalTool[] {
  return [
    searchTool(async () => {
      const state = await facade().exposedTable();
      return state.ok ? state.table : { unavailable: failureText(state.failure) };
    }),
    executeTool({
      call: (tool, args, origin) => facade().callTool({ name: tool, arguments: args }, { origin }),
      run: async (code, bridge, options) =>
        (await import("../code/sandbox.ts")).runProgram(code, bridge, { ...options, packages }),
      limits: { wallMs: settings.wallMs },
    }),
  ];
}
