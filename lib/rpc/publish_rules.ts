// What `publish` will sign (rpc-facts.md 3.2, narrowed): the event as given,
// its timestamp filled when absent, but never an authorization (tinyagent
// signs its own AUTH and NIP-98 proofs, and nothing else of those kinds), never
// an agent grant, and with `--kinds` only those kinds. Pure.

import { AUTHORIZATION_KINDS } from "../facade/signing_rules.ts";
import type { EventTemplate } from "../key/signer.ts";
import type { EventInput } from "./params.ts";

/** An agent grant: what the person granting access signs, never the agent. */
export const AGENT_GRANT_KIND = 30392;

/** Why `kind` is not signed, or undefined when it may be. `kinds`: the `--kinds` list, if given. */
export function publishRefusal(kind: number, kinds?: readonly number[]): string | undefined {
  if (AUTHORIZATION_KINDS.includes(kind)) {
    return `publish: refused to sign a kind ${kind} event: it is an authorization, not a publication ` +
      `(tinyagent signs its own AUTH and NIP-98 proofs); nothing was signed`;
  }
  if (kind === AGENT_GRANT_KIND) {
    return `publish: refused to sign a kind ${kind} event: it is an agent grant, which the person granting ` +
      `access signs, never the agent; nothing was signed`;
  }
  if (kinds !== undefined && !kinds.includes(kind)) {
    return `publish: kind ${kind} is not one this helper may sign (--kinds ${
      kinds.join(",")
    }); nothing was signed`;
  }
  return undefined;
}

/** The event to sign: as given, `created_at` filled with `nowSeconds` when absent. */
export function eventToPublish(input: EventInput, nowSeconds: number): EventTemplate {
  return {
    kind: input.kind,
    created_at: input.created_at ?? nowSeconds,
    tags: input.tags,
    content: input.content,
  };
}
