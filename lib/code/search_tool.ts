// `tiny_search` (code mode): how a model finds what a tiny_execute program may call on `relay`.
// Answered by tinyagent itself, like tiny_diagnose, from the exposed table it already fetched:
// no call to the relay beyond that fetch.

import { type CallToolResult, type JsonObject, type LocalTool, type Tool, toolError } from "../wire/mcp.ts";
import { excerpt } from "../wire/json.ts";
import { DIAGNOSE_TOOL } from "../facade/tools.ts";
import { shortHash } from "./digest.ts";
import { type Language, LANGUAGES } from "./languages.ts";
import { type Detail, search } from "./search.ts";
import type { SeenType } from "./seen_results.ts";
import { type Form, type ResultType, schemaResult } from "./signature.ts";
import { shapeType } from "./answer_shape.ts";
import { RELAY_VERSION, shippedShape } from "./relay_answers.ts";

export const SEARCH_TOOL = "tiny_search";
/** The longest query taken, in characters: a search needs words, not a document. */
export const MAX_QUERY = 1000;
const DETAILS: readonly Detail[] = ["brief", "full"];
/** The longest seen result type shown, by detail. */
const TYPE_CHARS: Record<Form, number> = { brief: 300, full: 1500 };
/**
 * The longest shipped result type shown, by detail: room for a read's whole answer in full (a wiki
 * page's three lists of versions come to ~2,300 characters), one line when brief.
 */
const SHIPPED_CHARS: Record<Form, number> = { brief: 300, full: 4000 };

export const SEARCH_ENTRY: Tool = {
  name: SEARCH_TOOL,
  title: "Search the relay's functions",
  description:
    "Find the functions a tiny_execute program may call on `relay` (the relay's tools this agent " +
    "is allowed) and how to call them. Searches their names, titles, descriptions and parameters, here, " +
    "without asking the relay; an empty query lists them all. Each match comes as a TypeScript signature, " +
    "`relay.<name>(args: {…}): Promise<…>`, with its description and, for a write, what calling it does: " +
    "signed with the agent's key, the only event kinds it publishes, held by the person's settings. The " +
    "result type is the relay's outputSchema, else what the relay's version answers (read from its source), " +
    "else the shape of the answers seen this session (each marked so), else unknown. In a program, `await relay.<name>(args)` returns the tool's structuredContent (its " +
    "text when it has none) and throws an Error with the tool's error text when the call fails or a write " +
    "is held back. The answer ends with the hash of the functions' table, which tiny_execute's answer " +
    "also gives.",
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
      language: {
        type: "string",
        enum: [...LANGUAGES],
        description: "typescript (the default): signatures; javascript: each call with a JSDoc comment of " +
          "its types; json: the tools/call request a host would send for it.",
      },
    },
    required: ["query"],
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

/** The exposed table as tinyagent holds it, or why it could not be read. */
export type ExposedTable = () => Promise<Tool[] | { unavailable: string }>;

type Parsed = { ok: true; query: string; detail?: Detail; language?: Language } | {
  ok: false;
  error: string;
};

const FIELDS = ["query", "detail", "language"];

/** Reads tiny_search's arguments; a refusal names the field and what it must be. */
export function parseSearchArgs(args: JsonObject): Parsed {
  const unknown = Object.keys(args).find((name) => !FIELDS.includes(name));
  if (unknown !== undefined) {
    return { ok: false, error: `invalid arguments: unknown field ${JSON.stringify(unknown).slice(0, 80)}` };
  }
  const { query, detail, language } = args;
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
  if (language !== undefined && !LANGUAGES.includes(language as Language)) {
    return { ok: false, error: 'invalid arguments: language must be "typescript", "javascript" or "json"' };
  }
  return {
    ok: true,
    query,
    ...(detail === undefined ? {} : { detail: detail as Detail }),
    ...(language === undefined ? {} : { language: language as Language }),
  };
}

/** The result types a table's hash covers besides the tools themselves: those shown as seen, and when. */
export interface ShownTypes {
  /** Changes whenever a shown type may have. */
  readonly version: number;
  shownAsSeen(maxChars: number): Record<string, string>;
}

const hashes = new WeakMap<readonly Tool[], { version: number; hash: Promise<string> }>();

/**
 * The short hash of what tiny_search shows of the exposed table: its tools, the shipped answers' version
 * and the types shown as seen; computed once for each table the facade holds and each change of types.
 */
export function tableHash(tools: readonly Tool[], types?: ShownTypes): Promise<string> {
  const version = types?.version ?? 0;
  const held = hashes.get(tools);
  if (held && held.version === version) return held.hash;
  const shown = { tools, shipped: RELAY_VERSION, seen: types?.shownAsSeen(TYPE_CHARS.full) ?? {} };
  const hash = shortHash(shown);
  hashes.set(tools, { version, hash });
  return hash;
}

/** The answers seen of a tool, as a type of at most some characters; none when not seen. */
export type SeenOf = (tool: string, maxChars: number) => SeenType | undefined;

/**
 * A function's result type: the relay's outputSchema; else what its version answers (as shipped),
 * unless an answer seen did not fit that; else the answers seen; else unknown.
 */
export function resultOf(seen: SeenOf | undefined): (tool: Tool, form: Form) => ResultType {
  return (tool, form) => {
    if (tool.outputSchema !== undefined) return schemaResult(tool);
    const shape = seen?.(tool.name, TYPE_CHARS[form]);
    const shipped = shippedShape(tool.name);
    if (shipped && !shape?.differs) {
      return { text: shapeType(shipped, SHIPPED_CHARS[form]), source: "shipped" };
    }
    if (!shape) return schemaResult(tool);
    const differs = shape.differs ? { differs: shape.differs } : {};
    return { text: shape.type, source: "seen", answers: shape.answers, ...differs };
  };
}

/** The error when the relay's table cannot be read: nothing to search, and where to look. */
export function unavailableText(reason: string): string {
  return `the relay's tool table could not be read (${
    excerpt(reason, 500)
  }), so there is nothing to search; call ` +
    `${DIAGNOSE_TOOL} to see why`;
}

/** The tool, searching whatever `table` gives at the time of the call, with the result types `seen`. */
export function searchTool(table: ExposedTable, seen?: SeenOf, types?: ShownTypes): LocalTool {
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
      const { query, detail, language = "typescript" } = parsed;
      const found = search(tools, query, {
        detail,
        language,
        resultOf: resultOf(seen),
        hash: await tableHash(tools, types),
      });
      return {
        content: [{ type: "text", text: found.text }],
        structuredContent: {
          matches: found.matches,
          total: found.total,
          shown: found.shown,
          language,
          tableHash: found.hash,
        },
        isError: false,
      };
    },
  };
}
