// The default tool table: every tool the real relay lists, in its order.

import { MANAGEMENT_TOOL_DEFS } from "./tools_manage.ts";
import { READ_TOOL_DEFS } from "./tools_read.ts";
import { WRITE_TOOL_DEFS } from "./tools_write.ts";
import type { ToolDef } from "./types.ts";

/** Every tool the real relay lists, with small realistic schemas. No `tiny_diagnose`. */
export const DEFAULT_TOOLS: ToolDef[] = [...READ_TOOL_DEFS, ...MANAGEMENT_TOOL_DEFS, ...WRITE_TOOL_DEFS];
