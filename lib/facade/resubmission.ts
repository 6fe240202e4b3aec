// What the signed event goes back to the relay with (facade.md, "Sign and resubmit"): the original
// arguments plus `event`, unless together they would pass the relay's request bound; then `event`
// alone, which the relay judges by itself and ignores the rest for (tinyrelay's mcpWrite), so a
// message as large as the bound allows is still published rather than refused for being sent twice
// over. Pure.

import type { JsonObject } from "../wire/mcp.ts";
import { callBodyBytes, RELAY_BODY_BOUND } from "../relay/request.ts";

/** The second call's arguments: `args` plus `event`, or `event` alone past `bound` bytes. */
export function resubmission(
  name: string,
  args: JsonObject,
  event: JsonObject,
  bound: number = RELAY_BODY_BOUND,
): JsonObject {
  const full = { ...args, event };
  return callBodyBytes(name, full) > bound ? { event } : full;
}

/** Whether a resubmission carried more than the event, so the event alone may still go. */
export function carriesArguments(args: JsonObject): boolean {
  return Object.keys(args).some((key) => key !== "event");
}
