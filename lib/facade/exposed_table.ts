// The tool table the host sees (facade.md, `tools/list`): the relay's
// entries restricted to the exposed set, in exposure order, each made valid.
// Pure.

import { type Conformed, conformTool } from "./conform.ts";
import { isObject } from "../wire/json.ts";
import type { JsonObject, Tool } from "../wire/mcp.ts";
import { DIAGNOSE_TOOL } from "./tools.ts";

/**
 * Restricts the relay's `tools/list` entries to the exposed names, in the
 * exposure order, each made a valid MCP tool from the relay's title,
 * description, input schema and annotations (conform.ts). A relay tool
 * outside the exposed set (including one named `tiny_diagnose`) is never
 * offered; the first entry of a name counts.
 */
export function exposedTable(relayTools: unknown[], exposed: readonly string[]): Conformed<Tool[]> {
  const byName = new Map<string, JsonObject>();
  for (const tool of relayTools) {
    if (!isObject(tool)) continue;
    const name = tool.name;
    if (typeof name === "string" && !byName.has(name)) byName.set(name, tool);
  }
  const table: Tool[] = [];
  const notes: string[] = [];
  for (const name of exposed) {
    const entry = byName.get(name);
    if (!entry || name === DIAGNOSE_TOOL) continue;
    const conformed = conformTool(name, entry);
    table.push(conformed.value);
    notes.push(...conformed.notes);
  }
  return { value: table, notes };
}

/**
 * The exposed table as a program sees it (code mode's tiny_search): each tool with the relay's
 * outputSchema kept when it is an object schema. The host never sees it (conformTool says why); a
 * program's results are not checked against it, and its type is what a model should expect.
 */
export function withOutputSchemas(table: Tool[], relayTools: unknown[]): Tool[] {
  const schemas = new Map<string, JsonObject>();
  for (const tool of relayTools) {
    if (!isObject(tool) || typeof tool.name !== "string" || schemas.has(tool.name)) continue;
    const schema = tool.outputSchema;
    if (isObject(schema) && schema.type === "object") schemas.set(tool.name, schema);
  }
  if (schemas.size === 0) return table;
  return table.map((tool) => {
    const outputSchema = schemas.get(tool.name);
    return outputSchema ? { ...tool, outputSchema } : tool;
  });
}
