// What crosses between a program in the sandbox and tinyagent, checked on tinyagent's side. The guest's
// prelude (prelude.ts) hands over a tool name and the JSON text of its arguments, a log line, or the
// program's end; nothing else crosses, and nothing the guest sends is trusted: every value is checked
// here before it is used. Pure.

import { utf8Length } from "../facade/bounds.ts";
import { isWriteTool } from "../facade/tools.ts";
import { RELAY_BODY_BOUND } from "../relay/request.ts";
import { isObject } from "../wire/json.ts";
import type { CallToolResult, JsonObject } from "../wire/mcp.ts";

/** A tool name as a program may call it: `relay.<name>(args)`. */
export const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/**
 * Names that match TOOL_NAME but are never tool calls: reading them on `relay` gives `undefined`, so
 * `await relay` and returning `relay` do not treat it as a promise, and nothing looks like a class.
 */
export const RESERVED_NAMES: readonly string[] = ["then", "catch", "finally", "constructor", "prototype"];

/**
 * The most JSON text one call's arguments may be, in UTF-8 bytes: the relay's own bound for a call, so
 * a program can post what a host can (a 1,000,000-byte message), and nothing the relay would refuse.
 */
export const ARGS_MAX_BYTES = RELAY_BODY_BOUND;

/** The most JSON text one call's answer may be when it enters the program, in UTF-8 bytes. */
export const ANSWER_MAX_BYTES = 4 * 1024 * 1024;

/** The longest idempotency key a write may carry, in characters. */
export const KEY_MAX_CHARS = 200;

/** The most an error message crossing either way may be, in characters. */
export const MESSAGE_MAX_CHARS = 4096;

/** The console methods a program has, each a level of its own. */
export const LOG_LEVELS: readonly string[] = ["log", "info", "warn", "error", "debug"];

/** A relay call as tinyagent makes it: a write may carry the key it is kept under. */
export interface CallRequest {
  tool: string;
  args: JsonObject;
  key?: string;
}

/** A string the guest handed over that was too long to copy out: only its length is known. */
export class Oversized {
  constructor(readonly length: number) {}
}

export type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

/** Whether `name`, read on `relay`, is a tool call (rather than `undefined`). */
export function isToolName(name: string): boolean {
  return TOOL_NAME.test(name) && !RESERVED_NAMES.includes(name);
}

/** A write's idempotency key as the guest hands it over (undefined: none), or why it is refused. */
export function checkKey(tool: string, key: unknown): Checked<string | undefined> {
  if (key === undefined) return { ok: true, value: undefined };
  const said = `relay.${tool}: the idempotencyKey`;
  if (key instanceof Oversized) {
    return { ok: false, message: `${said} is ${key.length} characters, at most ${KEY_MAX_CHARS}` };
  }
  if (typeof key !== "string" || key === "") {
    return { ok: false, message: `${said} must be a non-empty string` };
  }
  if (!isWriteTool(tool)) return { ok: false, message: `${said} is for a write, and ${tool} is not one` };
  return { ok: true, value: key };
}

/**
 * One relay call as the guest hands it over: the tool's name, the JSON text of its arguments
 * (`undefined` when the program passed none, which means `{}`), and a write's key.
 */
