// `tiny_search` (code mode): how a model finds what a tiny_execute program may call on `relay`.
// Answered by tinyagent itself, like tiny_diagnose, from the exposed table it already fetched:
// no call to the relay beyond that fetch.

import { type CallToolResult, type JsonObject, type LocalTool, type Tool, toolError } from "../wire/mcp.ts";
import { excerpt } from "../wire/json.ts";
import { DIAGNOSE_TOOL } from "../facade/tools.ts";
import { type Detail, search } from "./search.ts";

export const SEARCH_TOOL = "tiny_search";
/** The longest query taken, in characters: a search needs words, not a document. */
export const MAX_QUERY = 1000;
const DETAILS: readonly Detail[] = ["brief", "full"];

export const SEARCH_ENTRY: Tool = {
  name: SEARCH_TOOL,
  title: "Search the relay's functions",
  description:
    "Find the functions a tiny_execute program may call on `relay` (the relay's tools this agent " +
    "is allowed) and how to call them. Searches their names, titles, descriptions and parameters, here, " +
    "without asking the relay; an empty query lists them all. Each match comes as a TypeScript signature, " +
    "`relay.<name>(args: {…}): Promise<…>`, with its description and, for a write, what calling it does: " +
    "signed with the agent's key, the only event kinds it publishes, held by the person's settings. In a " +
    "program, `await relay.<name>(args)` returns the tool's structuredContent (its text when it has none) " +
    "and throws an Error with the tool's error text when the call fails or a write is held back.",
  inputSchema: {
    type: "object",
    properties: {
      query: {
        type: "string",
        maxLength: MAX_QUERY,
        description: 'Words to look for, such as "issues" or "post message"; empty lists every function.',
      },
      detail: {
        type: "string",
        enum: [...DETAILS],
        description: "brief: one line per match. full (the default for a query): each parameter described, " +
          "the whole description, and what a write does.",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** The exposed table as tinyagent holds it, or why it could not be read. */
export type ExposedTable = () => Promise<Tool[] | { unavailable: string }>;

type Parsed = { ok: true; query: string; detail?: Detail } | { ok: false; error: string };

/** Reads tiny_search's arguments; a refusal names the field and what it must be. */
export function parseSearchArgs(args: JsonObject): Parsed {
  const unknown = Object.keys(args).find((name) => name !== "query" && name !== "detail");
  if (unknown !== undefined) {
    return { ok: false, error: `invalid arguments: unknown field ${JSON.stringify(unknown).slice(0, 80)}` };
  }
  const { query, detail } = args;
  if (typeof query !== "string") {
    return {
      ok: false,
      error: "invalid arguments: query must be a string (an empty one lists every function)",
    };
  }
  if (query.length > MAX_QUERY) {
    return { ok: false, error: `invalid arguments: query may hold ${MAX_QUERY} characters at most` };
  }
  if (detail !== undefined && !DETAILS.includes(detail as Detail)) {
    return { ok: false, error: 'invalid arguments: detail must be "brief" or "full"' };
  }
  return detail === undefined ? { ok: true, query } : { ok: true, query, detail: detail as Detail };
}

/** The error when the relay's table cannot be read: nothing to search, and where to look. */
export function unavailableText(reason: string): string {
  return `the relay's tool table could not be read (${
    excerpt(reason, 500)
  }), so there is nothing to search; call ` +
    `${DIAGNOSE_TOOL} to see why`;
}

/** The tool, searching whatever `table` gives at the time of the call. */
export function searchTool(table: ExposedTable): LocalTool {
  return {
    entry: SEARCH_ENTRY,
    async call(args: JsonObject): Promise<CallToolResult> {
      const parsed = parseSearchArgs(args);
      if (!parsed.ok) return toolError(parsed.error);
      let tools: Tool[] | { unavailable: string };
      try {
        tools = await table();
      } catch (error) {
        tools = { unavailable: error instanceof Error ? error.message : String(error) };
      }
      if (!Array.isArray(tools)) return toolError(unavailableText(tools.unavailable));
      const found = search(tools, parsed.query, parsed.detail);
      return {
        content: [{ type: "text", text: found.text }],
        structuredContent: { matches: found.matches, total: found.total, shown: found.shown },
        isError: false,
      };
    },
  };
}
