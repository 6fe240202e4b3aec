// The agent key: read from one environment variable, hex or nsec, never
// echoed. Every message here names the variable and never its value.

import { getPublicKey } from "nostr-tools/pure";
import * as nip19 from "nostr-tools/nip19";
import { hexToBytes } from "@noble/hashes/utils.js";

export interface AgentKey {
  secretKey: Uint8Array;
  pubkey: string;
  npub: string;
}

export type KeyResult = { ok: true; key: AgentKey } | { ok: false; error: string };

/**
 * Parses the value of `variable` as a Nostr private key: 64 hex characters or
 * `nsec1…`. Refuses an unset or empty variable and a literal `${…}`
 * placeholder (Hermes leaves an unset variable in its config as that text).
 */
export function parseKey(value: string | undefined, variable: string): KeyResult {
  if (value === undefined) {
    return { ok: false, error: `${variable} is not set; it must hold the agent's private key` };
  }
  const text = value.trim();
  if (text === "") return { ok: false, error: `${variable} is empty; it must hold the agent's private key` };
  if (/\$\{[^}]*\}?/.test(text)) {
    return {
      ok: false,
      error: `${variable} holds a literal \${…} placeholder, not a key: the host did not find the variable ` +
        `(for Hermes, put ${variable}=<key> in ~/.hermes/.env)`,
    };
  }
  let secretKey: Uint8Array | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    secretKey = hexToBytes(text.toLowerCase());
  } else if (text.startsWith("nsec1")) {
    try {
      const decoded = nip19.decode(text);
      if (decoded.type === "nsec") secretKey = decoded.data;
    } catch {
      // Reported below without the value.
    }
  }
  if (!secretKey) {
    return {
      ok: false,
      error: `${variable} is not a private key: expected 64 hex characters or an nsec1… key`,
    };
  }
  let pubkey: string;
  try {
    pubkey = getPublicKey(secretKey);
  } catch {
    return { ok: false, error: `${variable} is not a valid secp256k1 private key` };
  }
  return { ok: true, key: { secretKey, pubkey, npub: nip19.npubEncode(pubkey) } };
}
