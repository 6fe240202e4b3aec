// The names of the helper's methods (rpc-facts.md section 3), apart from
// their code: the command line needs them to tell `call METHOD` from `call
// TOOL` without loading the helper.

export const RPC_METHODS = [
  "identity",
  "publish",
  "query",
  "subscribe",
  "unsubscribe",
  "request",
  "upload",
  "download",
  "diagnose",
] as const;

export type RpcMethod = (typeof RPC_METHODS)[number];

export function isRpcMethod(name: string): name is RpcMethod {
  return (RPC_METHODS as readonly string[]).includes(name);
}
