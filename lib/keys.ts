// The agent key: read from one environment variable, hex or nsec, never
// echoed. Every message here names the variable and never its value.

import { nostr } from "./nostr.ts";

/** The order of secp256k1's group: a private key is a scalar in [1, n-1]. */
const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

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
    secretKey = Uint8Array.from(text.match(/../g)!, (pair) => parseInt(pair, 16));
  } else if (text.startsWith("nsec1")) {
    try {
      const decoded = nostr().nip19.decode(text);
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
  // A range check, not a derivation: the first multiplication by G builds noble's precomputed
  // tables (~20 ms), so the public key is derived on first use, after the handshake.
  const scalar = secretKey.reduce((value, byte) => (value << 8n) | BigInt(byte), 0n);
  if (scalar === 0n || scalar >= CURVE_ORDER) {
    return { ok: false, error: `${variable} is not a valid secp256k1 private key` };
  }
  const key = secretKey;
  let pubkey: string | undefined;
  let npub: string | undefined;
  return {
    ok: true,
    key: {
      secretKey,
      get pubkey() {
        return pubkey ??= nostr().pure.getPublicKey(key);
      },
      get npub() {
        return npub ??= nostr().nip19.npubEncode(this.pubkey);
      },
    },
  };
}
