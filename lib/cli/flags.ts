// The pieces every command's flags are made of: the strict parser, the
// `--relay`, `--key-env`, `--timeout`, `--audit-log`, `--max-writes` and
// `--kinds` checks, and the usage error that never echoes a key. Pure.

import { parseRelayUrl, type RelayEndpoint } from "../relay/endpoint.ts";

export const DEFAULT_KEY_ENV = "TINY_PRIVATE_KEY";
export const DEFAULT_TIMEOUT_SECONDS = 120;

/** A command's help (usage.ts), or the main one. */
export type Topic =
  | "main"
  | "mcp"
  | "rpc"
  | "tools"
  | "call"
  | "config"
  | "diagnose"
  | "keygen"
  | "whoami"
  | "sandbox-check";

/** What a private key looks like when pasted where it does not belong: 64 hex characters, or an nsec. */
const KEY_SHAPES = /[0-9a-fA-F]{64}|nsec1[02-9ac-hj-np-z]{20,}/gi;

/** `text` with anything shaped like a private key replaced, so no error can echo a key a user typed. */
export function redactKeys(text: string): string {
  return text.replace(KEY_SHAPES, "<a private key, not shown>");
}

/** `--help` for a command, or the main help. */
export interface HelpCommand {
  command: "help";
  topic: Topic;
}

export class UsageError extends Error {
  constructor(message: string, readonly topic: Topic) {
    super(redactKeys(message));
  }
}

/** A comma list, items trimmed, blanks dropped; undefined when the flag is absent. */
export function list(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value.split(",").map((item) => item.trim()).filter((item) => item !== "");
}

/**
 * The `--key-env` name. A value that looks like a key (the easiest mistake:
 * the key pasted instead of its variable's name) or is no plausible variable
 * name is refused without being echoed: the line would land in the host's log.
 */
export function keyEnvName(value: string | undefined, topic: Topic): string {
  const name = value ?? DEFAULT_KEY_ENV;
  const trimmed = name.trim();
  if (/^[0-9a-fA-F]{32,}$/.test(trimmed) || /^nsec1/i.test(trimmed) || redactKeys(trimmed) !== trimmed) {
    throw new UsageError(
      `--key-env takes the name of the variable that holds the key (such as ${DEFAULT_KEY_ENV}), not the key ` +
        `itself; what was given looks like a key and is not shown: put it in a variable and name that`,
      topic,
    );
  }
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name)) {
    throw new UsageError(
      `--key-env: not an environment variable name (letters, digits and _, not starting with a digit); ` +
        `the value is not shown`,
      topic,
    );
  }
  return name;
}

/** A number of seconds above 0 and at most an hour, as milliseconds. */
export function secondsFlag(
  flag: string,
  value: string | undefined,
  fallbackSeconds: number,
  topic: Topic,
): number {
  if (value === undefined) return fallbackSeconds * 1000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || !(seconds > 0) || seconds > 3600) {
    throw new UsageError(`${flag}: give a number of seconds above 0 and at most 3600`, topic);
  }
  return Math.round(seconds * 1000);
}

export function timeoutFlag(value: string | undefined, topic: Topic): number {
  return secondsFlag("--timeout", value, DEFAULT_TIMEOUT_SECONDS, topic);
}

/** The most writes `--max-writes` may allow: past this, leave the flag out. */
export const MAX_WRITES_LIMIT = 1_000_000;

/** `--max-writes N`: a whole number from 1 to the limit; `none` says how to allow no write at all. */
export function maxWritesFlag(value: string | undefined, topic: Topic, none: string): number | undefined {
  if (value === undefined) return undefined;
  const max = Number(value);
  if (!/^\d+$/.test(value) || max < 1 || max > MAX_WRITES_LIMIT) {
    throw new UsageError(
      `--max-writes: give a whole number of writes from 1 to ${MAX_WRITES_LIMIT} (to allow none, ${none})`,
      topic,
    );
  }
  return max;
}

