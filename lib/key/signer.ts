// The agent key and everything done with it. The Signer is the one holder of
// the private key bytes in tinyagent: it parses the key from the variable's
// value, derives the public key, makes NIP-98 proofs and signs event
// templates. Everything else holds a Signer, never the key. Every message here
// names the variable and never its value.

import { loadNostr } from "./stack.ts";
import { inKeyRange } from "./curve.ts";
import { AUTH_KIND, authorizationHeader, proofTags } from "./nip98.ts";

/** The public half of the key, in both spellings. */
export interface Identity {
  pubkey: string;
  npub: string;
}

/** An event to sign: the fields the signature covers, except the public key. */
export interface EventTemplate {
  kind: number;
  created_at: number;
  tags: string[][];
  content: string;
}

/** A signed Nostr event. */
export interface SignedEvent extends EventTemplate {
  id: string;
  pubkey: string;
  sig: string;
}

export type SignerResult = { ok: true; signer: Signer } | { ok: false; error: string };

export class Signer {
  readonly #secretKey: Uint8Array;
  #identity: Identity | undefined;
  /** The key's spellings as one case-insensitive pattern, made on first use. */
  #spellings: RegExp | undefined;

  private constructor(secretKey: Uint8Array) {
    this.#secretKey = secretKey;
  }

  /**
   * Reads the value of `variable` as a Nostr private key: 64 hex characters or
   * `nsec1…`. Refuses an unset or empty variable and a literal `${…}`
   * placeholder (Hermes leaves an unset variable in its config as that text).
   * Only an nsec key loads the signing stack (bech32) here.
   */
  static async fromValue(value: string | undefined, variable: string): Promise<SignerResult> {
    const refusal = (why: string): SignerResult => ({ ok: false, error: `${variable} ${why}` });
    if (value === undefined) return refusal("is not set; it must hold the agent's private key");
    const text = value.trim();
    if (text === "") return refusal("is empty; it must hold the agent's private key");
    if (/\$\{[^}]*\}?/.test(text)) {
      // Which host left it is unknown here, so the advice is given per host, each labelled.
      return refusal(
        `holds a literal \${…} placeholder, not a key: the host that started tinyagent did not substitute ` +
          `it. Hermes substitutes it from its environment and ~/.hermes/.env (put ${variable}=<key> there); ` +
          `Claude Code from the environment claude runs in (export ${variable} before starting claude); ` +
          `Claude Desktop substitutes nothing in "env" ('tinyagent config claude-desktop' prints an entry that reads the key from a file)`,
      );
    }
    if (/^["'`]|["'`]$/.test(text)) {
      // A .env file or a host config with the key quoted, quotes kept by whatever read it.
      return refusal(
        `is in quotes: remove the quotes around the key (${variable}=<key>, not ${variable}="<key>")`,
      );
    }
    const secretKey = await decodeKey(text);
    if (!secretKey) return refusal("is not a private key: expected 64 hex characters or an nsec1… key");
    // A range check, not a derivation: the curve loads (and the public key is derived) on first use,
    // after the handshake.
    if (!inKeyRange(secretKey)) return refusal("is not a valid secp256k1 private key");
    return { ok: true, signer: new Signer(secretKey) };
  }

  /** A fresh key, for `keygen`: the signer and the one spelling of the key that is ever printed. */
  static async generate(): Promise<{ signer: Signer; privateKeyHex: string }> {
    const { curve, utils } = await loadNostr();
    const secretKey = curve.generateSecretKey();
    return { signer: new Signer(secretKey), privateKeyHex: utils.bytesToHex(secretKey) };
  }

  /** The public key, derived once. */
  async identity(): Promise<Identity> {
    if (this.#identity) return this.#identity;
    const { curve, nip19 } = await loadNostr();
    const pubkey = curve.getPublicKey(this.#secretKey);
    return this.#identity = { pubkey, npub: nip19.npubEncode(pubkey) };
  }

  /**
   * Whether `value` — a JSON value, read at any depth, keys included — holds this private key, as
   * hex in either case or as its nsec: such a value must go nowhere (not to the relay, not to a log).
   */
  async mentionsKey(value: unknown): Promise<boolean> {
    if (!this.#spellings) {
      const { nip19, utils } = await loadNostr();
      const spellings = `${utils.bytesToHex(this.#secretKey)}|${nip19.nsecEncode(this.#secretKey)}`;
      this.#spellings = new RegExp(spellings, "i");
    }
    const pattern = this.#spellings;
    // Both spellings are over 60 characters: shorter strings cannot hold one.
    const holds = (text: string) => text.length >= 63 && pattern.test(text);
    // Walked with a list, not recursion: a host may nest its arguments thousands deep.
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const item = pending.pop();
      if (typeof item === "string") {
        if (holds(item)) return true;
      } else if (Array.isArray(item)) {
        for (const inner of item) pending.push(inner); // not push(...item): a huge array would overflow
      } else if (item !== null && typeof item === "object") {
        for (const [key, inner] of Object.entries(item)) {
          if (holds(key)) return true;
          pending.push(inner);
        }
      }
    }
    return false;
  }

  /** Loads the signing stack and does the first, expensive curve work, ahead of the first request. */
  async warm(): Promise<void> {
    await this.identity();
  }

  /** Signs a template as it is: kind, timestamp, tags and content untouched. */
  async sign(template: EventTemplate): Promise<SignedEvent> {
    const { curve } = await loadNostr();
    const { kind, created_at, tags, content } = template;
    const { id, pubkey, sig } = await curve.sign({ kind, created_at, tags, content }, this.#secretKey);
    return { id, pubkey, created_at, kind, tags, content, sig };
  }

  /**
   * The `Authorization` header for a request of `body` to `url` (POST unless
   * `method` says otherwise): a fresh kind 27235 proof bound to the URL
   * exactly as sent, the method and the SHA-256 of the exact bytes (when there
   * are any), with a random nonce.
   */
  async authorization(url: string, body: Uint8Array, nowMs = Date.now(), method = "POST"): Promise<string> {
    const { sha2, utils } = await loadNostr();
    const nonce = utils.bytesToHex(crypto.getRandomValues(new Uint8Array(12)));
    const payload = body.length === 0 ? undefined : utils.bytesToHex(sha2.sha256(body));
    const event = await this.sign({
      kind: AUTH_KIND,
      created_at: Math.floor(nowMs / 1000),
      tags: proofTags(url, method, payload, nonce),
      content: "",
    });
    return authorizationHeader(event);
  }
}

/** The key bytes of 64 hex characters or an nsec, or undefined. */
async function decodeKey(text: string): Promise<Uint8Array | undefined> {
  if (/^[0-9a-fA-F]{64}$/.test(text)) {
    return Uint8Array.from(text.match(/../g)!, (pair) => parseInt(pair, 16));
  }
  if (!text.startsWith("nsec1")) return undefined;
  const { nip19 } = await loadNostr();
  try {
    const decoded = nip19.decode(text);
    return decoded.type === "nsec" ? decoded.data : undefined;
  } catch {
    return undefined; // Reported by the caller without the value.
  }
}
