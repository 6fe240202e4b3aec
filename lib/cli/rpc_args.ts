// The flags of `tinyagent rpc`, the JSON-lines helper the relay's Hermes
// platform plugin starts, and of `call METHOD`, which runs one of its methods
// once: the relay, the key, what `publish` may sign, and the holds that make
// sense without a host to ask. Pure.

import type { OversightSettings } from "../oversight/settings.ts";
import type { RelayEndpoint } from "../relay/endpoint.ts";
import type { Proxy } from "../transport/tunnel.ts";
import {
  type Flags,
  type HelpCommand,
  kindsFlag,
  parse,
  RELAY_FLAGS,
  relayAndKey,
  timeoutFlag,
  type Topic,
  UsageError,
} from "./flags.ts";
import { OVERSIGHT_FLAGS, oversightFlags } from "./session_args.ts";

/** What `rpc` and `call METHOD` are given. */
export interface RpcSession {
  relay: RelayEndpoint;
  keyEnv: string;
  /** The only kinds `publish` may sign (`--kinds`); undefined: any but authorizations and agent grants. */
  kinds?: number[];
  /** The audit log and the budget; confirmation only under `call`, at the terminal. */
  oversight: OversightSettings;
  /** The bound on each call, waits included. */
  timeoutMs: number;
  /** Set by the main thread from the environment (proxy_settings.ts), not by a flag. */
  proxy?: Proxy;
}

export type RpcCommand = { command: "rpc" } & RpcSession;

/** `call METHOD [JSON]`: one method, its params as the JSON text given (`request` sends its body as written). */
export type MethodCommand = { command: "method"; method: string; params: string; json: boolean } & RpcSession;

/** The flags of the helper. */
export const RPC_FLAGS: Flags = {
  ...RELAY_FLAGS,
  ...OVERSIGHT_FLAGS,
  kinds: { type: "string" },
  timeout: { type: "string" },
};

/** Said when `--max-writes` is given a number that allows nothing. */
const NO_PUBLISHING = "give the key a grant that allows no kind, at the relay";

/** The session's settings; `canAsk`: whether a person can be asked (`call`, at the terminal). */
export function rpcSession(values: Record<string, unknown>, topic: Topic, canAsk: boolean): RpcSession {
  const { relay, keyEnv } = relayAndKey(values, topic);
  const kinds = kindsFlag(values.kinds as string | undefined, topic);
  if (kinds?.length === 0) {
    throw new UsageError(`--kinds: name the kinds publish may sign, such as --kinds 9,12`, topic);
  }
  const oversight = oversightFlags(values, topic, NO_PUBLISHING);
  if (!canAsk && oversight.confirmWrites) {
    throw new UsageError(
      "--confirm-writes cannot work with rpc: the plugin that starts it has no person to ask, so every " +
        "write would wait and then be refused. Hold its writes with --max-writes, --kinds and --audit-log, " +
        "and with the relay grant's rooms, kinds, rate and expiry; 'tinyagent call' asks at the terminal",
      topic,
    );
  }
  if (!canAsk && values["confirm-timeout"] !== undefined) {
    throw new UsageError("--confirm-timeout has nothing to time under rpc, which never asks a person", topic);
  }
  return {
    relay,
    keyEnv,
    ...(kinds === undefined ? {} : { kinds }),
    oversight,
    timeoutMs: timeoutFlag(values.timeout as string | undefined, topic),
  };
}

export function rpcCommand(rest: string[]): RpcCommand | HelpCommand {
  const { values } = parse("rpc", rest, RPC_FLAGS);
  if (values.help) return { command: "help", topic: "rpc" };
  return { command: "rpc", ...rpcSession(values, "rpc", false) };
}