/**
 * `--audit-log FILE`: a path as given. A host passes `~` literally (no shell expands it), so a path
 * starting with it would name a folder called `~`: refused with what to write instead.
 */
export function auditLogFlag(value: string | undefined, topic: Topic): string | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "") throw new UsageError("--audit-log: give the path of the file to append to", topic);
  if (value.includes("\0")) throw new UsageError("--audit-log: the path holds a NUL character", topic);
  // The path is said on the startup line and in the host's log: nothing shaped like a key goes there.
  if (redactKeys(value) !== value) {
    throw new UsageError("--audit-log: the path looks like it holds a private key, and is not shown", topic);
  }
  if (/^~(?:[\\/]|$)/.test(value)) {
    throw new UsageError(
      "--audit-log: a path starting with ~ is not expanded when a host starts tinyagent; give the full path " +
        "(such as /home/you/.tinyagent/audit.jsonl)",
      topic,
    );
  }
  return value;
}

/** `--kinds a,b`: event kinds, each 0-65535. */
export function kindsFlag(value: string | undefined, topic: Topic): number[] | undefined {
  return list(value)?.map((item) => {
    const kind = Number(item);
    if (!/^\d+$/.test(item) || kind > 65535) {
      throw new UsageError(`--kinds: ${JSON.stringify(item)} is not an event kind (0-65535)`, topic);
    }
    return kind;
  });
}

function relayFlag(value: string | undefined, topic: Topic): RelayEndpoint {
  if (value === undefined) throw new UsageError("--relay URL is required", topic);
  const parsed = parseRelayUrl(value);
  if (!parsed.ok) throw new UsageError(parsed.error, topic);
  return parsed.endpoint;
}

/**
 * A boolean flag is given bare (`--allow-writes`) or with its value (`--allow-writes=true`,
 * `--allow-writes=false`): a bundle or a catalog substitutes a setting's value into one argument.
 */
export type Flags = Record<string, { type: "string" | "boolean" }>;

/** The flags of every command that talks to a relay. */
export const RELAY_FLAGS: Flags = { relay: { type: "string" }, "key-env": { type: "string" } };

/** `--relay` and `--key-env`, checked, in that order. */
export function relayAndKey(
  values: Record<string, unknown>,
  topic: Topic,
): { relay: RelayEndpoint; keyEnv: string } {
  return {
    relay: relayFlag(values.relay as string | undefined, topic),
    keyEnv: keyEnvName(values["key-env"] as string | undefined, topic),
  };
}

/**
 * A strict flag parser: `--name value`, `--name=value`, boolean `--flag`, `-h`/`--help`. Hand-written
 * because node:util costs ~5 ms of start-up (the Node compatibility layer) for one function.
 */
export function parse(
  topic: Topic,
  args: string[],
  options: Flags,
  maxPositionals = 0,
): { values: Record<string, unknown>; positionals: string[] } {
  const values: Record<string, unknown> = {};
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "-h" || arg === "--help") {
      values.help = true;
      continue;
    }
    if (!arg.startsWith("-") && positionals.length < maxPositionals) {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") {
      throw new UsageError(`unexpected argument '${arg}'`, topic);
    }
    const eq = arg.indexOf("=");
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const option = Object.hasOwn(options, name) ? options[name] : undefined;
    if (!option) throw new UsageError(`unknown flag '--${name}'`, topic);
    if (option.type === "boolean") {
      const given = eq === -1 ? "true" : arg.slice(eq + 1);
      if (given !== "true" && given !== "false") {
        throw new UsageError(
          `flag '--${name}' is given bare, or as --${name}=true or --${name}=false`,
          topic,
        );
      }
      values[name] = given === "true";
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = args[++i];
      if (value === undefined) throw new UsageError(`flag '--${name} <value>' needs a value`, topic);
      if (value.startsWith("-")) {
        throw new UsageError(`flag '--${name} <value>' argument is ambiguous: use --${name}=${value}`, topic);
      }
    }
    values[name] = value;
  }
  return { values, positionals };
}