export function checkCall(name: unknown, argsText: unknown, key?: unknown): Checked<CallRequest> {
  if (typeof name !== "string" || !isToolName(name)) {
    const shown = typeof name === "string"
      ? JSON.stringify(name.slice(0, 80))
      : name instanceof Oversized
      ? `a name of ${name.length} characters`
      : typeof name;
    return { ok: false, message: `not a tool name: ${shown} (a tool name matches ${TOOL_NAME.source})` };
  }
  const keyed = checkKey(name, key);
  if (!keyed.ok) return keyed;
  const withKey = keyed.value === undefined ? {} : { key: keyed.value };
  if (argsText === undefined) return { ok: true, value: { tool: name, args: {}, ...withKey } };
  if (argsText instanceof Oversized) {
    return {
      ok: false,
      message: `relay.${name}: the arguments are too large (${argsText.length} characters of JSON, ` +
        `at most ${ARGS_MAX_BYTES} bytes)`,
    };
  }
  if (typeof argsText !== "string") {
    return { ok: false, message: `relay.${name}: the arguments must be an object` };
  }
  const bytes = argsText.length > ARGS_MAX_BYTES ? argsText.length : utf8Length(argsText);
  if (bytes > ARGS_MAX_BYTES) {
    return {
      ok: false,
      message:
        `relay.${name}: the arguments are too large (${bytes} bytes of JSON, at most ${ARGS_MAX_BYTES})`,
    };
  }
  let args: unknown;
  try {
    args = JSON.parse(argsText);
  } catch {
    return { ok: false, message: `relay.${name}: the arguments are not JSON` };
  }
  if (!isObject(args)) {
    const kind = args === null ? "null" : Array.isArray(args) ? "an array" : typeof args;
    return { ok: false, message: `relay.${name}: the arguments must be an object, not ${kind}` };
  }
  return { ok: true, value: { tool: name, args, ...withKey } };
}

/**
 * A call's answer as JSON text for the program (`undefined` stays `undefined`), or why it cannot
 * enter: not JSON, or larger than ANSWER_MAX_BYTES.
 */
export function answerText(tool: string, value: unknown): Checked<string | undefined> {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return { ok: false, message: `relay.${tool}: its answer is not JSON (${messageOf(error)})` };
  }
  if (text === undefined) return { ok: true, value: undefined };
  const bytes = text.length > ANSWER_MAX_BYTES ? text.length : utf8Length(text);
  if (bytes > ANSWER_MAX_BYTES) {
    return {
      ok: false,
      message:
        `relay.${tool}: its answer is too large for a program (${bytes} bytes, at most ${ANSWER_MAX_BYTES})`,
    };
  }
  return { ok: true, value: text };
}

/** A result's text blocks, joined: what a failed call's Error says, or a text-only answer's value. */
export function textOf(result: CallToolResult): string {
  return result.content.filter((block) => block.type === "text").map((block) => String(block.text)).join(
    "\n",
  );
}

/** A tool's answer as a program sees it: its structuredContent, or its text when it has none. */
export function programValue(result: CallToolResult): unknown {
  return result.structuredContent ?? textOf(result);
}

/** The message a program sees for an answer its memory has no room left for. */
export function noRoomMessage(tool: string, length: number): string {
  return `relay.${tool}: its answer (${length} characters) does not fit in the memory the program has left`;
}

/** The message a program sees for a failed call: the error's own message, bounded. */
export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.length > MESSAGE_MAX_CHARS ? `${text.slice(0, MESSAGE_MAX_CHARS)}…` : text;
}

/** A log line as the guest hands it over: a known level and a string no longer than `maxChars`. */
export function checkLog(
  level: unknown,
  text: unknown,
  maxChars: number,
): Checked<{ level: string; text: string }> {
  if (typeof level !== "string" || !LOG_LEVELS.includes(level)) {
    return { ok: false, message: "not a log level" };
  }
  if (typeof text !== "string" || text.length > maxChars) return { ok: false, message: "not a log line" };
  return { ok: true, value: { level, text } };
}

/** How a program's run() ended, as the guest reports it. */
export type GuestEnd =
  | { kind: "value"; json: string; length: number }
  | { kind: "undefined" }
  | { kind: "unserializable"; message: string }
  | { kind: "threw"; name: string; message: string; text: string };

/** The guest's report of run()'s end, from its fields as read (anything malformed is said as such). */
export function checkEnd(fields: Record<string, unknown>): Checked<GuestEnd> {
  const { kind, json, length, name, message, text } = fields;
  const str = (value: unknown) => typeof value === "string" ? value : "";
  if (kind === "value" && typeof json === "string" && typeof length === "number" && length >= json.length) {
    return { ok: true, value: { kind, json, length } };
  }
  if (kind === "undefined") return { ok: true, value: { kind } };
  if (kind === "unserializable") return { ok: true, value: { kind, message: str(message) } };
  if (kind === "threw") {
    return { ok: true, value: { kind, name: str(name), message: str(message), text: str(text) } };
  }
  return { ok: false, message: "the program's end could not be read" };
}
