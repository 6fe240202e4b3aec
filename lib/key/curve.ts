// secp256k1 for Nostr (BIP-340 signatures over NIP-01 event ids), from one of two implementations:
// libsecp256k1 built to WebAssembly (nostr-tools' `wasm` entry on nostr-wasm, its WASM embedded in
// the module, so it loads with no read permission; the gzipped form, whose smaller text parses and
// decodes in about half the time of the plain one, its base64 decoded by the runtime: fast_atob.ts),
// 2-2.5x faster than noble's JavaScript and with no
// tables to build at start; or, when the WASM cannot load, noble through nostr-tools' `pure` entry,
// said once. The WASM's memory is fixed and too small for events near the websocket's 1 MiB bound
// (native_bound.ts): those are signed and checked by noble, loaded the first time one comes, so an
// answer is sync for every other event. Neither checks an event's shape: verify.ts does, first.

import { fitsNative, isOutOfMemory, NATIVE_MAX_BYTES } from "./native_bound.ts";
import { withFastAtob } from "./fast_atob.ts";

/** An event to sign: what the id covers, except the public key. */
export interface Template {
  kind: number;
  created_at: number;
  tags: string[][];
  content: string;
}

/** The fields a signature adds. */
export interface Signature {
  id: string;
  pubkey: string;
  sig: string;
}

export interface Curve {
  /** libsecp256k1 (WebAssembly), or false for the JavaScript fallback. */
  readonly native: boolean;
  /** A fresh private key in [1, n-1]. */
  generateSecretKey(): Uint8Array;
  /** The x-only public key, lowercase hex. */
  getPublicKey(secretKey: Uint8Array): string;
  /** The signature; a promise only while the JavaScript curve an event too large for the WASM needs loads. */
  sign(template: Template, secretKey: Uint8Array): Signature | Promise<Signature>;
  /** Whether id and sig hold for the event's fields (a promise as for sign); never rejects. */
  verify(event: Template & Signature): boolean | Promise<boolean>;
}

type Wasm = typeof import("nostr-tools/wasm");
type Pure = typeof import("nostr-tools/pure");
/** nostr-wasm itself: its check throws, saying why, where nostr-tools' answers false for any failure. */
type Library = Parameters<Wasm["setNostrWasm"]>[0];

/** How the two are loaded; tests replace them. */
export interface CurveSources {
  wasm(): Promise<{ tools: Wasm; init: () => Promise<Library> }>;
  pure(): Promise<Pure>;
  /** One line on stderr: the fallback, or what the native library printed. */
  warn(line: string): void;
}

const DEFAULT_SOURCES: CurveSources = {
  wasm: async () => {
    const [tools, { initNostrWasm }] = await Promise.all([
      import("nostr-tools/wasm"),
      import("nostr-wasm/gzipped"),
    ]);
    return { tools, init: () => withFastAtob(initNostrWasm) };
  },
  pure: () => import("nostr-tools/pure"),
  warn: (line) => console.error(`tinyagent: ${line}`),
};

/** The order of secp256k1's group: a private key is a scalar in [1, n-1]. */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export function inKeyRange(secretKey: Uint8Array): boolean {
  const scalar = secretKey.reduce((acc, byte) => (acc << 8n) | BigInt(byte), 0n);
  return secretKey.length === 32 && scalar > 0n && scalar < CURVE_ORDER;
}

/**
 * What the native library writes (libsecp256k1's illegal-argument callback goes to console.error, and
 * anything on its stdout to console.debug, which is tinyagent's stdout) made one stderr line instead,
 * with anything shaped like a key taken out. Its calls are synchronous, so swapping the console for
 * their duration catches exactly their output.
 */
export function quietly<T>(work: () => T, warn: (line: string) => void): T {
  const { error, debug, log, info, warn: consoleWarn } = console;
  const said: string[] = [];
  const keep = (...parts: unknown[]) => void said.push(parts.map(String).join(" "));
  console.error =
    console.debug =
    console.log =
    console.info =
    console.warn =
      keep;
  try {
    return work();
  } finally {
    Object.assign(console, { error, debug, log, info, warn: consoleWarn });
    if (said.length > 0) warn(`the signing library said: ${redacted(said.join(" | "))}`);
  }
}

