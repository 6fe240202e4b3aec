// A fake of the call path the resource modules use (lib/resources/call_cache.ts ToolCall): each
// tool answers from a handler as the facade passes the relay's answers on — a structured result
// mirrored in a text block, a tool error in the facade's words, or a JSON-RPC error — and every
// call is recorded.

import type { CallOutcome, JsonObject } from "../../lib/wire/mcp.ts";
import type { ToolCall } from "../../lib/resources/call_cache.ts";

/** A tool error the relay or the facade answered with: its text, and the wait a 429 asked for. */
export class Failed {
  constructor(readonly text: string, readonly retryAfter?: number) {}
}

export type Handler = (args: JsonObject) => unknown;

export interface FakeRelay {
  call: ToolCall;
  calls: [string, JsonObject][];
  /** How many calls of `tool` were made. */
  count(tool: string): number;
}

export function fakeRelay(handlers: Record<string, Handler>): FakeRelay {
  const calls: [string, JsonObject][] = [];
  const call: ToolCall = (tool, args) => {
    calls.push([tool, args]);
    const handler = handlers[tool];
    if (!handler) {
      return Promise.resolve({ error: { code: -32602, message: `Unknown tool: ${tool}` } });
    }
    const answer = handler(args);
    const outcome: CallOutcome = answer instanceof Failed
      ? {
        result: { content: [{ type: "text", text: answer.text }], isError: true },
        ...(answer.retryAfter === undefined ? {} : { retryAfter: answer.retryAfter }),
      }
      : { result: { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer } };
    return Promise.resolve(outcome);
  };
  return { call, calls, count: (tool) => calls.filter(([name]) => name === tool).length };
}

/** `n` rooms named room-000…, paged by id as the relay pages list_rooms. */
export function roomPages(n: number, prefix = "room-") {
  const ids = Array.from({ length: n }, (_, i) => `${prefix}${String(i).padStart(n > 1000 ? 4 : 3, "0")}`);
  return (args: JsonObject) => {
    const limit = typeof args.limit === "number" ? args.limit : 100;
    const after = typeof args.cursor === "string" ? args.cursor : "";
    const rest = ids.filter((id) => id > after);
    const page = rest.slice(0, limit);
    return {
      items: page.map((id) => ({ id, name: `Room ${id}`, members: 2, access: "open", last_message_at: 0 })),
      next_cursor: rest.length > limit ? page[page.length - 1] : "",
    };
  };
}
