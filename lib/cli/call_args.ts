// `tinyagent call NAME [JSON]`: one MCP tool as `mcp` would call it for a
// host, or, when NAME is one of the helper's methods (identity, publish,
// query, …), that method as `rpc` would run it, as the Go peer's `call` does.
// The two sets of names cannot collide. Pure.

import { isObject } from "../wire/json.ts";
import type { JsonObject } from "../wire/mcp.ts";
import { isRpcMethod } from "../rpc/method_names.ts";
import { type HelpCommand, parse, UsageError } from "./flags.ts";
import { type MethodCommand, RPC_FLAGS, rpcSession } from "./rpc_args.ts";
import { SESSION_FLAGS, type ToolSession, toolSession } from "./session_args.ts";

export type CallCommand =
  & { command: "call"; tool: string; arguments: JsonObject; json: boolean }
  & ToolSession;

/** `call`'s arguments: one JSON object, `{}` when none is given. */
function callArguments(text: string | undefined): JsonObject {
  if (text === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Where the parser stopped, never what it read: its message quotes the text, which may hold a key.
    const at = /at position (\d+)/.exec((error as Error).message)?.[1];
    throw new UsageError(`call: the arguments are not JSON${at ? ` (at position ${at})` : ""}`, "call");
  }
  if (!isObject(value)) {
    throw new UsageError(`call: the arguments must be one JSON object, such as '{"limit": 5}'`, "call");
  }
  return value;
}

/** A flag given that the other kind of call has no use for: said, never silently dropped. */
function refuseFlags(values: Record<string, unknown>, flags: string[], why: string): void {
  const given = flags.find((flag) => values[flag] !== undefined);
  if (given !== undefined) throw new UsageError(`call: --${given} ${why}`, "call");
}

export function callCommand(rest: string[]): CallCommand | MethodCommand | HelpCommand {
  const { values, positionals } = parse("call", rest, {
    ...SESSION_FLAGS,
    ...RPC_FLAGS,
    json: { type: "boolean" },
  }, 2);
  if (values.help) return { command: "help", topic: "call" };
  const [name, args] = positionals;
  if (!name) {
    throw new UsageError(
      "call: name the tool to call, such as list_rooms, or a method, such as identity",
      "call",
    );
  }
  const json = values.json === true;
  if (!isRpcMethod(name)) {
    refuseFlags(values, ["kinds"], `narrows what the method publish signs; ${name} is an MCP tool`);
    return {
      command: "call",
      ...toolSession(values, "call"),
      tool: name,
      arguments: callArguments(args),
      json,
    };
  }
  if (name === "subscribe") {
    throw new UsageError(
      "call: subscribe streams events until it is stopped: run it under 'tinyagent rpc'",
      "call",
    );
  }
  refuseFlags(values, ["tools", "allow-writes"], `is for the relay's MCP tools; ${name} is a method of rpc`);
  callArguments(args);
  return { command: "method", method: name, params: args ?? "{}", json, ...rpcSession(values, "call", true) };
}