/** Text with every long hex run and bech32 key replaced: a library's words never carry key material. */
export function redacted(text: string): string {
  return text.replace(/[0-9a-f]{32,}/gi, "[hex]").replace(/\b(?:nsec|npub)1[02-9ac-hj-np-z]+/gi, "[key]")
    .replace(/[\p{Cc}\p{Cf}]/gu, " ").slice(0, 300);
}

/**
 * The seven fields alone, in a fresh object: nostr-tools marks the object it verified and trusts that
 * mark next time (a symbol, which a spread would copy), so it never sees the caller's object.
 */
function fieldsOf(event: Template & Signature): Template & Signature {
  const { id, pubkey, created_at, kind, tags, content, sig } = event;
  return { id, pubkey, created_at, kind, tags, content, sig };
}

/** The JavaScript curve for events the WASM cannot hold, loaded once, on the first such event. */
type Large = () => Promise<Curve>;

/** `work` on the loaded JavaScript curve: at once when it is, else once it has loaded. */
function onLarge<T>(large: { curve?: Curve; load: Large }, work: (curve: Curve) => T | Promise<T>) {
  return large.curve ? work(large.curve) : large.load().then(work);
}

function nativeCurve(tools: Wasm, library: Library, load: Large, warn: (line: string) => void): Curve {
  const large: { curve?: Curve; load: Large } = {
    load: () =>
      load().then((curve) => large.curve = curve, (error) => {
        const why = redacted(String((error as Error)?.message ?? error).split("\n")[0]);
        throw new Error(
          `the JavaScript signer, needed for an event over ${NATIVE_MAX_BYTES} bytes, could not load: ${why}`,
        );
      }),
  };
  return {
    native: true,
    generateSecretKey: () => {
      for (;;) {
        const key = crypto.getRandomValues(new Uint8Array(32));
        if (inKeyRange(key)) return key;
      }
    },
    getPublicKey: (secretKey) => quietly(() => tools.getPublicKey(secretKey), warn),
    sign: (template, secretKey) => {
      const byLarge = () => onLarge(large, (curve) => curve.sign(template, secretKey));
      if (!fitsNative(template)) return byLarge();
      try {
        const event = quietly(() => tools.finalizeEvent({ ...template }, secretKey), warn);
        return { id: event.id, pubkey: event.pubkey, sig: event.sig };
      } catch (error) {
        if (isOutOfMemory(error)) return byLarge(); // never expected below the bound; never a failure
        throw error;
      }
    },
    verify: (event) => {
      const byLarge = () => onLarge(large, (curve) => curve.verify(event));
      if (!fitsNative(event)) return byLarge();
      try {
        quietly(() => library.verifyEvent(fieldsOf(event)), warn);
        return true;
      } catch (error) {
        // A check the WASM could not make is no verdict: it is made again in JavaScript.
        return isOutOfMemory(error) ? byLarge() : false;
      }
    },
  };
}

function pureCurve(tools: Pure): Curve {
  return {
    native: false,
    generateSecretKey: () => tools.generateSecretKey(),
    getPublicKey: (secretKey) => tools.getPublicKey(secretKey),
    sign: (template, secretKey) => {
      const event = tools.finalizeEvent({ ...template }, secretKey);
      return { id: event.id, pubkey: event.pubkey, sig: event.sig };
    },
    verify: (event) => {
      try {
        return tools.verifyEvent(fieldsOf(event));
      } catch {
        return false; // a malformed signature or key, such as a point that is not on the curve
      }
    },
  };
}

/**
 * The native curve, or the JavaScript one when the WASM cannot load or start (said once, with why).
 * Rejects only when neither loads: that error is the fallback's.
 */
export async function loadCurve(sources: CurveSources = DEFAULT_SOURCES): Promise<Curve> {
  let pure: Promise<Curve> | undefined;
  const loadPure = () =>
    pure ??= sources.pure().then(pureCurve, (error) => {
      pure = undefined; // tried again by the next event that needs it
      throw error;
    });
  try {
    const { tools, init } = await sources.wasm();
    // Decoding and compiling the embedded WASM prints nothing; only the calls above are kept quiet.
    const library = await init();
    tools.setNostrWasm(library);
    return nativeCurve(tools, library, loadPure, sources.warn);
  } catch (error) {
    const why = redacted((error instanceof Error ? error.message : String(error)).split("\n")[0]);
    sources.warn(
      `the native signer (libsecp256k1 in WebAssembly) could not load (${why}); ` +
        "signing and checking signatures in JavaScript instead, about half as fast",
    );
    return await loadPure();
  }
}
