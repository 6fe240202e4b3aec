// The `tiny_diagnose` tool, the one tool the facade answers itself
// (facade.md, "Exposed tools"): its entry in `tools/list`, its arguments, and
// the report as a result that is never an error, whatever the verdict.

import type { Asked } from "./classify.ts";
import type { Report } from "./report.ts";
import { DIAGNOSE_TOOL } from "../facade/tools.ts";
import { type CallToolResult, type JsonObject, type LocalTool, type Tool, toolError } from "../wire/mcp.ts";
import type { SeenRefusal } from "../relay/refusal.ts";

/** The relay allows at most this many rooms or kinds in one browsegrant call. */
const MAX_ASKED = 256;

export const DIAGNOSE_ENTRY: Tool = {
  name: DIAGNOSE_TOOL,
  title: "Diagnose relay access",
  description: "Check this agent's access to the relay: whether it answers, whether it accepts the agent's " +
    "signature, membership and role, the agent grant and its state, and which of the given rooms and kinds the " +
    "grant lacks. The verdict is ok, needs-grant, not-a-member, unauthorized, unreachable or error; the advice " +
    "says what to do next, such as calling request_grant with the arguments it gives.",
  inputSchema: {
    type: "object",
    properties: {
      rooms: {
        type: "array",
        items: { type: "string", minLength: 1 },
        description: "Room ids the agent needs.",
      },
      kinds: {
        type: "array",
        items: { type: "integer", minimum: 0, maximum: 65535 },
        description: "Event kinds the agent needs to publish.",
      },
    },
    additionalProperties: false,
  },
  annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: true },
};

/** Reads `tiny_diagnose` arguments; an error names the bad field. */
export function parseAsked(args: JsonObject): { ok: true; asked: Asked } | { ok: false; error: string } {
  const rooms = args.rooms ?? [];
  const kinds = args.kinds ?? [];
  if (!Array.isArray(rooms) || !rooms.every((room) => typeof room === "string" && room.trim() !== "")) {
    return { ok: false, error: "invalid arguments: rooms must be an array of room ids (non-empty strings)" };
  }
  if (!Array.isArray(kinds) || !kinds.every((kind) => Number.isInteger(kind) && kind >= 0 && kind <= 65535)) {
    return { ok: false, error: "invalid arguments: kinds must be an array of integers from 0 to 65535" };
  }
  if (rooms.length > MAX_ASKED || kinds.length > MAX_ASKED) {
    const field = rooms.length > MAX_ASKED ? "rooms" : "kinds";
    return { ok: false, error: `invalid arguments: ${field} may list ${MAX_ASKED} entries at most` };
  }
  const unknown = Object.keys(args).filter((name) => name !== "rooms" && name !== "kinds");
  if (unknown.length > 0) return { ok: false, error: `invalid arguments: unknown field ${unknown[0]}` };
  return { ok: true, asked: { rooms: [...new Set(rooms)], kinds: [...new Set(kinds)] } };
}

/**
 * The tool: `<verdict>: <advice>` as the text, the report as structuredContent; and, when the session saw
 * the relay refuse a call in words that name a cause (a grant's rate, say, which an active grant's verdict
 * cannot show), that refusal after it.
 */
export function diagnoseTool(
  run: (asked: Asked) => Promise<Report>,
  lastRefusal: () => SeenRefusal | undefined = () => undefined,
): LocalTool {
  return {
    entry: DIAGNOSE_ENTRY,
    async call(args: JsonObject): Promise<CallToolResult> {
      const parsed = parseAsked(args);
      if (!parsed.ok) return toolError(parsed.error);
      const report = await run(parsed.asked);
      const refusal = lastRefusal();
      const last = refusal && {
        tool: refusal.tool,
        said: refusal.said,
        cause: refusal.cause,
        advice: refusal.advice,
      };
      const told = last ? ` The relay last refused ${last.tool} (${last.said}): ${last.advice}.` : "";
      return {
        content: [{ type: "text", text: `${report.verdict}: ${report.advice}${told}` }],
        structuredContent: last ? { ...report, last_refusal: last } : report,
        isError: false,
      };
    },
  };
}
